// ub, caqm, caqm_switch, nscc and ub_dctcp: Unified Bus NICs (transport: ub), their congestion
// control (C-AQM, NSCC, DCTCP), and the UB request fields of a flow. The UB keys are checked
// whatever the transport, so one file can compare transports; transport and cc are read in
// config-transport.cc.

#include "config/attribute-values.h"
#include "config/config-sections.h"
#include "config/plugin-keys.h"

namespace ns3
{

namespace
{

/// ub.entropies: the entropy values either spraying policy cycles through.
void
ReadEntropies(YamlFields& ub, const ScenarioKey& key, ScenarioBuild& b)
{
    if (!ub.Has(key.Name()))
    {
        return; // each policy keeps its own default
    }
    for (const char* policy :
         {"ns3::UbObliviousSpray::Entropies", "ns3::UbAdaptiveSpray::Entropies"})
    {
        AddAttributeFromKey(b.cfg, ub, key.Name(), policy);
    }
}

/// ub.window: a fixed window, for cc: none only.
void
ReadWindow(YamlFields& ub, const ScenarioKey& key, ScenarioBuild& b)
{
    if (!ub.Has(key.Name()))
    {
        return;
    }
    if (!b.ubCc.empty() && b.ubCc != "none")
    {
        throw ub.Error(key.Name(), "a fixed window is for cc: none (" + b.ubCc + " sizes its own)");
    }
    SetFromKey(ub, key, b.cfg.attributes);
}

} // namespace

void
ParseUbRequestFields(YamlFields& f, const std::vector<FlowSpec>& earlier, FlowSpec& fs)
{
    if (f.Has("endpoint"))
    {
        uint64_t e = f.Uint("endpoint");
        if (e > 0xFFFF)
        {
            throw f.Error("endpoint", "Jetty index must be below 65536");
        }
        fs.endpoint = static_cast<uint16_t>(e);
    }
    std::string order = f.String("order", f.Has("after") ? "after" : "none");
    // The UB specification's execution-order tags are accepted by their names: NO = none,
    // SO = strict, RO = relaxed (docs/models.md#ordering).
    if (order == "none" || order == "NO")
    {
        fs.order = 0;
    }
    else if (order == "after")
    {
        fs.order = 1;
    }
    else if (order == "strict" || order == "SO")
    {
        fs.order = 2;
    }
    else if (order == "relaxed" || order == "RO")
    {
        fs.order = 3;
    }
    else
    {
        throw f.Error("order",
                      "expected none (NO), relaxed (RO), strict (SO) or after, got '" + order +
                          "'");
    }
    if (f.Has("after"))
    {
        YAML::Node list = f.Node("after");
        if (!list.IsSequence())
        {
            throw f.Error("after", "expected a list of earlier flow indices");
        }
        for (const auto& item : list)
        {
            uint64_t id = 0;
            try
            {
                id = item.as<uint64_t>();
            }
            catch (const YAML::Exception&)
            {
                throw f.Error("after", "'" + item.Scalar() + "' is not a flow index");
            }
            if (id >= earlier.size())
            {
                throw f.Error("after",
                              "flow " + std::to_string(id) +
                                  " is not an earlier flow of this list");
            }
            // A Jetty orders its own requests; a predecessor posted later could hold back a
            // request that already holds a request slot (no progress).
            const FlowSpec& pred = earlier[id];
            if (pred.uno)
            {
                throw f.Error("after",
                              "flow " + std::to_string(id) +
                                  " is service: uno: it may never arrive whole, so nothing "
                                  "is ordered after it");
            }
            if (pred.src != fs.src)
            {
                throw f.Error("after",
                              "flow " + std::to_string(id) +
                                  " has another source: ordering is among one host's requests");
            }
            if (pred.start > fs.start)
            {
                throw f.Error("after",
                              "flow " + std::to_string(id) +
                                  " starts later than this one: a request waits only for "
                                  "requests posted before it");
            }
            fs.after.push_back(static_cast<uint32_t>(id));
        }
    }
    else if (fs.order == 1)
    {
        throw f.Error("order", "order: after needs an `after:` list of flows");
    }
}

bool
ReadUbService(YamlFields& f,
              const std::string& key,
              bool fallback,
              FlowSpec& fs,
              const std::string& transport)
{
    bool uno = fallback;
    if (f.Has(key))
    {
        std::string service = f.String(key);
        if (service != "reliable" && service != "uno" && service != "UNO")
        {
            throw f.Error(key, "expected reliable or uno, got '" + service + "'");
        }
        uno = service != "reliable";
    }
    if (!uno)
    {
        return false;
    }
    if (f.Has(key))
    {
        fs.serviceKey = f.KeyPath(key);
        fs.serviceLine = f.LineOf(key);
    }
    // Named: the key that asks for UNO when given here, else the field it conflicts with.
    auto conflict = [&](const std::string& field) { return f.Has(key) ? key : field; };
    if (transport != "ub")
    {
        throw f.Error(key,
                      "service: uno is a Unified Bus transport service mode (transport: ub, not " +
                          transport + ")");
    }
    if (IsUbMemoryVerb(fs.verb))
    {
        throw f.Error(conflict("verb"),
                      "service: uno carries writes and sends only: read, load, store and atomic "
                      "need responses, which an unreliable channel does not promise");
    }
    if (fs.order != 0)
    {
        throw f.Error(conflict("order"),
                      "service: uno has no order (unreliable, no order): use order: none");
    }
    return true;
}

void
CheckVerbTransport(YamlFields& f,
                   const std::string& key,
                   RdmaVerb verb,
                   const std::string& transport)
{
    if (verb == RdmaVerb::READ && transport != "roce" && transport != "ub")
    {
        throw f.Error(key, "read needs transport: roce or ub");
    }
    if ((verb == RdmaVerb::LOAD || verb == RdmaVerb::STORE || verb == RdmaVerb::ATOMIC) &&
        transport != "ub")
    {
        throw f.Error(key,
                      "load, store and atomic are Unified Bus memory operations (transport: ub)");
    }
}

ScenarioKeys
UbKeys()
{
    const std::string nic = "ns3::UbNic::";
    ScenarioKeys rows = {
        ScenarioKey("ub", KeyKind::Mapping, "Unified Bus NICs (transport: ub)").Reader(ReadSection),
        ScenarioKey("ub.sharing",
                    KeyKind::Native,
                    "shared: every Jetty toward a target on one transport channel; private: a "
                    "channel per Jetty and target; groups: Jetty mod ub.groups")
            .Attribute(nic + "Sharing"),
        ScenarioKey("ub.groups", KeyKind::Native, "channel groups per target for sharing: groups")
            .Attribute(nic + "Groups"),
        ScenarioKey("ub.group_binding",
                    KeyKind::Native,
                    "sharing: groups — jetty: a Jetty uses one channel of the group; request: a "
                    "Jetty uses all of them, each request the next in turn")
            .Attribute(nic + "GroupBinding"),
        ScenarioKey("ub.sack_bits", KeyKind::Native, "selective-ACK bitmap bits per ACK")
            .Attribute(nic + "SackBits"),
        ScenarioKey("ub.out_of_order_window",
                    KeyKind::Native,
                    "PSNs a receiver tracks beyond its cumulative point")
            .Attribute(nic + "OutOfOrderWindow"),
        ScenarioKey("ub.rto_mode",
                    KeyKind::Native,
                    "retransmission timeout: adaptive (RFC 6298 SRTT + 4 RTTVAR per channel, "
                    "at least min_rto + rto_queue_bound, doubled on expiry) or fixed (ub.rto)")
            .Attribute(nic + "RtoMode"),
        ScenarioKey("ub.rto", KeyKind::Native, "rto_mode fixed: retransmission timeout")
            .Attribute(nic + "Rto"),
        ScenarioKey("ub.reorder_window",
                    KeyKind::Native,
                    "resend a packet once one sent this much later has arrived (0 = timeout "
                    "only)")
            .Attribute(nic + "ReorderWindow"),
        ScenarioKey(
            "ub.ack_interval",
            KeyKind::Native,
            "ACK every N packets (at once on gaps opening or closing, last packets, changes "
            "of the congestion mark and full sender windows)")
            .Attribute(nic + "AckInterval")
            .Unit("packets"),
        ScenarioKey("ub.request_interval",
                    KeyKind::Native,
                    "minimum time between request launches per NIC")
            .Attribute(nic + "RequestInterval"),
        ScenarioKey("ub.completion_poll_interval",
                    KeyKind::Native,
                    "software polls completions this often; a slot is free once its completion "
                    "is handled (0 = at once)")
            .Attribute(nic + "CompletionPollInterval"),
        ScenarioKey("ub.completion_poll_batch", KeyKind::Native, "completions handled per poll")
            .Attribute(nic + "CompletionPollBatch"),
        ScenarioKey("ub.max_inflight_requests",
                    KeyKind::Native,
                    "requests outstanding per NIC (0 = unlimited)")
            .Attribute(nic + "MaxInflightRequests"),
        ScenarioKey("ub.reorder_buffer",
                    KeyKind::Native,
                    "out-of-order bytes a NIC can hold (0B = unlimited)")
            .Attribute(nic + "ReorderBufferSize"),
        ScenarioKey("ub.context_cache",
                    KeyKind::Native,
                    "on-chip context cache (0B = every context fits)")
            .Attribute(nic + "ContextCacheSize"),
        ScenarioKey("ub.context_miss_penalty", KeyKind::Native, "added per context miss")
            .Attribute(nic + "ContextMissPenalty"),
        ScenarioKey("ub.cache_line",
                    KeyKind::Bytes,
                    "bytes per load or store operation (verb: load | store)")
            .Attribute(nic + "CacheLineSize")
            .Check(Within(1, 4096, "a cache line is 1..4096 bytes")),
        ScenarioKey("ub.memory_latency",
                    KeyKind::Duration,
                    "responder's memory time per READ, load, store or atomic before it answers")
            .Attribute(nic + "MemoryLatency"),
        ScenarioKey("ub.max_outstanding_ops",
                    KeyKind::Count,
                    "load, store and atomic operations awaiting their response per NIC (0 = "
                    "unlimited)")
            .Attribute(nic + "MaxOutstandingOps"),
        ScenarioKey("ub.spray",
                    KeyKind::Choice,
                    "how a channel picks each packet's entropy (path): " +
                        PluginHelp(PluginKind::NicSpray))
            .MappedChoices(PluginTypeChoices(PluginKind::NicSpray))
            .Attribute(nic + "LoadBalancer"),
        ScenarioKey("ub.entropies", KeyKind::Count, "entropy values a channel sprays over")
            .Rule([] {
                return "oblivious " + AttributeDefaultText("ns3::UbObliviousSpray::Entropies") +
                       " (ns3::UbObliviousSpray::Entropies), adaptive " +
                       AttributeDefaultText("ns3::UbAdaptiveSpray::Entropies") +
                       " (ns3::UbAdaptiveSpray::Entropies)";
            })
            .Reader(ReadEntropies),
        ScenarioKey("ub.window",
                    KeyKind::Native,
                    "fixed window per channel with cc: none (0B = unlimited)")
            .Attribute("ns3::UbFixedWindow::Window")
            .OnlyWhenGiven()
            .Reader(ReadWindow),
    };
    InsertAdaptiveRtoKeys(rows, "ub");
    ScenarioKeys hostPath = HostPathKeys("ub");
    rows.insert(rows.end(), hostPath.begin(), hostPath.end());
    // One section per UB congestion control that declares one (cc: nscc -> nscc.*).
    ScenarioKeys sections = PluginSectionKeys(PluginKind::CongestionControl, "cc", "ub");
    rows.insert(rows.end(), sections.begin(), sections.end());
    return rows;
}

} // namespace ns3
