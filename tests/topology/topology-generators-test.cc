// Generated fabrics: counts from the formulas of docs/models.md#clos-sizing, port budgets per
// switch, stable names and order, and host-to-host reachability that never transits a host.

#include "config/topology-generators.h"

#include <deque>
#include <gtest/gtest.h>
#include <map>
#include <set>
#include <string>
#include <vector>

using namespace ns3;

namespace
{

/// Hop distances from \p src to every node, expanding switches only (routing never transits a
/// host); -1 when unreachable. Written independently of FindTopologyProblem on purpose.
std::vector<int>
Distances(const TopologySpec& spec, uint32_t src)
{
    std::vector<std::vector<uint32_t>> adj(spec.nodes.size());
    for (const auto& l : spec.links)
    {
        adj[l.a].push_back(l.b);
        adj[l.b].push_back(l.a);
    }
    std::vector<int> dist(spec.nodes.size(), -1);
    std::deque<uint32_t> q{src};
    dist[src] = 0;
    while (!q.empty())
    {
        uint32_t u = q.front();
        q.pop_front();
        if (u != src && !spec.nodes[u].isSwitch)
        {
            continue;
        }
        for (uint32_t v : adj[u])
        {
            if (dist[v] < 0)
            {
                dist[v] = dist[u] + 1;
                q.push_back(v);
            }
        }
    }
    return dist;
}

/// Checks every host reaches every other host from each of \p sources (all hosts by default).
void
ExpectHostsConnected(const TopologySpec& spec, std::vector<uint32_t> sources = {})
{
    std::vector<uint32_t> hosts = spec.Hosts();
    if (sources.empty())
    {
        sources = hosts;
    }
    for (uint32_t s : sources)
    {
        std::vector<int> d = Distances(spec, s);
        for (uint32_t h : hosts)
        {
            ASSERT_GE(d[h], 0) << spec.nodes[h].name << " unreachable from " << spec.nodes[s].name;
        }
    }
}

/// Number of links between node \p n and nodes whose role is \p role.
std::map<uint32_t, std::map<std::string, uint32_t>>
DegreeByRole(const TopologySpec& spec)
{
    std::map<uint32_t, std::map<std::string, uint32_t>> deg;
    for (const auto& l : spec.links)
    {
        ++deg[l.a][spec.nodes[l.b].role];
        ++deg[l.b][spec.nodes[l.a].role];
    }
    return deg;
}

uint32_t
Index(const TopologySpec& spec, const std::string& name)
{
    auto i = spec.Find(name);
    EXPECT_TRUE(i.has_value()) << name;
    return i.value_or(0);
}

/// Hosts are declared first and in index order: Hosts()[i] == i.
void
ExpectHostsFirst(const TopologySpec& spec)
{
    std::vector<uint32_t> hosts = spec.Hosts();
    for (uint32_t i = 0; i < hosts.size(); ++i)
    {
        ASSERT_EQ(hosts[i], i);
    }
}

void
ExpectUniqueNames(const TopologySpec& spec)
{
    std::set<std::string> names;
    for (const auto& n : spec.nodes)
    {
        EXPECT_TRUE(names.insert(n.name).second) << "duplicate " << n.name;
    }
}

} // namespace

TEST(TopologyGenerators, StarCountsNamesAndRates)
{
    TopologySpec s = MakeStar(16, DataRate("400Gbps"), NanoSeconds(150));
    EXPECT_EQ(s.source, "generator:star");
    ASSERT_EQ(s.nodes.size(), 17u);
    EXPECT_EQ(s.Hosts().size(), 16u);
    EXPECT_EQ(s.Switches().size(), 1u);
    EXPECT_EQ(s.links.size(), 16u);
    ExpectHostsFirst(s);
    EXPECT_EQ(s.nodes[0].name, "h0");
    EXPECT_EQ(s.nodes[15].name, "h15");
    EXPECT_EQ(s.nodes[16].name, "sw0");
    EXPECT_EQ(s.nodes[16].role, "tor");
    for (const auto& l : s.links)
    {
        EXPECT_EQ(l.b, 16u);
        EXPECT_EQ(l.rate, DataRate("400Gbps"));
        EXPECT_EQ(l.delay, NanoSeconds(150));
        EXPECT_EQ(l.sourceLine, 0);
    }
    ExpectHostsConnected(s);
    EXPECT_FALSE(FindTopologyProblem(s).has_value());
}

