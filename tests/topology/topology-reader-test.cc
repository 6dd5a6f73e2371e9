// Topology files: the shipped topologies/*.yaml, unit conversion, defaults, and one test per
// error case in tests/data/bad/topology-*.yaml (message names file, line and key).

#include "../test-files.h"
#include "config/topology-reader.h"

#include <filesystem>
#include <gtest/gtest.h>
#include <string>

using namespace ns3;

namespace
{

using ns3::test::Contains;

std::string
RepoPath(const std::string& rel)
{
    return std::string(FABRIC_SOURCE_DIR) + "/" + rel;
}

TopologySpec
ReadShipped(const std::string& name, const LinkDefaults& defaults = LinkDefaults())
{
    return ReadTopologyFile(RepoPath("topologies/" + name), defaults);
}

/// The ConfigError of reading tests/data/bad/<name>, or a failure when there is none.
struct Failure
{
    std::string what;
    std::string file;
    int line = -1;
    std::string key;
};

Failure
ReadBad(const std::string& name)
{
    Failure f;
    try
    {
        ReadTopologyFile(RepoPath("tests/data/bad/" + name));
        ADD_FAILURE() << name << " was accepted";
    }
    catch (const ConfigError& e)
    {
        f.what = e.what();
        f.file = e.File();
        f.line = e.Line();
        f.key = e.Key();
    }
    return f;
}

/// Asserts the full "FILE:LINE: KEY" prefix, plus a fragment of the message.
void
ExpectBad(const std::string& name, int line, const std::string& key, const std::string& fragment)
{
    SCOPED_TRACE(name);
    Failure f = ReadBad(name);
    EXPECT_TRUE(Contains(f.what, name + ":" + std::to_string(line) + ": " + key + ": "));
    EXPECT_EQ(f.line, line);
    EXPECT_EQ(f.key, key);
    EXPECT_TRUE(Contains(f.file, name));
    EXPECT_TRUE(Contains(f.what, fragment));
}

uint32_t
Index(const TopologySpec& spec, const std::string& name)
{
    auto i = spec.Find(name);
    EXPECT_TRUE(i.has_value()) << name;
    return i.value_or(0);
}

const TopologyLink*
LinkBetween(const TopologySpec& spec, const std::string& a, const std::string& b)
{
    uint32_t ia = Index(spec, a);
    uint32_t ib = Index(spec, b);
    for (const auto& l : spec.links)
    {
        if ((l.a == ia && l.b == ib) || (l.a == ib && l.b == ia))
        {
            return &l;
        }
    }
    ADD_FAILURE() << "no link " << a << " - " << b;
    return nullptr;
}

} // namespace

// ---- shipped topologies ----------------------------------------------------------------------

TEST(TopologyFiles, Star16)
{
    TopologySpec s = ReadShipped("star16.yaml");
    EXPECT_TRUE(Contains(s.source, "star16.yaml"));
    EXPECT_EQ(s.Hosts().size(), 16u);
    EXPECT_EQ(s.Switches().size(), 1u);
    EXPECT_EQ(s.links.size(), 16u);
    EXPECT_EQ(s.links[0].delay, NanoSeconds(150)); // cable: 30m at 5 ns/m
    EXPECT_EQ(s.links[0].rate, DataRate("400Gbps"));
}

TEST(TopologyFiles, Clos2K8)
{
    TopologySpec s = ReadShipped("clos2-k8.yaml");
    EXPECT_EQ(s.Hosts().size(), 32u);
    EXPECT_EQ(s.Switches().size(), 8u + 4u);
    EXPECT_EQ(s.links.size(), 32u + 32u);
}

TEST(TopologyFiles, Clos2K64ThreeToOne)
{
    TopologySpec s = ReadShipped("clos2-k64-3to1.yaml");
    EXPECT_EQ(s.Hosts().size(), 3072u);
    EXPECT_EQ(s.Switches().size(), 64u + 16u);
    EXPECT_EQ(s.links.size(), 3072u + 64u * 16u);
    const TopologyLink* host = LinkBetween(s, "h0", "leaf0");
    const TopologyLink* fabric = LinkBetween(s, "leaf0", "spine15");
    ASSERT_TRUE(host && fabric);
    EXPECT_EQ(host->delay, NanoSeconds(15));    // host_cable: 3m
    EXPECT_EQ(fabric->delay, NanoSeconds(150)); // fabric_cable: 30m
}

