#ifndef FABRIC_TOPOLOGY_PARTITION_H
#define FABRIC_TOPOLOGY_PARTITION_H

#include "config/config-error.h"
#include "config/topology-spec.h"

#include "ns3/nstime.h"

#include <cstdint>
#include <string>
#include <vector>

/**
 * \file
 * Cutting a fabric into K parts for ns-3's distributed (MPI) simulator. Pure data in, pure data
 * out: no MPI and no ns-3 simulation objects, so it can be tested (and a partition previewed)
 * without running anything.
 *
 * The conservative distributed engine advances each rank by the lookahead: the smallest
 * propagation delay over the links whose two ends are on different ranks. A cut link with zero
 * delay would make the lookahead zero, so such a partition is rejected.
 *
 * Methods:
 * - "auto": keeps every host with the node on its lowest-delay link (its ToR / NVSwitch: ties go
 *   to its first link in spec order; a link to a switch is preferred over one to a host), then
 *   contracts the links whose delay is strictly below a threshold, the threshold being the
 *   largest distinct link delay (or "everything") that still leaves at least K pieces; so the
 *   cut falls on the longest links. Pieces with hosts go, largest host count first, to the part
 *   with the fewest hosts so far (ties: fewest links, then lowest rank); switch-only pieces
 *   (spines, cores) go afterwards, each to the part with the fewest nodes so far (ties: the part
 *   it has most links to, then lowest rank). Pieces are taken in order of their lowest node
 *   index, so the result is deterministic.
 * - "pods": nodes with group >= 0 stay together by group (pods, servers or groups as the
 *   generators set them; all nodes sharing a group value, whatever their role), hosts without a
 *   group stay with their switch as in "auto", nodes without a group are spread as switch-only
 *   pieces. Groups are balanced by hosts as in "auto".
 * - anything else: the path of a text file with one "node_name rank" pair per line
 *   (whitespace separated); '#' starts a comment; blank lines are ignored; every node must be
 *   listed exactly once. (A file literally named "auto" or "pods" is given as "./auto".)
 *
 * Errors are ConfigErrors with key "partition": file spec.source for problems of the topology
 * or of K (line: the cut link's sourceLine where there is one, else 0), the partition file's
 * path and line for problems in that file (line 0: unreadable, or nodes missing).
 */

namespace ns3
{

struct TopologyPartition
{
    std::vector<uint32_t> rankOfNode; ///< by TopologySpec node index
    uint32_t parts = 1;
    std::vector<uint32_t> cutLinks; ///< link indices whose ends are on different ranks, ascending
    Time lookahead;                 ///< min delay over cut links; Time::Max() when nothing is cut
    std::vector<uint32_t> hostsPerRank; ///< hosts (non-switch nodes) on each rank
    std::vector<uint32_t> nodesPerRank; ///< nodes on each rank
    /// links with an end on each rank: a cut link counts for both its ranks, an internal one once
    std::vector<uint32_t> linksPerRank;
};

/**
 * Cuts \p spec into \p parts ranks. \p method: "auto", "pods", or a partition file path.
 * parts == 1 puts everything on rank 0 (whatever the method) and cuts nothing.
 * Throws ConfigError (key "partition") when parts is 0 or exceeds the node count, when the
 * method cannot give every rank a node, when a cut link has zero delay, and for any problem in
 * a partition file (unreadable, unknown or duplicate node, bad rank, missing nodes).
 */
TopologyPartition PartitionTopology(const TopologySpec& spec,
                                    uint32_t parts,
                                    const std::string& method);

/**
 * A human-readable one-liner such as
 * "3 parts, 12 cut links, lookahead 1000 ns, hosts per rank 32/32/32"
 * ("lookahead unbounded" when nothing is cut).
 */
std::string DescribePartition(const TopologySpec& spec, const TopologyPartition& p);

} // namespace ns3

#endif