TEST(TopologyGenerators, Clos2K8OneToOne)
{
    Clos2Params p;
    p.k = 8;
    TopologySpec s = MakeClos2(p);
    // d = u = 4; 8 leaves (each spine has 8 ports); 4 spines; 8 x 4 = 32 = k^2/2 hosts.
    EXPECT_EQ(s.Hosts().size(), 32u);
    EXPECT_EQ(s.Switches().size(), 12u);
    EXPECT_EQ(s.links.size(), 32u + 8u * 4u);
    ExpectHostsFirst(s);
    ExpectUniqueNames(s);
    auto deg = DegreeByRole(s);
    for (uint32_t j = 0; j < 8; ++j)
    {
        uint32_t leaf = Index(s, "leaf" + std::to_string(j));
        EXPECT_EQ(deg[leaf]["host"], 4u);
        EXPECT_EQ(deg[leaf]["spine"], 4u);
        EXPECT_EQ(s.nodes[leaf].role, "leaf");
    }
    for (uint32_t x = 0; x < 4; ++x)
    {
        uint32_t spine = Index(s, "spine" + std::to_string(x));
        EXPECT_EQ(deg[spine]["leaf"], 8u); // all k ports used
        EXPECT_EQ(deg[spine].size(), 1u);
    }
    // Host i is on leaf i / d.
    for (const auto& l : s.links)
    {
        if (!s.nodes[l.a].isSwitch)
        {
            EXPECT_EQ(s.nodes[l.b].name, "leaf" + std::to_string(l.a / 4));
            EXPECT_EQ(s.nodes[l.a].group, static_cast<int32_t>(l.a / 4));
        }
    }
    ExpectHostsConnected(s);
    // Same leaf: 2 hops; different leaves: 4 hops (host-leaf-spine-leaf-host).
    std::vector<int> d = Distances(s, Index(s, "h0"));
    EXPECT_EQ(d[Index(s, "h3")], 2);
    EXPECT_EQ(d[Index(s, "h4")], 4);
    EXPECT_EQ(d[Index(s, "h31")], 4);
}

TEST(TopologyGenerators, Clos2K64ThreeToOne)
{
    Clos2Params p;
    p.k = 64;
    p.oversubscription = "3:1";
    TopologySpec s = MakeClos2(p);
    // d = 64 * 3 / 4 = 48, u = 16, 64 leaves, 16 spines, 64 x 48 = 3072 hosts.
    EXPECT_EQ(s.Hosts().size(), 3072u);
    EXPECT_EQ(s.Switches().size(), 64u + 16u);
    EXPECT_EQ(s.links.size(), 3072u + 64u * 16u);
    ExpectHostsFirst(s);
    ExpectUniqueNames(s);
    auto deg = DegreeByRole(s);
    for (uint32_t j = 0; j < 64; ++j)
    {
        uint32_t leaf = Index(s, "leaf" + std::to_string(j));
        EXPECT_EQ(deg[leaf]["host"], 48u);
        EXPECT_EQ(deg[leaf]["spine"], 16u);
    }
    for (uint32_t x = 0; x < 16; ++x)
    {
        EXPECT_EQ(deg[Index(s, "spine" + std::to_string(x))]["leaf"], 64u);
    }
    EXPECT_EQ(s.nodes[Index(s, "h3071")].group, 63);
    ExpectHostsConnected(s, {0, 47, 48, 1500, 3071});
    EXPECT_FALSE(FindTopologyProblem(s).has_value());
}

