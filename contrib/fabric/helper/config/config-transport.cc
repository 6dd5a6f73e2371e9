// transport and cc: raw flows, RoCE queue pairs (roce:, dcqcn:, hpcc:, powertcp:) or Unified
// Bus (config-ub.cc).

#include "config/attribute-values.h"
#include "config/config-sections.h"
#include "config/plugin-keys.h"

#include <algorithm>

namespace ns3
{

namespace
{

/// The scenario name of the congestion control \p attribute creates by default.
std::string
DefaultCc(const std::string& attribute, const std::string& transport)
{
    std::string type = AttributeDefaultText(attribute);
    const FabricPlugin* p =
        PluginRegistry::FindType(PluginKind::CongestionControl, type, transport);
    return p ? p->GetName() : type;
}

void
ReadTransport(YamlFields& root, const ScenarioKey& key, ScenarioBuild& b)
{
    b.cfg.transport = ValueOf(root, key).text;
}

/// cc: checked against the transport; sets the NICs' congestion control and what its plug-in
/// record asks for (the switches' stage, ECN echo, the MTU), and gives both NICs the host MTU.
void
ReadCc(YamlFields& root, const ScenarioKey& key, ScenarioBuild& b)
{
    const std::string& transport = b.cfg.transport;
    bool ub = transport == "ub";
    std::string cc = "none"; // raw flows have no congestion control
    if (transport != "raw")
    {
        cc = ub ? DefaultCc("ns3::UbNic::CongestionControl", "ub")
                : DefaultCc("ns3::RdmaNic::CongestionControl", "roce");
    }
    cc = root.String(key.Name(), cc);
    if (cc != "none" && transport == "raw")
    {
        throw root.Error(key.Name(), "congestion control needs transport: roce or ub");
    }
    // Raw flows keep the RoCE NIC's "none" (the NIC is not used).
    const FabricPlugin& plugin =
        RequirePlugin(root, key.Name(), PluginKind::CongestionControl, cc, ub ? "ub" : "roce");
    AttributeList& attributes = b.cfg.attributes;
    std::string mtu = std::to_string(b.cfg.payloadMtu);
    std::string nic = ub ? "ns3::UbNic::" : "ns3::RdmaNic::";
    b.ubCc = ub ? cc : "";
    attributes.emplace_back(nic + "CongestionControl", plugin.GetTypeName());
    attributes.emplace_back(nic + "Mtu", mtu);
    if (ub)
    {
        // The RoCE NIC is not used; it keeps no congestion control and the hosts' MTU.
        attributes.emplace_back(
            "ns3::RdmaNic::CongestionControl",
            RequirePlugin(root, key.Name(), PluginKind::CongestionControl, "none", "roce")
                .GetTypeName());
        attributes.emplace_back("ns3::RdmaNic::Mtu", mtu);
    }
    if (!plugin.GetSwitchStage().empty())
    {
        // Only then: scenarios without such a stage keep frames and traces as they were.
        const FabricPlugin& stage =
            RequirePlugin(root, key.Name(), PluginKind::EgressStage, plugin.GetSwitchStage());
        attributes.emplace_back("ns3::FabricSwitch::TransportStages", stage.GetTypeName());
        if (!stage.GetMtuAttribute().empty())
        {
            attributes.emplace_back(stage.GetTypeName() + "::" + stage.GetMtuAttribute(),
                                    MtuAttributeValue(stage, b.cfg.payloadMtu));
        }
    }
    if (plugin.GetEchoesEcn() && !ub)
    {
        // The sender's feedback is the ECN-Echo on ACKs: receivers must set it (UB ACKs always
        // carry the echo).
        attributes.emplace_back("ns3::RdmaNic::EcnEcho", "true");
    }
    if (!plugin.GetMtuAttribute().empty())
    {
        attributes.emplace_back(plugin.GetTypeName() + "::" + plugin.GetMtuAttribute(),
                                MtuAttributeValue(plugin, b.cfg.payloadMtu));
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

std::string
CcDefaults()
{
    return "none with raw, " + DefaultCc("ns3::RdmaNic::CongestionControl", "roce") +
           " with roce (ns3::RdmaNic::CongestionControl), " +
           DefaultCc("ns3::UbNic::CongestionControl", "ub") +
           " with ub (ns3::UbNic::CongestionControl)";
}

/// Every congestion control's name, once, in name order (roce and ub share some).
std::vector<std::string>
CcNames()
{
    std::vector<std::string> names;
    for (const FabricPlugin* p : PluginRegistry::Of(PluginKind::CongestionControl))
    {
        if (std::find(names.begin(), names.end(), p->GetName()) == names.end())
        {
            names.push_back(p->GetName());
        }
    }
    return names;
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
                    "congestion control; with transport roce: " +
                        PluginHelp(PluginKind::CongestionControl, "roce") +
                        "; with transport ub: " + PluginHelp(PluginKind::CongestionControl, "ub"))
            .Choices(CcNames())
            .Rule(CcDefaults)
            .Reader(ReadCc),
        ScenarioKey("roce", KeyKind::Mapping, "RoCE NICs (transport: roce)").Reader(ReadSection),
        ScenarioKey("roce.recovery",
                    KeyKind::Native,
                    "loss recovery: go-back-N, or IRN-style selective repeat")
            .Attribute(nic + "Recovery"),

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
        ScenarioKey("roce.serve_new_qp_first",
                    KeyKind::Flag,
                    "a QP that starts while another's frame is on the wire goes before that "
                    "QP's next frame (the HPCC simulators' NIC), instead of after a whole turn")
            .Attribute(nic + "ServeNewQpFirst"),
        ScenarioKey("roce.rate_window",
                    KeyKind::Native,
                    "the HPCC simulator's NIC window for every cc (HAS_WIN, GLOBAL_T): a QP "
                    "keeps less payload unacknowledged than the base BDP (2 x path delay + one "
                    "payload per hop, times the bottleneck rate) of the topology's longest host "
                    "pair (global) or of its own pair (pair); off: none. The cc's own window "
                    "still binds if smaller (docs/models.md#rate-window)")
            .Attribute(nic + "RateWindow"),
        ScenarioKey("roce.rate_window_scaled",
                    KeyKind::Native,
                    "roce.rate_window x the QP's current rate / line rate, at least 1 B "
                    "(VAR_WIN)")
            .Attribute(nic + "RateWindowScaled"),
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
    // One section per RoCE congestion control that declares one (cc: dcqcn -> dcqcn.*).
    ScenarioKeys sections = PluginSectionKeys(PluginKind::CongestionControl, "cc", "roce");
    // dcqcn.preset right after its section's row: its reader runs before the single constants.
    auto dcqcn = std::find_if(sections.begin(), sections.end(), [](const ScenarioKey& k) {
        return k.path == "dcqcn";
    });
    if (dcqcn != sections.end())
    {
        sections.insert(
            dcqcn + 1,
            ScenarioKey("dcqcn.preset",
                        KeyKind::Choice,
                        "paper: the DCQCN paper's 40 Gb/s constants (the defaults); "
                        "scaled: NIC behaviour with increase steps scaled to the line rate, "
                        "as 100/400 Gb/s fabrics run it (docs/models.md#dcqcn-presets)")
                .Choices({"paper", "scaled"})
                .Default("paper")
                .Reader(ReadDcqcnPreset));
    }
    rows.insert(rows.end(), sections.begin(), sections.end());
    // The sections of the switches' egress stages (caqm_switch.*), after cc: whose reader sets
    // a stage's MTU, so that a key of the section given in the file wins.
    ScenarioKeys stages = PluginSectionKeys(PluginKind::EgressStage, "switch.stages");
    rows.insert(rows.end(), stages.begin(), stages.end());
    return rows;
}

} // namespace ns3
