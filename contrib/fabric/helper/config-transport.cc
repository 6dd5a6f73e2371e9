// transport and cc: raw flows, RoCE queue pairs (roce:, dcqcn:) or Unified Bus (config-ub.cc).

#include "attribute-values.h"
#include "config-sections.h"

namespace ns3
{

namespace
{

/// Congestion control by scenario name and the TypeId it stands for, per transport.
const std::vector<std::pair<std::string, std::string>> kRoceCc = {
    {"none", "ns3::NoCongestionControl"},
    {"dcqcn", "ns3::DcqcnCongestionControl"},
};
const std::vector<std::pair<std::string, std::string>> kUbCc = {
    {"caqm", "ns3::CaqmCongestionControl"},
    {"none", "ns3::UbFixedWindow"},
};

/// The scenario name of the congestion control \p attribute creates by default.
std::string
DefaultCc(const std::string& attribute,
          const std::vector<std::pair<std::string, std::string>>& names)
{
    std::string type = AttributeDefaultText(attribute);
    for (const auto& [name, typeName] : names)
    {
        if (typeName == type)
        {
            return name;
        }
    }
    return type;
}

std::string
TypeOfCc(const std::string& cc, const std::vector<std::pair<std::string, std::string>>& names)
{
    for (const auto& [name, typeName] : names)
    {
        if (name == cc)
        {
            return typeName;
        }
    }
    return "";
}

void
ReadTransport(YamlFields& root, const ScenarioKey& key, ScenarioBuild& b)
{
    b.cfg.transport = ValueOf(root, key).text;
}

/// cc: checked against the transport; sets the NICs' congestion control (and C-AQM on the
/// switches for UB), and gives both NICs the host MTU.
void
ReadCc(YamlFields& root, const ScenarioKey& key, ScenarioBuild& b)
{
    const std::string& transport = b.cfg.transport;
    bool ub = transport == "ub";
    std::string cc = "none"; // raw flows have no congestion control
    if (transport != "raw")
    {
        cc = ub ? DefaultCc("ns3::UbNic::CongestionControl", kUbCc)
                : DefaultCc("ns3::RdmaNic::CongestionControl", kRoceCc);
    }
    cc = root.String(key.Name(), cc);
    AttributeList& attributes = b.cfg.attributes;
    std::string mtu = std::to_string(b.cfg.payloadMtu);
    if (ub)
    {
        if (TypeOfCc(cc, kUbCc).empty())
        {
            throw root.Error(key.Name(), "transport ub expects cc: caqm or none, got '" + cc + "'");
        }
        b.ubCaqm = cc == "caqm";
        attributes.emplace_back("ns3::UbNic::CongestionControl", TypeOfCc(cc, kUbCc));
        attributes.emplace_back("ns3::FabricSwitch::Caqm", b.ubCaqm ? "true" : "false");
        attributes.emplace_back("ns3::UbNic::Mtu", mtu);
        attributes.emplace_back("ns3::CaqmSwitch::Mtu", mtu + "B");
        cc = "none"; // the RoCE NIC is not used
    }
    else if (TypeOfCc(cc, kRoceCc).empty())
    {
        throw root.Error(key.Name(), "expected none or dcqcn, got '" + cc + "'");
    }
    if (cc != "none" && transport != "roce")
    {
        throw root.Error(key.Name(), "congestion control needs transport: roce or ub");
    }
    attributes.emplace_back("ns3::RdmaNic::CongestionControl", TypeOfCc(cc, kRoceCc));
    attributes.emplace_back("ns3::RdmaNic::Mtu", mtu);
}

/// roce.recovery, checked against a per-packet switch load balancer.
void
ReadRecovery(YamlFields& roce, const ScenarioKey& key, ScenarioBuild& b)
{
    KeyValue v = SetFromKey(roce, key, b.cfg.attributes);
    CheckRecoveryForSwitchLb(b, v.text);
}

std::string
CcDefaults()
{
    return "none with raw, " + DefaultCc("ns3::RdmaNic::CongestionControl", kRoceCc) +
           " with roce (ns3::RdmaNic::CongestionControl), " +
           DefaultCc("ns3::UbNic::CongestionControl", kUbCc) +
           " with ub (ns3::UbNic::CongestionControl)";
}

} // namespace

ScenarioKeys
TransportKeys()
{
    const std::string nic = "ns3::RdmaNic::";
    ScenarioKeys rows = {
        ScenarioKey("transport",
                    KeyKind::Choice,
                    "raw: fixed-size flows, no reliability; roce: RC queue pairs; ub: Unified "
                    "Bus, Jettys over shared transport channels")
            .Choices({"raw", "roce", "ub"})
            .Default("raw")
            .Reader(ReadTransport),
        ScenarioKey("cc",
                    KeyKind::Choice,
                    "congestion control: none | dcqcn with transport roce; caqm | none with "
                    "transport ub")
            .Choices({"none", "dcqcn", "caqm"})
            .Rule(CcDefaults)
            .Reader(ReadCc),
        ScenarioKey("roce", KeyKind::Mapping, "RoCE NICs (transport: roce)").Reader(ReadSection),
        ScenarioKey("roce.recovery",
                    KeyKind::Native,
                    "loss recovery: go-back-N, or IRN-style selective repeat")
            .Attribute(nic + "Recovery")
            .Reader(ReadRecovery),
        ScenarioKey("roce.ack_interval", KeyKind::Native, "ACK every N in-order packets")
            .Attribute(nic + "AckInterval")
            .Unit("packets"),
        ScenarioKey("roce.cnp_interval", KeyKind::Native, "at most one CNP per QP per interval")
            .Attribute(nic + "CnpInterval"),
        ScenarioKey("roce.cnp_priority", KeyKind::Native, "priority CNPs are sent at")
            .Attribute(nic + "CnpPriority"),
        ScenarioKey("roce.rto_low",
                    KeyKind::Native,
                    "retransmission timeout while at most rto_low_threshold packets are "
                    "outstanding")
            .Attribute(nic + "RtoLow"),
        ScenarioKey("roce.rto_high", KeyKind::Native, "retransmission timeout otherwise")
            .Attribute(nic + "RtoHigh"),
        ScenarioKey("roce.rto_low_threshold",
                    KeyKind::Native,
                    "outstanding packets up to which rto_low applies")
            .Attribute(nic + "RtoLowThreshold")
            .Unit("packets"),
        ScenarioKey("roce.window",
                    KeyKind::Native,
                    "selective repeat: bytes beyond the first unacknowledged packet (0B = line "
                    "rate x roce.base_rtt)")
            .Attribute(nic + "Window"),
        ScenarioKey("roce.base_rtt", KeyKind::Native, "round trip the 0B window is sized for")
            .Attribute(nic + "BaseRtt"),
        ScenarioKey("roce.request_interval",
                    KeyKind::Native,
                    "minimum time between message launches per NIC")
            .Attribute(nic + "RequestInterval"),
        ScenarioKey("roce.max_inflight_requests",
                    KeyKind::Native,
                    "messages outstanding per NIC (0 = unlimited)")
            .Attribute(nic + "MaxInflightRequests"),
        ScenarioKey("roce.receive_slots",
                    KeyKind::Native,
                    "receive buffers posted for SENDs (0 = unlimited)")
            .Attribute(nic + "ReceiveSlots"),
        ScenarioKey("roce.completion_time",
                    KeyKind::Native,
                    "host time to process one receive completion")
            .Attribute(nic + "CompletionProcessingTime"),
        ScenarioKey("roce.rnr_delay", KeyKind::Native, "sender wait after an RNR NAK")
            .Attribute(nic + "RnrDelay"),
        ScenarioKey("roce.ordered_messages",
                    KeyKind::Native,
                    "true: messages to one destination share one RC QP (start in turn, "
                    "complete in order: head-of-line blocking); false: a QP per message")
            .Attribute(nic + "OrderedMessages"),
    };
    ScenarioKeys dcqcn = TypeAttributeKeys("dcqcn",
                                           "ns3::DcqcnCongestionControl",
                                           "DCQCN reaction point (cc: dcqcn), one key per "
                                           "ns3::DcqcnCongestionControl attribute");
    rows.insert(rows.end(), dcqcn.begin(), dcqcn.end());
    return rows;
}

} // namespace ns3
