// switch.trim: packet trimming (docs/models.md, "Packet trimming"): a data frame the buffer
// would drop, or whose egress queue exceeds the threshold, goes on as its header alone.

#include "config/config-sections.h"

namespace ns3
{
namespace
{

/// switch.trim.enabled: the switches trim, and NSCC senders aim at the lower queuing delay a
/// trimming fabric allows (uet-htsim, htsim/sim/uec.cpp:107-111: 0.75 x network RTT).
void
ReadTrimEnabled(YamlFields& trim, const ScenarioKey& key, ScenarioBuild& b)
{
    KeyValue v = SetFromKey(trim, key, b.cfg.attributes);
    if (v.flag)
    {
        b.cfg.attributes.emplace_back("ns3::NsccCongestionControl::TrimmingEnabled", "true");
    }
}

} // namespace

ScenarioKeys
TrimKeys()
{
    const std::string sw = "ns3::FabricSwitch::";
    return {
        ScenarioKey("switch.trim",
                    KeyKind::Mapping,
                    "packet trimming (NDP, Ultra Ethernet): cut the payload of a data frame "
                    "instead of dropping or queueing it; the receiver NACKs the header at once")
            .Reader(ReadSection),
        ScenarioKey("switch.trim.enabled",
                    KeyKind::Flag,
                    "trim data frames (NSCC senders then target 0.75 x network RTT)")
            .Attribute(sw + "TrimEnabled")
            .Reader(ReadTrimEnabled),
        ScenarioKey("switch.trim.threshold",
                    KeyKind::Bytes,
                    "egress queue bytes (of the frame's priority) above which a data frame is "
                    "trimmed; 0B: only frames the buffer would drop")
            .Attribute(sw + "TrimThreshold"),
        ScenarioKey("switch.trim.priority", KeyKind::Count, "priority trimmed headers leave by")
            .Attribute(sw + "TrimPriority")
            .Check(PriorityCheck()),
    };
}

} // namespace ns3
