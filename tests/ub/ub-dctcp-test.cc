// DCTCP on the UB window (model/ub/ub-dctcp.h): alpha and the cut on a synthetic ACK sequence,
// the expected values computed from the DCTCP paper's equations (1) and (2).

#include "ub-test-util.h"
#include "ub/ub-dctcp.h"

#include <algorithm>
#include <cmath>

namespace ns3
{
namespace test
{
namespace
{

constexpr double kMtu = 4096;
constexpr uint64_t F = 4096 + kUbFrameOverhead; // 4162 B: one full frame

/// An ACK of one frame; \p inflight frame bytes remain in flight after it. The default is more
/// than any window here: the window held the channel back, so it may grow.
UbAckFeedback
Ack(bool ecn, uint64_t inflight = uint64_t(1) << 30)
{
    UbAckFeedback fb;
    fb.rtt = MicroSeconds(5);
    fb.ecnEcho = ecn;
    fb.ackedBytes = F;
    fb.inflightBytes = inflight;
    return fb;
}

TEST(UbDctcp, AlphaFollowsTheMarkedFractionAndTheWindowIsCutOncePerWindow)
{
    Ptr<UbDctcp> cc = CreateObject<UbDctcp>();
    cc->Start(DataRate("400Gbps"), 4096);
    double w = 10 * kMtu; // IW = 10 MTU = 40960 B, also the first observation window
    EXPECT_EQ(cc->GetWindow(), uint64_t(w));
    EXPECT_DOUBLE_EQ(cc->GetAlpha(), 1.0);
    // Slow start: + the acknowledged bytes.
    cc->OnAck(Ack(false));
    cc->OnAck(Ack(false));
    w += 2 * F;
    EXPECT_EQ(cc->GetWindow(), uint64_t(w));
    // First mark: cut at once by alpha / 2 = 1/2 (eq. 2); slow start ends.
    cc->OnAck(Ack(true));
    w *= 1 - 1.0 / 2;
    double windowAtCut = w;
    EXPECT_EQ(cc->GetWindow(), uint64_t(w));
    EXPECT_FALSE(cc->InSlowStart());
    // Five more marks: less than the window at the cut (5 * 4162 < 24642) acknowledged since,
    // so no second cut in the same window.
    for (int i = 0; i < 5; ++i)
    {
        cc->OnAck(Ack(true));
        EXPECT_EQ(cc->GetWindow(), uint64_t(w));
    }
    ASSERT_LT(5.0 * F, windowAtCut);
    // Two unmarked ACKs: congestion avoidance, + MTU * B / W each. The second completes the
    // first observation window (10 ACKs = 41620 B >= 40960 B): 6 of 10 were marked, so
    // alpha = (1 - 1/16) * 1 + 1/16 * 0.6 (eq. 1).
    w += kMtu * F / w;
    cc->OnAck(Ack(false));
    EXPECT_NEAR(double(cc->GetWindow()), w, 1.0);
    w += kMtu * F / w;
    cc->OnAck(Ack(false));
    EXPECT_NEAR(double(cc->GetWindow()), w, 1.0);
    double alpha = 15.0 / 16 + 0.6 / 16;
    EXPECT_DOUBLE_EQ(cc->GetAlpha(), alpha);
    // A mark now (8 * 4162 >= 24642 acknowledged since the cut): W *= 1 - alpha / 2.
    cc->OnAck(Ack(true));
    w *= 1 - alpha / 2;
    EXPECT_NEAR(double(cc->GetWindow()), w, 1.0);
}

TEST(UbDctcp, AWindowWithoutMarksDecaysAlphaByOneMinusG)
{
    Ptr<UbDctcp> cc = CreateObject<UbDctcp>();
    cc->SetAttribute("InitialWindow", QueueSizeValue(QueueSize("8324B"))); // 2 frames
    cc->Start(DataRate("400Gbps"), 4096);
    // Every observation window (the window when it began) ends with alpha *= 15/16.
    cc->OnAck(Ack(false));
    cc->OnAck(Ack(false)); // 8324 B: the first window ends
    EXPECT_DOUBLE_EQ(cc->GetAlpha(), 15.0 / 16);
}

// The window grows only while it limits the channel (Linux tcp_is_cwnd_limited, RFC 7661): the
// NIC stops a channel when one more full frame would exceed the window, so with less than the
// window minus a frame in flight before the ACK the channel was not held back.
TEST(UbDctcp, AWindowThatDoesNotLimitTheChannelDoesNotGrow)
{
    Ptr<UbDctcp> cc = CreateObject<UbDctcp>();
    cc->Start(DataRate("400Gbps"), 4096);
    const uint64_t w = 10 * 4096; // IW = 40960 B
    // Before the ACK: 5 frames = 20810 B in flight; 20810 + 4162 <= 40960: not limited.
    for (int i = 0; i < 100; ++i)
    {
        cc->OnAck(Ack(false, 4 * F));
    }
    EXPECT_EQ(cc->GetWindow(), w);
    // 9 frames before the ACK: 37458 + 4162 > 40960, the window was full: slow start adds F.
    cc->OnAck(Ack(false, 8 * F));
    EXPECT_EQ(cc->GetWindow(), w + F);
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

class UbDctcpIncast : public SimTest
{
};

// 8:1 incast on a star (400 Gb/s, 500 ns cables), the switch marking CE above K = 100 kB. The
// DCTCP paper's analysis of N synchronised flows (§3.3, equations (8)-(11)), in packets of
// 4162 B: W* = (C x RTT + K) / N; the queue peaks at Q_max = K + N (each flow adds one packet
// in the round trip the marks take to return) and swings by A = N D = 1/2 sqrt(2 N (C RTT + K)).
// C x RTT = 50 GB/s x 2.17 us (4 x 500 ns + two frame times) / 4186 B on the wire = 25.9; K =
// 24.0: A = 1/2 sqrt(16 x 49.9) = 14.1 packets.
TEST_F(UbDctcpIncast, QueuePeaksAtKPlusNAndSwingsByTheFluidAmplitude)
{
    const uint64_t kTargetQueue = 100000;
    const uint32_t kSenders = 8;
    Set("ns3::UbNic::Mtu", "4096");
    Set("ns3::UbNic::CongestionControl", "ns3::UbDctcp");
    Set("ns3::FabricSwitch::Caqm", "false");
    Set("ns3::SharedBufferMmu::PfcEnabled", "true");
    Set("ns3::SharedBufferMmu::Headroom", "96KiB"); // one-hop bound, as in ub-nscc-test.cc
    Set("ns3::FabricSwitch::EcnEnabled", "true");
    Set("ns3::FabricSwitch::EcnKmin", std::to_string(kTargetQueue) + "B");
    Set("ns3::FabricSwitch::EcnKmax", std::to_string(kTargetQueue) + "B");
    FabricNetwork net =
        FabricNetwork::Build(MakeStar(kSenders + 1, DataRate("400Gbps"), NanoSeconds(500)), 0, 0);
    std::vector<Ptr<UbNic>> nics = InstallUb(net);
    for (uint32_t s = 1; s <= kSenders; ++s)
    {
        PostUb(net, nics, {s, 0, 4 << 20});
    }
    uint32_t sw = *net.Spec().Find("sw0");
    Ptr<FabricNetDevice> bottleneck = net.GetDevice(sw, 0);
    std::vector<uint64_t> steady; // queue every 1 us from 100 us to 600 us
    for (int us = 101; us < 600; ++us)
    {
        Simulator::Schedule(MicroSeconds(us),
                            [&] { steady.push_back(bottleneck->GetTotalQueueBytes()); });
    }
    Simulator::Stop(MilliSeconds(3));
    Simulator::Run();
    Ptr<FabricSwitch> fs = net.GetSwitch(sw);
    EXPECT_EQ(fs->GetDroppedFrames(), 0u);
    uint32_t finished = 0;
    for (const FlowRecord& f : net.GetFlowTable()->All())
    {
        finished += f.finished ? 1 : 0;
    }
    EXPECT_EQ(finished, kSenders);
    ASSERT_FALSE(steady.empty());
    std::sort(steady.begin(), steady.end());
    uint64_t peak = steady.back();
    uint64_t trough = steady[steady.size() / 10]; // 10th percentile: a typical trough
    // Q_max = K + N packets: the first packet above K plus one per sender (+1 for the frame
    // counted while it is being sent).
    EXPECT_LE(peak, kTargetQueue + (kSenders + 1) * F);
    EXPECT_GE(peak, kTargetQueue);
    const double amplitude = 0.5 * std::sqrt(2.0 * kSenders * (25.9 + 24.0)) * F;
    // The flows are not perfectly synchronised: 25 % as for RoCE's DCTCP
    // (tests/roce/cc-incast-scenario-test.cc); half or twice the amplitude fails.
    EXPECT_NEAR(double(peak - trough), amplitude, 0.25 * amplitude);
    EXPECT_GT(steady.front(), 0u); // the queue never empties: the link stays busy
}

} // namespace
} // namespace test
} // namespace ns3
