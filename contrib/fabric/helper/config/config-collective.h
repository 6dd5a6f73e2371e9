#ifndef FABRIC_CONFIG_COLLECTIVE_H
#define FABRIC_CONFIG_COLLECTIVE_H

#include "collective/collective-plan.h"
#include "config/topology-spec.h"
#include "config/yaml-fields.h"

#include "ns3/nstime.h"

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace ns3
{

/**
 * \brief The `collective:` section of a scenario (with `workload: {type: collective}`).
 *
 *   collective:
 *     algorithm: ring | interleaved-ring | hierarchical | direct | sharp
 *     message: 192MiB            # M, the gradient per rank
 *     ranks: 16                  # hosts 0..ranks-1 (default: every host), or
 *     placement: [0, 1, ...]     # host of each rank
 *     pairing: i+8 | i+9 | (i+4)%8+8 | <offset>   # hierarchical: partner on the next server
 *     inter_server_only: false   # hierarchical: only the inter-server stage (M/G per rank)
 *     launch_cost: 0.83us        # per round (ns3::CollectiveEngine::LaunchCost)
 *     update_time: 0us           # after the collective (step timeline)
 *     value_elements: 1024       # float32 values carried per rank for the exact-sum check
 *     readiness: [{rank: 3, at: 20us}]   # a rank that joins late (default: all at 0)
 *     nic_failures: [{rank: 11, helpers: [10, 12], shares: [0.5, 0.5]}]
 *     ports_per_nic: 2           # inter-server transfers split over NIC ports 0..1 (0: hashed)
 *     sharp: {chunks: 1, buffer: 4MiB, rate: 400Gbps, ...}   # in-network aggregation
 * Model parameters become ns-3 attributes (appended to \p attributes).
 */
struct CollectiveConfig
{
    bool enabled = false;
    std::string algorithm; ///< collective.algorithm (its default: config-collective.cc)
    uint64_t messageBytes = 0;
    std::vector<uint32_t> hostOfRank;
    std::vector<uint32_t> serverOfRank;
    std::vector<uint32_t> localOfRank;
    uint32_t gpusPerServer = 1;
    std::vector<Time> readiness;
    std::vector<NicFailure> failures;
    bool interServerOnly = false;
    bool sharp = false;
};

/// The `shares` of a NIC failure or relay entry \p e with \p helpers helpers: one positive
/// number per helper adding up to 1, or equal shares when the key is absent.
std::vector<double> ParseHelperShares(YamlFields& e, size_t helpers);

/// Parses the section; throws ConfigError (file, line, key) for bad input.
CollectiveConfig ParseCollective(YamlFields& section,
                                 const TopologySpec& topology,
                                 const std::string& transport,
                                 std::vector<std::pair<std::string, std::string>>& attributes);

} // namespace ns3

#endif
