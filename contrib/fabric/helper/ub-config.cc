#include "ub-config.h"

#include "config-error.h"

namespace ns3
{

namespace
{
/// Scenario key under `ub:` → UbNic attribute.
const std::pair<const char*, const char*> kUbKeys[] = {
    {"sharing", "Sharing"},
    {"groups", "Groups"},
    {"sack_bits", "SackBits"},
    {"out_of_order_window", "OutOfOrderWindow"},
    {"rto", "Rto"},
    {"reorder_window", "ReorderWindow"},
    {"ack_interval", "AckInterval"},
    {"request_interval", "RequestInterval"},
    {"max_inflight_requests", "MaxInflightRequests"},
    {"reorder_buffer", "ReorderBufferSize"},
    {"context_cache", "ContextCacheSize"},
    {"context_miss_penalty", "ContextMissPenalty"},
};

/// {Attribute: value} pairs of section \p key for ns-3 type \p typeName.
void
AddTypeAttributes(ScenarioConfig& cfg,
                  YamlFields& root,
                  const YAML::Node& doc,
                  const std::string& key,
                  const std::string& typeName)
{
    if (!root.Has(key))
    {
        return;
    }
    YamlFields section = root.Child(key);
    for (const auto& kv : doc[key])
    {
        std::string attr = kv.first.Scalar();
        AddAttributeFromKey(cfg, section, attr, typeName + "::" + attr);
    }
}
} // namespace

void
ParseUbTransport(YamlFields& root,
                 const YAML::Node& doc,
                 const std::string& cc,
                 ScenarioConfig& cfg)
{
    if (cfg.transport == "ub" && cc != "caqm" && cc != "none")
    {
        throw root.Error("cc", "transport ub expects cc: caqm or none, got '" + cc + "'");
    }
    bool caqm = cc == "caqm";
    bool isUb = cfg.transport == "ub";
    if (isUb)
    {
        cfg.attributes.emplace_back("ns3::UbNic::CongestionControl",
                                    caqm ? "ns3::CaqmCongestionControl" : "ns3::UbFixedWindow");
        cfg.attributes.emplace_back("ns3::FabricSwitch::Caqm", caqm ? "true" : "false");
        cfg.attributes.emplace_back("ns3::UbNic::Mtu", std::to_string(cfg.payloadMtu));
        cfg.attributes.emplace_back("ns3::CaqmSwitch::Mtu", std::to_string(cfg.payloadMtu) + "B");
    }

    YamlFields ub = root.Child("ub");
    for (const auto& [key, attr] : kUbKeys)
    {
        if (ub.Has(key))
        {
            AddAttributeFromKey(cfg, ub, key, std::string("ns3::UbNic::") + attr);
        }
    }
    std::string spray = ub.String("spray", "ecmp");
    const char* policy = spray == "ecmp"        ? "ns3::UbFixedEntropy"
                         : spray == "oblivious" ? "ns3::UbObliviousSpray"
                         : spray == "adaptive"  ? "ns3::UbAdaptiveSpray"
                                                : nullptr;
    if (!policy)
    {
        throw ub.Error("spray", "expected ecmp, oblivious or adaptive, got '" + spray + "'");
    }
    cfg.attributes.emplace_back("ns3::UbNic::LoadBalancer", policy);
    if (ub.Has("entropies"))
    {
        AddAttributeFromKey(cfg, ub, "entropies", "ns3::UbObliviousSpray::Entropies");
        AddAttributeFromKey(cfg, ub, "entropies", "ns3::UbAdaptiveSpray::Entropies");
    }
    if (ub.Has("window"))
    {
        if (caqm && isUb)
        {
            throw ub.Error("window", "a fixed window is for cc: none (C-AQM sizes its own)");
        }
        AddAttributeFromKey(cfg, ub, "window", "ns3::UbFixedWindow::Window");
    }
    ub.RejectUnknownKeys();
    AddTypeAttributes(cfg, root, doc, "caqm", "ns3::CaqmCongestionControl");
    AddTypeAttributes(cfg, root, doc, "caqm_switch", "ns3::CaqmSwitch");
}

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
    if (order == "none")
    {
        fs.order = 0;
    }
    else if (order == "after")
    {
        fs.order = 1;
    }
    else if (order == "strict")
    {
        fs.order = 2;
    }
    else
    {
        throw f.Error("order", "expected none, after or strict, got '" + order + "'");
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

std::string
UbKeysHelp()
{
    return R"(  ub.sharing                 shared (every Jetty toward a target on one channel, default) | private
                             (one channel per Jetty and target) | groups (Jetty mod ub.groups)
  ub.groups                  channel groups per target for sharing: groups (default 2)
  ub.spray                   ecmp (one entropy per channel, default) | oblivious (round-robin over
                             ub.entropies values) | adaptive (REPS-like: recycle unmarked entropies)
  ub.entropies               entropy values a channel sprays over (oblivious 64, adaptive 256)
  ub.sack_bits               selective-ACK bitmap bits per ACK (default 256)
  ub.out_of_order_window     PSNs a receiver tracks beyond its cumulative point (default 2048)
  ub.rto                     retransmission timeout (default 100us)
  ub.reorder_window          resend a packet when one sent this much later arrived (default 10us;
                             0 = timeout only)
  ub.ack_interval            ACK every N packets (default 1; always on gaps and last packets)
  ub.request_interval        minimum time between request launches (default 6.2ns)
  ub.max_inflight_requests   requests outstanding per NIC (default 0 = unlimited)
  ub.reorder_buffer          out-of-order bytes a NIC can hold (default 0B = unlimited)
  ub.context_cache           on-chip context cache (default 0B = every context fits)
  ub.context_miss_penalty    added per context miss (default 1000ns; ~200ns on-chip)
  ub.window                  fixed window per channel with cc: none (default 0B = unlimited)
  caqm.{Attribute}           ns3::CaqmCongestionControl attributes (Alpha, Beta, InitialWindow...)
  caqm_switch.{Attribute}    ns3::CaqmSwitch attributes (UpdatePeriod, TargetQueue, Lambda...)
  workload.jettys            Jettys per host: a host's flows are posted by Jetty 0, 1, ... in turn
  workload.flows[].endpoint  the Jetty that posts the flow (default 0)
  workload.flows[].order     none | after (the flows in `after`) | strict (every earlier flow of
                             its Jetty to the same target)
  workload.flows[].after     flows (indices) that must execute first
)";
}

} // namespace ns3
