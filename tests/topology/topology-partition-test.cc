// Topology partitioning for the distributed simulator: expected ranks, cut links and lookahead
// are derived by hand from the topologies below (auto, pods and file methods), plus one test per
// error (message names the file, line and the offending node).

#include "../test-files.h"
#include "config/topology-generators.h"
#include "distributed/topology-partition.h"

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

using namespace ns3;

namespace
{

namespace fs = std::filesystem;

/// 2-tier Clos: 4 leaves x 4 hosts, 2 spines (one link from each leaf to each spine), all links
/// \p delay. 16 hosts + 4 leaves + 2 spines = 22 nodes; 16 host links + 8 leaf-spine links.
TopologySpec
SmallClos(Time delay = NanoSeconds(500))
{
    Clos2Params p;
    p.k = 8;
    p.down = 4;
    p.up = 2;
    p.spines = 2;
    p.leaves = 4;
    p.hostDelay = delay;
    p.fabricDelay = delay;
    return MakeClos2(p);
}

/// Builds small specs by hand (no groups unless given).
struct SpecBuilder
{
    TopologySpec spec;

    uint32_t Node(const std::string& name,
                  bool isSwitch,
                  const std::string& role,
                  int32_t group = -1)
    {
        spec.nodes.push_back({name, isSwitch, role, group});
        return spec.nodes.size() - 1;
    }

    void Link(uint32_t a, uint32_t b, Time delay)
    {
        TopologyLink l;
        l.a = a;
        l.b = b;
        l.rate = DataRate("100Gbps");
        l.delay = delay;
        spec.links.push_back(l);
    }
};

/**
 * Three tiers with growing delays and no groups: 2 pods, each with 2 leaves x 2 hosts (100 ns)
 * and 2 spines linked to both its leaves (1 us); 2 cores linked to all 4 spines (5 us).
 * Nodes: 8 hosts h0..h7, leaf0..leaf3 (leaf j serves h2j, h2j+1; pod = j / 2),
 * spine0..spine3 (pod = s / 2), core0, core1: 18 nodes, 8 + 8 + 8 = 24 links.
 */
TopologySpec
ThreeTier()
{
    SpecBuilder b;
    b.spec.source = "test:three-tier";
    std::vector<uint32_t> hosts, leaves, spines, cores;
    for (int i = 0; i < 8; ++i)
    {
        hosts.push_back(b.Node("h" + std::to_string(i), false, "host"));
    }
    for (int j = 0; j < 4; ++j)
    {
        leaves.push_back(b.Node("leaf" + std::to_string(j), true, "leaf"));
    }
    for (int s = 0; s < 4; ++s)
    {
        spines.push_back(b.Node("spine" + std::to_string(s), true, "spine"));
    }
    for (int c = 0; c < 2; ++c)
    {
        cores.push_back(b.Node("core" + std::to_string(c), true, "core"));
    }
    for (int i = 0; i < 8; ++i)
    {
        b.Link(hosts[i], leaves[i / 2], NanoSeconds(100));
    }
    for (int j = 0; j < 4; ++j)
    {
        int pod = j / 2;
        b.Link(leaves[j], spines[2 * pod], MicroSeconds(1));
        b.Link(leaves[j], spines[2 * pod + 1], MicroSeconds(1));
    }
    for (int s = 0; s < 4; ++s)
    {
        b.Link(spines[s], cores[0], MicroSeconds(5));
        b.Link(spines[s], cores[1], MicroSeconds(5));
    }
    return b.spec;
}

uint32_t
Index(const TopologySpec& spec, const std::string& name)
{
    auto i = spec.Find(name);
    EXPECT_TRUE(i.has_value()) << name;
    return i.value_or(0);
}

uint32_t
RankOf(const TopologySpec& spec, const TopologyPartition& p, const std::string& name)
{
    return p.rankOfNode.at(Index(spec, name));
}

/// Checks the partition's bookkeeping against its rankOfNode, computed independently.
void
ExpectConsistent(const TopologySpec& spec, const TopologyPartition& p)
{
    ASSERT_EQ(p.rankOfNode.size(), spec.nodes.size());
    ASSERT_EQ(p.hostsPerRank.size(), p.parts);
    ASSERT_EQ(p.nodesPerRank.size(), p.parts);
    ASSERT_EQ(p.linksPerRank.size(), p.parts);
    std::vector<uint32_t> hosts(p.parts, 0), nodes(p.parts, 0), links(p.parts, 0);
    for (uint32_t i = 0; i < spec.nodes.size(); ++i)
    {
        ASSERT_LT(p.rankOfNode[i], p.parts);
        ++nodes[p.rankOfNode[i]];
        hosts[p.rankOfNode[i]] += spec.nodes[i].isSwitch ? 0 : 1;
    }
    std::vector<uint32_t> cut;
    Time lookahead = Time::Max();
    for (uint32_t j = 0; j < spec.links.size(); ++j)
    {
        uint32_t ra = p.rankOfNode[spec.links[j].a];
        uint32_t rb = p.rankOfNode[spec.links[j].b];
        ++links[ra];
        if (ra != rb)
        {
            ++links[rb];
            cut.push_back(j);
            lookahead = std::min(lookahead, spec.links[j].delay);
        }
    }
    EXPECT_EQ(p.hostsPerRank, hosts);
    EXPECT_EQ(p.nodesPerRank, nodes);
    EXPECT_EQ(p.linksPerRank, links);
    EXPECT_EQ(p.cutLinks, cut);
    EXPECT_EQ(p.lookahead, lookahead);
    for (uint32_t r = 0; r < p.parts; ++r)
    {
        EXPECT_GT(nodes[r], 0u) << "rank " << r << " is empty";
    }
}

/// Every host is on the rank of every node it links to (never cut from its switch).
void
ExpectHostsWithTheirSwitch(const TopologySpec& spec, const TopologyPartition& p)
{
    for (const auto& l : spec.links)
    {
        if (!spec.nodes[l.a].isSwitch || !spec.nodes[l.b].isSwitch)
        {
            EXPECT_EQ(p.rankOfNode[l.a], p.rankOfNode[l.b])
                << spec.nodes[l.a].name << " - " << spec.nodes[l.b].name << " is cut";
        }
    }
}

/// The ConfigError PartitionTopology throws, or nothing (then the test fails).
std::optional<ConfigError>
ErrorOf(const TopologySpec& spec, uint32_t parts, const std::string& method)
{
    try
    {
        PartitionTopology(spec, parts, method);
    }
    catch (const ConfigError& e)
    {
        return e;
    }
    ADD_FAILURE() << "no ConfigError for " << parts << " parts, method " << method;
    return std::nullopt;
}

const std::string::size_type npos = std::string::npos;

class PartitionFileTest : public ::testing::Test
{
  protected:
    std::string Write(const std::string& name, const std::string& text)
    {
        std::string path = (fs::path(m_tmp) / name).string();
        std::ofstream(path) << text;
        return path;
    }

