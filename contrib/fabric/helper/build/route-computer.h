#ifndef FABRIC_ROUTE_COMPUTER_H
#define FABRIC_ROUTE_COMPUTER_H

#include "config/topology-spec.h"

#include <cstdint>
#include <vector>

namespace ns3
{

/// Forwarding state of one node: host index → group, group → equal-cost local ports.
struct NodeRoutes
{
    std::vector<uint32_t> groupOfHost;
    std::vector<std::vector<uint16_t>> groups;
};

/**
 * \brief All-shortest-path routing over a TopologySpec.
 *
 * For every destination host a breadth-first search gives each node's hop distance to it
 * (never passing through another host: hosts do not forward); a node's next hops are the ports
 * whose peer is one hop closer. Identical port sets are stored once per node, so a 2-tier Clos
 * leaf keeps two groups (its own hosts' ports and "all uplinks") instead of one per host.
 *
 * \p portsOfNode[n][i] = index of the link that is port i of node n; \p linkUp (optional)
 * excludes failed links; \p wanted (optional) lists the nodes whose tables are kept (others
 * get empty tables: hosts with one port, nodes another rank simulates), which bounds the
 * memory to the nodes that forward here.
 */
std::vector<NodeRoutes> ComputeRoutes(const TopologySpec& spec,
                                      const std::vector<std::vector<uint32_t>>& portsOfNode,
                                      const std::vector<bool>& linkUp = {},
                                      const std::vector<bool>& wanted = {});

} // namespace ns3

#endif
