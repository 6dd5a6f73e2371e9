// switch.flow_control and switch.cbfc: credit-based flow control on every link (docs/models.md,
// "Credit-based flow control"), the alternative to PFC pauses for the lossless priorities.

#include "config/config-sections.h"
#include "wire/roce-frame-header.h"

namespace ns3
{

namespace
{

const std::string kDevice = "ns3::FabricNetDevice::";

void
ReadFlowControl(YamlFields& sw, const ScenarioKey& key, ScenarioBuild& b)
{
    KeyValue v = ValueOf(sw, key);
    b.cbfc = v.text == "cbfc";
    b.cfg.attributes.emplace_back(key.attribute, AttributeText(key, v));
}

/// switch.cbfc: given only under switch.flow_control: cbfc (its keys would do nothing else);
/// absent, its attributes keep their defaults like every other key's.
void
ReadCbfc(YamlFields& sw, const ScenarioKey& key, ScenarioBuild& b)
{
    if (!b.cbfc && sw.Has(key.Name()))
    {
        throw sw.Error(key.Name(), "credits are used only with switch.flow_control: cbfc");
    }
    YamlFields cbfc = sw.Child(key.Name());
    AttributeList& attributes = b.cfg.attributes;
    uint64_t cell = SetFromKey(cbfc, "cell", attributes).count;
    uint64_t credits = SetFromKey(cbfc, "credits", attributes).count;
    SetFromKey(cbfc, "mode", attributes);
    SetFromKey(cbfc, "return_interval", attributes);
    SetFromKey(cbfc, "sync_interval", attributes);
    cbfc.RejectUnknownKeys();
    if (!b.cbfc)
    {
        return;
    }
    uint64_t largest = b.cfg.payloadMtu + kRoceFrameOverhead;
    // A lane must advertise at least one largest frame in whole cells, or that frame never
    // finds the credits it needs and the link stalls for good.
    uint64_t cellsPerFrame = (largest + cell - 1) / cell;
    if (credits / cell < cellsPerFrame)
    {
        throw cbfc.Error("credits",
                         std::to_string(credits) + " B is " + std::to_string(credits / cell) +
                             " cells of " + std::to_string(cell) + " B, fewer than the " +
                             std::to_string(cellsPerFrame) + " cells of the largest frame (" +
                             std::to_string(largest) + " B, host.mtu and RoCE headers)");
    }
    b.cbfcCreditBytes = credits / cell * cell;
}

} // namespace

ScenarioKeys
CbfcKeys()
{
    return {
        ScenarioKey("switch.flow_control",
                    KeyKind::Choice,
                    "link-level flow control of the lossless priorities on every link: pfc "
                    "(pauses, switch.pfc) or cbfc (credits, switch.cbfc)")
            .Choices({"pfc", "cbfc"})
            .Attribute(kDevice + "FlowControl")
            .Reader(ReadFlowControl),
        ScenarioKey("switch.cbfc",
                    KeyKind::Mapping,
                    "credit-based flow control (switch.flow_control: cbfc); the credited lanes "
                    "are switch.pfc.lossless")
            .Reader(ReadCbfc),
        ScenarioKey("switch.cbfc.cell",
                    KeyKind::Bytes,
                    "buffer one credit stands for; a frame of b bytes needs ceil(b / cell) "
                    "credits")
            .Attribute(kDevice + "CreditCell")
            .Check(Positive("must be at least 1B")),
        ScenarioKey("switch.cbfc.credits",
                    KeyKind::Bytes,
                    "receive buffer each port advertises per credited lane (whole cells; at "
                    "least the largest frame); every switch reserves it per (port, lane)")
            .Attribute(kDevice + "CreditBuffer")
            .Check(Positive("must be positive")),
        ScenarioKey("switch.cbfc.mode",
                    KeyKind::Choice,
                    "exclusive: every credited lane has switch.cbfc.credits of its own; shared: "
                    "the lanes of a port draw from one pool of that size")
            .MappedChoices({{"exclusive", "false"}, {"shared", "true"}})
            .Attribute(kDevice + "CreditShared"),
        ScenarioKey("switch.cbfc.return_interval",
                    KeyKind::Duration,
                    "0: return credits as soon as frames leave the buffer; otherwise one credit "
                    "frame per interval at most")
            .Attribute(kDevice + "CreditReturnInterval"),
        ScenarioKey("switch.cbfc.sync_interval",
                    KeyKind::Duration,
                    "credit-loss recovery: a SYNC of cumulative returns follows the last update "
                    "by this much, and a sender stalled this long without credit asks for one "
                    "(0: off)")
            .Attribute(kDevice + "CreditSyncInterval"),
    };
}

} // namespace ns3