    ns3::test::TempDir m_tmpDir{"fabric-partition"};
    const std::string& m_tmp = m_tmpDir.Path();
};

} // namespace

TEST(TopologyPartition, OnePartPutsEverythingOnRankZero)
{
    TopologySpec s = SmallClos();
    for (const std::string method : {"auto", "pods"})
    {
        TopologyPartition p = PartitionTopology(s, 1, method);
        EXPECT_EQ(p.parts, 1u);
        EXPECT_EQ(p.rankOfNode, std::vector<uint32_t>(22, 0));
        EXPECT_TRUE(p.cutLinks.empty());
        EXPECT_EQ(p.lookahead, Time::Max());
        EXPECT_EQ(p.hostsPerRank, std::vector<uint32_t>{16});
        EXPECT_EQ(p.nodesPerRank, std::vector<uint32_t>{22});
        EXPECT_EQ(p.linksPerRank, std::vector<uint32_t>{24});
        EXPECT_EQ(DescribePartition(s, p),
                  "1 part, 0 cut links, lookahead unbounded, "
                  "hosts per rank 16");
    }
}

TEST(TopologyPartition, OnePartStillChecksAPartitionFile)
{
    // The single-process reference of a K-rank run reads the same file: a missing file is an
    // error even when every node folds onto rank 0.
    TopologySpec s = SmallClos();
    EXPECT_THROW(PartitionTopology(s, 1, "/no/such/file"), ConfigError);
}

