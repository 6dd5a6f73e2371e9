// switch.lb and the sections of its strategies (flowlet:, drill:, adaptive:, conga:): which of a
// destination's equal-cost ports a switch sends each frame to (docs/models.md, "Switch load
// balancing").

#include "attribute-values.h"
#include "config-sections.h"

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

} // namespace

bool
SwitchLbIsPerPacket(const ScenarioBuild& b)
{
    if (b.switchLb == "drill")
    {
        return true;
    }
    return b.switchLb == "adaptive" &&
           Time(ScenarioAttribute(b, "ns3::AdaptiveLoadBalancer::FlowletGap")).IsZero();
}

void
CheckRecoveryForSwitchLb(const ScenarioBuild& b, const std::string& recovery)
{
    if (b.cfg.transport != "roce" || recovery != "gbn" || !SwitchLbIsPerPacket(b))
    {
        return;
    }
    ConfigError where =
        b.switchLbWhere ? *b.switchLbWhere : ConfigError(b.cfg.file, 0, "switch.lb", "");
    throw ConfigError(where.File(),
                      where.Line(),
                      where.Key(),
                      "'" + b.switchLb +
                          "' chooses a path per packet, so a RoCE flow's packets arrive out "
                          "of order, which a go-back-N receiver takes as losses; set "
                          "roce.recovery: sr (selective repeat)" +
                          (b.switchLb == "adaptive" ? " or adaptive.flowlet_gap above 0" : ""));
}

ScenarioKeys
LoadBalancerKeys()
{
    ScenarioKeys rows = {
        ScenarioKey("switch.lb",
                    KeyKind::Choice,
                    "switch load balancing among equal-cost ports: ecmp (per-flow hash), "
                    "flowlet (LetFlow), drill (per packet, DRILL(2,1)), adaptive (least queued "
                    "unpaused port), conga (per flowlet, leaf-to-leaf congestion fed back); "
                    "per-strategy keys in flowlet:, drill:, adaptive:, conga:")
            .MappedChoices({{"ecmp", "ns3::EcmpLoadBalancer"},
                            {"flowlet", "ns3::FlowletLoadBalancer"},
                            {"drill", "ns3::DrillLoadBalancer"},
                            {"adaptive", "ns3::AdaptiveLoadBalancer"},
                            {"conga", "ns3::CongaLoadBalancer"}})
            .Attribute("ns3::FabricSwitch::LoadBalancer")
            .Reader(ReadLoadBalancer),
    };
    for (const ScenarioKeys& section :
         {TypeAttributeKeys("flowlet",
                            "ns3::FlowletLoadBalancer",
                            "LetFlow flowlet switching (switch.lb: flowlet), one key per "
                            "ns3::FlowletLoadBalancer attribute"),
          TypeAttributeKeys("drill",
                            "ns3::DrillLoadBalancer",
                            "DRILL (switch.lb: drill), one key per ns3::DrillLoadBalancer "
                            "attribute"),
          TypeAttributeKeys("adaptive",
                            "ns3::AdaptiveLoadBalancer",
                            "adaptive routing (switch.lb: adaptive), one key per "
                            "ns3::AdaptiveLoadBalancer attribute"),
          TypeAttributeKeys("conga",
                            "ns3::CongaLoadBalancer",
                            "CONGA (switch.lb: conga), one key per ns3::CongaLoadBalancer "
                            "attribute")})
    {
        rows.insert(rows.end(), section.begin(), section.end());
    }
    return rows;
}

} // namespace ns3
