// link: the defaults for the topology's links, and what every port adds to a frame on the wire.

#include "config/config-sections.h"

namespace ns3
{

namespace
{

void
ReadLinkRate(YamlFields& link, const ScenarioKey& key, ScenarioBuild& b)
{
    b.linkDefaults.rate = ValueOf(link, key).rate;
}

/// link.delay or link.cable, whichever is given (not both).
void
ReadLinkDelay(YamlFields& link, const ScenarioKey& key, ScenarioBuild& b)
{
    b.linkDefaults.delay = link.DelayOrCable(key.Name(), "cable", DefaultOf(key).time);
}

void
ReadWireOverhead(YamlFields& link, const ScenarioKey& key, ScenarioBuild& b)
{
    b.wireOverhead = SetFromKey(link, key, b.cfg.attributes).count;
}

} // namespace

ScenarioKeys
LinkKeys()
{
    return {
        ScenarioKey("link",
                    KeyKind::Mapping,
                    "defaults for the topology's links (a link or generator may give its own)")
            .Reader(ReadSection),
        ScenarioKey("link.rate", KeyKind::Rate, "link rate, per direction")
            .Attribute("ns3::FabricNetDevice::DataRate")
            .Reader(ReadLinkRate),
        ScenarioKey("link.delay", KeyKind::Duration, "propagation delay of a cable")
            .Attribute("ns3::FabricChannel::Delay")
            .Reader(ReadLinkDelay),
        ScenarioKey("link.cable",
                    KeyKind::Length,
                    "cable length instead of link.delay, at 5 ns per metre (30m)"),
        ScenarioKey("link.wire_overhead",
                    KeyKind::Bytes,
                    "preamble, SFD, FCS and inter-frame gap per frame (0 for ideal formulas)")
            .Attribute("ns3::FabricNetDevice::WireOverhead")
            .Reader(ReadWireOverhead),
        ScenarioKey("link.loss_rate",
                    KeyKind::Number,
                    "probability a frame is lost on a cable (every link, both ways)")
            .Attribute("ns3::FabricNetDevice::LossRate")
            .Check(Within(0, 1, "a probability within 0..1"))
            .Unit("probability"),
    };
}

} // namespace ns3