TEST(TopologyPartition, AutoClos2TwoPartsKeepsLeavesWithHostsAndSpreadsSpines)
{
    TopologySpec s = SmallClos(NanoSeconds(500));
    TopologyPartition p = PartitionTopology(s, 2, "auto");
    ExpectConsistent(s, p);
    ExpectHostsWithTheirSwitch(s, p);
    // Uniform delays: contracting every link leaves one piece, contracting none leaves the 4
    // leaf blocks (leaf + 4 hosts) and the 2 spines; blocks go 0, 1, 0, 1 (4 hosts each).
    EXPECT_EQ(p.hostsPerRank, (std::vector<uint32_t>{8, 8}));
    EXPECT_EQ(RankOf(s, p, "leaf0"), 0u);
    EXPECT_EQ(RankOf(s, p, "leaf1"), 1u);
    EXPECT_EQ(RankOf(s, p, "leaf2"), 0u);
    EXPECT_EQ(RankOf(s, p, "leaf3"), 1u);
    // One spine per rank (both ranks have 10 nodes before the spines).
    EXPECT_NE(RankOf(s, p, "spine0"), RankOf(s, p, "spine1"));
    EXPECT_EQ(p.nodesPerRank, (std::vector<uint32_t>{11, 11}));
    // Each spine links to all 4 leaves, 2 of them on the other rank: 2 x 2 = 4 cut links, all
    // leaf-spine.
    ASSERT_EQ(p.cutLinks.size(), 4u);
    for (uint32_t j : p.cutLinks)
    {
        const TopologyLink& l = s.links[j];
        EXPECT_EQ(s.nodes[l.a].role, "leaf");
        EXPECT_EQ(s.nodes[l.b].role, "spine");
    }
    // Rank 0: 8 host links + 4 uplinks of its leaves + 2 links of its spine to rank-1 leaves.
    EXPECT_EQ(p.linksPerRank, (std::vector<uint32_t>{14, 14}));
    EXPECT_EQ(p.lookahead, NanoSeconds(500));
    EXPECT_EQ(DescribePartition(s, p),
              "2 parts, 4 cut links, lookahead 500 ns, hosts per rank 8/8");

    // Deterministic.
    TopologyPartition again = PartitionTopology(s, 2, "auto");
    EXPECT_EQ(again.rankOfNode, p.rankOfNode);
    EXPECT_EQ(again.cutLinks, p.cutLinks);
}

TEST(TopologyPartition, AutoClos2FourPartsOneLeafBlockEach)
{
    TopologySpec s = SmallClos(NanoSeconds(150));
    TopologyPartition p = PartitionTopology(s, 4, "auto");
    ExpectConsistent(s, p);
    ExpectHostsWithTheirSwitch(s, p);
    EXPECT_EQ(p.hostsPerRank, (std::vector<uint32_t>{4, 4, 4, 4}));
    for (uint32_t j = 0; j < 4; ++j)
    {
        EXPECT_EQ(RankOf(s, p, "leaf" + std::to_string(j)), j);
    }
    // All ranks have 5 nodes: spine0 ties everywhere (one link to each) and goes to rank 0,
    // spine1 to rank 1 (now the lowest of the 5-node ranks). Cut: 3 + 3 leaf-spine links.
    EXPECT_EQ(RankOf(s, p, "spine0"), 0u);
    EXPECT_EQ(RankOf(s, p, "spine1"), 1u);
    EXPECT_EQ(p.cutLinks.size(), 6u);
    EXPECT_EQ(p.lookahead, NanoSeconds(150));
}

