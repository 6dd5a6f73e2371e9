#ifndef FABRIC_CONFIG_TABLE_H
#define FABRIC_CONFIG_TABLE_H

#include "config/config-error.h"
#include "config/config-key.h"
#include "config/hpcc-import.h"
#include "config/scenario-config.h"
#include "config/topology-reader.h"
#include "config/yaml-fields.h"

#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace ns3
{

/**
 * \brief The scenario being read: the result, and what keys read earlier leave for keys read
 * later (a star sized by the workload, a headroom bound from the links and the MTU).
 */
struct ScenarioBuild
{
    ScenarioBuild(ScenarioConfig& config, std::string root);

    ScenarioConfig& cfg;
    std::string sourceRoot;           ///< files named in the scenario are looked for here too
    LinkDefaults linkDefaults;        ///< link.rate, link.delay: for the topology
    uint64_t wireOverhead = 0;        ///< link.wire_overhead: for the PFC headroom bound
    std::optional<HpccTopology> hpcc; ///< topology: {hpcc: FILE}: for workload.type hpcc
    uint64_t bufferBytes = 0;         ///< switch.buffer: for the PFC headroom reserve
    std::string ubCc;                 ///< transport ub: its cc (ub.window is for none only)
    std::string switchLb;             ///< switch.lb as written: for roce.recovery
    std::string switchMmu;            ///< switch.mmu as written: for switch.pfc.dynamic_alpha
    std::shared_ptr<ConfigError> switchLbWhere; ///< where switch.lb is: for roce.recovery's error
    bool cbfc = false;                          ///< switch.flow_control: cbfc (switch.pfc reads it)
    uint64_t cbfcCreditBytes = 0; ///< switch.cbfc.credits in whole cells: the switch reserve
};

using AttributeList = std::vector<std::pair<std::string, std::string>>;

/// Every scenario key in the order they are read and `fabric-run --help` lists them.
const ScenarioKeys& ScenarioKeyTable();

/// The row of \p path; "[3]" in a path stands for "[]". Throws std::logic_error if none (a
/// reader asking for a key the table lacks is a programming error).
const ScenarioKey& FindKey(const std::string& path);

/// The rows directly under \p parent ("" for the top level), in table order.
std::vector<const ScenarioKey*> KeysUnder(const std::string& parent);

/**
 * Reads every row directly under \p section's path, in table order: a row's reader when it has
 * one, otherwise its value (given, or the attribute's default) into its attribute. Rows with
 * neither are read by their section's or a neighbour's reader. Does not reject unknown keys.
 */
void ReadKeys(YamlFields& section, ScenarioBuild& build);

/// KeyReader of a plain nested mapping: ReadKeys on it, then unknown keys are errors.
void ReadSection(YamlFields& parent, const ScenarioKey& key, ScenarioBuild& build);

/// Whether \p section gives \p key under its name or its deprecated spelling.
bool Given(const YamlFields& section, const ScenarioKey& key);

/// The value of \p key in \p section, checked, or its default when absent; a key without a
/// default is required. A deprecated spelling is read with a notice on stderr.
KeyValue ValueOf(YamlFields& section, const ScenarioKey& key);
KeyValue ValueOf(YamlFields& section, const std::string& name);

/// The default of \p key: its attribute's current initial value, or its fallback; {} for a
/// computed default (its reader works it out).
KeyValue DefaultOf(const ScenarioKey& key);

/// ValueOf \p key, appended to \p attributes as the value of the key's attribute.
KeyValue SetFromKey(YamlFields& section, const ScenarioKey& key, AttributeList& attributes);
KeyValue SetFromKey(YamlFields& section, const std::string& name, AttributeList& attributes);

/// \p value of \p key in the form its attribute parses.
std::string AttributeText(const ScenarioKey& key, const KeyValue& value);

/// The default of \p key as --help shows it ("256KiB", "ring", a computed rule); "" if none.
std::string DefaultText(const ScenarioKey& key);

// --- values several sections read ---------------------------------------------------------

/// A host given as an index ("3") or a node name ("h3"), as its index among the hosts.
uint32_t ReadHost(YamlFields& f, const std::string& key, const TopologySpec& topo);

/// Host \p text (an index or a node name) of \p key in \p f, as its index among the hosts.
uint32_t HostIndex(YamlFields& f,
                   const std::string& key,
                   const std::string& text,
                   const TopologySpec& topo);

/// A priority 0..7.
uint8_t ReadPriority(YamlFields& f, const std::string& key, uint8_t fallback);

/// The KeyCheck of a priority: 0..7.
KeyCheck PriorityCheck();

/// A file named in a scenario: relative to the scenario file, then to the source tree, then to
/// the working directory; "" when none exists.
std::string ResolvePath(const std::string& scenarioFile,
                        const std::string& sourceRoot,
                        const std::string& path);

} // namespace ns3

#endif
