// switch.trim: packet trimming (docs/models.md, "Packet trimming"): a data frame the buffer
// would drop, or whose egress queue exceeds the threshold, goes on as its header alone.

#include "config-sections.h"

namespace ns3
{

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
        ScenarioKey("switch.trim.enabled", KeyKind::Flag, "trim data frames")
            .Attribute(sw + "TrimEnabled"),
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
