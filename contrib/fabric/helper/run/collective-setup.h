#ifndef FABRIC_COLLECTIVE_SETUP_H
#define FABRIC_COLLECTIVE_SETUP_H

#include "build/fabric-builder.h"
#include "collective/collective-engine.h"
#include "config/config-collective.h"
#include "host/host-transport.h"

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace ns3
{

class PartitionedRun;

/// Builds the algorithm (by attribute defaults), the plan and the engine, and starts it. The
/// engine stops the simulation when the collective is done and every flow has finished; in a
/// partitioned run (\p parts) the run's end-of-run rule does, and the engine is connected to
/// the other ranks' replicas first.
Ptr<CollectiveEngine> SetupCollective(
    const CollectiveConfig& cfg,
    FabricNetwork& net,
    const std::vector<Ptr<HostTransport>>& nics,
    uint64_t seed,
    PartitionedRun* parts = nullptr,
    CollectiveEngine::LaunchScheduledCallback launchScheduled = {});

/// The plan alone (tests and tools): algorithm by name + attribute defaults + NIC failures.
CollectivePlan BuildCollectivePlan(const CollectiveConfig& cfg);

/// Byte accounting of a finished run.
struct CollectiveBytes
{
    uint64_t interServerPayload = 0;             ///< transfer bytes between servers
    uint64_t intraServerPayload = 0;             ///< transfer bytes within a server (NVLink)
    std::vector<uint64_t> sentPayloadPerRank;    ///< transfer bytes each rank sent
    std::vector<uint64_t> interServerPerRank;    ///< of which between servers (its NIC)
    std::map<std::string, uint64_t> nicTxBytes;  ///< wire bytes each host's NIC port sent
    std::map<std::string, uint64_t> nicRxBytes;  ///< wire bytes each host's NIC port received
    std::map<std::string, uint64_t> railTxBytes; ///< wire bytes each rail leaf sent to hosts
    uint64_t spineTxBytes = 0;                   ///< wire bytes every spine port sent
};

CollectiveBytes CountCollectiveBytes(const CollectiveEngine& engine, const FabricNetwork& net);

/// What this process's devices, SHARP members and aggregators counted for the collective (only
/// the nodes it simulates count, so the ranks of a distributed run add up: AccumulateTotals).
nlohmann::json CollectiveNetworkCounters(const CollectiveEngine& engine, const FabricNetwork& net);
/// The plan's payload accounting plus the wire bytes in \p counters.
CollectiveBytes CollectiveBytesFrom(const CollectivePlan& plan, const nlohmann::json& counters);

/// Writes collective.csv and adds the "collective" entry to summary.json from the engine and
/// the (all ranks') network counters; returns "" when the values are exactly the sum (or
/// unchecked), else the first wrong value.
std::string FinishCollective(const CollectiveEngine& engine,
                             const CollectiveConfig& cfg,
                             const nlohmann::json& counters,
                             bool distributed,
                             const std::string& outDir,
                             nlohmann::json& summary);

} // namespace ns3

#endif