TEST(TopologyPartition, AutoCutsWhereDelayIsLargest)
{
    TopologySpec s = ThreeTier();
    TopologyPartition p = PartitionTopology(s, 2, "auto");
    ExpectConsistent(s, p);
    // Contracting the 100 ns and 1 us links leaves pod0, pod1, core0, core1: >= 2 pieces, so
    // only 5 us links are cut. Pods go to ranks 0 and 1, then one core each.
    for (uint32_t j : p.cutLinks)
    {
        EXPECT_EQ(s.links[j].delay, MicroSeconds(5));
    }
    for (const std::string n : {"h0", "h1", "h2", "h3", "leaf0", "leaf1", "spine0", "spine1"})
    {
        EXPECT_EQ(RankOf(s, p, n), 0u) << n;
    }
    for (const std::string n : {"h4", "h5", "h6", "h7", "leaf2", "leaf3", "spine2", "spine3"})
    {
        EXPECT_EQ(RankOf(s, p, n), 1u) << n;
    }
    EXPECT_EQ(RankOf(s, p, "core0"), 0u);
    EXPECT_EQ(RankOf(s, p, "core1"), 1u);
    // Each core reaches the 2 spines of the other pod across the cut: 4 cut links.
    EXPECT_EQ(p.cutLinks.size(), 4u);
    EXPECT_EQ(p.lookahead, MicroSeconds(5));
    EXPECT_EQ(p.hostsPerRank, (std::vector<uint32_t>{4, 4}));
    EXPECT_EQ(DescribePartition(s, p),
              "2 parts, 4 cut links, lookahead 5000 ns, "
              "hosts per rank 4/4");
}

TEST(TopologyPartition, AutoStepsDownToSmallerDelaysWhenPiecesRunOut)
{
    TopologySpec s = ThreeTier();
    // 4 parts: the 5 us threshold still gives exactly 4 pieces (pods on 0 and 1, cores on 2
    // and 3); every spine-core link is cut.
    TopologyPartition p4 = PartitionTopology(s, 4, "auto");
    ExpectConsistent(s, p4);
    EXPECT_EQ(p4.hostsPerRank, (std::vector<uint32_t>{4, 4, 0, 0}));
    EXPECT_EQ(RankOf(s, p4, "core0"), 2u);
    EXPECT_EQ(RankOf(s, p4, "core1"), 3u);
    EXPECT_EQ(p4.cutLinks.size(), 8u);
    EXPECT_EQ(p4.lookahead, MicroSeconds(5));

    // 5 parts: only 4 pieces at 5 us, so the threshold drops to 1 us: 4 leaf blocks (2 hosts
    // each) on ranks 0-3, then 4 spines and 2 cores spread; host links are never cut.
    TopologyPartition p5 = PartitionTopology(s, 5, "auto");
    ExpectConsistent(s, p5);
    ExpectHostsWithTheirSwitch(s, p5);
    EXPECT_EQ(p5.hostsPerRank, (std::vector<uint32_t>{2, 2, 2, 2, 0}));
    EXPECT_EQ(p5.lookahead, MicroSeconds(1));
}

TEST(TopologyPartition, AutoRailKeepsServersWhole)
{
    RailParams rp;
    rp.servers = 4;
    rp.gpusPerServer = 4;
    TopologySpec s = MakeRail(rp);
    TopologyPartition p = PartitionTopology(s, 2, "auto");
    ExpectConsistent(s, p);
    // GPUs stay with their NVSwitch (10 ns NVLink, their lowest-delay link); servers 0, 2 on
    // rank 0 and 1, 3 on rank 1; only 150 ns NIC or fabric links are cut.
    for (uint32_t srv = 0; srv < 4; ++srv)
    {
        std::string nvs = "srv" + std::to_string(srv) + "-nvs";
        EXPECT_EQ(RankOf(s, p, nvs), srv % 2) << nvs;
        for (uint32_t g = 0; g < 4; ++g)
        {
            std::string gpu = "gpu" + std::to_string(srv) + "_" + std::to_string(g);
            EXPECT_EQ(RankOf(s, p, gpu), srv % 2) << gpu;
        }
    }
    EXPECT_EQ(p.hostsPerRank, (std::vector<uint32_t>{8, 8}));
    EXPECT_EQ(p.lookahead, NanoSeconds(150));
}

TEST(TopologyPartition, AutoErrorsWhenHostsCannotBeSeparatedFromTheirSwitch)
{
    TopologySpec s = MakeStar(4, DataRate("100Gbps"), NanoSeconds(100));
    auto e = ErrorOf(s, 2, "auto");
    ASSERT_TRUE(e.has_value());
    EXPECT_EQ(e->Key(), "partition");
    EXPECT_NE(e->Message().find("only 1 piece"), npos) << e->what();
}

