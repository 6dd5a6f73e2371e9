#include "collective-config.h"

#include "attribute-values.h"

#include <algorithm>
#include <cmath>
#include <map>

namespace ns3
{

namespace
{

void
AddAttribute(YamlFields& f,
             const std::string& key,
             const std::string& attribute,
             std::vector<std::pair<std::string, std::string>>& attributes)
{
    std::string normalized;
    std::string error;
    if (!NormalizeAttributeValue(attribute, f.String(key), &normalized, &error))
    {
        throw f.Error(key, error);
    }
    attributes.emplace_back(attribute, normalized);
}

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
        if (s.empty() || !std::all_of(s.begin(), s.end(), ::isdigit))
        {
            throw f.Error(key, "expected non-negative integers, got '" + s + "'");
        }
        out.push_back(std::stoull(s));
    }
    return out;
}

} // namespace

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
    cfg.algorithm = c.String("algorithm", "ring");
    static const char* kAlgorithms[] = {"ring",
                                        "interleaved-ring",
                                        "hierarchical",
                                        "direct",
                                        "sharp"};
    if (std::find(std::begin(kAlgorithms), std::end(kAlgorithms), cfg.algorithm) ==
        std::end(kAlgorithms))
    {
        throw c.Error("algorithm",
                      "expected ring, interleaved-ring, hierarchical, direct or "
                      "sharp, got '" +
                          cfg.algorithm + "'");
    }
    cfg.sharp = cfg.algorithm == "sharp";
    cfg.messageBytes = c.Bytes("message");
    if (cfg.messageBytes == 0)
    {
        throw c.Error("message", "must be positive");
    }

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
    cfg.interServerOnly = c.Bool("inter_server_only", false);
    attributes.emplace_back("ns3::HierarchicalAllReduce::InterServerOnly",
                            cfg.interServerOnly ? "true" : "false");
    attributes.emplace_back("ns3::RingAllReduce::Order",
                            cfg.algorithm == "interleaved-ring" ? "interleaved" : "flat");
    for (const auto& [key, attr] :
         {std::make_pair("launch_cost", "ns3::CollectiveEngine::LaunchCost"),
          std::make_pair("update_time", "ns3::CollectiveEngine::UpdateTime"),
          std::make_pair("value_elements", "ns3::CollectiveEngine::ValueElements"),
          std::make_pair("priority", "ns3::CollectiveEngine::Priority")})
    {
        if (c.Has(key))
        {
            AddAttribute(c, key, attr, attributes);
        }
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
            if (e.Has("shares"))
            {
                YAML::Node s = e.Node("shares");
                if (!s.IsSequence() || s.size() != f.helpers.size())
                {
                    throw e.Error("shares", "one share per helper");
                }
                double total = 0;
                for (size_t j = 0; j < s.size(); ++j)
                {
                    double v;
                    try
                    {
                        v = s[j].as<double>();
                    }
                    catch (const YAML::Exception&)
                    {
                        throw e.Error("shares", "shares are numbers");
                    }
                    if (!(v > 0))
                    {
                        throw e.Error("shares", "shares must be positive");
                    }
                    f.shares.push_back(v);
                    total += v;
                }
                if (std::fabs(total - 1.0) > 1e-6)
                {
                    throw e.Error("shares", "shares must add up to 1");
                }
            }
            else
            {
                f.shares.assign(f.helpers.size(), 1.0 / f.helpers.size());
            }
            e.RejectUnknownKeys();
            cfg.failures.push_back(f);
        }
    }
    YamlFields sharp = c.Child("sharp");
    if (c.Has("sharp"))
    {
        for (const auto& [key, attr] :
             {std::make_pair("chunks", "ns3::SharpAllReduce::Chunks"),
              std::make_pair("nvlink_stages", "ns3::SharpAllReduce::NvlinkStages"),
              std::make_pair("priority", "ns3::SharpHostAgent::Priority"),
              std::make_pair("buffer", "ns3::SharpAggregator::BufferSize"),
              std::make_pair("rate", "ns3::SharpAggregator::AggregationRate"),
              std::make_pair("packet_payload", "ns3::SharpHostAgent::PacketPayload"),
              std::make_pair("timeout", "ns3::SharpHostAgent::RetransmitTimeout")})
        {
            if (sharp.Has(key))
            {
                AddAttribute(sharp, key, attr, attributes);
            }
        }
        sharp.RejectUnknownKeys();
    }
    c.RejectUnknownKeys();
    return cfg;
}

std::string
CollectiveKeysHelp()
{
    return R"(  workload.type: collective  with a collective section (transport: roce):
  collective.algorithm       ring | interleaved-ring | hierarchical | direct | sharp
  collective.message         gradient bytes per rank (192MiB)
  collective.ranks           ranks on hosts 0..ranks-1 (default all hosts); or collective.placement [hosts]
  collective.pairing         hierarchical partner: i+8 (same rail) | i+9 | (i+4)%8+8 | rail offset
  collective.inter_server_only  hierarchical: only the inter-server stage on M/G per rank
  collective.launch_cost     per-round launch cost (default 0.83us)
  collective.update_time     optimizer update after the collective (step timeline, default 0)
  collective.value_elements  float32 values per rank carried and checked (default 1024, 0 = off)
  collective.priority        traffic class of the collective (default 3)
  collective.readiness       [{rank, at}]: a rank that finishes computing late
  collective.nic_failures    [{rank, helpers: [ranks], shares: [..]}]: relay over NVLink
  collective.sharp           in-network aggregation (algorithm: sharp):
      chunks (pieces per rank, 1), nvlink_stages (NVLink RS/AG around per-rail trees, false),
      buffer (aggregation buffer per switch, 4MiB), rate (aggregation throughput, 25600Gbps),
      packet_payload (4096), timeout (member retransmission, 500us), priority (3)
)";
}

} // namespace ns3