TEST(TopologyFiles, FatTree3K4)
{
    TopologySpec s = ReadShipped("fat-tree3-k4.yaml");
    EXPECT_EQ(s.Hosts().size(), 16u);
    EXPECT_EQ(s.Switches().size(), 20u);
    EXPECT_EQ(s.links.size(), 48u);
}

TEST(TopologyFiles, RailTwoServers)
{
    TopologySpec s = ReadShipped("rail-2servers.yaml");
    EXPECT_EQ(s.Hosts().size(), 16u);
    EXPECT_EQ(s.Switches().size(), 2u + 8u + 8u);
    EXPECT_EQ(s.links.size(), 16u + 16u + 64u);
    EXPECT_EQ(s.nodes[s.Hosts()[11]].name, "gpu1_3"); // rank 11
    const TopologyLink* nv = LinkBetween(s, "gpu1_3", "srv1-nvs");
    const TopologyLink* nic = LinkBetween(s, "gpu1_3", "g0-rail3");
    ASSERT_TRUE(nv && nic);
    EXPECT_EQ(nv->rate, DataRate("450GB/s"));
    EXPECT_EQ(nv->delay, NanoSeconds(10));
    EXPECT_EQ(nic->rate, DataRate("50GB/s"));
    EXPECT_EQ(nic->delay, NanoSeconds(15));
}

TEST(TopologyFiles, SmallExplicit)
{
    TopologySpec s = ReadShipped("small-explicit.yaml");
    EXPECT_EQ(s.Hosts().size(), 4u);
    EXPECT_EQ(s.Switches().size(), 4u);
    EXPECT_EQ(s.links.size(), 8u);
    // Host order is file order.
    for (uint32_t i = 0; i < 4; ++i)
    {
        EXPECT_EQ(s.nodes[s.Hosts()[i]].name, "h" + std::to_string(i));
    }
    EXPECT_EQ(s.nodes[Index(s, "h0")].role, "host");
    EXPECT_EQ(s.nodes[Index(s, "h2")].group, 1);
    EXPECT_EQ(s.nodes[Index(s, "leaf1")].role, "leaf");
    EXPECT_TRUE(s.nodes[Index(s, "spine0")].isSwitch);
    EXPECT_EQ(s.nodes[Index(s, "spine0")].group, -1);

    const TopologyLink* h0 = LinkBetween(s, "h0", "leaf0");
    const TopologyLink* up = LinkBetween(s, "leaf0", "spine0");
    const TopologyLink* slow = LinkBetween(s, "leaf1", "spine0");
    ASSERT_TRUE(h0 && up && slow);
    EXPECT_EQ(h0->rate, DataRate("400Gbps")); // file-wide rate
    EXPECT_EQ(h0->delay, NanoSeconds(15));    // cable: 3m
    EXPECT_EQ(up->rate, DataRate("800Gbps"));
    EXPECT_EQ(up->delay, NanoSeconds(150)); // file-wide cable: 30m
    EXPECT_EQ(slow->delay, NanoSeconds(200));
    EXPECT_EQ(h0->sourceLine, 16);
}

TEST(TopologyFiles, EveryShippedFileReads)
{
    int files = 0;
    for (const auto& entry : std::filesystem::directory_iterator(RepoPath("topologies")))
    {
        if (entry.path().extension() == ".yaml")
        {
            SCOPED_TRACE(entry.path().string());
            EXPECT_NO_THROW(ReadTopologyFile(entry.path().string()));
            ++files;
        }
    }
    EXPECT_GE(files, 6);
}

// ---- format details --------------------------------------------------------------------------

