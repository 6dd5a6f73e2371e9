// The NIC's own limits: one CNP per QP per CnpInterval (DCQCN notification point), one message
// launch per RequestInterval, and at most MaxInflightRequests messages outstanding.

#include "../fabric-sim-util.h"
#include "record/conservation.h"
#include "roce/rdma-nic.h"

#include <cmath>

namespace ns3
{
namespace test
{
namespace
{

class RoceNicLimits : public SimTest
{
  protected:
    std::vector<Ptr<RdmaNic>> Install(FabricNetwork& net)
    {
        std::vector<Ptr<RdmaNic>> nics;
        for (uint32_t h = 0; h < net.GetNHosts(); ++h)
        {
            nics.push_back(CreateObject<RdmaNic>());
            nics.back()->Install(net.GetHost(h));
        }
        return nics;
    }

    uint32_t Post(FabricNetwork& net,
                  std::vector<Ptr<RdmaNic>>& nics,
                  uint32_t src,
                  uint32_t dst,
                  uint64_t bytes)
    {
        FlowRecord r;
        r.src = src;
        r.dst = dst;
        r.bytes = bytes;
        r.priority = 3;
        r.entropy = static_cast<uint16_t>(49152 + net.GetFlowTable()->GetN());
        uint32_t id = net.GetFlowTable()->Add(r);
        nics[src]->StartFlowAt(id);
        return id;
    }
};

TEST_F(RoceNicLimits, AtMostOneCnpPerQpPerInterval)
{
    // Two line-rate senders (no congestion control) into one port keep a standing queue above
    // Kmax = 2 B, so every data frame is marked. The receiver may answer with one CNP per QP per
    // 50 us: over a flow whose marked frames span D, exactly floor(D / 50us) + 1 CNPs.
    Set("ns3::FabricSwitch::EcnKmin", "1B");
    Set("ns3::FabricSwitch::EcnKmax", "2B");
    Set("ns3::SharedBufferMmu::BufferSize", "64MiB");
    Set("ns3::SharedBufferMmu::XoffThreshold", "16MiB");
    Set("ns3::SharedBufferMmu::XonThreshold", "8MiB");
    FabricNetwork net =
        FabricNetwork::Build(MakeStar(3, DataRate("400Gbps"), NanoSeconds(150)), 0, 0);
    auto nics = Install(net);
    std::vector<Time> firstRx(2);
    uint32_t a = Post(net, nics, 1, 0, 16 << 20);
    uint32_t b = Post(net, nics, 2, 0, 16 << 20);
    Simulator::Run();
    for (uint32_t id : {a, b})
    {
        const FlowRecord& f = net.GetFlowTable()->Get(id);
        ASSERT_TRUE(f.finished);
        // Every frame but the very first ones (queue still below Kmax) is marked.
        EXPECT_GT(f.ecnMarkedFrames, (16u << 20) / 4096 - 4);
        double span = (f.lastRx - f.firstRx).GetSeconds();
        uint64_t expected = static_cast<uint64_t>(std::floor(span / 50e-6)) + 1;
        EXPECT_LE(f.cnpsReceived, expected);
        EXPECT_GE(f.cnpsReceived, expected - 1);
    }
}

TEST_F(RoceNicLimits, LaunchesAreSpacedByTheRequestInterval)
{
    Set("ns3::RdmaNic::RequestInterval", "18600ps");
    FabricNetwork net =
        FabricNetwork::Build(MakeStar(2, DataRate("400Gbps"), NanoSeconds(150)), 0, 0);
    auto nics = Install(net);
    for (int i = 0; i < 50; ++i)
    {
        Post(net, nics, 1, 0, 64);
    }
    Simulator::Run();
    for (uint32_t i = 0; i < 50; ++i)
    {
        EXPECT_EQ(net.GetFlowTable()->Get(i).launch, PicoSeconds(18600) * int64_t(i)) << i;
    }
}

TEST_F(RoceNicLimits, InflightSlotsBoundOutstandingMessages)
{
    // With 4 slots, message k (k >= 4) launches only when message k - 4 has been acknowledged.
    Set("ns3::RdmaNic::MaxInflightRequests", "4");
    Set("ns3::RdmaNic::RequestInterval", "0ps");
    FabricNetwork net =
        FabricNetwork::Build(MakeStar(2, DataRate("400Gbps"), NanoSeconds(150)), 0, 0);
    auto nics = Install(net);
    for (int i = 0; i < 16; ++i)
    {
        Post(net, nics, 1, 0, 4096);
    }
    Simulator::Run();
    const FlowTable& t = *net.GetFlowTable();
    for (uint32_t i = 0; i < 4; ++i)
    {
        EXPECT_EQ(t.Get(i).launch, Time(0));
    }
    for (uint32_t i = 4; i < 16; ++i)
    {
        ASSERT_TRUE(t.Get(i - 4).finished);
        EXPECT_EQ(t.Get(i).launch, t.Get(i - 4).finish) << i;
    }
}

} // namespace
} // namespace test
} // namespace ns3

namespace ns3
{
namespace test
{
namespace
{

class SlowReceiver : public SimTest
{
};

TEST_F(SlowReceiver, SlotsFillRnrBackpressureAndCompletionRateBound)
{
    // 20 SEND messages of 8 KiB from h1 to h0, whose host has 2 receive buffers and takes
    // 5 us per completion. Each message holds a buffer from its first packet until its
    // completion is processed, so at most 2 are ever held and the host finishes one message per
    // 5 us: the last completion cannot come before 20 x 5 us. Senders that find no buffer get
    // RNR NAKs and retry; nothing is lost or grows.
    Set("ns3::RdmaNic::ReceiveSlots", "2");
    Set("ns3::RdmaNic::CompletionProcessingTime", "5us");
    Set("ns3::RdmaNic::RnrDelay", "2us");
    FabricNetwork net =
        FabricNetwork::Build(MakeStar(2, DataRate("400Gbps"), NanoSeconds(150)), 0, 0);
    std::vector<Ptr<RdmaNic>> nics;
    for (uint32_t h = 0; h < 2; ++h)
    {
        nics.push_back(CreateObject<RdmaNic>());
        nics.back()->Install(net.GetHost(h));
    }
    for (int i = 0; i < 20; ++i)
    {
        FlowRecord r;
        r.src = 1;
        r.dst = 0;
        r.bytes = 8192;
        r.priority = 3;
        r.verb = RdmaVerb::SEND;
        r.entropy = static_cast<uint16_t>(49152 + i);
        nics[1]->StartFlowAt(net.GetFlowTable()->Add(r));
    }
    Simulator::Run();
    Time last(0);
    for (const FlowRecord& f : net.GetFlowTable()->All())
    {
        ASSERT_TRUE(f.finished);
        EXPECT_EQ(f.deliveredBytes, 8192u);
        last = std::max(last, f.finish);
    }
    EXPECT_EQ(nics[0]->GetMaxReceiveSlotsInUse(), 2u);
    EXPECT_GT(nics[0]->GetRnrNaksSent(), 0u);
    // The 18th message can take a buffer only after 18 - 2 = 16 completions: >= 80 us.
    EXPECT_GE(last, MicroSeconds(5 * 16));
    EXPECT_TRUE(CheckConservation(net).Ok());
}

} // namespace
} // namespace test
} // namespace ns3
