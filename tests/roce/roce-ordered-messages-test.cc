// RC strict order (RdmaNic::OrderedMessages): messages to one destination share one queue pair,
// start in turn and complete in order, so a loss in one delays the completion of the next —
// the head-of-line blocking Unified Bus's per-request ordering avoids.

#include "../fabric-sim-util.h"
#include "roce/rdma-nic.h"

namespace ns3
{
namespace test
{
namespace
{

class RoceOrderedMessages : public SimTest
{
  protected:
    struct Outcome
    {
        FlowRecord a;
        FlowRecord b;
    };

    /// A (64 packets, its last one lost once: only a timeout recovers a tail loss) then B
    /// (4 packets), both h1 -> h0.
    Outcome Run(bool ordered)
    {
        Set("ns3::RdmaNic::OrderedMessages", ordered ? "true" : "false");
        Set("ns3::RdmaNic::Recovery", "sr");
        Set("ns3::RdmaNic::Mtu", "4096");
        Set("ns3::RdmaNic::RtoMode", "fixed"); // the timelines use RtoLow
        FabricNetwork net =
            FabricNetwork::Build(MakeStar(2, DataRate("400Gbps"), NanoSeconds(150)), 0, 0);
        std::vector<Ptr<RdmaNic>> nics;
        for (uint32_t h = 0; h < 2; ++h)
        {
            nics.push_back(CreateObject<RdmaNic>());
            nics.back()->Install(net.GetHost(h));
        }
        uint32_t ids[2];
        uint64_t sizes[2] = {64 * 4096, 4 * 4096};
        for (int i = 0; i < 2; ++i)
        {
            FlowRecord r;
            r.src = 1;
            r.dst = 0;
            r.bytes = sizes[i];
            r.priority = 3;
            r.verb = RdmaVerb::WRITE;
            r.entropy = static_cast<uint16_t>(49152 + i);
            ids[i] = net.GetFlowTable()->Add(r);
            nics[1]->StartFlowAt(ids[i]);
        }
        nics[0]->LoseFirstTransmission(ids[0], 63);
        Simulator::Stop(MilliSeconds(2));
        Simulator::Run();
        return {net.GetFlowTable()->Get(ids[0]), net.GetFlowTable()->Get(ids[1])};
    }
};

TEST_F(RoceOrderedMessages, OneQueuePairCompletesInOrderBehindTheLoss)
{
    Outcome o = Run(true);
    ASSERT_TRUE(o.a.finished && o.b.finished);
    // B starts only when A's last packet has left: 64 frames after the start, so B's launch is
    // at least 63 frame times (4162 B + 24 B at 400 Gb/s = 83.72 ns) later than A's.
    EXPECT_GE(o.b.launch - o.a.launch, NanoSeconds(63 * 83));
    // B's data is all there (and acknowledged) long before A's lost last packet is resent
    // after RtoLow (100 us), but RC completes in order: B completes exactly when A does.
    EXPECT_GT(o.a.finish, MicroSeconds(100));
    EXPECT_LT(o.b.lastRx, MicroSeconds(20));
    EXPECT_EQ(o.b.finish, o.a.finish);
    EXPECT_GT(o.a.retransmittedBytes, 0u);
}

TEST_F(RoceOrderedMessages, SeparateQueuePairsLetTheShortMessageFinishFirst)
{
    Outcome o = Run(false);
    ASSERT_TRUE(o.a.finished && o.b.finished);
    // Own QP: B shares the port round-robin with A and finishes after about 8 frame times plus
    // one RTT — long before A, which waits RtoLow (100 us) for its resent last packet.
    EXPECT_LT(o.b.finish, MicroSeconds(20));
    EXPECT_GT(o.a.finish, MicroSeconds(100));
    EXPECT_EQ(o.b.launch - o.a.launch, NanoSeconds(0) + PicoSeconds(18600)); // request interval
}

} // namespace
} // namespace test
} // namespace ns3