TEST(TopologyGenerators, Clos2DownUpAndParallelSpineLinks)
{
    Clos2Params p;
    p.k = 8;
    p.down = 4;
    p.up = 4;
    p.spines = 2; // 2 parallel links from each leaf to each spine
    TopologySpec s = MakeClos2(p);
    // A spine takes 2 ports per leaf: at most 8 / 2 = 4 leaves.
    EXPECT_EQ(s.Switches().size(), 4u + 2u);
    EXPECT_EQ(s.Hosts().size(), 16u);
    EXPECT_EQ(s.links.size(), 16u + 4u * 4u);
    std::map<std::pair<uint32_t, uint32_t>, int> pairs;
    for (const auto& l : s.links)
    {
        if (s.nodes[l.a].isSwitch)
        {
            ++pairs[{l.a, l.b}];
        }
    }
    EXPECT_EQ(pairs.size(), 4u * 2u);
    for (const auto& [pair, n] : pairs)
    {
        EXPECT_EQ(n, 2);
    }
    ExpectHostsConnected(s);
}

TEST(TopologyGenerators, Clos2PartialFillAndExplicitLeaves)
{
    Clos2Params p;
    p.k = 8;
    p.leaves = 3;
    p.hosts = 10;
    p.hostRate = DataRate("100Gbps");
    p.fabricRate = DataRate("400Gbps");
    p.hostDelay = NanoSeconds(15);
    p.fabricDelay = NanoSeconds(150);
    TopologySpec s = MakeClos2(p);
    EXPECT_EQ(s.Hosts().size(), 10u);
    EXPECT_EQ(s.Switches().size(), 3u + 4u);
    auto deg = DegreeByRole(s);
    EXPECT_EQ(deg[Index(s, "leaf0")]["host"], 4u);
    EXPECT_EQ(deg[Index(s, "leaf2")]["host"], 2u);
    for (const auto& l : s.links)
    {
        bool hostLink = !s.nodes[l.a].isSwitch;
        EXPECT_EQ(l.rate, DataRate(hostLink ? "100Gbps" : "400Gbps"));
        EXPECT_EQ(l.delay, NanoSeconds(hostLink ? 15 : 150));
    }
    ExpectHostsConnected(s);
}

TEST(TopologyGenerators, Clos2IsDeterministic)
{
    Clos2Params p;
    p.k = 16;
    p.oversubscription = "3:1";
    TopologySpec a = MakeClos2(p);
    TopologySpec b = MakeClos2(p);
    ASSERT_EQ(a.nodes.size(), b.nodes.size());
    ASSERT_EQ(a.links.size(), b.links.size());
    for (size_t i = 0; i < a.nodes.size(); ++i)
    {
        EXPECT_EQ(a.nodes[i].name, b.nodes[i].name);
    }
    for (size_t i = 0; i < a.links.size(); ++i)
    {
        EXPECT_EQ(a.links[i].a, b.links[i].a);
        EXPECT_EQ(a.links[i].b, b.links[i].b);
    }
}

TEST(TopologyGenerators, FatTreeK4)
{
    TopologySpec s = MakeFatTree3(4, DataRate("400Gbps"), NanoSeconds(150));
    EXPECT_EQ(s.Hosts().size(), 16u);
    EXPECT_EQ(s.Switches().size(), 20u);
    EXPECT_EQ(s.links.size(), 48u);
    ExpectHostsFirst(s);
    ExpectUniqueNames(s);
    EXPECT_EQ(s.nodes[Index(s, "edge3_1")].group, 3);
    EXPECT_EQ(s.nodes[Index(s, "agg2_0")].role, "agg");
    EXPECT_EQ(s.nodes[Index(s, "core3")].role, "core");
    ExpectHostsConnected(s);
    std::vector<int> d = Distances(s, Index(s, "h0"));
    EXPECT_EQ(d[Index(s, "h1")], 2);  // same edge
    EXPECT_EQ(d[Index(s, "h2")], 4);  // same pod
    EXPECT_EQ(d[Index(s, "h15")], 6); // other pod, through a core
}