TEST(TopologyReader, CableConvertsToDelay)
{
    YAML::Node n = YAML::Load("nodes: [{name: a, type: host}, {name: s, type: switch}]\n"
                              "links:\n"
                              "  - {a: a, b: s, cable: 30m}\n");
    TopologySpec s = ReadTopology(n, "inline.yaml", "", LinkDefaults());
    ASSERT_EQ(s.links.size(), 1u);
    EXPECT_EQ(s.links[0].delay, NanoSeconds(150));
    EXPECT_EQ(s.links[0].delay, PicoSeconds(150000));

    n = YAML::Load("{generator: star, hosts: 2, cable: 2.5m}");
    s = ReadTopology(n, "inline.yaml", "", LinkDefaults());
    EXPECT_EQ(s.links[0].delay, PicoSeconds(12500));
}

TEST(TopologyReader, LinkDefaultsApplyWhenFileGivesNone)
{
    LinkDefaults d;
    d.rate = DataRate("100Gbps");
    d.delay = NanoSeconds(42);
    YAML::Node n = YAML::Load("nodes: [{name: a, type: host}, {name: b, type: host},\n"
                              "        {name: s, type: switch}]\n"
                              "links: [{a: a, b: s}, {a: b, b: s, rate: 200Gbps}]\n");
    TopologySpec s = ReadTopology(n, "inline.yaml", "", d);
    EXPECT_EQ(s.links[0].rate, DataRate("100Gbps"));
    EXPECT_EQ(s.links[0].delay, NanoSeconds(42));
    EXPECT_EQ(s.links[1].rate, DataRate("200Gbps"));

    s = ReadTopology(YAML::Load("{generator: fat-tree3, k: 4}"), "inline.yaml", "", d);
    for (const auto& l : s.links)
    {
        EXPECT_EQ(l.rate, DataRate("100Gbps"));
        EXPECT_EQ(l.delay, NanoSeconds(42));
    }
    EXPECT_EQ(s.source, "inline.yaml");
}

TEST(TopologyReader, ParallelLinksWithCount)
{
    YAML::Node n = YAML::Load("nodes: [{name: a, type: host}, {name: b, type: host},\n"
                              "        {name: l, type: switch}, {name: s, type: switch}]\n"
                              "links: [{a: a, b: l}, {a: b, b: s}, {a: l, b: s, count: 3}]\n");
    TopologySpec s = ReadTopology(n, "inline.yaml", "", LinkDefaults());
    EXPECT_EQ(s.links.size(), 5u);
}

TEST(TopologyReader, GeneratorParametersFromFile)
{
    TopologySpec s = ReadTopology(YAML::Load("{generator: clos2, k: 8, down: 6, up: 2,\n"
                                             " host_rate: 100Gbps, fabric_rate: 400Gbps}"),
                                  "inline.yaml",
                                  "",
                                  LinkDefaults());
    // 2 spines with 8 ports each: 8 leaves x 6 hosts.
    EXPECT_EQ(s.Hosts().size(), 48u);
    EXPECT_EQ(s.Switches().size(), 10u);

    s = ReadTopology(YAML::Load("{generator: rail, servers: 3, gpus_per_server: 4,\n"
                                " servers_per_group: 2, spines: 2, uplinks_per_leaf: 2}"),
                     "inline.yaml",
                     "",
                     LinkDefaults());
    EXPECT_EQ(s.Hosts().size(), 12u);
    EXPECT_EQ(s.Switches().size(), 3u + 2u * 4u + 2u);
    EXPECT_EQ(s.links.size(), 12u + 12u + 8u * 2u);
}

TEST(TopologyReader, RailPcieAndControlServerKeys)
{
    // PCIe modelled: every GPU's NIC becomes a node between the GPU and its rail leaf, so each
    // of the 2 x 4 GPUs adds one switch node and one link (GPU - NIC at the PCIe rate).
    TopologySpec s = ReadTopology(YAML::Load("{generator: rail, servers: 2, gpus_per_server: 4,\n"
                                             " pcie_rate: 64GB/s}"),
                                  "inline.yaml",
                                  "",
                                  LinkDefaults());
    EXPECT_EQ(s.Hosts().size(), 8u);
    uint32_t pcie = 0;
    for (const auto& l : s.links)
    {
        pcie += l.rate == DataRate("512Gbps") ? 1 : 0;
    }
    EXPECT_EQ(pcie, 8u);
    // Control servers: 4 GPUs each, and ONE slot link of 32 GB/s per server to its NIC.
    s = ReadTopology(YAML::Load("{generator: rail, servers: 2, server_type: control}"),
                     "inline.yaml",
                     "",
                     LinkDefaults());
    EXPECT_EQ(s.Hosts().size(), 8u);
    uint32_t slots = 0;
    for (const auto& l : s.links)
    {
        slots += l.rate == DataRate("256Gbps") ? 1 : 0;
    }
    EXPECT_EQ(slots, 2u + 8u); // per server one slot, plus the 4 GPU peer links (also 32 GB/s)
    EXPECT_THROW(ReadTopology(YAML::Load("{generator: rail, servers: 2, server_type: hgx}"),
                              "inline.yaml",
                              "",
                              LinkDefaults()),
                 ConfigError);
}

