#ifndef FABRIC_COLLECTIVE_PLAN_H
#define FABRIC_COLLECTIVE_PLAN_H

#include "ns3/nstime.h"

#include <cstdint>
#include <string>
#include <vector>

/**
 * \file
 * A collective as a dependency graph of transfers (docs/models.md#traffic-resource-model).
 *
 * A transfer moves one byte range [byteBegin, byteEnd) of the rank's gradient (M bytes) from
 * rank src to rank dst, and is one reliable RoCE message (RDMA WRITE) between the ranks' hosts.
 * It may start when every transfer it depends on has completed and both ranks are ready, plus
 * the per-round launch cost. What it does to the data when it completes:
 *   REDUCE  dst[range] += payload        (ReduceScatter rounds)
 *   COPY    dst[range]  = payload        (AllGather rounds)
 *   STASH   payload kept for the next hop (first hop of a relay through a neighbour GPU)
 * The payload is a snapshot of src[range] taken when the transfer starts (or, for the second
 * hop of a relay, the first hop's stashed payload). A JOIN carries nothing: it completes when
 * its dependencies have, and stands for a transfer that was split (relay) so that its
 * dependents keep their edges.
 *
 * Byte ranges map to the engine's small value vector (N float32 per rank) by
 * element(b) = b * N / M, a monotone map, so every partition of the bytes is a partition of the
 * elements and the reduction stays exact however the message is chunked.
 */

namespace ns3
{

enum class CollectiveOp : uint8_t
{
    REDUCE,
    COPY,
    STASH,
    NONE
};

struct CollectiveTransfer
{
    uint32_t id = 0;
    uint32_t src = 0; ///< rank
    uint32_t dst = 0; ///< rank
    uint64_t byteBegin = 0;
    uint64_t byteEnd = 0;
    CollectiveOp op = CollectiveOp::REDUCE;
    uint32_t step = 0; ///< round of the algorithm (timeline, collective.csv)
    std::string phase; ///< "rs", "ag", "inter-rs", "inter-ag", "relay", "sharp", ...
    std::vector<uint32_t> deps;
    bool join = false;
    int32_t stashFrom = -1;  ///< relay second hop: payload from this transfer's stash
    bool sharp = false;      ///< in-network: src sends to its aggregation tree, dst = src
    uint16_t sharpGroup = 0; ///< in-network: the aggregation tree (members: same group, step)
    int32_t nicPort = -1;    ///< SplitOverNicPorts: the NIC port (index) it is bound to; -1: hash

    uint64_t Bytes() const
    {
        return byteEnd - byteBegin;
    }

    /// Whether it moves data on the fabric (a flow, or a SHARP reduction); JOINs and empty
    /// ranges complete by themselves.
    bool OnNetwork() const
    {
        return !join && (sharp || Bytes() > 0);
    }
};

/// What an algorithm needs to know about the job: ranks, their servers, the message.
struct CollectiveJob
{
    uint32_t ranks = 0;
    uint32_t gpusPerServer = 8;
    std::vector<uint32_t> serverOfRank; ///< size ranks
    std::vector<uint32_t> localOfRank;  ///< GPU index within its server
    uint64_t messageBytes = 0;          ///< M: the gradient per rank
    uint32_t Servers() const;
    /// The rank on server \p s with local index \p g (UINT32_MAX when none).
    uint32_t RankAt(uint32_t s, uint32_t g) const;
};

/// A relay for a rank whose NIC failed: its inter-server traffic goes over NVLink to the NICs of
/// the named neighbour ranks (same server), \p shares of the bytes each. A healthy rank may
/// spread its traffic the same way (FuseLink-style, "Datacenter networks", chapter 7, §7.2.4):
/// a helper equal to the rank itself is its own NIC (no NVLink hop on that side). \p chunks > 1
/// pipelines each relayed share: it moves in that many pieces, each hop (NVLink, NIC, NVLink)
/// taking the pieces one after another, so one piece's NIC hop overlaps the next piece's NVLink
/// hop instead of waiting for the whole share.
struct NicFailure
{
    uint32_t rank = 0;
    std::vector<uint32_t> helpers;
    std::vector<double> shares;
    uint32_t chunks = 1;
};

class CollectivePlan
{
  public:
    explicit CollectivePlan(const CollectiveJob& job)
        : m_job(job)
    {
    }

    const CollectiveJob& Job() const
    {
        return m_job;
    }

    std::vector<CollectiveTransfer>& Transfers()
    {
        return m_transfers;
    }

    const std::vector<CollectiveTransfer>& Transfers() const
    {
        return m_transfers;
    }

    uint32_t Add(CollectiveTransfer t);
    uint32_t AddJoin(std::vector<uint32_t> deps, uint32_t step, const std::string& phase);
    /// By transfer: the transfers that depend on it.
    std::vector<std::vector<uint32_t>> Dependents() const;

    /// Byte range of chunk \p c of \p n equal chunks of [begin, end).
    static std::pair<uint64_t, uint64_t> Chunk(uint64_t begin,
                                               uint64_t end,
                                               uint32_t c,
                                               uint32_t n);

    /**
     * A ring over \p ranks (in ring order): ReduceScatter and/or AllGather. \p ranges[j] is the
     * byte range of ring label j; after the ReduceScatter, position k holds label (k+1) mod n
     * fully reduced. \p frontier[k] on entry: what position k's first send waits for; on exit:
     * the transfers after which position k's part is done. Steps are numbered from \p step on,
     * which is advanced.
     */
    void AddRing(const std::vector<uint32_t>& ranks,
                 const std::vector<std::pair<uint64_t, uint64_t>>& ranges,
                 bool reduceScatter,
                 bool allGather,
                 std::vector<std::vector<uint32_t>>& frontier,
                 uint32_t& step,
                 const std::string& phase);

    /// Splits every inter-server transfer to or from a failed-NIC rank into relays through the
    /// helpers' NICs (NVLink hop + NIC hop), the original becoming a JOIN.
    void ApplyNicFailures(const std::vector<NicFailure>& failures);

    /// Divides every inter-server transfer into \p ports equal byte ranges, range j bound to
    /// port j of the NICs (nicPort = j), the original becoming a JOIN of them: the data of one
    /// transfer goes out through several ports of a NIC at once (docs/models.md#shared-interface).
    /// Relay hops whose payload is a stash are left whole. 0 or 1 port: nothing is divided; 1
    /// binds every inter-server transfer to port 0.
    void SplitOverNicPorts(uint32_t ports);

  private:
    CollectiveJob m_job;
    std::vector<CollectiveTransfer> m_transfers;
};

} // namespace ns3

#endif
