// The rail generator's server models (docs/models.md#shared-interface): PCIe between GPU and NIC
// (64 GB/s) as its own link, and the "control" server whose four GPUs share one 32 GB/s PCIe slot
// to a dual-port NIC — a shared bottleneck, checked: a collective cannot beat slot bytes / 32 GB/s.

#include "../fabric-sim-util.h"
#include "config/config-collective.h"
#include "config/topology-generators.h"
#include "config/yaml-fields.h"
#include "host/host-transport.h"
#include "run/collective-setup.h"

#include "ns3/object-factory.h"

#include <gtest/gtest.h>

namespace ns3
{
namespace
{

uint32_t
Find(const TopologySpec& s, const std::string& name)
{
    auto i = s.Find(name);
    EXPECT_TRUE(i.has_value()) << name;
    return i.value_or(0);
}

const TopologyLink*
LinkBetween(const TopologySpec& s, const std::string& a, const std::string& b)
{
    uint32_t x = Find(s, a);
    uint32_t y = Find(s, b);
    for (const auto& l : s.links)
    {
        if ((l.a == x && l.b == y) || (l.a == y && l.b == x))
        {
            return &l;
        }
    }
    return nullptr;
}

TEST(CollectiveRailServers, PcieLinksPutANicNodeBetweenGpuAndLeaf)
{
    RailParams p;
    p.servers = 2;
    p.gpusPerServer = 8;
    p.pcieRate = DataRate("64GB/s");
    TopologySpec s = MakeRail(p);
    EXPECT_FALSE(FindTopologyProblem(s).has_value());
    EXPECT_EQ(s.Hosts().size(), 16u);
    // 2 NVSwitches + 16 NIC nodes + 8 leaves + 8 spines.
    EXPECT_EQ(s.Switches().size(), 2u + 16u + 8u + 8u);
    const TopologyLink* pcie = LinkBetween(s, "gpu1_3", "nic1_3");
    ASSERT_NE(pcie, nullptr);
    EXPECT_EQ(pcie->rate, DataRate("64GB/s"));
    const TopologyLink* nic = LinkBetween(s, "nic1_3", "g0-rail3");
    ASSERT_NE(nic, nullptr);
    EXPECT_EQ(nic->rate, DataRate("50GB/s"));
    EXPECT_EQ(LinkBetween(s, "gpu1_3", "g0-rail3"), nullptr);
    EXPECT_NE(LinkBetween(s, "gpu1_3", "srv1-nvs"), nullptr);
    // Default: PCIe not modelled, the GPU links to its leaf directly (unchanged fabric).
    EXPECT_NE(LinkBetween(MakeRail(RailParams()), "gpu1_3", "g0-rail3"), nullptr);
}

TEST(CollectiveRailServers, ControlServerGpusShareOnePcieSlotToADualPortNic)
{
    RailParams p;
    p.servers = 2;
    p.serverType = "control";
    TopologySpec s = MakeRail(p);
    EXPECT_FALSE(FindTopologyProblem(s).has_value());
    EXPECT_EQ(s.Hosts().size(), 2u * 4u);
    for (uint32_t g = 0; g < 4; ++g)
    {
        const TopologyLink* peer = LinkBetween(s, "gpu1_" + std::to_string(g), "srv1-pcie");
        ASSERT_NE(peer, nullptr);
        EXPECT_EQ(peer->rate, DataRate("32GB/s"));
    }
    const TopologyLink* slot = LinkBetween(s, "srv1-pcie", "srv1-nic");
    ASSERT_NE(slot, nullptr);
    EXPECT_EQ(slot->rate, DataRate("32GB/s"));
    for (uint32_t r = 0; r < 2; ++r)
    {
        const TopologyLink* port = LinkBetween(s, "srv1-nic", "g0-rail" + std::to_string(r));
        ASSERT_NE(port, nullptr);
        EXPECT_EQ(port->rate, DataRate("25GB/s"));
    }
    EXPECT_FALSE(s.Find("g0-rail2").has_value()); // two rails: the NIC's two ports
    EXPECT_THROW(
        [] {
            RailParams bad;
            bad.serverType = "hgx";
            MakeRail(bad);
        }(),
        ConfigError);
}

class CollectiveControlServer : public test::SimTest
{
};

TEST_F(CollectiveControlServer, InterServerTrafficIsBoundByTheSharedSlot)
{
    Set("ns3::RdmaNic::Mtu", "4096");
    Set("ns3::FabricHost::Mtu", "4096");
    RailParams p;
    p.servers = 2;
    p.serverType = "control";
    TopologySpec spec = MakeRail(p);
    const uint64_t M = 8 * 64 * 1024;
    YAML::Node node = YAML::Load("{algorithm: direct, message: " + std::to_string(M) + "B}");
    YamlFields fields(node, "test.yaml", "collective");
    std::vector<std::pair<std::string, std::string>> attrs;
    CollectiveConfig cfg = ParseCollective(fields, spec, "roce", attrs);
    for (const auto& [k, v] : attrs)
    {
        Set(k, v);
    }
    FabricNetwork net = FabricNetwork::Build(spec, 0, 0);
    std::vector<Ptr<HostTransport>> nics = test::InstallNics(net, "ns3::RdmaNic");
    Ptr<CollectiveEngine> engine = SetupCollective(cfg, net, nics, 1);
    Simulator::Stop(Seconds(1));
    Simulator::Run();
    ASSERT_TRUE(engine->IsComplete());
    EXPECT_EQ(engine->CheckValues(), "");
    CollectiveBytes bytes = CountCollectiveBytes(*engine, net);
    uint64_t fromServer0 = 0;
    for (uint32_t r = 0; r < 4; ++r)
    {
        fromServer0 += bytes.interServerPerRank[r];
    }
    ASSERT_GT(fromServer0, 0u);
    // Everything server 0 sends to server 1 crosses its one 32 GB/s slot (the two 25 GB/s NIC
    // ports together could carry 50 GB/s).
    double bound = fromServer0 / 32e9;
    EXPECT_GE(engine->CompletionTime().GetSeconds(), bound);
    // The two NIC ports of server 0 together sent (at least) those bytes.
    EXPECT_GE(bytes.nicTxBytes.at("srv0-nic->g0-rail0") + bytes.nicTxBytes.at("srv0-nic->g0-rail1"),
              fromServer0);
}

} // namespace
} // namespace ns3
