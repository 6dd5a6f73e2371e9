// transport and cc: raw flows, RoCE queue pairs (roce:, dcqcn:, hpcc:, powertcp:) or Unified
// Bus (config-ub.cc).

#include "attribute-values.h"
#include "config-sections.h"

#include <algorithm>
#include <tuple>

namespace ns3
{

namespace
{

/// Congestion control by scenario name and the TypeId it stands for, per transport.
const std::vector<std::pair<std::string, std::string>> kRoceCc = {
    {"none", "ns3::NoCongestionControl"},
    {"dcqcn", "ns3::DcqcnCongestionControl"},
    {"dctcp", "ns3::DctcpCongestionControl"},
    {"timely", "ns3::TimelyCongestionControl"},
    {"swift", "ns3::SwiftCongestionControl"},
    {"hpcc", "ns3::HpccCongestionControl"},
    {"powertcp", "ns3::PowerTcpCongestionControl"},
    {"theta-powertcp", "ns3::ThetaPowerTcpCongestionControl"},
};
/// The RoCE congestion controls that read in-band telemetry: switches then stamp INT.
const std::vector<std::string> kIntCc = {"hpcc", "powertcp"};
const std::vector<std::pair<std::string, std::string>> kUbCc = {
    {"caqm", "ns3::CaqmCongestionControl"},
    {"nscc", "ns3::NsccCongestionControl"},
    {"dctcp", "ns3::UbDctcp"},
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
/// switches for UB, INT stamping for HPCC and PowerTCP), and gives both NICs the host MTU.
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
            throw root.Error(key.Name(),
                             "transport ub expects cc: caqm, nscc, dctcp or none, got '" + cc +
                                 "'");
        }
        b.ubCaqm = cc == "caqm";
        b.ubCc = cc;
        attributes.emplace_back("ns3::UbNic::CongestionControl", TypeOfCc(cc, kUbCc));
        attributes.emplace_back("ns3::FabricSwitch::Caqm", b.ubCaqm ? "true" : "false");
        attributes.emplace_back("ns3::UbNic::Mtu", mtu);
        attributes.emplace_back("ns3::CaqmSwitch::Mtu", mtu + "B");
        cc = "none"; // the RoCE NIC is not used
    }
    else if (TypeOfCc(cc, kRoceCc).empty())
    {
        throw root.Error(key.Name(),
                         "expected none, dcqcn, dctcp, timely, swift, hpcc, powertcp or "
                         "theta-powertcp, got '" +
                             cc + "'");
    }
    if (cc != "none" && transport != "roce")
    {
        throw root.Error(key.Name(), "congestion control needs transport: roce or ub");
    }
    attributes.emplace_back("ns3::RdmaNic::CongestionControl", TypeOfCc(cc, kRoceCc));
    attributes.emplace_back("ns3::RdmaNic::Mtu", mtu);
    if (std::find(kIntCc.begin(), kIntCc.end(), cc) != kIntCc.end())
    {
        // The algorithm reads INT: every switch egress stamps it (only then: scenarios
        // without INT keep frames and traces exactly as they were).
        attributes.emplace_back("ns3::FabricSwitch::EgressStages", "ns3::IntStampStage");
    }
    if (cc == "dctcp")
    {
        // DCTCP's feedback is the ECN-Echo on ACKs: receivers must set it.
        attributes.emplace_back("ns3::RdmaNic::EcnEcho", "true");
    }
    if (cc == "swift")
    {
        attributes.emplace_back("ns3::SwiftCongestionControl::Mtu", mtu); // cwnd's packet
    }
}