TEST(TopologyPartition, PodsOnFatTree)
{
    // k = 4: 4 pods of 4 hosts, 2 edges, 2 aggs; 4 cores (no group). 16 + 8 + 8 + 4 = 36 nodes;
    // links: 16 host + 16 edge-agg + 16 agg-core = 48.
    TopologySpec s = MakeFatTree3(4, DataRate("100Gbps"), NanoSeconds(200));
    TopologyPartition p = PartitionTopology(s, 2, "pods");
    ExpectConsistent(s, p);
    ExpectHostsWithTheirSwitch(s, p);
    // Pods balanced by hosts: 0 and 2 on rank 0, 1 and 3 on rank 1.
    std::map<int32_t, std::set<uint32_t>> ranksOfPod;
    for (uint32_t i = 0; i < s.nodes.size(); ++i)
    {
        if (s.nodes[i].group >= 0)
        {
            ranksOfPod[s.nodes[i].group].insert(p.rankOfNode[i]);
        }
    }
    ASSERT_EQ(ranksOfPod.size(), 4u);
    for (const auto& [pod, ranks] : ranksOfPod)
    {
        EXPECT_EQ(ranks, (std::set<uint32_t>{static_cast<uint32_t>(pod % 2)})) << "pod " << pod;
    }
    EXPECT_EQ(p.hostsPerRank, (std::vector<uint32_t>{8, 8}));
    // 2 cores per rank: 16 + 2 nodes each.
    EXPECT_EQ(p.nodesPerRank, (std::vector<uint32_t>{18, 18}));
    // Every core links to one agg in each pod, 2 of them on the other rank: 4 x 2 cut links,
    // all agg-core.
    EXPECT_EQ(p.cutLinks.size(), 8u);
    for (uint32_t j : p.cutLinks)
    {
        EXPECT_EQ(s.nodes[s.links[j].a].role, "agg");
        EXPECT_EQ(s.nodes[s.links[j].b].role, "core");
    }
    EXPECT_EQ(p.lookahead, NanoSeconds(200));

    // 4 parts: one pod and one core per rank; each core has 3 of its 4 links cut.
    TopologyPartition p4 = PartitionTopology(s, 4, "pods");
    ExpectConsistent(s, p4);
    EXPECT_EQ(p4.hostsPerRank, (std::vector<uint32_t>{4, 4, 4, 4}));
    EXPECT_EQ(p4.nodesPerRank, (std::vector<uint32_t>{9, 9, 9, 9}));
    EXPECT_EQ(p4.cutLinks.size(), 12u);
}

TEST(TopologyPartition, PodsWithoutGroupsIsAnError)
{
    auto e = ErrorOf(ThreeTier(), 2, "pods");
    ASSERT_TRUE(e.has_value());
    EXPECT_EQ(e->Key(), "partition");
    EXPECT_EQ(e->File(), "test:three-tier");
    EXPECT_NE(e->Message().find("no pods"), npos) << e->what();
}

/// Two islands h0 - s0 and h1 - s1 (100 ns host links), nodes in that order: h0, h1, s0, s1.
SpecBuilder
TwoIslands(const std::string& source)
{
    SpecBuilder b;
    b.spec.source = source;
    uint32_t h0 = b.Node("h0", false, "host");
    uint32_t h1 = b.Node("h1", false, "host");
    uint32_t s0 = b.Node("s0", true, "tor");
    uint32_t s1 = b.Node("s1", true, "tor");
    b.Link(h0, s0, NanoSeconds(100));
    b.Link(h1, s1, NanoSeconds(100));
    return b;
}

/// h0 - s0 == s1 - h1: the two islands joined by a zero-delay link between the switches
/// (line 7).
TopologySpec
ZeroDelayBetweenSwitches()
{
    SpecBuilder b = TwoIslands("test:zero");
    b.Link(2, 3, Seconds(0));
    b.spec.links.back().sourceLine = 7;
    return b.spec;
}

TEST(TopologyPartition, ZeroDelayCutIsAnError)
{
    // h0 - s0 == s1 - h1 with a zero-delay link between the switches.
    TopologySpec spec = ZeroDelayBetweenSwitches();

    // auto: contracting the zero-delay link leaves 1 piece, so it must be cut.
    auto e = ErrorOf(spec, 2, "auto");
    ASSERT_TRUE(e.has_value());
    EXPECT_EQ(e->Key(), "partition");
    EXPECT_EQ(e->Line(), 7);
    EXPECT_NE(e->Message().find("lookahead would be zero"), npos) << e->what();
    EXPECT_NE(e->Message().find("s0"), npos) << e->what();
    EXPECT_NE(e->Message().find("s1"), npos) << e->what();

    // One part cuts nothing, so the zero-delay link is harmless.
    TopologyPartition one = PartitionTopology(spec, 1, "auto");
    EXPECT_TRUE(one.cutLinks.empty());
}