TEST(TopologyReader, EmbeddedTopologyKeyPaths)
{
    YAML::Node doc = YAML::Load("stop: 1ms\n"
                                "topology:\n"
                                "  nodes: [{name: a, type: host}, {name: s, type: switch}]\n"
                                "  links:\n"
                                "    - {a: a, b: s, rate: fast}\n");
    try
    {
        ReadTopology(doc["topology"], "scenario.yaml", "topology", LinkDefaults());
        ADD_FAILURE() << "accepted";
    }
    catch (const ConfigError& e)
    {
        EXPECT_TRUE(Contains(e.what(), "scenario.yaml:5: topology.links[0].rate: "));
    }
    doc = YAML::Load("topology:\n  generator: clos2\n  k: 9\n");
    try
    {
        ReadTopology(doc["topology"], "scenario.yaml", "topology", LinkDefaults());
        ADD_FAILURE() << "accepted";
    }
    catch (const ConfigError& e)
    {
        EXPECT_TRUE(Contains(e.what(), "scenario.yaml:3: topology.k: "));
    }
}

TEST(TopologyReader, LoadYamlFileReadsDocuments)
{
    YAML::Node n = LoadYamlFile(RepoPath("topologies/star16.yaml"));
    EXPECT_EQ(n["generator"].Scalar(), "star");
}

// ---- one test per error case -----------------------------------------------------------------

TEST(TopologyErrors, MissingKey)
{
    ExpectBad("topology-missing-key.yaml", 8, "links[1].b", "required key is missing");
}

TEST(TopologyErrors, BadUnit)
{
    ExpectBad("topology-bad-unit.yaml", 4, "links[0].rate", "'400Gbs'");
}

TEST(TopologyErrors, ZeroRate)
{
    ExpectBad("topology-zero-rate.yaml", 7, "links[1].rate", "positive data rate");
}

TEST(TopologyErrors, NegativeRate)
{
    ExpectBad("topology-negative-rate.yaml", 2, "rate", "positive data rate");
}

TEST(TopologyErrors, NegativeDelay)
{
    ExpectBad("topology-negative-delay.yaml", 4, "links[1].delay", "'-5ns'");
}

TEST(TopologyErrors, BadCableLength)
{
    ExpectBad("topology-bad-cable.yaml", 3, "links[0].cable", "metres");
}

TEST(TopologyErrors, DelayAndCable)
{
    ExpectBad("topology-delay-and-cable.yaml", 4, "links[1].cable", "not both");
}

TEST(TopologyErrors, UnknownNodeInLink)
{
    ExpectBad("topology-unknown-node.yaml", 8, "links[2].a", "unknown node 'h2'");
}

TEST(TopologyErrors, DuplicateNodeName)
{
    ExpectBad("topology-duplicate-node.yaml", 4, "nodes[2].name", "first declared on line 2");
}

TEST(TopologyErrors, SelfLink)
{
    ExpectBad("topology-self-link.yaml", 8, "links[2].b", "'sw0' to itself");
}

TEST(TopologyErrors, HostWithoutLink)
{
    ExpectBad("topology-unlinked-host.yaml", 4, "nodes[2]", "host 'h2' has no link");
}

TEST(TopologyErrors, DisconnectedFabric)
{
    ExpectBad("topology-disconnected.yaml",
              6,
              "nodes[2]",
              "host 'h2' cannot reach host 'h0' without passing through another host");
}

