// collective: the collective a workload of type collective runs (with transport: roce).

#include "config/config-collective.h"

#include "config/config-sections.h"
#include "config/units.h"

#include <algorithm>
#include <cmath>
#include <map>

namespace ns3
{

namespace
{

uint32_t
RankIndex(YamlFields& f, const std::string& key, uint64_t value, uint32_t ranks)
{
    if (value >= ranks)
    {
        throw f.Error(key,
                      "rank " + std::to_string(value) + " out of range (the job has " +
                          std::to_string(ranks) + " ranks)");
    }
    return static_cast<uint32_t>(value);
}

std::vector<uint64_t>
UintList(YamlFields& f, const std::string& key)
{
    std::vector<uint64_t> out;
    for (const std::string& s : f.StringList(key))
    {
        auto v = ParseCount(s);
        if (!v)
        {
            throw f.Error(key, "expected non-negative integers below 2^64, got '" + s + "'");
        }
        out.push_back(*v);
    }
    return out;
}

} // namespace

std::vector<double>
ParseHelperShares(YamlFields& e, size_t helpers)
{
    if (!e.Has("shares"))
    {
        return std::vector<double>(helpers, 1.0 / helpers);
    }
    YAML::Node list = e.Node("shares");
    if (!list.IsSequence() || list.size() != helpers)
    {
        throw e.Error("shares", "one share per helper");
    }
    std::vector<double> shares;
    double total = 0;
    for (size_t k = 0; k < list.size(); ++k)
    {
        double v = 0;
        try
        {
            v = list[k].as<double>();
        }
        catch (const YAML::Exception&)
        {
            throw e.Error("shares", "shares are numbers");
        }
        if (!(v > 0))
        {
            throw e.Error("shares", "shares must be positive");
        }
        shares.push_back(v);
        total += v;
    }
    if (std::fabs(total - 1.0) > 1e-6)
    {
        throw e.Error("shares", "shares must add up to 1");
    }
    return shares;
}

CollectiveConfig
ParseCollective(YamlFields& c,
                const TopologySpec& topology,
                const std::string& transport,
                std::vector<std::pair<std::string, std::string>>& attributes)
{
    CollectiveConfig cfg;
    cfg.enabled = true;
    if (transport != "roce")
    {
        throw c.Error("algorithm", "collectives run over reliable transfers: set transport: roce");
    }
    cfg.algorithm = ValueOf(c, "algorithm").text;
    cfg.sharp = cfg.algorithm == "sharp";
    cfg.messageBytes = ValueOf(c, "message").count;

    // Ranks and their servers: a host's group is its server (the rail generator's GPUs);
    // hosts without a group are servers of their own.
    std::vector<uint32_t> hosts = topology.Hosts();
    if (c.Has("placement"))
    {
        for (uint64_t h : UintList(c, "placement"))
        {
            if (h >= hosts.size())
            {
                throw c.Error("placement",
                              "host " + std::to_string(h) + " out of range (" +
                                  std::to_string(hosts.size()) + " hosts)");
            }
            if (std::find(cfg.hostOfRank.begin(), cfg.hostOfRank.end(), h) != cfg.hostOfRank.end())
            {
                throw c.Error("placement", "host " + std::to_string(h) + " holds two ranks");
            }
            cfg.hostOfRank.push_back(static_cast<uint32_t>(h));
        }
    }
    else
    {
        uint64_t ranks = c.Uint("ranks", hosts.size());
        if (ranks > hosts.size())
        {
            throw c.Error("ranks",
                          std::to_string(ranks) + " ranks but only " +
                              std::to_string(hosts.size()) + " hosts");
        }
        for (uint32_t r = 0; r < ranks; ++r)
        {
            cfg.hostOfRank.push_back(r);
        }
    }
    const uint32_t p = static_cast<uint32_t>(cfg.hostOfRank.size());
    if (p < 2)
    {
        throw c.Error(c.Has("placement") ? "placement" : "ranks", "a collective needs 2+ ranks");
    }
    std::map<int64_t, uint32_t> serverIndex;
    std::map<int64_t, uint32_t> perServer;
    for (uint32_t r = 0; r < p; ++r)
    {
        const TopologyNode& n = topology.nodes[hosts[cfg.hostOfRank[r]]];
        int64_t key = n.group >= 0 ? n.group : -1 - int64_t(cfg.hostOfRank[r]);
        if (!serverIndex.count(key))
        {
            uint32_t idx = static_cast<uint32_t>(serverIndex.size());
            serverIndex[key] = idx;
        }
        cfg.serverOfRank.push_back(serverIndex[key]);
        cfg.localOfRank.push_back(perServer[key]++);
        cfg.gpusPerServer = std::max(cfg.gpusPerServer, perServer[key]);
    }

    if (c.Has("pairing"))
    {
        std::string pairing = c.String("pairing");
        std::string offset;
        const uint32_t G = cfg.gpusPerServer;
        if (pairing == "i+" + std::to_string(G) || pairing == "same-rail")
        {
            offset = "0";
        }
        else if (pairing == "i+" + std::to_string(G + 1))
        {
            offset = "1";
        }
        else if (pairing ==
                 "(i+" + std::to_string(G / 2) + ")%" + std::to_string(G) + "+" + std::to_string(G))
        {
            offset = std::to_string(G / 2);
        }
        else if (!pairing.empty() && std::all_of(pairing.begin(), pairing.end(), ::isdigit))
        {
            offset = pairing;
        }
        else
        {
            throw c.Error("pairing",
                          "expected i+" + std::to_string(G) + ", i+" + std::to_string(G + 1) +
                              ", (i+" + std::to_string(G / 2) + ")%" + std::to_string(G) + "+" +
                              std::to_string(G) + " or a rail offset, got '" + pairing + "'");
        }
        attributes.emplace_back("ns3::HierarchicalAllReduce::PairingOffset", offset);
    }
    cfg.interServerOnly = SetFromKey(c, "inter_server_only", attributes).flag;
    attributes.emplace_back("ns3::RingAllReduce::Order",
                            cfg.algorithm == "interleaved-ring" ? "interleaved" : "flat");
    for (const char* key :
         {"launch_cost", "request_size", "update_time", "value_elements", "priority"})
    {
        SetFromKey(c, key, attributes);
    }
    // Binding a flow to a NIC port names its frames by QP, which only RoCE frames carry.
    if (SetFromKey(c, "ports_per_nic", attributes).text != "0" && transport != "roce")
    {
        throw c.Error("ports_per_nic", "needs transport roce (got " + transport + ")");
    }

    cfg.readiness.assign(p, Time(0));
    if (c.Has("readiness"))
    {
        YAML::Node list = c.Node("readiness");
        if (!list.IsSequence())
        {
            throw c.Error("readiness", "expected a list of {rank, at}");
        }
        for (size_t i = 0; i < list.size(); ++i)
        {
            YamlFields e(list[i], c.File(), c.KeyPath("readiness") + "[" + std::to_string(i) + "]");
            uint32_t r = RankIndex(e, "rank", e.Uint("rank"), p);
            cfg.readiness[r] = e.Duration("at");
            e.RejectUnknownKeys();
        }
    }
    if (c.Has("nic_failures"))
    {
        YAML::Node list = c.Node("nic_failures");
        if (!list.IsSequence())
        {
            throw c.Error("nic_failures", "expected a list of {rank, helpers, shares}");
        }
        for (size_t i = 0; i < list.size(); ++i)
        {
            YamlFields e(list[i],
                         c.File(),
                         c.KeyPath("nic_failures") + "[" + std::to_string(i) + "]");
            NicFailure f;
            f.rank = RankIndex(e, "rank", e.Uint("rank"), p);
            for (uint64_t h : UintList(e, "helpers"))
            {
                uint32_t hr = RankIndex(e, "helpers", h, p);
                if (hr == f.rank || cfg.serverOfRank[hr] != cfg.serverOfRank[f.rank])
                {
                    throw e.Error("helpers",
                                  "rank " + std::to_string(hr) + " is not another GPU of rank " +
                                      std::to_string(f.rank) + "'s server");
                }
                f.helpers.push_back(hr);
            }
            if (f.helpers.empty())
            {
                throw e.Error("helpers", "name at least one neighbour rank");
            }
            f.shares = ParseHelperShares(e, f.helpers.size());
            e.RejectUnknownKeys();
            cfg.failures.push_back(f);
        }
    }
    YamlFields sharp = c.Child("sharp");
    for (const ScenarioKey* key : KeysUnder(sharp.Path()))
    {
        SetFromKey(sharp, *key, attributes);
    }
    sharp.RejectUnknownKeys();
    c.RejectUnknownKeys();
    return cfg;
}

ScenarioKeys
CollectiveKeys()
{
    const std::string engine = "ns3::CollectiveEngine::";
    const std::string sharp = "collective.sharp.";
    return {
        ScenarioKey("collective",
                    KeyKind::Mapping,
                    "the collective of workload.type collective (transport: roce)"),
        ScenarioKey("collective.algorithm", KeyKind::Choice, "the AllReduce algorithm")
            .Choices({"ring", "interleaved-ring", "hierarchical", "direct", "sharp"})
            .Default("ring"),
        ScenarioKey("collective.message", KeyKind::Bytes, "gradient bytes per rank")
            .Check(Positive("must be positive")),
        ScenarioKey("collective.ranks", KeyKind::Count, "ranks, on hosts 0..ranks-1")
            .Rule("every host"),
        ScenarioKey("collective.placement",
                    KeyKind::List,
                    "the host of each rank, instead of collective.ranks"),
        ScenarioKey("collective.pairing",
                    KeyKind::Text,
                    "hierarchical: the partner on the next server, i+G (same rail), i+G+1, "
                    "(i+G/2)%G+G for G GPUs per server, or a rail offset")
            .Attribute("ns3::HierarchicalAllReduce::PairingOffset")
            .OnlyWhenGiven()
            .Unit("pairing or rail offset"),
        ScenarioKey("collective.inter_server_only",
                    KeyKind::Flag,
                    "hierarchical: only the inter-server stage, on M/G per rank")
            .Attribute("ns3::HierarchicalAllReduce::InterServerOnly"),
        ScenarioKey("collective.launch_cost", KeyKind::Native, "per-round launch cost")
            .Attribute(engine + "LaunchCost"),
        ScenarioKey("collective.request_size",
                    KeyKind::Native,
                    "a transfer between servers goes as requests of this size, one NIC request "
                    "slot each (0B = one message)")
            .Attribute(engine + "RequestSize"),
        ScenarioKey("collective.update_time",
                    KeyKind::Native,
                    "optimizer update after the collective (step timeline)")
            .Attribute(engine + "UpdateTime"),
        ScenarioKey("collective.value_elements",
                    KeyKind::Native,
                    "float32 values per rank carried and checked for the exact sum (0 = off)")
            .Attribute(engine + "ValueElements"),
        ScenarioKey("collective.priority", KeyKind::Native, "traffic class of the collective")
            .Attribute(engine + "Priority"),
        ScenarioKey("collective.ports_per_nic",
                    KeyKind::Native,
                    "NIC ports each inter-server transfer is divided over, part j bound to port j "
                    "(0: one flow, hashed to a port)")
            .Attribute(engine + "PortsPerNic"),
        ScenarioKey("collective.readiness",
                    KeyKind::List,
                    "[{rank, at}]: ranks that finish computing late (others at 0)"),
        ScenarioKey("collective.readiness[].rank", KeyKind::Count, "the rank"),
        ScenarioKey("collective.readiness[].at", KeyKind::Duration, "when it joins"),
        ScenarioKey("collective.nic_failures",
                    KeyKind::List,
                    "[{rank, helpers, shares}]: a rank whose NIC failed relays over NVLink"),
        ScenarioKey("collective.nic_failures[].rank", KeyKind::Count, "the rank"),
        ScenarioKey("collective.nic_failures[].helpers",
                    KeyKind::List,
                    "other ranks of its server that carry its traffic"),
        ScenarioKey("collective.nic_failures[].shares",
                    KeyKind::List,
                    "the share each helper carries (adding up to 1)")
            .Rule("equal shares"),
        ScenarioKey("collective.sharp",
                    KeyKind::Mapping,
                    "in-network aggregation (algorithm: sharp)"),
        ScenarioKey(sharp + "chunks", KeyKind::Native, "pieces per rank")
            .Attribute("ns3::SharpAllReduce::Chunks"),
        ScenarioKey(sharp + "nvlink_stages",
                    KeyKind::Native,
                    "NVLink reduce-scatter and all-gather around per-rail trees")
            .Attribute("ns3::SharpAllReduce::NvlinkStages"),
        ScenarioKey(sharp + "priority", KeyKind::Native, "traffic class of the members' packets")
            .Attribute("ns3::SharpHostAgent::Priority"),
        ScenarioKey(sharp + "buffer", KeyKind::Native, "aggregation buffer per switch")
            .Attribute("ns3::SharpAggregator::BufferSize"),
        ScenarioKey(sharp + "rate", KeyKind::Native, "aggregation throughput per switch")
            .Attribute("ns3::SharpAggregator::AggregationRate"),
        ScenarioKey(sharp + "packet_payload", KeyKind::Native, "payload bytes per SHARP packet")
            .Attribute("ns3::SharpHostAgent::PacketPayload"),
        ScenarioKey(sharp + "timeout", KeyKind::Native, "member retransmission timeout")
            .Attribute("ns3::SharpHostAgent::RetransmitTimeout"),
        ScenarioKey(sharp + "retry_limit",
                    KeyKind::Native,
                    "timeout rounds without progress before the reduction fails (0: never)")
            .Attribute("ns3::SharpHostAgent::RetryLimit"),
    };
}

} // namespace ns3