/// dcqcn.preset: one set of DCQCN constants (docs/models.md#dcqcn-presets); the section's
/// other keys, read after it, override single constants.
void
ReadDcqcnPreset(YamlFields& dcqcn, const ScenarioKey& key, ScenarioBuild& b)
{
    if (!Given(dcqcn, key))
    {
        return; // the attribute defaults: the paper's constants
    }
    const std::string t = "ns3::DcqcnCongestionControl::";
    std::vector<std::pair<std::string, std::string>> values;
    if (ValueOf(dcqcn, key).text == "paper")
    {
        // DCQCN paper (Zhu et al., SIGCOMM 2015) for 40 Gb/s: the attribute defaults (with
        // RateScaleReference at its default, 0 bps: no scaling; a rate key refuses 0).
        values = {{"G", "0.00390625"},
                  {"AlphaTimer", "55us"},
                  {"RateIncreaseTimer", "55us"},
                  {"ByteCounter", "10MB"},
                  {"FastRecoveryStages", "5"},
                  {"RateAI", "40Mbps"},
                  {"RateHAI", "200Mbps"},
                  {"ClampTargetRate", "true"}};
    }
    else
    {
        // NVIDIA ConnectX firmware behaviour with the increase steps scaled to the line rate,
        // as the HPCC simulator's evaluation script (simulation/run.py, cc dcqcn) sets it:
        // alpha updated every 1 us, increase timer 300 us, one fast-recovery stage, no target
        // clamp, no byte counter, R_AI = 5 Mb/s and R_HAI = 50 Mb/s per 25 Gb/s of line rate.
        values = {{"G", "0.00390625"},
                  {"AlphaTimer", "1us"},
                  {"RateIncreaseTimer", "300us"},
                  {"ByteCounter", "0B"},
                  {"FastRecoveryStages", "1"},
                  {"RateAI", "5Mbps"},
                  {"RateHAI", "50Mbps"},
                  {"RateScaleReference", "25Gbps"},
                  {"ClampTargetRate", "false"}};
    }
    for (const auto& [name, value] : values)
    {
        b.cfg.attributes.emplace_back(t + name, value);
    }
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
                    "congestion control: none | dcqcn | dctcp | timely | swift | hpcc | "
                    "powertcp | theta-powertcp with transport roce (dctcp turns on ECN-Echo in "
                    "ACKs; hpcc and powertcp read in-band telemetry: switches stamp INT); caqm | "
                    "nscc | dctcp | none with transport ub")
            .Choices({"none",
                      "dcqcn",
                      "dctcp",
                      "timely",
                      "swift",
                      "hpcc",
                      "powertcp",
                      "theta-powertcp",
                      "caqm",
                      "nscc"})
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
        ScenarioKey("roce.rto_mode",
                    KeyKind::Native,
                    "retransmission timeout: adaptive (RFC 6298 SRTT + 4 RTTVAR, at least "
                    "min_rto + rto_queue_bound, doubled on expiry) or fixed (rto_low / "
                    "rto_high)")
            .Attribute(nic + "RtoMode"),
        ScenarioKey("roce.rto_low",
                    KeyKind::Native,
                    "rto_mode fixed: retransmission timeout while at most rto_low_threshold "
                    "packets are outstanding")
            .Attribute(nic + "RtoLow"),
        ScenarioKey("roce.rto_high",
                    KeyKind::Native,
                    "rto_mode fixed: retransmission timeout otherwise")
            .Attribute(nic + "RtoHigh"),
        ScenarioKey("roce.rto_low_threshold",
                    KeyKind::Native,
                    "rto_mode fixed: outstanding packets up to which rto_low applies")
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
        ScenarioKey("roce.completion_poll_interval",
                    KeyKind::Native,
                    "software polls completions this often; a slot is free once its completion "
                    "is handled (0 = at once)")
            .Attribute(nic + "CompletionPollInterval"),
        ScenarioKey("roce.completion_poll_batch", KeyKind::Native, "completions handled per poll")
            .Attribute(nic + "CompletionPollBatch"),
        ScenarioKey("roce.max_inflight_requests",
                    KeyKind::Native,
                    "messages outstanding per NIC (0 = unlimited)")
            .Attribute(nic + "MaxInflightRequests"),
        ScenarioKey("roce.context_cache",
                    KeyKind::Native,
                    "on-chip QP context cache, 512 B per connection (0B = every context fits)")
            .Attribute(nic + "ContextCacheSize"),
        ScenarioKey("roce.context_miss_penalty", KeyKind::Native, "added per QP context miss")
            .Attribute(nic + "ContextMissPenalty"),
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
    InsertAdaptiveRtoKeys(rows, "roce");
    ScenarioKeys hostPath = HostPathKeys("roce");
    rows.insert(rows.end(), hostPath.begin(), hostPath.end());
    ScenarioKeys dcqcn = TypeAttributeKeys("dcqcn",
                                           "ns3::DcqcnCongestionControl",
                                           "DCQCN reaction point (cc: dcqcn), one key per "
                                           "ns3::DcqcnCongestionControl attribute");
    // The preset row right after the section's: its reader runs before the single constants.
    dcqcn.insert(dcqcn.begin() + 1,
                 ScenarioKey("dcqcn.preset",
                             KeyKind::Choice,
                             "paper: the DCQCN paper's 40 Gb/s constants (the defaults); "
                             "scaled: NIC behaviour with increase steps scaled to the line rate, "
                             "as 100/400 Gb/s fabrics run it (docs/models.md#dcqcn-presets)")
                     .Choices({"paper", "scaled"})
                     .Default("paper")
                     .Reader(ReadDcqcnPreset));
    rows.insert(rows.end(), dcqcn.begin(), dcqcn.end());
    for (const auto& [section, typeName, help] :
         {std::tuple<std::string, std::string, std::string>{"dctcp",
                                                            "ns3::DctcpCongestionControl",
                                                            "DCTCP sender (cc: dctcp)"},
          {"timely", "ns3::TimelyCongestionControl", "TIMELY rate control (cc: timely)"},
          {"swift", "ns3::SwiftCongestionControl", "Swift window control (cc: swift)"},
          {"hpcc", "ns3::HpccCongestionControl", "HPCC sender (cc: hpcc)"},
          {"powertcp", "ns3::PowerTcpCongestionControl", "PowerTCP sender (cc: powertcp)"},
          {"theta_powertcp",
           "ns3::ThetaPowerTcpCongestionControl",
           "θ-PowerTCP sender (cc: theta-powertcp)"}})
    {
        ScenarioKeys keys =
            TypeAttributeKeys(section, typeName, help + ", one key per " + typeName + " attribute");
        rows.insert(rows.end(), keys.begin(), keys.end());
    }
    return rows;
}

} // namespace ns3
