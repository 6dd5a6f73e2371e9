// A link fails mid-flow: frames queued for it or on the cable are dropped and counted, routes
// are recomputed at once and the rest of the flow takes the surviving uplink; every byte is
// either delivered or counted as dropped.

#include "../fabric-sim-util.h"
#include "record/conservation.h"
#include "wire/roce-frame-header.h"

namespace ns3
{
namespace test
{
namespace
{

class LinkFailure : public SimTest
{
};

TEST_F(LinkFailure, FlowMovesToSurvivingUplinkAndLossIsCounted)
{
    Clos2Params p;
    p.k = 4; // 2 hosts and 2 uplinks per leaf
    FabricNetwork net = FabricNetwork::Build(MakeClos2(p), 0, 0);
    const uint64_t bytes = 4 << 20;
    const uint32_t dst = net.GetNHosts() - 1;
    AddFlow(net, 0, dst, bytes);
    const uint32_t leaf = net.PeerOf(net.NodeOfHost(0), 0).node;

    // Find, at 5 us, the uplink the flow hashed onto, and fail it.
    std::vector<uint32_t> uplinkLinks;
    for (uint32_t li = 0; li < net.Spec().links.size(); ++li)
    {
        auto [a, b] = net.LinkEnds(li);
        if ((a.node == leaf && net.Spec().nodes[b.node].isSwitch) ||
            (b.node == leaf && net.Spec().nodes[a.node].isSwitch))
        {
            uplinkLinks.push_back(li);
        }
    }
    ASSERT_EQ(uplinkLinks.size(), 2u);
    auto leafDevice = [&](uint32_t li) {
        auto [a, b] = net.LinkEnds(li);
        return a.node == leaf ? net.GetDevice(a.node, a.port) : net.GetDevice(b.node, b.port);
    };
    uint32_t failed = UINT32_MAX;
    Simulator::Schedule(MicroSeconds(5), [&]() {
        for (uint32_t li : uplinkLinks)
        {
            if (leafDevice(li)->GetTxFrames() > 0)
            {
                failed = li;
            }
        }
        net.SetLinkUp(failed, false);
    });
    Simulator::Run();

    ASSERT_NE(failed, UINT32_MAX);
    uint32_t survivor = uplinkLinks[0] == failed ? uplinkLinks[1] : uplinkLinks[0];
    const FlowRecord& f = net.GetFlowTable()->Get(0);
    EXPECT_TRUE(f.finished);
    EXPECT_EQ(f.deliveredBytes + f.droppedBytes, bytes);
    // Lost: what sat in the failed port's queue or on its 150 ns cable; at line rate with no
    // congestion that is at most a frame in service plus those propagating (< 3 frames).
    EXPECT_GT(f.droppedBytes, 0u);
    EXPECT_LE(f.droppedBytes, 3u * 4096u);
    EXPECT_GT(leafDevice(survivor)->GetTxFrames(), 0u);
    // About 5 us of the flow went over the failed link, the rest over the survivor.
    double tf = FrameSeconds(4096 + kRoceFrameOverhead, 24, DataRate("400Gbps"));
    EXPECT_NEAR(double(leafDevice(failed)->GetTxFrames()), 5e-6 / tf, 3);
    EXPECT_TRUE(CheckConservation(net).Ok());
}

} // namespace
} // namespace test
} // namespace ns3
