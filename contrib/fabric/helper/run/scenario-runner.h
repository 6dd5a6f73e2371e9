#ifndef FABRIC_SCENARIO_RUNNER_H
#define FABRIC_SCENARIO_RUNNER_H

#include "config/scenario-config.h"
#include "distributed/partitioned-run.h"
#include "record/conservation.h"

#include <nlohmann/json.hpp>
#include <string>

namespace ns3
{

/// Exit statuses of fabric-run, so scripts can tell failures apart.
enum FabricExitCode
{
    EXIT_OK = 0,
    EXIT_CONSERVATION_FAILED = 1,
    EXIT_CONFIG_ERROR = 2,
    EXIT_DEADLOCK = 3
};

struct RunOutcome
{
    int exitCode = EXIT_OK;
    std::string message;
    nlohmann::json summary;
    ConservationReport conservation;
};

/// What ScenarioRunner::Run leaves behind when it returns.
enum class RunTeardown
{
    Full,       ///< the simulator destroyed and every object freed: the process may run again
    ProcessExit ///< nothing freed: the caller ends the process right after (fabric-run)
};

/**
 * \brief Runs one scenario end to end: applies its attributes, builds the fabric, starts the
 * workload, records traces, runs to completion (all flows done, stop_time, or a detected PFC
 * deadlock) and writes flows.csv, links.csv and summary.json next to the time-series traces.
 */
class ScenarioRunner
{
  public:
    /// \p outDir must exist. Throws ConfigError for bad attribute values. With \p plan, this
    /// process simulates one part of a distributed run (docs/distributed.md): rank 0 returns
    /// the merged outcome and writes the merged files, the other ranks an empty summary.
    /// Every output file is written and closed before it returns, whatever \p teardown says.
    static RunOutcome Run(const ScenarioConfig& cfg,
                          const std::string& outDir,
                          const PartitionPlan* plan = nullptr,
                          RunTeardown teardown = RunTeardown::Full);
};

/// UDP source port (the entropy every frame of the flow carries) of flow \p id in a run of seed
/// \p seed: 49152 + a 14-bit hash of both (MurmurHash3's fmix64 of (id << 32) ^ seed).
uint16_t FlowEntropy(uint32_t id, uint64_t seed);

/// Converts a YAML document to JSON (scalars stay strings) for summary.json.
nlohmann::json YamlToJson(const YAML::Node& node);

} // namespace ns3

#endif
