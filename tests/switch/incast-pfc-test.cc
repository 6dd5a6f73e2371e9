// Incast through one shared-buffer switch, checked against the one-hop PFC model and the
// queue-filling model of docs/models.md#incast-fill.
//
// Link: 400 Gb/s, 30 m of cable (150 ns), 4096 B payload → 4154 B frames, 24 B of preamble,
// FCS and inter-frame gap: one frame takes T_f = 4178·8/400e9 = 83.56 ns, a PFC frame
// T_p = 84·8/400e9 = 1.68 ns.

#include "../fabric-sim-util.h"
#include "config/scenario-config.h"
#include "wire/roce-frame-header.h"

#include "ns3/uinteger.h"

#include <cmath>

namespace ns3
{
namespace test
{
namespace
{

const DataRate kRate("400Gbps");
const Time kDelay = NanoSeconds(150);
constexpr uint32_t kPayload = 4096;
constexpr uint32_t kFrame = kPayload + kRoceFrameOverhead; // 4154
constexpr uint32_t kOverhead = 24;

/// The receiver's NIC keeps its switch port paused: nothing drains (the worst case for
/// headroom, and no departures to blur the count).
void
BlockReceiver(Ptr<FabricNetDevice> receiverNic, Time until)
{
    Time every = MicroSeconds(40); // < 65535 quanta at 400 Gb/s (83.9 us)
    for (Time t(0); t < until; t += every)
    {
        Simulator::Schedule(t, &FabricNetDevice::SendPause, receiverNic, 3, uint16_t(0xFFFF));
    }
}

class IncastPfc : public SimTest
{
  protected:
    void Configure(const std::string& buffer, bool pfc, uint64_t headroom, uint64_t xoff)
    {
        Set("ns3::SharedBufferMmu::BufferSize", buffer);
        Set("ns3::SharedBufferMmu::PfcEnabled", pfc ? "true" : "false");
        Set("ns3::SharedBufferMmu::Headroom", std::to_string(headroom) + "B");
        Set("ns3::SharedBufferMmu::XoffThreshold", std::to_string(xoff) + "B");
        Set("ns3::SharedBufferMmu::XonThreshold", std::to_string(xoff / 2) + "B");
        Set("ns3::FabricSwitch::EcnEnabled", "false");
        Set("ns3::FabricHost::Mtu", std::to_string(kPayload));
    }

    /// \p senders line-rate flows of 1 MiB into host 0, whose NIC keeps its port paused, for
    /// 200 us with XOFF at 40000 B and the given headroom; returns the network (for its switch).
    FabricNetwork RunIntoBlockedReceiver(uint32_t senders, uint64_t headroom)
    {
        Configure("64MiB", true, headroom, 40000);
        FabricNetwork net = FabricNetwork::Build(MakeStar(senders + 1, kRate, kDelay), 0, 0);
        for (uint32_t s = 1; s <= senders; ++s)
        {
            AddFlow(net, s, 0, 1 << 20);
        }
        BlockReceiver(net.GetHost(0)->GetPort(0), MicroSeconds(200));
        Simulator::Stop(MicroSeconds(200));
        Simulator::Run();
        return net;
    }

