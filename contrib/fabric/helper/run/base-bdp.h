#ifndef FABRIC_BASE_BDP_H
#define FABRIC_BASE_BDP_H

#include "config/hpcc-pair-paths.h"
#include "config/topology-spec.h"

#include <cstdint>
#include <memory>

namespace ns3
{

/**
 * \brief The base round trips and bandwidth-delay products between hosts as the HPCC simulator
 * computes them for its NIC window (alibaba-edu/High-Precision-Congestion-Control,
 * simulation/scratch/third.cc:225-266 and 905-930; inet-tub/ns3-datacenter,
 * simulator/ns-3.39/examples/PowerTCP/powertcp-evaluation-burst.cc:1017-1042), in integer
 * nanoseconds and bytes with the reference's rounding:
 *
 *   delay   = sum over the path's links of the link delay (ns)
 *   txDelay = sum over the path's links of floor(payload x 8e9 / link rate) (ns): one packet's
 *             payload serialized on every hop, headers not counted
 *   rtt     = 2 x delay + txDelay
 *   bdp     = floor(floor(rtt x bottleneck rate / 1e9) / 8)
 *
 * maxBdp is the largest bdp over all ordered pairs of distinct hosts (GLOBAL_T 1). The path is
 * the reference's own: the first its breadth-first search meets (config/hpcc-pair-paths.h).
 */
class BaseBdp
{
  public:
    /// \p payloadBytes: the reference's PACKET_PAYLOAD_SIZE (the RoCE NIC's Mtu).
    BaseBdp(const TopologySpec& topo, uint32_t payloadBytes);

    /// rtt of host indices \p src -> \p dst, in ns (0 when not connected or equal).
    uint64_t RttNs(uint32_t src, uint32_t dst);
    /// bdp of host indices \p src -> \p dst, in bytes (pairBdp).
    uint64_t Bdp(uint32_t src, uint32_t dst);
    /// The largest Bdp over every pair of distinct hosts (maxBdp); computed once.
    uint64_t MaxBdp();
    /// The largest RttNs over every pair of distinct hosts (maxRtt); computed with MaxBdp.
    uint64_t MaxRttNs();

  private:
    HpccPair Between(uint32_t src, uint32_t dst);

    TopologySpec m_topo;           ///< a copy: NICs ask while the run's spec may be gone
    std::vector<uint32_t> m_hosts; ///< host index -> spec node index
    std::unique_ptr<HpccPairTable> m_table;
    bool m_haveMaxima = false;
    HpccPairMaxima m_maxima;
};

} // namespace ns3

#endif
