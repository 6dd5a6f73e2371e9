#ifndef FABRIC_UB_CONFIG_H
#define FABRIC_UB_CONFIG_H

#include "scenario-config.h"
#include "yaml-fields.h"

namespace ns3
{

/**
 * \brief The Unified Bus part of a scenario: with transport: ub, \p cc (caqm or none); the `ub:`
 * section (UbNic attributes, spraying policy), `caqm:` and `caqm_switch:` ({Attribute: value}
 * for ns3::CaqmCongestionControl and ns3::CaqmSwitch), checked whatever the transport so one
 * file can compare transports. Adds attributes to \p cfg; throws ConfigError naming file, line
 * and key.
 */
void ParseUbTransport(YamlFields& root,
                      const YAML::Node& doc,
                      const std::string& cc,
                      ScenarioConfig& cfg);

/// Reads the UB request fields of one flow entry (endpoint, order, after) into \p fs (whose
/// src and start are set); \p earlier: the flows defined before it (an `after` entry must name
/// one of them, from the same source, starting no later).
void ParseUbRequestFields(YamlFields& f, const std::vector<FlowSpec>& earlier, FlowSpec& fs);

/// Scenario-key help lines for the UB keys.
std::string UbKeysHelp();

} // namespace ns3

#endif
