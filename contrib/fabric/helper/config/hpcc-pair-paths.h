#ifndef FABRIC_HPCC_PAIR_PATHS_H
#define FABRIC_HPCC_PAIR_PATHS_H

#include "config/topology-spec.h"

#include <cstdint>
#include <vector>

namespace ns3
{

/**
 * \file
 * The base round trip and bottleneck rate of every host pair as the HPCC-family simulators
 * compute them before a run, and what they derive from them: GLOBAL_T's T (maxRtt), HAS_WIN's
 * window (maxBdp, or the pair's BDP: run/base-bdp.h) and the last column of fct.txt, the
 * "standalone" FCT of a flow, alone on its path, exactly as
 * alibaba-edu/High-Precision-Congestion-Control simulation/scratch/third.cc computes it (qp_finish,
 * lines 163-167; conweave-project/conweave-ns3 scratch/network-load-balance.cc:466-476 and
 * inet-tub/ns3-datacenter simulator/ns-3.39/examples/PowerTCP/powertcp-evaluation-burst.cc:178-182
 * are the same):
 *
 *     total_bytes    = size + ceil(size / packet_payload_size) * 48      (32-bit, as there)
 *     standalone_fct = base_rtt + total_bytes * 8e9 / bw                 (ns, integer division)
 *
 * 48 B is the header of a data packet without INT (CustomHeader::GetStaticWholeHeaderSize() -
 * IntHeader::GetStaticSize(): 14 B L2 + 20 B IPv4 + 8 B UDP + 2 B pg + 4 B seq,
 * simulation/src/network/utils/custom-header.cc:335-341 and custom-header.h:103-110).
 * base_rtt and bw are third.cc's pairRtt and pairBw (CalculateRoute, lines 223-268, and the
 * loop at 910-928): a breadth-first search from the destination host through switches only,
 * where the first visit of a node fixes its path; delay sums the links' propagation delays (ns),
 * txDelay adds packet_payload_size * 8e9 / rate per link (ns, integer division per link), bw is
 * the smallest rate on the path, and base_rtt = 2 * delay + txDelay. The reference visits a
 * node's neighbours in the order of a map keyed by node pointer, i.e. creation order, which is
 * node-id order: so does this search; between two nodes linked more than once, the link listed
 * last in topology.txt is the one it sees (nbr2if is overwritten per link, third.cc:796-803).
 */

/// Header bytes HPCC's standalone FCT adds per packet (see the file comment).
constexpr uint32_t kHpccStandaloneHeaderBytes = 14 + 20 + 8 + 2 + 4;

/// third.cc's pairRtt and pairBw of one (node, destination host) pair.
struct HpccPair
{
    uint64_t rttNs = 0;
    uint64_t bwBps = 0;
};

/// pairRtt / pairBw of a topology, one breadth-first search per destination, on demand.
class HpccPairTable
{
  public:
    /// \p nodeIds: the id each spec node has in the reference (topology.txt), which orders
    /// neighbours; empty: the spec index. \p payloadBytes: packet_payload_size.
    HpccPairTable(const TopologySpec& spec, std::vector<uint32_t> nodeIds, uint32_t payloadBytes);

    /// The pair of spec node \p from in the search rooted at host node \p root (both spec
    /// indices); bw 0 when \p from is not reached.
    HpccPair Get(uint32_t from, uint32_t root);

  private:
    struct Neighbour
    {
        uint32_t node;
        uint64_t delayNs;
        uint64_t bwBps;
    };

    const TopologySpec& m_spec;
    uint32_t m_payload;
    std::vector<std::vector<Neighbour>> m_neighbours; ///< per node, by reference id
    std::vector<std::vector<HpccPair>> m_byRoot;      ///< per root: per node (empty: not yet)
};

/// third.cc:919-921: bdp = rtt x bw / 10^9 / 8 bytes, truncated.
uint64_t HpccPairBdp(const HpccPair& pair);

/// third.cc:905-925: the largest rtt and bdp over every ordered pair of hosts, and the NIC rate
/// (third.cc:330-334 get_nic_rate: the rate of the first host's first link).
struct HpccPairMaxima
{
    uint64_t maxRttNs = 0;
    uint64_t maxBdpBytes = 0;
    uint64_t nicRateBps = 0;
};

/// The maxima of \p table over the hosts of its topology (one search per host).
HpccPairMaxima ComputeHpccPairMaxima(HpccPairTable& table, const TopologySpec& spec);

/// third.cc:166-167 for a flow of \p size bytes over \p pair.
uint64_t HpccStandaloneFctNs(uint64_t size, uint32_t payloadBytes, const HpccPair& pair);

} // namespace ns3

#endif
