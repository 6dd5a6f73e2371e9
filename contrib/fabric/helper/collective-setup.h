#ifndef FABRIC_COLLECTIVE_SETUP_H
#define FABRIC_COLLECTIVE_SETUP_H

#include "collective-config.h"
#include "fabric-builder.h"

#include "collective/collective-engine.h"
#include "host/host-transport.h"

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace ns3
{

/// Builds the algorithm (by attribute defaults), the plan and the engine, and starts it. The
/// engine stops the simulation when the collective is done and every flow has finished.
Ptr<CollectiveEngine> SetupCollective(const CollectiveConfig& cfg,
                                      FabricNetwork& net,
                                      const std::vector<Ptr<HostTransport>>& nics,
                                      uint64_t seed);

/// The plan alone (tests and tools): algorithm by name + attribute defaults + NIC failures.
CollectivePlan BuildCollectivePlan(const CollectiveConfig& cfg);

/// Byte accounting of a finished run.
struct CollectiveBytes
{
    uint64_t interServerPayload = 0;            ///< transfer bytes between servers
    uint64_t intraServerPayload = 0;            ///< transfer bytes within a server (NVLink)
    std::vector<uint64_t> sentPayloadPerRank;   ///< transfer bytes each rank sent
    std::vector<uint64_t> interServerPerRank;   ///< of which between servers (its NIC)
    std::map<std::string, uint64_t> nicTxBytes; ///< wire bytes each host's NIC port sent
    std::map<std::string, uint64_t> nicRxBytes; ///< wire bytes each host's NIC port received
    std::map<std::string, uint64_t> railTxBytes; ///< wire bytes each rail leaf sent to hosts
    uint64_t spineTxBytes = 0;                  ///< wire bytes every spine port sent
};
CollectiveBytes CountCollectiveBytes(const CollectiveEngine& engine, const FabricNetwork& net);

/// Writes collective.csv and adds the "collective" entry to summary.json; returns "" when the
/// values are exactly the sum (or unchecked), else the first wrong value.
std::string FinishCollective(const CollectiveEngine& engine,
                             const CollectiveConfig& cfg,
                             const FabricNetwork& net,
                             const std::string& outDir,
                             nlohmann::json& summary);

} // namespace ns3

#endif
