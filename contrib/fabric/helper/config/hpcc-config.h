#ifndef FABRIC_HPCC_CONFIG_H
#define FABRIC_HPCC_CONFIG_H

#include "config/hpcc-config-file.h"

#include <map>
#include <string>
#include <vector>
#include <yaml-cpp/yaml.h>

/**
 * \file
 * Runs an HPCC-family simulator's config.txt as a scenario: every key of the file (and every key
 * the file leaves out, at the reference's default) becomes scenario keys with the reference's
 * semantics, or is refused by name with the reason. docs/hpcc-config.md lists each key, what it
 * becomes and where the reference reads it.
 *
 * The three simulators read the same keys with different meanings in places, so the importer is
 * told which one wrote the file (HpccSimulator):
 *  - hpcc: alibaba-edu/High-Precision-Congestion-Control simulation/scratch/third.cc (HPCC's
 *    MMU: BUFFER_SIZE holds the headroom; CC_MODE chooses the algorithm);
 *  - conweave: conweave-project/conweave-ns3 scratch/network-load-balance.cc (HPCC's keys plus
 *    load balancing, PFC and IRN switches);
 *  - ns3-datacenter: inet-tub/ns3-datacenter examples/PowerTCP/powertcp-evaluation-*.cc
 *    (BUFFER_SIZE is the shared pool, headroom comes on top; the algorithm comes from the
 *    command line, so `cc` is set in the scenario or with --set).
 *
 * Relative file names in the config (TOPOLOGY_FILE, FLOW_FILE, TRACE_FILE) are resolved as the
 * reference does, against the working directory, and failing that against the config file's
 * directory and each directory above it (the shipped configs name files relative to the
 * directory the simulator is started from). Output files (FCT_OUTPUT_FILE, PFC_OUTPUT_FILE,
 * QLEN_MON_FILE) are written under the run's output directory at the path the config gives.
 */

namespace ns3
{

enum class HpccSimulator
{
    HPCC,
    CONWEAVE,
    NS3_DATACENTER,
};

/// "hpcc", "conweave", "ns3-datacenter".
const std::vector<std::string>& HpccSimulatorNames();

/// A config.txt translated into scenario keys.
struct HpccScenario
{
    std::string configPath;
    YAML::Node document; ///< a scenario document (no source marks)
    /// Scenario key (dotted path) -> the config.txt entry it came from, to name that line in
    /// messages about the value.
    std::map<std::string, HpccConfigEntry> origin;
    /// One line per config key that is not simply applied: what happens instead and why
    /// ("config.txt:21: L2_CHUNK_SIZE: ..."). Printed by fabric-run and written to the run's
    /// hpcc-config.txt.
    std::vector<std::string> notes;
};

/**
 * Translates \p path, written for \p simulator. \p workingDir is where relative input paths are
 * looked up first. Throws ConfigError naming the config file, the line and the key.
 */
HpccScenario TranslateHpccConfig(const std::string& path,
                                 HpccSimulator simulator,
                                 const std::string& workingDir);

/// The simulator named \p name (HpccSimulatorNames()); throws ConfigError(file, line, key, ...).
HpccSimulator HpccSimulatorFromName(const std::string& name,
                                    const std::string& file,
                                    int line,
                                    const std::string& key);

/// Lays \p overlay over \p base: maps merge key by key, anything else in \p overlay replaces.
void MergeScenarioDocuments(YAML::Node& base, const YAML::Node& overlay);

} // namespace ns3

#endif