TEST(TopologyErrors, UnknownGenerator)
{
    ExpectBad("topology-unknown-generator.yaml", 2, "generator", "unknown generator 'dragonfly'");
}

TEST(TopologyErrors, YamlSyntaxError)
{
    Failure f = ReadBad("topology-syntax-error.yaml");
    // The flow mapping opened on line 3 is never closed, so "links:" on line 4 is read as one of
    // its keys; the parser reports the block entry on line 5 that cannot be inside it.
    EXPECT_TRUE(Contains(f.what, "topology-syntax-error.yaml:5: YAML syntax error: "));
    EXPECT_EQ(f.line, 5);
    EXPECT_EQ(f.key, "");
}

TEST(TopologyErrors, FileNotFound)
{
    const std::string path = RepoPath("tests/data/bad/topology-does-not-exist.yaml");
    try
    {
        ReadTopologyFile(path);
        ADD_FAILURE() << "accepted";
    }
    catch (const ConfigError& e)
    {
        EXPECT_EQ(std::string(e.what()), path + ": cannot open file: No such file or directory");
        EXPECT_EQ(e.Line(), 0);
    }
}

TEST(TopologyErrors, UnknownKey)
{
    ExpectBad("topology-unknown-key.yaml", 7, "links[1].cabel", "unknown key");
}

TEST(TopologyErrors, BadNodeType)
{
    ExpectBad("topology-bad-type.yaml", 3, "nodes[1].type", "expected host or switch");
}

TEST(TopologyErrors, BadNodeName)
{
    ExpectBad("topology-bad-name.yaml", 2, "nodes[0].name", "'h 0'");
}

TEST(TopologyErrors, NeitherForm)
{
    Failure f = ReadBad("topology-no-form.yaml");
    EXPECT_TRUE(Contains(f.what, "topology-no-form.yaml:2: give either 'generator"));
}

TEST(TopologyErrors, BothForms)
{
    ExpectBad("topology-both-forms.yaml", 3, "nodes", "not both");
}

TEST(TopologyErrors, Clos2OddK)
{
    ExpectBad("topology-clos2-odd-k.yaml", 3, "k", "must be even");
}

TEST(TopologyErrors, Clos2TooManyPorts)
{
    ExpectBad("topology-clos2-too-many-ports.yaml", 5, "up", "exceed k = 64");
}

TEST(TopologyErrors, Clos2TooManyHosts)
{
    ExpectBad("topology-clos2-too-many-hosts.yaml", 4, "hosts", "too many hosts");
}

TEST(TopologyErrors, Clos2TooManyLeaves)
{
    ExpectBad("topology-clos2-too-many-leaves.yaml", 4, "leaves", "more than k = 8");
}

TEST(TopologyErrors, Clos2BadRatio)
{
    ExpectBad("topology-clos2-bad-ratio.yaml", 3, "oversubscription", "'3 to 1'");
}

TEST(TopologyErrors, Clos2UnevenSpines)
{
    ExpectBad("topology-clos2-spines.yaml", 5, "spines", "5 does not divide 16");
}

TEST(TopologyErrors, ZeroCount)
{
    ExpectBad("topology-clos2-zero-leaves.yaml", 3, "leaves", "at least 1");
}

TEST(TopologyErrors, FatTreeOddK)
{
    ExpectBad("topology-fat-tree3-odd-k.yaml", 2, "k", "must be even");
}

TEST(TopologyErrors, GeneratorMissingParameter)
{
    ExpectBad("topology-star-missing-hosts.yaml", 1, "hosts", "required key is missing");
}

TEST(TopologyErrors, GeneratorMisspelledParameter)
{
    ExpectBad("topology-star-misspelled.yaml", 2, "hots", "unknown key");
}

TEST(TopologyErrors, RailUnevenUplinks)
{
    ExpectBad("topology-rail-uplinks.yaml", 4, "uplinks_per_leaf", "multiple of the spine count");
}

TEST(TopologyErrors, DuplicateKey)
{
    ExpectBad("topology-duplicate-key.yaml", 7, "links[1].rate", "first given on line 6");
}
