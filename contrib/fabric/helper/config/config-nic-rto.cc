// <section>.min_rto, rto_queue_bound, rto_max: the adaptive retransmission timeout of both NICs
// (NicTransport's RtoMode, MinRto, RtoQueueBound, RtoMax; docs/models.md#retransmission-timeout).

#include "config/config-sections.h"

#include <algorithm>

namespace ns3
{

void
InsertAdaptiveRtoKeys(ScenarioKeys& rows, const std::string& section)
{
    const std::string nic = section == "ub" ? "ns3::UbNic::" : "ns3::RdmaNic::";
    ScenarioKeys adaptive = {
        ScenarioKey(section + ".min_rto",
                    KeyKind::Native,
                    "rto_mode adaptive: the RTO of an unloaded fabric, first term of the floor")
            .Attribute(nic + "MinRto"),
        ScenarioKey(section + ".rto_queue_bound",
                    KeyKind::Native,
                    "rto_mode adaptive: worst queueing of a lossless class, added to min_rto "
                    "as the floor")
            .Attribute(nic + "RtoQueueBound"),
        ScenarioKey(section + ".rto_max", KeyKind::Native, "rto_mode adaptive: where backoff stops")
            .Attribute(nic + "RtoMax"),
    };
    auto mode = std::find_if(rows.begin(), rows.end(), [&](const ScenarioKey& k) {
        return k.path == section + ".rto_mode";
    });
    rows.insert(mode == rows.end() ? mode : mode + 1, adaptive.begin(), adaptive.end());
}

} // namespace ns3
