#ifndef FABRIC_PATH_HOPS_H
#define FABRIC_PATH_HOPS_H

#include "config/topology-spec.h"

#include <cstdint>
#include <unordered_map>
#include <vector>

namespace ns3
{

/**
 * \brief Switches on the shortest path between two hosts: the hop count a delay-based
 * congestion control scales its target by (Swift §3.5 reads it from the IP TTL; htsim from the
 * route, htsim/sim/swift.cpp:792). Every path the fabric's all-shortest-path routing uses
 * (route-computer.h) has this length, so the count holds whichever equal-cost path a packet
 * takes.
 *
 * One breadth-first search per source host, never through another host (hosts do not
 * forward); answers are kept per (source, destination) pair, so the memory grows with the queue
 * pairs that ask, not with hosts x nodes.
 */
class PathHops
{
  public:
    explicit PathHops(const TopologySpec& topo);
    /// Switches between host indices \p src and \p dst; 0 when they are not connected or equal.
    uint32_t Between(uint32_t src, uint32_t dst);

  private:
    void SearchFrom(uint32_t srcNode);

    std::vector<bool> m_isSwitch;                     ///< per node (a copy: outlives the spec)
    std::vector<uint32_t> m_hosts;                    ///< host index -> node
    std::vector<std::vector<uint32_t>> m_neighbours;  ///< per node
    std::unordered_map<uint64_t, uint32_t> m_answers; ///< (src << 32 | dst) -> switches
    uint32_t m_searchedFrom = UINT32_MAX;             ///< node of the last search
    std::vector<uint32_t> m_distance;                 ///< links from it, per node
};

} // namespace ns3

#endif
