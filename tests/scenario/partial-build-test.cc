// A rank of a distributed run builds only its own part of the fabric (docs/distributed.md):
//   - every ns-3 node exists, with its rank as system id and the single-process node id;
//   - switches, hosts and devices exist only for its nodes, plus the far device of each cut
//     cable (attached to the far node, so that ns-3 finds the cable's remote rank);
//   - what is built gets the MAC addresses one process gives it;
//   - forwarding tables exist only where they are used, and route like the full build's.

#include "../fabric-sim-util.h"
#include "build/fabric-builder.h"
#include "config/topology-generators.h"
#include "distributed/topology-partition.h"
#include "host/fabric-host.h"
#include "link/frame-codec.h"
#include "switch/fabric-switch.h"

#include "ns3/mac48-address.h"
#include "ns3/node.h"

#include <gtest/gtest.h>

namespace ns3
{
namespace
{

class PartialBuildTest : public test::SimTest
{
  protected:
    /// 4 leaves x 4 hosts, 4 spines, cut in 2 by the auto partitioner (leaves with their hosts
    /// on both ranks, the spines spread).
    void SetUp() override
    {
        SimTest::SetUp();
        Clos2Params p;
        p.k = 8;
        p.leaves = 4;
        p.fabricDelay = NanoSeconds(500);
        spec = MakeClos2(p);
        part = PartitionTopology(spec, 2, "auto");
    }

    static uint64_t MacOf(const Ptr<FabricNetDevice>& dev)
    {
        uint8_t b[6];
        Mac48Address::ConvertFrom(dev->GetAddress()).CopyTo(b);
        uint64_t v = 0;
        for (uint8_t x : b)
        {
            v = (v << 8) | x;
        }
        return v;
    }

    TopologySpec spec;
    TopologyPartition part;
};

TEST_F(PartialBuildTest, BuildsOwnNodesAndTheFarEndsOfCutCables)
{
    const uint32_t rank = 1;
    FabricNetwork net = FabricNetwork::Build(spec, 1, 0, part.rankOfNode, rank);
    ASSERT_FALSE(part.cutLinks.empty());
    uint32_t local = 0;
    for (uint32_t n = 0; n < spec.nodes.size(); ++n)
    {
        const bool mine = part.rankOfNode[n] == rank;
        local += mine ? 1 : 0;
        EXPECT_EQ(net.GetNode(n)->GetSystemId(), part.rankOfNode[n]);
        EXPECT_EQ(net.IsLocal(n), mine);
        if (spec.nodes[n].isSwitch)
        {
            EXPECT_EQ(bool(net.GetSwitch(n)), mine) << spec.nodes[n].name;
        }
        else
        {
            EXPECT_EQ(bool(net.GetHost(static_cast<uint32_t>(net.HostOfNode(n)))), mine)
                << spec.nodes[n].name;
        }
    }
    EXPECT_GT(local, 0u);
    EXPECT_LT(local, spec.nodes.size());
    for (uint32_t li = 0; li < spec.links.size(); ++li)
    {
        auto [a, b] = net.LinkEnds(li);
        const bool cut =
            std::find(part.cutLinks.begin(), part.cutLinks.end(), li) != part.cutLinks.end();
        const bool mine = net.IsLocal(a.node) || net.IsLocal(b.node);
        for (const PortRef& end : {a, b})
        {
            Ptr<FabricNetDevice> dev = net.GetDevice(end.node, end.port);
            EXPECT_EQ(bool(dev), mine) << "link " << li;
            if (dev && cut && !net.IsLocal(end.node))
            {
                // The far end: on the far node (ns-3's lookahead reads its system id), not a
                // port of any switch or host built here.
                EXPECT_EQ(dev->GetNode(), net.GetNode(end.node));
                EXPECT_EQ(dev->GetNode()->GetSystemId(), part.rankOfNode[end.node]);
            }
        }
    }
}

TEST_F(PartialBuildTest, BuiltDevicesGetTheSingleProcessAddressesAndRoutes)
{
    FabricNetwork full = FabricNetwork::Build(spec, 1, 0);
    FabricNetwork mine = FabricNetwork::Build(spec, 1, 0, part.rankOfNode, 0);
    // MAC addresses come from a process-wide counter: compare offsets from each build's first
    // device (link 0's first end, a host cable built on both).
    auto [a0, b0] = full.LinkEnds(0);
    ASSERT_TRUE(mine.GetDevice(a0.node, a0.port));
    const uint64_t fullBase = MacOf(full.GetDevice(a0.node, a0.port));
    const uint64_t mineBase = MacOf(mine.GetDevice(a0.node, a0.port));
    uint32_t compared = 0;
    for (uint32_t n = 0; n < spec.nodes.size(); ++n)
    {
        for (uint32_t p = 0; p < full.GetNPorts(n); ++p)
        {
            if (Ptr<FabricNetDevice> dev = mine.GetDevice(n, p))
            {
                EXPECT_EQ(MacOf(dev) - mineBase, MacOf(full.GetDevice(n, p)) - fullBase)
                    << spec.nodes[n].name << " port " << p;
                ++compared;
            }
        }
    }
    EXPECT_GT(compared, 0u);
    // A leaf built here forwards to every host like the full build's leaf.
    for (uint32_t n = 0; n < spec.nodes.size(); ++n)
    {
        Ptr<FabricSwitch> sw = mine.GetSwitch(n);
        if (!sw)
        {
            continue;
        }
        for (uint32_t h = 0; h < full.GetNHosts(); ++h)
        {
            FrameInfo info;
            info.dstIp = HostIpv4(h).Get();
            info.srcIp = HostIpv4(0).Get();
            info.srcPort = 49152;
            info.dstPort = 4791;
            info.protocol = 17;
            EXPECT_EQ(sw->SelectEgressPort(info), full.GetSwitch(n)->SelectEgressPort(info))
                << spec.nodes[n].name << " to host " << h;
        }
    }
}

} // namespace
} // namespace ns3