TEST(TopologyGenerators, FatTreeK8DegreesAndWiring)
{
    const uint32_t k = 8;
    const uint32_t half = k / 2;
    TopologySpec s = MakeFatTree3(k, DataRate("400Gbps"), NanoSeconds(150));
    EXPECT_EQ(s.Hosts().size(), k * k * k / 4);                 // 128
    EXPECT_EQ(s.Switches().size(), k * half * 2 + half * half); // 80
    EXPECT_EQ(s.links.size(), 3u * k * k * k / 4);              // 384
    auto deg = DegreeByRole(s);
    for (uint32_t n : s.Switches())
    {
        uint32_t total = 0;
        for (const auto& [role, c] : deg[n])
        {
            total += c;
        }
        EXPECT_EQ(total, k) << s.nodes[n].name; // every switch uses all k ports
    }
    for (uint32_t p = 0; p < k; ++p)
    {
        for (uint32_t e = 0; e < half; ++e)
        {
            uint32_t edge = Index(s, "edge" + std::to_string(p) + "_" + std::to_string(e));
            EXPECT_EQ(deg[edge]["host"], half);
            EXPECT_EQ(deg[edge]["agg"], half);
        }
    }
    // Aggregation switch a of every pod links to cores a*k/2 ... a*k/2 + k/2 - 1, so every core
    // has exactly one link into each pod.
    std::map<uint32_t, std::set<int32_t>> podsOfCore;
    for (const auto& l : s.links)
    {
        if (s.nodes[l.b].role == "core")
        {
            const std::string& agg = s.nodes[l.a].name;
            uint32_t a = std::stoul(agg.substr(agg.find('_') + 1));
            uint32_t c = std::stoul(s.nodes[l.b].name.substr(4));
            EXPECT_EQ(c / half, a) << agg << " - " << s.nodes[l.b].name;
            EXPECT_TRUE(podsOfCore[l.b].insert(s.nodes[l.a].group).second);
        }
    }
    EXPECT_EQ(podsOfCore.size(), half * half);
    for (const auto& [core, pods] : podsOfCore)
    {
        EXPECT_EQ(pods.size(), k);
    }
    ExpectHostsConnected(s);
}

TEST(TopologyGenerators, FatTreePartialHosts)
{
    TopologySpec s = MakeFatTree3(4, DataRate("400Gbps"), NanoSeconds(150), 5);
    EXPECT_EQ(s.Hosts().size(), 5u);
    EXPECT_EQ(s.Switches().size(), 20u);
    EXPECT_EQ(s.links.size(), 5u + 16u + 16u);
    ExpectHostsConnected(s);
}

