// The scenario loader without running a simulation: the one-hop PFC headroom bound worked out
// by hand, --set overrides (ApplyOverride), star sizing by "hosts: auto", the documented
// defaults, and the workloads expanded into flows.

#include "config/config-error.h"
#include "config/scenario-config.h"
#include "scenario-attributes.h"

#include <algorithm>
#include <gtest/gtest.h>
#include <set>
#include <string>
#include <vector>

using namespace ns3;
using ns3::test::Attr;

namespace
{

std::string
RepoPath(const std::string& rel)
{
    return std::string(FABRIC_SOURCE_DIR) + "/" + rel;
}

ScenarioConfig
Load(const std::string& rel, const std::vector<std::string>& overrides = {})
{
    return LoadScenario(RepoPath(rel), overrides, FABRIC_SOURCE_DIR);
}

// --- OneHopHeadroomBytes ------------------------------------------------------------------

// The bound: after the frame that crosses XOFF, the pause waits behind at most one frame and
// one other PFC frame, serializes and crosses the cable while data keeps coming down it:
// window W = T_frame + 2 * T_pause + 2 * d; headroom = ceil(W * B / 8) + two full frames: the
// last one the upstream started, and the pausing frame itself, which lands in headroom when the
// shared pool is full.

TEST(OneHopHeadroom, FourHundredGigThirtyMetres)
{
    // 400 Gb/s (50 B/ns), 150 ns (30 m), 4154-byte frames (4096 B payload + 58 B of Ethernet,
    // IPv4, UDP, BTH and ICRC), 24 B of preamble/SFD/FCS/IFG per frame on the wire:
    //   frame time  = (4154 + 24) * 8 / 400e9 = 83.56 ns
    //   pause frame = (60 + 24) * 8 / 400e9   =  1.68 ns
    //   window      = 83.56 + 2 * 1.68 + 2 * 150 = 386.92 ns -> 19346 B, + 2 * 4154 = 27654 B
    EXPECT_EQ(OneHopHeadroomBytes(DataRate("400Gbps"), NanoSeconds(150), 4154, 24), 27654u);
}

TEST(OneHopHeadroom, HundredGigTenMetres)
{
    // 100 Gb/s (12.5 B/ns), 50 ns: frame 334.24 ns, pause 6.72 ns, window 447.68 ns -> 5596 B,
    // + 2 * 4154 = 13904 B.
    EXPECT_EQ(OneHopHeadroomBytes(DataRate("100Gbps"), NanoSeconds(50), 4154, 24), 13904u);
}

TEST(OneHopHeadroom, HundredMetres)
{
    // 400 Gb/s, 500 ns: window 83.56 + 3.36 + 1000 = 1086.92 ns -> 54346 B, + 2 * 4154 =
    // 62654 B.
    EXPECT_EQ(OneHopHeadroomBytes(DataRate("400Gbps"), NanoSeconds(500), 4154, 24), 62654u);
}

TEST(OneHopHeadroom, ZeroLengthCableStillHoldsAboutThreeFrames)
{
    // Back to back: window 86.92 ns -> 4346 B, + 2 * 4154 = 12654 B.
    EXPECT_EQ(OneHopHeadroomBytes(DataRate("400Gbps"), Time(0), 4154, 24), 12654u);
}

TEST(OneHopHeadroom, WholeNumberOfBytesIsNotRoundedUp)
{
    // 8 Gb/s is one byte per ns. 1000-byte frames, no wire overhead: frame 1000 ns, pause 60 ns.
    // A 970 ns cable: window exactly 3060 ns = 3060 B (+2 * 1000): floating point must not
    // turn 3060.0 into 3061. A 971 ns cable: 3062 B (+2 * 1000).
    EXPECT_EQ(OneHopHeadroomBytes(DataRate("8Gbps"), NanoSeconds(970), 1000, 0), 5060u);
    EXPECT_EQ(OneHopHeadroomBytes(DataRate("8Gbps"), NanoSeconds(971), 1000, 0), 5062u);
}

TEST(OneHopHeadroom, AutoHeadroomOfTheIncastExample)
{
    // examples/incast.yaml: 400 Gbps, 30 m, mtu 4096 B, wire_overhead 24 B -> the 27654 B above.
    ScenarioConfig cfg = Load("examples/incast.yaml");
    EXPECT_EQ(Attr(cfg, "ns3::SharedBufferMmu::Headroom"), "27654B");
    // An explicit --set value replaces the bound.
    cfg = Load("examples/incast.yaml", {"switch.pfc.headroom=12345B"});
    EXPECT_EQ(Attr(cfg, "ns3::SharedBufferMmu::Headroom"), "12345B");
}

// --- ApplyOverride ------------------------------------------------------------------------

TEST(ApplyOverride, CreatesNestedKeys)
{
    YAML::Node doc = YAML::Load("name: x\n");
    ApplyOverride(doc, "a.b.c=5");
    ASSERT_TRUE(doc["a"].IsMap());
    ASSERT_TRUE(doc["a"]["b"].IsMap());
    EXPECT_EQ(doc["a"]["b"]["c"].as<int>(), 5);
    EXPECT_EQ(doc["name"].as<std::string>(), "x");
}

TEST(ApplyOverride, KeepsSiblingsOfAnExistingMapping)
{
    YAML::Node doc = YAML::Load("switch:\n  buffer: 1MiB\n  pfc:\n    xoff: 48KiB\n");
    ApplyOverride(doc, "switch.pfc.xon=8KiB");
    ApplyOverride(doc, "switch.buffer=4MiB");
    EXPECT_EQ(doc["switch"]["buffer"].as<std::string>(), "4MiB");
    EXPECT_EQ(doc["switch"]["pfc"]["xoff"].as<std::string>(), "48KiB");
    EXPECT_EQ(doc["switch"]["pfc"]["xon"].as<std::string>(), "8KiB");
}

TEST(ApplyOverride, ReplacesANullValueWithAMapping)
{
    YAML::Node doc = YAML::Load("trace:\n");
    ApplyOverride(doc, "trace.pcap=true");
    EXPECT_EQ(doc["trace"]["pcap"].as<std::string>(), "true");
}

TEST(ApplyOverride, ParsesTheValueAsYaml)
{
    YAML::Node doc = YAML::Load("{}");
    ApplyOverride(doc, "switch.pfc.lossless=[3, 4]");
    ASSERT_TRUE(doc["switch"]["pfc"]["lossless"].IsSequence());
    EXPECT_EQ(doc["switch"]["pfc"]["lossless"].size(), 2u);
    EXPECT_EQ(doc["switch"]["pfc"]["lossless"][1].as<int>(), 4);
}

TEST(ApplyOverride, RejectsMalformedAssignments)
{
    YAML::Node doc = YAML::Load("seed: 3\n");
    for (const char* bad : {"foo", "=1", "a..b=1", "x.=1"})
    {
        SCOPED_TRACE(bad);
        EXPECT_THROW(ApplyOverride(doc, bad), ConfigError);
    }
    try
    {
        ApplyOverride(doc, "seed.x=1");
        ADD_FAILURE() << "a key under a scalar was accepted";
    }
    catch (const ConfigError& e)
    {
        EXPECT_EQ(e.Key(), "seed.x");
        EXPECT_EQ(e.File(), "--set");
    }
    EXPECT_EQ(doc["seed"].as<int>(), 3); // the failed override left the document alone
}

TEST(ApplyOverride, OverridesReachTheAttributes)
{
    ScenarioConfig cfg = Load("examples/incast.yaml", {"switch.buffer=4MiB", "seed=9"});
    EXPECT_EQ(Attr(cfg, "ns3::SharedBufferMmu::BufferSize"), "4194304B");
    EXPECT_EQ(cfg.seed, 9u);
    // The recorded document (summary.json "parameters") holds the overridden value too.
    EXPECT_EQ(cfg.document["switch"]["buffer"].as<std::string>(), "4MiB");
}

// --- topology sizing and workloads --------------------------------------------------------

TEST(LoadScenario, HostsAutoSizesStarToSendersPlusOne)
{
    ScenarioConfig cfg =
        Load("examples/incast.yaml", {"workload.senders=5", "workload.bytes_per_sender=1MiB"});
    EXPECT_EQ(cfg.topology.Hosts().size(), 6u);
    EXPECT_EQ(cfg.topology.Switches().size(), 1u);
    EXPECT_EQ(cfg.topology.links.size(), 6u);
    ASSERT_EQ(cfg.flows.size(), 5u);
    for (uint32_t i = 0; i < 5; ++i)
    {
        EXPECT_EQ(cfg.flows[i].src, i + 1);
        EXPECT_EQ(cfg.flows[i].dst, 0u);
        EXPECT_EQ(cfg.flows[i].bytes, 1024u * 1024);
        EXPECT_EQ(cfg.flows[i].priority, 3);
        EXPECT_EQ(cfg.flows[i].start, MicroSeconds(10));
    }
}

TEST(LoadScenario, IncastSendersSkipTheReceiver)
{
    ScenarioConfig cfg =
        Load("examples/incast.yaml", {"workload.senders=3", "workload.receiver=h2"});
    ASSERT_EQ(cfg.flows.size(), 3u);
    std::vector<uint32_t> srcs;
    for (const FlowSpec& f : cfg.flows)
    {
        EXPECT_EQ(f.dst, 2u);
        srcs.push_back(f.src);
    }
    EXPECT_EQ(srcs, (std::vector<uint32_t>{0, 1, 3}));
}

TEST(LoadScenario, DefaultSwitchBufferIs32MiB)
{
    // minimal.yaml has no switch: mapping at all; `fabric-run --help` documents
    // "switch.buffer ... (default 32MiB)".
    ScenarioConfig cfg = Load("tests/data/scenarios/minimal.yaml");
    EXPECT_EQ(Attr(cfg, "ns3::SharedBufferMmu::BufferSize"), "33554432B");
}

TEST(LoadScenario, DocumentedDefaults)
{
    // minimal.yaml gives no host, link, trace, seed or PFC keys (the buffer is set here so that
    // this test does not depend on the one above): the values below are the defaults
    // `fabric-run --help` documents.
    ScenarioConfig cfg = Load("tests/data/scenarios/minimal.yaml", {"switch.buffer=1MiB"});
    EXPECT_EQ(cfg.seed, 1u);
    EXPECT_EQ(cfg.stopTime, MilliSeconds(10));
    EXPECT_EQ(cfg.payloadMtu, 4096u);
    EXPECT_EQ(Attr(cfg, "ns3::SharedBufferMmu::XoffThreshold"), "262144B"); // 256 KiB
    EXPECT_EQ(Attr(cfg, "ns3::SharedBufferMmu::XonThreshold"), "131072B");  // xoff / 2
    EXPECT_EQ(Attr(cfg, "ns3::SharedBufferMmu::LosslessPriorities"), "8");  // {3}
    EXPECT_EQ(Attr(cfg, "ns3::SharedBufferMmu::PfcEnabled"), "true");
    EXPECT_EQ(Attr(cfg, "ns3::FabricNetDevice::WireOverhead"), "24");
    EXPECT_EQ(Attr(cfg, "ns3::FabricSwitch::EcnMarkPoint"), "enqueue");
    EXPECT_EQ(cfg.trace.queueInterval, MicroSeconds(1));
    EXPECT_EQ(cfg.trace.rateInterval, MicroSeconds(10));
    EXPECT_FALSE(cfg.trace.pcap);
    ASSERT_EQ(cfg.flows.size(), 2u);
    EXPECT_EQ(cfg.flows[0].priority, 3);           // workload.priority
    EXPECT_EQ(cfg.flows[0].start, Time(0));        // workload.start
    EXPECT_EQ(cfg.flows[0].rate.GetBitRate(), 0u); // workload.rate: line
}

TEST(LoadScenario, PermutationIsADerangement)
{
    // clos2 k=4 has 4 leaves x 2 hosts = 8 hosts; every host sends once and receives once,
    // never to itself.
    for (const char* seed : {"seed=1", "seed=2", "seed=3"})
    {
        SCOPED_TRACE(seed);
        ScenarioConfig cfg =
            Load("tests/data/scenarios/clos2-all-to-all.yaml", {"workload.type=permutation", seed});
        ASSERT_EQ(cfg.topology.Hosts().size(), 8u);
        ASSERT_EQ(cfg.flows.size(), 8u);
        std::set<uint32_t> dsts;
        for (uint32_t i = 0; i < cfg.flows.size(); ++i)
        {
            EXPECT_EQ(cfg.flows[i].src, i);
            EXPECT_NE(cfg.flows[i].dst, i);
            dsts.insert(cfg.flows[i].dst);
        }
        EXPECT_EQ(dsts.size(), 8u);
    }
}

TEST(LoadScenario, AllToAllWithJitteredStarts)
{
    // 8 hosts -> 8 x 7 = 56 flows of 16 KiB, each starting in [1 us, 1 us + 2 us].
    ScenarioConfig cfg = Load("tests/data/scenarios/clos2-all-to-all.yaml");
    ASSERT_EQ(cfg.flows.size(), 56u);
    std::set<std::pair<uint32_t, uint32_t>> pairs;
    std::set<int64_t> starts;
    for (const FlowSpec& f : cfg.flows)
    {
        EXPECT_NE(f.src, f.dst);
        EXPECT_EQ(f.bytes, 16384u);
        EXPECT_GE(f.start, MicroSeconds(1));
        EXPECT_LE(f.start, MicroSeconds(3));
        pairs.insert({f.src, f.dst});
        starts.insert(f.start.GetPicoSeconds());
    }
    EXPECT_EQ(pairs.size(), 56u);
    EXPECT_GT(starts.size(), 50u); // uniform over 2 us in ps: collisions are practically absent
    // Same seed, same starts; another seed, other starts.
    ScenarioConfig again = Load("tests/data/scenarios/clos2-all-to-all.yaml");
    ScenarioConfig other = Load("tests/data/scenarios/clos2-all-to-all.yaml", {"seed=2"});
    int same = 0;
    int moved = 0;
    for (size_t i = 0; i < cfg.flows.size(); ++i)
    {
        same += cfg.flows[i].start == again.flows[i].start ? 1 : 0;
        moved += cfg.flows[i].start != other.flows[i].start ? 1 : 0;
    }
    EXPECT_EQ(same, 56);
    EXPECT_GT(moved, 50);
}

TEST(LoadScenario, FlowsByIndexOrName)
{
    // The whole workload replaced from the command line; incast.yaml's star then has the
    // default 8 senders + 1 hosts.
    ScenarioConfig cfg =
        Load("examples/incast.yaml",
             {"workload={type: flows, flows: [{src: 2, dst: h0, bytes: 1KiB, priority: 5}]}"});
    ASSERT_EQ(cfg.flows.size(), 1u);
    EXPECT_EQ(cfg.flows[0].src, 2u);
    EXPECT_EQ(cfg.flows[0].dst, 0u);
    EXPECT_EQ(cfg.flows[0].bytes, 1024u);
    EXPECT_EQ(cfg.flows[0].priority, 5);
}

TEST(LoadScenario, ErrorsCarryFileLineAndKey)
{
    // The same fixtures as the CLI tests, through the API: the ConfigError's fields.
    struct Case
    {
        const char* file;
        int line;
        const char* key;
    };

    for (const Case& c : {Case{"scenario-bad-unit-buffer.yaml", 8, "switch.buffer"},
                          Case{"scenario-priority-9.yaml", 13, "workload.priority"},
                          Case{"scenario-xon-above-xoff.yaml", 12, "switch.pfc.xon"},
                          Case{"scenario-flow-unknown-host.yaml", 15, "workload.flows[1].src"}})
    {
        SCOPED_TRACE(c.file);
        try
        {
            Load(std::string("tests/data/bad/") + c.file);
            ADD_FAILURE() << "accepted";
        }
        catch (const ConfigError& e)
        {
            EXPECT_EQ(e.Line(), c.line);
            EXPECT_EQ(e.Key(), c.key);
            EXPECT_NE(e.File().find(c.file), std::string::npos);
        }
    }
}

TEST(LoadScenario, PerPacketSwitchLoadBalancingOverGoBackNWarns)
{
    // Accepted (ConWeave's runs compare DRILL over go-back-N), with one warning at switch.lb
    // (line 9 of the fixture) that says what reordering does and where it is counted.
    ScenarioConfig cfg = Load("tests/data/scenarios/drill-go-back-n.yaml");
    ASSERT_EQ(cfg.warnings.size(), 1u);
    const std::string& w = cfg.warnings[0];
    EXPECT_NE(w.find("drill-go-back-n.yaml:9: switch.lb: 'drill' chooses a path per packet"),
              std::string::npos)
        << w;
    EXPECT_NE(w.find("NAKs the gap"), std::string::npos) << w;
    EXPECT_NE(w.find("naks_sent"), std::string::npos) << w;
    EXPECT_NE(w.find("roce.recovery: sr"), std::string::npos) << w;
    // Selective repeat, or a per-flow balancer: no warning.
    EXPECT_TRUE(
        Load("tests/data/scenarios/drill-go-back-n.yaml", {"roce.recovery=sr"}).warnings.empty());
    EXPECT_TRUE(
        Load("tests/data/scenarios/drill-go-back-n.yaml", {"switch.lb=ecmp"}).warnings.empty());
    // A flowlet balancer is per packet only with a zero gap: the warning names the gap.
    ScenarioConfig flowlet =
        Load("tests/data/scenarios/drill-go-back-n.yaml", {"switch.lb=flowlet", "flowlet.gap=0us"});
    ASSERT_EQ(flowlet.warnings.size(), 1u);
    EXPECT_NE(flowlet.warnings[0].find("or flowlet.gap above 0 avoids it"), std::string::npos)
        << flowlet.warnings[0];
    EXPECT_TRUE(
        Load("tests/data/scenarios/drill-go-back-n.yaml", {"switch.lb=flowlet", "flowlet.gap=10us"})
            .warnings.empty());
}

// --- events: one member of a bundle ------------------------------------------------------

/// The links between two named nodes of a loaded scenario, in topology order.
std::vector<uint32_t>
LinksBetween(const ScenarioConfig& cfg, const std::string& x, const std::string& y)
{
    std::vector<uint32_t> out;
    const TopologySpec& t = cfg.topology;
    for (uint32_t li = 0; li < t.links.size(); ++li)
    {
        const std::string& a = t.nodes[t.links[li].a].name;
        const std::string& b = t.nodes[t.links[li].b].name;
        if ((a == x && b == y) || (a == y && b == x))
        {
            out.push_back(li);
        }
    }
    return out;
}

TEST(LinkEvents, MemberFailsOneLinkOfABundle)
{
    // 4 uplinks per leaf over 2 spines: two parallel links between leaf0 and spine1.
    const std::vector<std::string> bundle = {"topology.spines=2"};
    ScenarioConfig all = Load("examples/lb-compare.yaml",
                              {bundle[0], "events=[{at: 5us, link_down: [leaf0, spine1]}]"});
    std::vector<uint32_t> between = LinksBetween(all, "leaf0", "spine1");
    ASSERT_EQ(between.size(), 2u);
    ASSERT_EQ(all.linkEvents.size(), 2u);
    EXPECT_EQ(all.linkEvents[0].link, between[0]);
    EXPECT_EQ(all.linkEvents[1].link, between[1]);

    ScenarioConfig one =
        Load("examples/lb-compare.yaml",
             {bundle[0], "events=[{at: 5us, link_down: [spine1, leaf0], member: 1}]"});
    ASSERT_EQ(one.linkEvents.size(), 1u);
    EXPECT_EQ(one.linkEvents[0].link, between[1]);
    EXPECT_FALSE(one.linkEvents[0].up);
    EXPECT_EQ(one.linkEvents[0].at, MicroSeconds(5));

    try
    {
        Load("examples/lb-compare.yaml",
             {bundle[0], "events=[{at: 5us, link_down: [leaf0, spine1], member: 2}]"});
        ADD_FAILURE() << "member 2 of a 2-link bundle was accepted";
    }
    catch (const ConfigError& e)
    {
        EXPECT_NE(e.Key().find("member"), std::string::npos) << e.what();
        EXPECT_NE(std::string(e.what()).find("there are 2"), std::string::npos) << e.what();
    }
}

} // namespace