TEST(TopologyPartition, ARankWithoutACableToAnotherIsAnError)
{
    // Two separate islands h0-s0 and h1-s1: auto puts one on each rank, and no cable joins them.
    auto e = ErrorOf(TwoIslands("test:islands").spec, 2, "auto");
    ASSERT_TRUE(e.has_value());
    EXPECT_EQ(e->Key(), "partition");
    EXPECT_NE(e->Message().find("no cable to another rank"), npos) << e->what();
}

TEST(TopologyPartition, TooManyOrZeroPartsIsAnError)
{
    TopologySpec s = MakeStar(4, DataRate("100Gbps"), NanoSeconds(100)); // 5 nodes
    auto e = ErrorOf(s, 6, "auto");
    ASSERT_TRUE(e.has_value());
    EXPECT_EQ(e->Key(), "partition");
    EXPECT_NE(e->Message().find("6 parts"), npos) << e->what();
    EXPECT_NE(e->Message().find("5 nodes"), npos) << e->what();

    auto zero = ErrorOf(s, 0, "auto");
    ASSERT_TRUE(zero.has_value());
    EXPECT_EQ(zero->Key(), "partition");
}

TEST_F(PartitionFileTest, ReadsRanksCommentsAndBlankLines)
{
    TopologySpec s = SmallClos(NanoSeconds(300));
    // Leaves 0 and 1 (hosts h0..h7) on rank 0 with spine0; leaves 2, 3 and spine1 on rank 1.
    std::string text = "# node rank\n\n";
    for (uint32_t i = 0; i < 16; ++i)
    {
        text +=
            "h" + std::to_string(i) + (i % 2 ? "\t" : "   ") + std::to_string(i / 8) + "  # host\n";
    }
    text += "leaf0 0\nleaf1 0\nleaf2 1\nleaf3 1\n   \nspine0 0 # spine\nspine1 1\n";
    std::string path = Write("clos.part", text);
    TopologyPartition p = PartitionTopology(s, 2, path);
    ExpectConsistent(s, p);
    ExpectHostsWithTheirSwitch(s, p);
    for (uint32_t i = 0; i < 16; ++i)
    {
        EXPECT_EQ(p.rankOfNode[i], i / 8);
    }
    EXPECT_EQ(RankOf(s, p, "spine0"), 0u);
    EXPECT_EQ(RankOf(s, p, "spine1"), 1u);
    // spine0 to leaf2, leaf3 and spine1 to leaf0, leaf1.
    EXPECT_EQ(p.cutLinks.size(), 4u);
    EXPECT_EQ(p.lookahead, NanoSeconds(300));
    EXPECT_EQ(DescribePartition(s, p),
              "2 parts, 4 cut links, lookahead 300 ns, hosts per rank 8/8");
}

TEST_F(PartitionFileTest, UnknownNodeNamesFileAndLine)
{
    TopologySpec s = SmallClos();
    std::string path = Write("unknown.part", "# ranks\nh0 0\n\nbogus 1\n");
    auto e = ErrorOf(s, 2, path);
    ASSERT_TRUE(e.has_value());
    EXPECT_EQ(e->File(), path);
    EXPECT_EQ(e->Line(), 4);
    EXPECT_EQ(e->Key(), "partition");
    EXPECT_NE(e->Message().find("unknown node 'bogus'"), npos) << e->what();
    EXPECT_NE(std::string(e->what()).find(path + ":4: partition:"), npos) << e->what();
}

