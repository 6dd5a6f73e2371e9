#ifndef FABRIC_PLUGIN_KEYS_H
#define FABRIC_PLUGIN_KEYS_H

#include "config/config-table.h"
#include "sim/fabric-plugin.h"

#include <string>
#include <utility>
#include <vector>

namespace ns3
{

/**
 * The scenario keys the plug-in registry (model/sim/fabric-plugin.h) makes: the choices of the
 * keys that select plug-ins, their help and error text, and the sections of per-attribute keys
 * the plug-ins declare. Nothing here names a plug-in.
 */

/// {scenario name, TypeId name} of every plug-in of \p kind (of \p transport), for
/// ScenarioKey::MappedChoices.
std::vector<std::pair<std::string, std::string>> PluginTypeChoices(
    PluginKind kind,
    const std::string& transport = "");

/// "name (summary); name (summary)" of every plug-in of \p kind (of \p transport), for --help.
std::string PluginHelp(PluginKind kind, const std::string& transport = "");

/// The per-attribute sections (TypeAttributeKeys) of every plug-in of \p kind (of \p transport)
/// that declares one, in name order; each section's help says which \p selector value uses it.
ScenarioKeys PluginSectionKeys(PluginKind kind,
                               const std::string& selector,
                               const std::string& transport = "");

/// The plug-in of \p kind called \p name (of \p transport); a ConfigError at \p key of
/// \p section listing the choices when there is none.
const FabricPlugin& RequirePlugin(YamlFields& section,
                                  const std::string& key,
                                  PluginKind kind,
                                  const std::string& name,
                                  const std::string& transport = "");

/// The value that sets \p plugin's MtuAttribute to \p mtu bytes, in the attribute's own form
/// ("4096" for an integer, "4096B" for a size).
std::string MtuAttributeValue(const FabricPlugin& plugin, uint32_t mtu);

} // namespace ns3

#endif