    /// Frames the upstream starts after the frame that crossed XOFF and before the pause
    /// reaches it: those with start time in (t0 - d, t0 + T_p + d) for back-to-back frames.
    static uint32_t FramesInFlightAfterXoff()
    {
        double tf = FrameSeconds(kFrame, kOverhead, kRate);
        double tp = FrameSeconds(kMinFrameBytes, kOverhead, kRate);
        return static_cast<uint32_t>(std::ceil((2 * kDelay.GetSeconds() + tp) / tf));
    }
};

TEST_F(IncastPfc, HeadroomFromOneHopBoundLosesNothingWhenNothingDrains)
{
    const uint32_t senders = 8;
    const uint64_t headroom = OneHopHeadroomBytes(kRate, kDelay, kFrame, kOverhead);
    // The byte bound covers at least the frame count of uniform full-size traffic.
    ASSERT_GE(headroom, (FramesInFlightAfterXoff() + 1) * uint64_t(kFrame));
    FabricNetwork net = RunIntoBlockedReceiver(senders, headroom);

    Ptr<FabricSwitch> sw = net.GetSwitch(net.Spec().Find("sw0").value());
    EXPECT_EQ(sw->GetHeadroomViolationBytes(), 0u);
    EXPECT_EQ(sw->GetDroppedBytes(), 0u);
    // Each sender's port: ceil(XOFF / F) frames in shared, then exactly the in-flight frames.
    const uint64_t shared = (40000 + kFrame - 1) / kFrame * uint64_t(kFrame);
    for (uint32_t s = 1; s <= senders; ++s)
    {
        uint32_t port = net.PeerOf(net.NodeOfHost(s), 0).port;
        EXPECT_EQ(sw->GetMmu()->GetIngressBytes(port, 3),
                  shared + FramesInFlightAfterXoff() * uint64_t(kFrame))
            << "sender " << s;
        EXPECT_EQ(sw->GetMmu()->GetHeadroomBytes(port, 3),
                  FramesInFlightAfterXoff() * uint64_t(kFrame));
    }
}

TEST_F(IncastPfc, TooSmallHeadroomViolationsMatchAnalyticExcess)
{
    const uint32_t senders = 16;
    const uint32_t inFlight = FramesInFlightAfterXoff(); // 4
    // Room for inFlight - 2 frames (and half a frame that no frame fits in).
    const uint64_t headroom = (inFlight - 2) * uint64_t(kFrame) + kFrame / 2;
    FabricNetwork net = RunIntoBlockedReceiver(senders, headroom);

    Ptr<FabricSwitch> sw = net.GetSwitch(net.Spec().Find("sw0").value());
    // Per port: inFlight frames arrive after XOFF, inFlight - 2 fit → 2 frames lost each.
    EXPECT_EQ(sw->GetHeadroomViolationFrames(), senders * 2u);
    EXPECT_EQ(sw->GetHeadroomViolationBytes(), senders * 2u * kFrame);
}

struct IncastCase
{
    uint32_t senders;
    const char* buffer;
};

class IncastLossless : public IncastPfc, public ::testing::WithParamInterface<IncastCase>
{
};

TEST_P(IncastLossless, AutoHeadroomZeroDropsAndEveryByteDelivered)
{
    const IncastCase c = GetParam();
    const uint64_t headroom = OneHopHeadroomBytes(kRate, kDelay, kFrame, kOverhead);
    Configure(c.buffer, true, headroom, 48 * 1024);
    FabricNetwork net = FabricNetwork::Build(MakeStar(c.senders + 1, kRate, kDelay), 0, 0);
    const uint64_t bytes = 256 * 1024;
    for (uint32_t s = 1; s <= c.senders; ++s)
    {
        AddFlow(net, s, 0, bytes);
    }
    uint64_t pauses = 0;
    for (uint32_t s = 1; s <= c.senders; ++s)
    {
        net.GetHost(s)->GetPort(0)->TraceConnectWithoutContext(
            "PfcReceived",
            MakeCallback(+[](uint64_t* n, uint8_t, uint16_t q) { *n += q > 0; }).Bind(&pauses));
    }
    Simulator::Stop(MilliSeconds(10));
    Simulator::Run();

    Ptr<FabricSwitch> sw = net.GetSwitch(net.Spec().Find("sw0").value());
    EXPECT_GT(pauses, 0u) << "the incast must exercise PFC";
    EXPECT_EQ(sw->GetDroppedBytes(), 0u);
    EXPECT_EQ(sw->GetHeadroomViolationBytes(), 0u);
    EXPECT_LE(sw->GetMaxBufferUsed(), sw->GetMmu()->GetBufferSize());
    for (const FlowRecord& f : net.GetFlowTable()->All())
    {
        EXPECT_TRUE(f.finished);
        EXPECT_EQ(f.deliveredBytes, bytes);
    }
    // The receiver's link is the bottleneck and stays busy: the incast ends no earlier than
    // the bytes take at line rate.
    double frames = double(c.senders) * std::ceil(double(bytes) / kPayload);
    double lineRateTime = frames * FrameSeconds(kFrame, kOverhead, kRate);
    Time last(0);
    for (const FlowRecord& f : net.GetFlowTable()->All())
    {
        last = std::max(last, f.finish);
    }
    EXPECT_GE(last.GetSeconds(), lineRateTime);
    EXPECT_LE(last.GetSeconds(), lineRateTime * 1.05 + 2e-6);
}

INSTANTIATE_TEST_SUITE_P(DomainSizes,
                         IncastLossless,
                         ::testing::Values(IncastCase{8, "1MiB"},
                                           IncastCase{16, "1MiB"},
                                           IncastCase{64, "4MiB"}),
                         [](const auto& info) { return "N" + std::to_string(info.param.senders); });

TEST_F(IncastPfc, WithoutPfcQueueFillsFreeBufferAtSendersMinusOneTimesLineRate)
{
    // S senders at B into one B port: the queue grows at (S - 1)·B, so the first drop comes
    // when the buffer is full: t = t_first_arrival + buffer / ((S - 1)·B_frames), where
    // B_frames = F / T_f is the line rate in stored bytes (overhead excluded).
    for (uint32_t senders : {8u, 16u})
    {
        SetUp();
        const uint64_t buffer = 1 << 20;
        Configure(std::to_string(buffer) + "B", false, 0, 48 * 1024);
        FabricNetwork net = FabricNetwork::Build(MakeStar(senders + 1, kRate, kDelay), 0, 0);
        for (uint32_t s = 1; s <= senders; ++s)
        {
            AddFlow(net, s, 0, 2 << 20);
        }
        Ptr<FabricSwitch> sw = net.GetSwitch(net.Spec().Find("sw0").value());
        Time firstDrop = Time::Max();
        sw->TraceConnectWithoutContext("Drop",
                                       MakeCallback(+[](Time* t, uint32_t, uint32_t, uint8_t) {
                                           if (*t == Time::Max())
                                           {
                                               *t = Simulator::Now();
                                           }
                                       }).Bind(&firstDrop));
        Simulator::Stop(MicroSeconds(100));
        Simulator::Run();

        double tf = FrameSeconds(kFrame, kOverhead, kRate);
        double firstArrival = tf + kDelay.GetSeconds();
        double fillRate = (senders - 1) * kFrame / tf;
        double expected = firstArrival + buffer / fillRate;
        ASSERT_NE(firstDrop, Time::Max());
        EXPECT_NEAR(firstDrop.GetSeconds(), expected, 2 * tf) << senders << " senders";
        Simulator::Destroy();
    }
}

} // namespace
} // namespace test
} // namespace ns3