TEST(TopologyGenerators, RailTwoServers)
{
    RailParams p; // 2 servers x 8 GPUs, one group, 8 spines
    TopologySpec s = MakeRail(p);
    const uint32_t S = 2;
    const uint32_t G = 8;
    EXPECT_EQ(s.Hosts().size(), S * G);
    // 2 NVSwitches + 8 rail leaves + 8 spines.
    EXPECT_EQ(s.Switches().size(), S + G + G);
    // NVLink S*G + NIC S*G + each leaf one link to each of 8 spines.
    EXPECT_EQ(s.links.size(), S * G + S * G + G * 8);
    ExpectHostsFirst(s);
    ExpectUniqueNames(s);
    // Rank r = s * 8 + g is gpu<s>_<g>.
    EXPECT_EQ(s.nodes[0].name, "gpu0_0");
    EXPECT_EQ(s.nodes[7].name, "gpu0_7");
    EXPECT_EQ(s.nodes[8].name, "gpu1_0");
    EXPECT_EQ(s.nodes[11].name, "gpu1_3");
    EXPECT_EQ(s.nodes[11].group, 1);
    EXPECT_EQ(s.nodes[11].role, "gpu");
    EXPECT_EQ(s.nodes[Index(s, "srv1-nvs")].role, "nvswitch");
    EXPECT_EQ(s.nodes[Index(s, "g0-rail3")].role, "leaf");
    EXPECT_EQ(s.nodes[Index(s, "spine7")].role, "spine");

    // Each GPU: one NVLink to its own server's NVSwitch (450 GB/s), one NIC link to its rail.
    std::map<uint32_t, std::vector<uint32_t>> gpuLinks;
    for (const auto& l : s.links)
    {
        if (!s.nodes[l.a].isSwitch)
        {
            gpuLinks[l.a].push_back(static_cast<uint32_t>(&l - s.links.data()));
        }
    }
    for (uint32_t h = 0; h < S * G; ++h)
    {
        ASSERT_EQ(gpuLinks[h].size(), 2u) << s.nodes[h].name;
        const auto& nv = s.links[gpuLinks[h][0]];
        const auto& nic = s.links[gpuLinks[h][1]];
        EXPECT_EQ(s.nodes[nv.b].name, "srv" + std::to_string(h / G) + "-nvs");
        EXPECT_EQ(nv.rate, DataRate("450GB/s"));
        EXPECT_EQ(nv.delay, NanoSeconds(10));
        EXPECT_EQ(s.nodes[nic.b].name, "g0-rail" + std::to_string(h % G));
        EXPECT_EQ(nic.rate, DataRate("50GB/s"));
    }
    auto deg = DegreeByRole(s);
    for (uint32_t g = 0; g < G; ++g)
    {
        uint32_t leaf = Index(s, "g0-rail" + std::to_string(g));
        EXPECT_EQ(deg[leaf]["gpu"], S);
        EXPECT_EQ(deg[leaf]["spine"], 8u);
    }
    ExpectHostsConnected(s);
    // Same server: GPU-NVSwitch-GPU. Same rail, other server: GPU-leaf-GPU. Other rail and
    // other server: up to a spine (the NVSwitch path would transit a GPU, which routing never
    // does).
    std::vector<int> d = Distances(s, Index(s, "gpu0_0"));
    EXPECT_EQ(d[Index(s, "gpu0_5")], 2);
    EXPECT_EQ(d[Index(s, "gpu1_0")], 2);
    EXPECT_EQ(d[Index(s, "gpu1_1")], 4);
}

TEST(TopologyGenerators, RailTwoGroupsSpreadEvenly)
{
    RailParams p;
    p.servers = 40; // group 0: 32 servers, group 1: 8 servers
    p.gpusPerServer = 8;
    p.serversPerGroup = 32;
    TopologySpec s = MakeRail(p);
    const uint32_t groups = 2;
    EXPECT_EQ(s.Hosts().size(), 40u * 8u);
    EXPECT_EQ(s.Switches().size(), 40u + groups * 8u + 8u);
    // Group 0 leaves: 32 downlinks, 32 uplinks (4 per spine). Group 1: 8 down, 8 up (1 per spine).
    EXPECT_EQ(s.links.size(), 2u * 320u + 8u * 32u + 8u * 8u);
    std::map<std::pair<uint32_t, uint32_t>, int> perSpine;
    for (const auto& l : s.links)
    {
        if (s.nodes[l.b].role == "spine")
        {
            ++perSpine[{l.a, l.b}];
        }
    }
    EXPECT_EQ(perSpine.size(), groups * 8u * 8u); // every leaf reaches every spine
    for (const auto& [pair, n] : perSpine)
    {
        EXPECT_EQ(n, s.nodes[pair.first].group == 0 ? 4 : 1) << s.nodes[pair.first].name;
    }
    auto deg = DegreeByRole(s);
    EXPECT_EQ(deg[Index(s, "g0-rail2")]["gpu"], 32u);
    EXPECT_EQ(deg[Index(s, "g1-rail2")]["gpu"], 8u);
    EXPECT_EQ(s.nodes[Index(s, "gpu33_2")].name, "gpu33_2");
    // Server 33 sits in group 1.
    bool found = false;
    for (const auto& l : s.links)
    {
        if (s.nodes[l.a].name == "gpu33_2" && s.nodes[l.b].role == "leaf")
        {
            EXPECT_EQ(s.nodes[l.b].name, "g1-rail2");
            found = true;
        }
    }
    EXPECT_TRUE(found);
    ExpectHostsConnected(s, {0, 255, 256, 319});
    std::vector<int> d = Distances(s, Index(s, "gpu0_2"));
    EXPECT_EQ(d[Index(s, "gpu33_2")], 4); // same rail, other group: via a spine
}

