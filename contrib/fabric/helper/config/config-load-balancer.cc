// switch.lb and the sections of its strategies (flowlet:, drill:, adaptive:, conga:): which of a
// destination's equal-cost ports a switch sends each frame to (docs/models.md, "Switch load
// balancing").

#include "config/attribute-values.h"
#include "config/config-sections.h"
#include "config/plugin-keys.h"
#include "config/yaml-fields.h"

#include <optional>

namespace ns3
{

namespace
{

/// switch.lb: the strategy, and where it was given, for the check of roce.recovery.
void
ReadLoadBalancer(YamlFields& sw, const ScenarioKey& key, ScenarioBuild& b)
{
    KeyValue v = SetFromKey(sw, key, b.cfg.attributes);
    b.switchLb = v.text;
    b.switchLbWhere = std::make_shared<ConfigError>(sw.Error(key.Name(), ""));
}

/// The value of attribute \p name the scenario sets (the last one), or its default.
std::string
ScenarioAttribute(const ScenarioBuild& b, const std::string& name)
{
    for (auto it = b.cfg.attributes.rbegin(); it != b.cfg.attributes.rend(); ++it)
    {
        if (it->first == name)
        {
            return it->second;
        }
    }
    return AttributeDefaultText(name);
}

/// " or <section>.<key> above 0" for a load balancer that is per packet only while an attribute
/// is zero; "" otherwise.
std::string
PerPacketCondition(const std::string& lb)
{
    const FabricPlugin* p = PluginRegistry::Find(PluginKind::LoadBalancer, lb);
    if (!p || p->GetPerPacketUnlessPositive().empty())
    {
        return "";
    }
    return " or " + p->GetSection() + "." + SnakeCase(p->GetPerPacketUnlessPositive()) + " above 0";
}

/// switch.stages: egress stages by their registered names, run after those the scenario's
/// cc: installs (ns3::FabricSwitch::EgressStages).
void
ReadStages(YamlFields& sw, const ScenarioKey& key, ScenarioBuild& b)
{
    if (!sw.Has(key.Name()))
    {
        return;
    }
    std::string types;
    for (const std::string& name : sw.StringList(key.Name()))
    {
        const FabricPlugin& stage = RequirePlugin(sw, key.Name(), PluginKind::EgressStage, name);
        types += (types.empty() ? "" : ",") + stage.GetTypeName();
    }
    b.cfg.attributes.emplace_back("ns3::FabricSwitch::EgressStages", types);
}

} // namespace

bool
SwitchLbIsPerPacket(const ScenarioBuild& b)
{
    const FabricPlugin* p = PluginRegistry::Find(PluginKind::LoadBalancer, b.switchLb);
    if (!p || !p->IsPerPacket())
    {
        return false;
    }
    // Per packet, unless the record names a Time attribute the scenario sets above zero.
    const std::string& condition = p->GetPerPacketUnlessPositive();
    return condition.empty() ||
           !Time(ScenarioAttribute(b, p->GetTypeName() + "::" + condition)).IsStrictlyPositive();
}

std::optional<ConfigError>
PerPacketGoBackNWarning(const ScenarioBuild& b)
{
    if (b.cfg.transport != "roce" || ScenarioAttribute(b, "ns3::RdmaNic::Recovery") != "gbn" ||
        !SwitchLbIsPerPacket(b))
    {
        return std::nullopt;
    }
    // Runs, as ConWeave's own comparisons run DRILL and its peers over go-back-N RoCE
    // (conweave-project/conweave-ns3 run.py --irn 0), but says what it costs.
    ConfigError where =
        b.switchLbWhere ? *b.switchLbWhere : ConfigError(b.cfg.file, 0, "switch.lb", "");
    return ConfigError(
        where.File(),
        where.Line(),
        where.Key(),
        "'" + b.switchLb +
            "' chooses a path per packet and roce.recovery is gbn (go-back-N): a receiver "
            "discards every packet that arrives out of order and NAKs the gap, and the sender "
            "resends everything from the NAKed packet, so reordering costs duplicates and "
            "goodput (summary.json counters.retransmitted_packets, retransmitted_bytes, "
            "naks_sent); roce.recovery: sr (resending only what is missing)" +
            PerPacketCondition(b.switchLb) + " avoids it");
}

ScenarioKeys
LoadBalancerKeys()
{
    ScenarioKeys rows = {
        ScenarioKey("switch.lb",
                    KeyKind::Choice,
                    "switch load balancing among equal-cost ports: " +
                        PluginHelp(PluginKind::LoadBalancer) +
                        "; each strategy's keys in its section")
            .MappedChoices(PluginTypeChoices(PluginKind::LoadBalancer))
            .Attribute("ns3::FabricSwitch::LoadBalancer")
            .Reader(ReadLoadBalancer),
        ScenarioKey("switch.stages",
                    KeyKind::List,
                    "egress stages every switch port runs, in order, after ECN marking and the "
                    "stages cc: installs: " +
                        PluginHelp(PluginKind::EgressStage))
            .Unit("list of stage names")
            .Rule("none")
            .Reader(ReadStages),
    };
    ScenarioKeys sections = PluginSectionKeys(PluginKind::LoadBalancer, "switch.lb");
    rows.insert(rows.end(), sections.begin(), sections.end());
    return rows;
}

} // namespace ns3