TEST_F(PartitionFileTest, RankOutOfRangeOrNotAnInteger)
{
    TopologySpec s = SmallClos();
    auto big = ErrorOf(s, 2, Write("big.part", "h0 0\nh1 2\n"));
    ASSERT_TRUE(big.has_value());
    EXPECT_EQ(big->Line(), 2);
    EXPECT_EQ(big->Key(), "partition");
    EXPECT_NE(big->Message().find("out of range"), npos) << big->what();
    EXPECT_NE(big->Message().find("h1"), npos) << big->what();

    auto word = ErrorOf(s, 2, Write("word.part", "h0 zero\n"));
    ASSERT_TRUE(word.has_value());
    EXPECT_EQ(word->Line(), 1);
    EXPECT_NE(word->Message().find("not an integer"), npos) << word->what();

    auto negative = ErrorOf(s, 2, Write("neg.part", "h0 -1\n"));
    ASSERT_TRUE(negative.has_value());
    EXPECT_NE(negative->Message().find("not an integer"), npos) << negative->what();

    auto extra = ErrorOf(s, 2, Write("extra.part", "h0 0 1\n"));
    ASSERT_TRUE(extra.has_value());
    EXPECT_EQ(extra->Line(), 1);
}

TEST_F(PartitionFileTest, DuplicateNode)
{
    TopologySpec s = SmallClos();
    auto e = ErrorOf(s, 2, Write("dup.part", "h0 0\nh1 1\nh0 1\n"));
    ASSERT_TRUE(e.has_value());
    EXPECT_EQ(e->Line(), 3);
    EXPECT_NE(e->Message().find("'h0' is listed twice"), npos) << e->what();
    EXPECT_NE(e->Message().find("line 1"), npos) << e->what();
}

TEST_F(PartitionFileTest, MissingNodesAreNamed)
{
    TopologySpec s = SmallClos();
    // All hosts listed, no switches: 6 missing, the first five named.
    std::string text;
    for (uint32_t i = 0; i < 16; ++i)
    {
        text += "h" + std::to_string(i) + " " + std::to_string(i % 2) + "\n";
    }
    std::string path = Write("missing.part", text);
    auto e = ErrorOf(s, 2, path);
    ASSERT_TRUE(e.has_value());
    EXPECT_EQ(e->File(), path);
    EXPECT_EQ(e->Key(), "partition");
    EXPECT_NE(e->Message().find("6 nodes"), npos) << e->what();
    EXPECT_NE(e->Message().find("leaf0, leaf1, leaf2, leaf3, spine0 and 1 more"), npos)
        << e->what();
}

TEST_F(PartitionFileTest, UnreadableFileAndEmptyRank)
{
    TopologySpec s = SmallClos();
    std::string path = (fs::path(m_tmp) / "absent.part").string();
    auto e = ErrorOf(s, 2, path);
    ASSERT_TRUE(e.has_value());
    EXPECT_EQ(e->File(), path);
    EXPECT_EQ(e->Line(), 0);
    EXPECT_NE(e->Message().find("cannot read"), npos) << e->what();

    auto dir = ErrorOf(s, 2, m_tmp);
    ASSERT_TRUE(dir.has_value());
    EXPECT_NE(dir->Message().find("cannot read"), npos) << dir->what();

    // Every node on rank 0 or 1 of 3 parts: rank 2 owns nothing.
    std::string text;
    for (const auto& n : s.nodes)
    {
        text += n.name + " " + (n.isSwitch ? "1" : "0") + "\n";
    }
    auto empty = ErrorOf(s, 3, Write("two-of-three.part", text));
    ASSERT_TRUE(empty.has_value());
    EXPECT_EQ(empty->Key(), "partition");
    EXPECT_NE(empty->Message().find("rank 2"), npos) << empty->what();
}

TEST_F(PartitionFileTest, ZeroDelayCutFromFile)
{
    TopologySpec spec = ZeroDelayBetweenSwitches();
    auto e = ErrorOf(spec, 2, Write("zero.part", "h0 0\ns0 0\nh1 1\ns1 1\n"));
    ASSERT_TRUE(e.has_value());
    EXPECT_EQ(e->Key(), "partition");
    EXPECT_NE(e->Message().find("lookahead would be zero"), npos) << e->what();
    EXPECT_NE(e->Message().find("s0 - s1"), npos) << e->what();

    // Cutting a 100 ns host link instead is allowed.
    TopologyPartition p = PartitionTopology(spec, 2, Write("ok.part", "h0 0\ns0 1\nh1 1\ns1 1\n"));
    EXPECT_EQ(p.cutLinks, std::vector<uint32_t>{0});
    EXPECT_EQ(p.lookahead, NanoSeconds(100));
}