TEST(TopologyGenerators, RailExplicitSpinesAndUplinks)
{
    RailParams p;
    p.servers = 4;
    p.gpusPerServer = 4;
    p.spines = 2;
    p.uplinksPerLeaf = 4;
    TopologySpec s = MakeRail(p);
    EXPECT_EQ(s.Switches().size(), 4u + 4u + 2u);
    EXPECT_EQ(s.links.size(), 16u + 16u + 4u * 4u);
    auto deg = DegreeByRole(s);
    EXPECT_EQ(deg[Index(s, "spine0")]["leaf"], 8u);
    ExpectHostsConnected(s);
}

TEST(TopologyGenerators, ParameterErrorsNameTheParameter)
{
    auto keyOf = [](auto&& make) -> std::string {
        try
        {
            make();
        }
        catch (const ConfigError& e)
        {
            EXPECT_EQ(e.Line(), 0);
            EXPECT_EQ(e.File().rfind("generator:", 0), 0u) << e.File();
            return e.Key();
        }
        return "<no error>";
    };
    const DataRate r("400Gbps");
    const Time t = NanoSeconds(150);
    EXPECT_EQ(keyOf([&] { MakeStar(0, r, t); }), "hosts");
    EXPECT_EQ(keyOf([&] { MakeFatTree3(5, r, t); }), "k");
    EXPECT_EQ(keyOf([&] { MakeFatTree3(0, r, t); }), "k");
    EXPECT_EQ(keyOf([&] { MakeFatTree3(4, r, t, 17); }), "hosts");
    EXPECT_EQ(keyOf([&] { MakeFatTree3(4, DataRate(0), t); }), "rate");

    Clos2Params odd;
    odd.k = 7;
    EXPECT_EQ(keyOf([&] { MakeClos2(odd); }), "k");
    Clos2Params ports;
    ports.k = 8;
    ports.down = 6;
    ports.up = 4;
    EXPECT_EQ(keyOf([&] { MakeClos2(ports); }), "up");
    Clos2Params hosts;
    hosts.k = 8;
    hosts.hosts = 33;
    EXPECT_EQ(keyOf([&] { MakeClos2(hosts); }), "hosts");
    Clos2Params leaves;
    leaves.k = 8;
    leaves.leaves = 9;
    EXPECT_EQ(keyOf([&] { MakeClos2(leaves); }), "leaves");
    Clos2Params ratio;
    ratio.k = 8;
    ratio.oversubscription = "2:1"; // 16/3 ports down
    EXPECT_EQ(keyOf([&] { MakeClos2(ratio); }), "oversubscription");
    Clos2Params both;
    both.k = 8;
    both.oversubscription = "1:1";
    both.down = 4;
    EXPECT_EQ(keyOf([&] { MakeClos2(both); }), "oversubscription");
    Clos2Params spines;
    spines.k = 8;
    spines.spines = 3;
    EXPECT_EQ(keyOf([&] { MakeClos2(spines); }), "spines");
    Clos2Params allDown;
    allDown.k = 8;
    allDown.down = 8;
    EXPECT_EQ(keyOf([&] { MakeClos2(allDown); }), "down");

    RailParams rail;
    rail.servers = 0;
    EXPECT_EQ(keyOf([&] { MakeRail(rail); }), "servers");
    rail.servers = 2;
    rail.gpusPerServer = 0;
    EXPECT_EQ(keyOf([&] { MakeRail(rail); }), "gpus_per_server");
    rail.gpusPerServer = 8;
    rail.uplinksPerLeaf = 3;
    EXPECT_EQ(keyOf([&] { MakeRail(rail); }), "uplinks_per_leaf");
}

