#ifndef FABRIC_CONFIG_SECTIONS_H
#define FABRIC_CONFIG_SECTIONS_H

#include "config/config-table.h"

#include <optional>
#include <string>
#include <vector>

namespace ns3
{

/**
 * The rows of the scenario key table, one function per section of the file, each defined in
 * the file that reads that section (config-<section>.cc). ScenarioKeyTable() joins them in the
 * order they are read; a row's reader runs after every row above it.
 */

ScenarioKeys RunKeys();      ///< name, seed, stop_time (config-run.cc)
ScenarioKeys LinkKeys();     ///< link.* (config-link.cc)
ScenarioKeys TopologyKeys(); ///< topology (config-topology.cc)
ScenarioKeys HostKeys();     ///< host.* (config-host.cc)
ScenarioKeys SwitchKeys();   ///< switch.*, switch.pfc.*, switch.ecn.* (config-switch.cc)
/// switch.lb and the flowlet:, drill:, adaptive: sections, within SwitchKeys
/// (config-load-balancer.cc)
ScenarioKeys LoadBalancerKeys();
/// switch.trim.*, within SwitchKeys (config-trim.cc)
ScenarioKeys TrimKeys();
/// switch.flow_control and switch.cbfc.*, within SwitchKeys (config-cbfc.cc)
ScenarioKeys CbfcKeys();
ScenarioKeys TransportKeys();  ///< transport, cc, roce.*, dcqcn.* (config-transport.cc)
ScenarioKeys UbKeys();         ///< ub.*, caqm.*, caqm_switch.*, nscc.*, ub_dctcp.*
ScenarioKeys WorkloadKeys();   ///< workload.* (config-workload.cc)
ScenarioKeys FlowKeys();       ///< workload.flows[].*, within WorkloadKeys (config-flows.cc)
ScenarioKeys CollectiveKeys(); ///< collective.* (config-collective.cc)
ScenarioKeys JobKeys();        ///< workload.jobs[].* (config-job.cc)
ScenarioKeys TraceKeys();      ///< trace.* (config-trace.cc)
ScenarioKeys EventKeys();      ///< events[].* (config-events.cc)
ScenarioKeys SimulatorKeys();  ///< deadlock.*, simulator.* (config-simulator.cc)
ScenarioKeys AttributeKeys();  ///< attributes (config-run.cc)

/**
 * The rows of a section of \p typeName's attributes, one per attribute in snake_case
 * (RateAI -> rate_ai), the attribute's name still accepted as a deprecated spelling; each sets
 * its attribute only when given. \p help describes the section (config-table.cc).
 */
ScenarioKeys TypeAttributeKeys(const std::string& section,
                               const std::string& typeName,
                               const std::string& help);

/// The rows <section>.host_path (a preset) and <section>.host_stages.* (single stages) of the
/// NIC of \p section, roce or ub (config-host-path.cc).
ScenarioKeys HostPathKeys(const std::string& section);
/// The rows <section>.min_rto, .rto_queue_bound and .rto_max of the adaptive retransmission
/// timeout both NICs share (NicTransport), inserted after \p rows' <section>.rto_mode
/// (config-nic-rto.cc).
void InsertAdaptiveRtoKeys(ScenarioKeys& rows, const std::string& section);
/// snake_case of an attribute name: "RateAI" -> "rate_ai", "InitialAlpha" -> "initial_alpha".
std::string SnakeCase(const std::string& camelCase);

/// Reads `workload.flows` (\p work's list) into build.cfg.flows (config-flows.cc).
void ReadFlowList(YamlFields& work, const FlowSpec& defaults, ScenarioBuild& build);

/// Reads the UB request fields of one flow entry (endpoint, order, after) into \p fs (whose
/// src and start are set); \p earlier: the flows defined before it (an `after` entry must name
/// one of them, from the same source, starting no later) (config-ub.cc).
void ParseUbRequestFields(YamlFields& f, const std::vector<FlowSpec>& earlier, FlowSpec& fs);
/// Reads the UB service mode `reliable` or `uno` of \p key (absent: \p fallback) and checks it
/// against \p fs: UNO needs transport: ub, a write or send (the memory verbs need responses) and
/// no order (config-ub.cc). Where a UNO request was made is noted in \p fs (serviceKey,
/// serviceLine).
bool ReadUbService(YamlFields& f,
                   const std::string& key,
                   bool fallback,
                   FlowSpec& fs,
                   const std::string& transport);
/// Rejects a verb the transport does not carry (read: roce or ub; load, store, atomic: ub),
/// naming \p key of \p f.
void CheckVerbTransport(YamlFields& f,
                        const std::string& key,
                        RdmaVerb verb,
                        const std::string& transport);

/// Whether switch.lb (with its section's keys read so far) chooses a path per packet.
bool SwitchLbIsPerPacket(const ScenarioBuild& build);

/// The warning at switch.lb (for ScenarioConfig::warnings) when a RoCE sender with go-back-N
/// recovery meets a per-packet switch load balancer, once every key is read: reordering makes
/// go-back-N resend (config-load-balancer.cc). None otherwise.
std::optional<ConfigError> PerPacketGoBackNWarning(const ScenarioBuild& build);

} // namespace ns3

#endif
