// The keys the plug-in registry makes: choices, help, error text and per-attribute sections of
// congestion controls, load balancers, egress stages and buffer policies.

#include "config/plugin-keys.h"

#include "config/attribute-values.h"
#include "config/config-sections.h"
#include "config/yaml-fields.h"

namespace ns3
{

std::vector<std::pair<std::string, std::string>>
PluginTypeChoices(PluginKind kind, const std::string& transport)
{
    std::vector<std::pair<std::string, std::string>> choices;
    for (const FabricPlugin* p : PluginRegistry::Of(kind, transport))
    {
        choices.emplace_back(p->GetName(), p->GetTypeName());
    }
    return choices;
}

std::string
PluginHelp(PluginKind kind, const std::string& transport)
{
    std::string help;
    for (const FabricPlugin* p : PluginRegistry::Of(kind, transport))
    {
        help += (help.empty() ? "" : "; ") + p->GetName() + " (" + p->GetSummary() + ")";
    }
    return help;
}

ScenarioKeys
PluginSectionKeys(PluginKind kind, const std::string& selector, const std::string& transport)
{
    ScenarioKeys rows;
    for (const FabricPlugin* p : PluginRegistry::Of(kind, transport))
    {
        if (p->GetSection().empty())
        {
            continue;
        }
        std::string uses = selector + ": " + p->GetName();
        if (!p->GetTransport().empty())
        {
            uses += " with transport " + p->GetTransport();
        }
        ScenarioKeys section = TypeAttributeKeys(p->GetSection(),
                                                 p->GetTypeName(),
                                                 p->GetSummary() + " (" + uses + "), one key per " +
                                                     p->GetTypeName() + " attribute");
        rows.insert(rows.end(), section.begin(), section.end());
    }
    return rows;
}

const FabricPlugin&
RequirePlugin(YamlFields& section,
              const std::string& key,
              PluginKind kind,
              const std::string& name,
              const std::string& transport)
{
    if (const FabricPlugin* p = PluginRegistry::Find(kind, name, transport))
    {
        return *p;
    }
    std::string with = transport.empty() ? "" : "transport " + transport + " ";
    throw section.Error(key,
                        with + "expects " + PluginRegistry::Names(kind, transport) + ", got '" +
                            name + "'");
}

std::string
MtuAttributeValue(const FabricPlugin& plugin, uint32_t mtu)
{
    std::string attribute = plugin.GetTypeName() + "::" + plugin.GetMtuAttribute();
    std::string value = std::to_string(mtu);
    // A QueueSize attribute writes its default with a unit ("4096B"); an integer without.
    std::string current = AttributeDefaultText(attribute);
    return !current.empty() && current.back() == 'B' ? value + "B" : value;
}

} // namespace ns3
