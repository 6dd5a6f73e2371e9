// A cable cut between MPI ranks must behave exactly like a local one: the same frames arrive at
// the same instants, PFC crosses it both ways, and frames still on the cable are found by
// conservation on the sending side. The MPI hop is replaced by an in-process loopback that does
// what ns-3's MpiInterface does: deliver the packet to the device with that node id and
// interface index at the given arrival time.

#include "../fabric-sim-util.h"
#include "distributed/rank-merge.h"
#include "link/fabric-channel.h"
#include "link/fabric-net-device.h"
#include "record/conservation.h"
#include "record/run-totals.h"
#include "wire/roce-frame-header.h"

#include "ns3/node-list.h"
#include "ns3/node.h"

#include <fstream>

namespace ns3
{
namespace test
{
namespace
{

constexpr uint32_t kFrame = 1000;

/// Two ports on one cable; b's owner records when data arrives.
struct Link : public FabricPortOwner
{
    Ptr<FabricNetDevice> a;
    Ptr<FabricNetDevice> b;
    std::vector<Time> arrivals;  ///< data at b
    std::vector<Time> pausesAtA; ///< PFC frames received by a

    void FrameReceived(FabricNetDevice*, WireFrame&) override
    {
        arrivals.push_back(Simulator::Now());
    }
};

void
Loopback(Ptr<Packet> frame,
         Time rxTime,
         uint32_t node,
         uint32_t ifIndex,
         uint32_t flowId,
         uint32_t payload)
{
    Ptr<FabricNetDevice> dev =
        DynamicCast<FabricNetDevice>(NodeList::GetNode(node)->GetDevice(ifIndex));
    Simulator::ScheduleWithContext(node,
                                   rxTime - Simulator::Now(),
                                   &FabricNetDevice::ReceiveFromRemote,
                                   dev,
                                   frame,
                                   flowId,
                                   payload);
}

void
PauseSeen(Link* l, uint8_t, uint16_t)
{
    l->pausesAtA.push_back(Simulator::Now());
}

void
MakeLink(Link* l, bool cut)
{
    Ptr<Node> na = CreateObject<Node>();
    Ptr<Node> nb = CreateObject<Node>();
    Ptr<FabricChannel> ch = CreateObject<FabricChannel>();
    ch->SetAttribute("Delay", TimeValue(NanoSeconds(500)));
    l->a = CreateObject<FabricNetDevice>();
    l->b = CreateObject<FabricNetDevice>();
    for (auto [node, dev] : {std::make_pair(na, l->a), std::make_pair(nb, l->b)})
    {
        dev->SetAttribute("DataRate", DataRateValue(DataRate("100Gbps")));
        dev->SetAddress(Mac48Address::Allocate());
        node->AddDevice(dev);
        dev->Attach(ch);
    }
    if (cut)
    {
        ch->SetRemotePeer(l->a, MakeCallback(&Loopback));
        ch->SetRemotePeer(l->b, MakeCallback(&Loopback));
    }
    l->b->SetOwner(l);
    l->a->TraceConnectWithoutContext("PfcReceived", MakeBoundCallback(&PauseSeen, l));
}

void
Enqueue(Ptr<FabricNetDevice> dev, int count)
{
    for (int i = 0; i < count; ++i)
    {
        RoceFrameSpec spec;
        spec.priority = 3;
        spec.payloadBytes = kFrame - kRoceFrameOverhead;
        QueuedFrame q;
        q.frame = BuildRoceFrame(spec);
        q.bytes = q.frame->GetSize();
        q.priority = 3;
        q.flowId = 0;
        q.payloadBytes = spec.payloadBytes;
        dev->Enqueue(std::move(q));
    }
}

/// Frames a's cable holds at the moment of the call (local list, or remote ones not yet there).
size_t
OnCable(const Link& l)
{
    size_t n = l.a->GetOnWire().size();
    for (const auto& f : l.a->GetRemoteOnWire())
    {
        n += f.arrival > Simulator::Now() ? 1 : 0;
    }
    return n;
}

class CutChannel : public SimTest
{
};

TEST_F(CutChannel, DeliversTheSameFramesAtTheSameInstantsAsALocalCable)
{
    Link local;
    Link cut;
    MakeLink(&local, false);
    MakeLink(&cut, true);
    for (Link* l : {&local, &cut})
    {
        Simulator::Schedule(Seconds(0), &Enqueue, l->a, 50);
        // b pauses a for 200 quanta at 1 us: the pause crosses the cable the other way.
        Simulator::Schedule(MicroSeconds(1), &FabricNetDevice::SendPause, l->b, 3, 200);
    }
    std::vector<size_t> onCable[2];
    for (int t = 1; t <= 8; ++t)
    {
        Simulator::Schedule(NanoSeconds(t * 700 + 13), [&]() {
            onCable[0].push_back(OnCable(local));
            onCable[1].push_back(OnCable(cut));
        });
    }
    Simulator::Run();

    ASSERT_EQ(local.arrivals.size(), 50u);
    EXPECT_EQ(cut.arrivals, local.arrivals);
    ASSERT_EQ(local.pausesAtA.size(), 1u);
    EXPECT_EQ(cut.pausesAtA, local.pausesAtA);
    EXPECT_EQ(onCable[1], onCable[0]);
    // 100 Gb/s, 1024 B on the wire per frame: 81.92 ns; a 500 ns cable holds 6 or 7 frames
    // while a is sending back to back.
    EXPECT_GE(onCable[0][0], 6u);
    EXPECT_LE(onCable[0][0], 7u);
}

class RankMergeTest : public SimTest
{
};

TEST_F(RankMergeTest, CsvRowsAreSortedByTimeThenTextAndHeadersMustMatch)
{
    std::string dir = ::testing::TempDir();
    {
        std::ofstream(dir + "/r0.csv") << "time_ns,node\n900,b\n20,a\n";
        std::ofstream(dir + "/r1.csv") << "time_ns,node\n100,c\n20,0\n";
    }
    MergeCsvFiles({dir + "/r0.csv", dir + "/r1.csv"}, dir + "/merged.csv", UINT64_MAX);
    std::ifstream in(dir + "/merged.csv");
    std::string all((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    // 100 sorts after 20 as a number, though before it as text.
    EXPECT_EQ(all, "time_ns,node\n20,0\n20,a\n100,c\n900,b\n");
    std::ofstream(dir + "/r2.csv") << "time_ns,other\n1,x\n";
    EXPECT_THROW(MergeCsvFiles({dir + "/r0.csv", dir + "/r2.csv"}, dir + "/m2.csv", UINT64_MAX),
                 std::runtime_error);
}

TEST_F(RankMergeTest, FlowRecordsAddUpAcrossRanks)
{
    // The sender's rank counts sent bytes and the completion; the receiver's rank deliveries
    // and marks; a switch's rank a drop.
    FlowRecord sender;
    sender.sentBytes = 5000;
    sender.retransmittedBytes = 1000;
    sender.launch = NanoSeconds(7);
    sender.finished = true;
    sender.finish = MicroSeconds(30);
    FlowRecord receiver;
    receiver.deliveredBytes = 3000;
    receiver.ecnMarkedFrames = 2;
    receiver.firstRx = MicroSeconds(2);
    receiver.lastRx = MicroSeconds(29);
    FlowRecord fabric;
    fabric.droppedBytes = 1000;
    FlowRecord merged;
    merged.bytes = 3000;
    ClearFlowPartial(merged);
    for (const FlowRecord* r : {&sender, &receiver, &fabric})
    {
        MergeFlowPartial(merged, FlowPartialToJson(*r));
    }
    EXPECT_EQ(merged.bytes, 3000u);
    EXPECT_EQ(merged.sentBytes, 5000u);
    EXPECT_EQ(merged.retransmittedBytes, 1000u);
    EXPECT_EQ(merged.deliveredBytes, 3000u);
    EXPECT_EQ(merged.droppedBytes, 1000u);
    EXPECT_EQ(merged.ecnMarkedFrames, 2u);
    EXPECT_TRUE(merged.finished);
    EXPECT_EQ(merged.finish, MicroSeconds(30));
    EXPECT_EQ(merged.launch, NanoSeconds(7));
    EXPECT_EQ(merged.firstRx, MicroSeconds(2));
    EXPECT_EQ(merged.lastRx, MicroSeconds(29));
}

} // namespace
} // namespace test
} // namespace ns3
