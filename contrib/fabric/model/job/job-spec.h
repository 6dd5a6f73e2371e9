#ifndef FABRIC_JOB_SPEC_H
#define FABRIC_JOB_SPEC_H

#include "collective/collective-plan.h"

#include "ns3/nstime.h"

#include <cstdint>
#include <map>
#include <string>
#include <vector>

/**
 * \file
 * A training or inference job as the fabric sees it (docs/models.md#job-timelines): ranks on
 * hosts, parallel groups from a layout, and one step as a list of phases with dependencies,
 * repeated for several steps ("Datacenter networks", chapter 7, §7.6).
 *
 * Layout: ranks = TP x EP x DP x PP, rank = t + TP*(e + EP*(d + DP*p)) (tensor parallel
 * fastest, so a TP group is one server's GPUs when TP equals the GPUs per server). A group
 * kind names the ranks that differ only in that coordinate: group "dp" of rank r is every
 * rank with r's t, e and p. "all" is every rank of the job.
 */

namespace ns3
{

enum class JobPhaseKind : uint8_t
{
    COMPUTE,    ///< a rank computes for a duration (compute stream)
    UPDATE,     ///< optimizer update, a duration (compute stream)
    COLLECTIVE, ///< an AllReduce on each group, packet level (communication stream)
    P2P,        ///< one transfer per group, position `from` to position `to` (communication)
    ALL_TO_ALL  ///< every sender to every receiver of each group at once: expert-parallel
                ///< dispatch and combine ("Datacenter networks", chapter 7, §7.2.3)
};

const char* JobPhaseKindName(JobPhaseKind kind);

/// Compute and update share a rank's compute stream; collectives and transfers its
/// communication stream. A stream runs its phases one at a time, in the order listed.
inline bool
IsCommunication(JobPhaseKind kind)
{
    return kind == JobPhaseKind::COLLECTIVE || kind == JobPhaseKind::P2P ||
           kind == JobPhaseKind::ALL_TO_ALL;
}

struct JobPhaseSpec
{
    std::string name;
    JobPhaseKind kind = JobPhaseKind::COMPUTE;
    Time duration;                  ///< compute, update
    std::string group = "all";      ///< collective, p2p: tp, ep, dp, pp or all
    std::string algorithm;          ///< collective: CollectiveAlgorithm TypeId name
    std::string ringOrder = "flat"; ///< collective: ns3::RingAllReduce::Order
    /// collective: gradient per rank; p2p: the message; all_to_all: per (sender, receiver)
    uint64_t bytes = 0;
    Time launchCost; ///< collective, p2p: per round (CollectiveEngine::LaunchCost)
    /// collective, p2p: bytes per request between servers (CollectiveEngine::RequestSize)
    uint64_t requestSize = 0;
    uint32_t from = 0; ///< p2p: position in the group of the sender
    uint32_t to = 1;   ///< p2p: position in the group of the receiver
    /// all_to_all: the group positions that send and that receive (empty: every position). A
    /// receiver that is also a sender sends nothing to itself.
    std::vector<uint32_t> senders;
    std::vector<uint32_t> receivers;
    std::vector<uint32_t> after; ///< indices of earlier phases of the same step
    /// compute, update: the pipeline stages (pp coordinates) that run it; the other ranks pass
    /// through it at their ready time (empty: every stage).
    std::vector<uint32_t> stages;

    /// The group positions that take part in a communication phase on a group of \p groupSize
    /// ranks, ascending: every position (collective), from and to (p2p), the senders and
    /// receivers (all_to_all). The group's other ranks pass through the phase.
    std::vector<uint32_t> Members(uint32_t groupSize) const;
};

struct JobSpec
{
    std::string name;
    std::vector<uint32_t> hostOfRank;
    std::vector<uint32_t> serverOfRank; ///< hosts of one topology group share a server
    std::vector<uint32_t> localOfRank;  ///< GPU index within the server
    uint32_t gpusPerServer = 1;
    uint32_t tp = 1;
    uint32_t ep = 1;
    uint32_t dp = 1;
    uint32_t pp = 1;
    uint32_t steps = 1;
    Time start;             ///< when step 0 may begin
    std::vector<Time> skew; ///< per rank: delay before each of its steps begins (readiness)
    /// (rank, step) -> a further delay before that one step begins: one late communication
    /// among many ("Datacenter networks", chapter 7, §7.6.3, tails).
    std::map<std::pair<uint32_t, uint32_t>, Time> stepSkew;
    /// Ranks whose NIC has failed (job ranks): their inter-server traffic in every
    /// communication phase goes over NVLink to the NICs of helpers on their server
    /// (CollectivePlan::ApplyNicFailures; "Datacenter networks", chapter 7, §7.2.4, §7.6.2).
    std::vector<NicFailure> nicFailures;
    /// NIC ports each inter-server transfer of its communication is divided over
    /// (CollectiveEngine::PortsPerNic; "Datacenter networks", chapter 7, §7.2.3, §7.2.4).
    uint32_t portsPerNic = 0;
    std::vector<JobPhaseSpec> phases;

    uint32_t Ranks() const
    {
        return static_cast<uint32_t>(hostOfRank.size());
    }

    /// How long after its previous step (or the job's start) rank \p r begins step \p s.
    Time SkewOf(uint32_t r, uint32_t s) const
    {
        auto it = stepSkew.find({r, s});
        return skew[r] + (it == stepSkew.end() ? Time(0) : it->second);
    }

    /// Rank \p r's pipeline stage (its pp coordinate).
    uint32_t StageOf(uint32_t r) const
    {
        return r / (tp * ep * dp);
    }

    /// The groups of kind \p group ("tp", "ep", "dp", "pp", "all"), each in coordinate order.
    std::vector<std::vector<uint32_t>> Groups(const std::string& group) const;
};

} // namespace ns3

#endif