TEST(TopologyGenerators, OversubscriptionRatios)
{
    Clos2Params p;
    p.k = 64;
    p.oversubscription = "1:1";
    TopologySpec one = MakeClos2(p);
    EXPECT_EQ(one.Hosts().size(), 64u * 32u); // k^2/2
    // 1.5:1 of 64 ports would be 38.4 down: not whole. Of 10 ports it is 6 down, 4 up.
    p.oversubscription = "1.5:1";
    EXPECT_THROW(MakeClos2(p), ConfigError);
    p.k = 10;
    TopologySpec s = MakeClos2(p);
    EXPECT_EQ(s.Hosts().size(), 10u * 6u);
    EXPECT_EQ(s.Switches().size(), 10u + 4u);
}

TEST(TopologyGenerators, ValidateTopologyFindsProblems)
{
    TopologySpec s = MakeStar(3, DataRate("400Gbps"), NanoSeconds(150));
    EXPECT_NO_THROW(ValidateTopology(s));

    TopologySpec lonely = s;
    lonely.links.pop_back(); // h2 loses its link
    auto problem = FindTopologyProblem(lonely);
    ASSERT_TRUE(problem.has_value());
    EXPECT_EQ(problem->node, 2u);
    try
    {
        ValidateTopology(lonely);
        ADD_FAILURE() << "no error";
    }
    catch (const ConfigError& e)
    {
        EXPECT_EQ(e.Key(), "h2");
        EXPECT_EQ(std::string(e.what()), "generator:star: h2: host 'h2' has no link");
    }

    // Two stars joined only through a host: h1 of the first is also linked to the second switch.
    TopologySpec split = s;
    TopologyNode sw1;
    sw1.name = "sw1";
    sw1.isSwitch = true;
    split.nodes.push_back(sw1);
    TopologyNode h3;
    h3.name = "h3";
    split.nodes.push_back(h3);
    TopologyLink l;
    l.a = 1;
    l.b = 4;
    split.links.push_back(l);
    l.a = 5;
    split.links.push_back(l);
    problem = FindTopologyProblem(split);
    ASSERT_TRUE(problem.has_value());
    EXPECT_NE(problem->message.find("cannot reach"), std::string::npos) << problem->message;

    // A direct host-to-host link is a valid path.
    TopologySpec pair;
    pair.source = "test";
    pair.nodes.resize(2);
    pair.nodes[0].name = "a";
    pair.nodes[1].name = "b";
    pair.links.push_back(TopologyLink{0, 1, DataRate("1Gbps"), NanoSeconds(1), 0});
    EXPECT_FALSE(FindTopologyProblem(pair).has_value());

    TopologySpec dup = s;
    dup.nodes[1].name = "h0";
    EXPECT_TRUE(FindTopologyProblem(dup).has_value());

    TopologySpec self = s;
    self.links[0].b = self.links[0].a;
    problem = FindTopologyProblem(self);
    ASSERT_TRUE(problem.has_value());
    EXPECT_EQ(problem->link, 0u);

    TopologySpec noHosts;
    noHosts.nodes.resize(1);
    noHosts.nodes[0].name = "sw";
    noHosts.nodes[0].isSwitch = true;
    EXPECT_TRUE(FindTopologyProblem(noHosts).has_value());
}
