// DCTCP (model/host/dctcp.h), one class for both transports: `cc: dctcp` creates it under
// RoCE and under UB, and on a synthetic ACK sequence its alpha and window follow RFC 8257 §3.3
// with either NIC's units and window rule; the UB-only parts (loss, the frame that must fit)
// and the paper's queue sawtooth on a UB incast.

#include "host/dctcp.h"
#include "sim/fabric-plugin.h"
#include "ub-test-util.h"

#include <algorithm>
#include <cmath>

namespace ns3
{
namespace test
{
namespace
{

constexpr uint32_t kMtu = 4096;
constexpr uint64_t F = kMtu + kUbFrameOverhead; // 4162 B: one full UB frame

/// The sender as each NIC starts it (RdmaNic::StartCongestionControl, UbNic): RoCE counts
/// payload and sends while the outstanding payload is below the window; UB counts frames and
/// sends a frame only if it fits.
CcSender
Sender(bool ub)
{
    CcSender s;
    s.lineRate = DataRate("400Gbps");
    s.mtu = kMtu;
    s.packetBytes = ub ? F : kMtu;
    s.packetMustFit = ub;
    s.paced = !ub;
    return s;
}

Ptr<DctcpCongestionControl>
Make(bool ub, uint64_t initialWindow)
{
    Ptr<DctcpCongestionControl> cc = CreateObject<DctcpCongestionControl>();
    cc->SetAttribute("InitialWindow",
                     QueueSizeValue(QueueSize(QueueSizeUnit::BYTES, initialWindow)));
    cc->Start(Sender(ub));
    return cc;
}

/// An ACK of one packet of \p packet bytes; \p inflight bytes remain in flight after it.
CcFeedback
Ack(bool ecn, uint64_t packet, uint64_t inflight)
{
    CcFeedback fb;
    fb.rtt = MicroSeconds(5);
    fb.ecnEcho = ecn;
    fb.ackedBytes = packet;
    fb.inflightBytes = inflight;
    return fb;
}

TEST(DctcpBothTransports, CcDctcpCreatesTheSameClassUnderRoceAndUb)
{
    std::vector<std::string> types;
    for (const std::string transport : {"roce", "ub"})
    {
        for (const FabricPlugin* p : PluginRegistry::Of(PluginKind::CongestionControl, transport))
        {
            if (p->GetName() == "dctcp")
            {
                types.push_back(p->GetTypeName());
            }
        }
    }
    ASSERT_EQ(types.size(), 2u);
    EXPECT_EQ(types[0], "ns3::DctcpCongestionControl");
    EXPECT_EQ(types[1], types[0]);
    // Both NICs accept it (NicTransport::CreateCongestionControl): it is of neither family.
    EXPECT_TRUE(CreateObject<DctcpCongestionControl>()->ServesEveryTransport());
}

// RFC 8257 §3.3 on ten packets in flight, each ACK acknowledging one packet P (the NIC's unit:
// 4096 B of RoCE payload, or a 4162 B UB frame) and the sender refilling to nine in flight, so
// SND.NXT = SEG.ACK + 9P. g = 1/16, alpha_0 = 1, cwnd_0 = 10P; congestion avoidance adds
// SMSS x acked / cwnd per ACK (RFC 5681 §3.1; SMSS = one MTU) while the window is full.
//   ACK 1 (ECE): alpha = 15/16 + 1/16 x 1 = 1 (an update over ACK 1, or none: the same);
//     WindowEnd = SND.NXT = 10P; cwnd = 10P (1 - 1/2) = 5P, CWR until 10P is acknowledged.
//   ACKs 2-10, ECE on 2 and 3: at most one reduction per window of data (RFC 3168 §6.1.2).
//   ACK 11 (no ECE; SEG.ACK = 11P > WindowEnd): M = 2 marked / 10 acknowledged,
//     alpha_1 = 15/16 + 0.2/16 = 0.95; WindowEnd = 20P. CWR is over (11P > 10P) and the window
//     was full (10P outstanding before the ACK): cwnd = 5P + MTU x P / 5P.
//   ACK 12 (ECE): cwnd x= 1 - alpha_1 / 2; CWR until 21P.
//   ACKs 13-21 (no ECE): ACK 21 ends the window (21P > 20P): M = 1/10 (ACK 12),
//     alpha_2 = 15/16 alpha_1 + 0.1/16. Still CWR (21P is not beyond 21P).
//   ACK 22 (ECE): CWR over; cwnd x= 1 - alpha_2 / 2.
TEST(DctcpBothTransports, WindowAndAlphaFollowRfc8257OnBothNics)
{
    for (bool ub : {false, true})
    {
        SCOPED_TRACE(ub ? "ub" : "roce");
        const double p = ub ? double(F) : double(kMtu);
        Ptr<DctcpCongestionControl> cc = Make(ub, uint64_t(10 * p));
        auto ack = [&](bool ecn) { cc->Acknowledge(Ack(ecn, uint64_t(p), uint64_t(9 * p))); };
        ack(true);
        EXPECT_DOUBLE_EQ(cc->GetAlpha(), 1.0);
        double w = 5 * p;
        EXPECT_NEAR(double(cc->GetWindow()), w, 0.5);
        for (int k = 2; k <= 10; ++k)
        {
            ack(k <= 3);
            EXPECT_NEAR(double(cc->GetWindow()), w, 0.5) << "ACK " << k;
        }
        ack(false); // 11
        const double alpha1 = 15.0 / 16 + 0.2 / 16;
        EXPECT_DOUBLE_EQ(cc->GetAlpha(), alpha1);
        w += kMtu * p / w;
        EXPECT_NEAR(double(cc->GetWindow()), w, 0.5);
        ack(true); // 12
        w *= 1 - alpha1 / 2;
        EXPECT_NEAR(double(cc->GetWindow()), w, 0.5);
        for (int k = 13; k <= 21; ++k)
        {
            ack(false);
            EXPECT_NEAR(double(cc->GetWindow()), w, 0.5) << "ACK " << k;
        }
        const double alpha2 = 15.0 / 16 * alpha1 + 0.1 / 16;
        EXPECT_DOUBLE_EQ(cc->GetAlpha(), alpha2);
        ack(true); // 22
        w *= 1 - alpha2 / 2;
        EXPECT_NEAR(double(cc->GetWindow()), w, 0.5);
        // cc.csv: alpha, the window and the RTT; a paced RoCE QP shows its rate (the line
        // rate), a UB channel none (the recorder prints window / RTT).
        CcTraceState s = cc->GetTraceState();
        EXPECT_DOUBLE_EQ(s.alpha, alpha2);
        EXPECT_EQ(s.windowBytes, cc->GetWindow());
        EXPECT_EQ(s.rtt, MicroSeconds(5));
        EXPECT_EQ(std::isnan(s.rate), ub);
    }
}

// A lost UB frame halves the window, once per window of data (RFC 8257 §3.5: loss as
// conventional TCP, RFC 5681 §3.2).
TEST(DctcpBothTransports, ALossHalvesTheWindowOncePerWindowOfData)
{
    Ptr<DctcpCongestionControl> cc = Make(true, 10 * F);
    // 5F outstanding before the ACK, and 5F + F <= 10F: the window did not limit the channel,
    // so it keeps 10F; SND.NXT = F + 4F.
    cc->Acknowledge(Ack(false, F, 4 * F));
    EXPECT_EQ(cc->GetWindow(), 10 * F);
    cc->OnLoss(F);
    EXPECT_EQ(cc->GetWindow(), 5 * F);
    cc->OnLoss(F);
    EXPECT_EQ(cc->GetWindow(), 5 * F);
    EXPECT_TRUE(cc->InCwr());
}

// The window grows only while it limits the channel (Linux tcp_is_cwnd_limited, RFC 7661): the
// UB NIC stops a channel when one more full frame would exceed the window, so with less than
// the window minus a frame in flight before the ACK the channel was not held back.
TEST(DctcpBothTransports, AUbWindowThatDoesNotLimitTheChannelDoesNotGrow)
{
    const uint64_t w = 10 * kMtu; // 40960 B
    Ptr<DctcpCongestionControl> cc = Make(true, w);
    // Before the ACK: 5 frames = 20810 B in flight; 20810 + 4162 <= 40960: not limited.
    for (int i = 0; i < 100; ++i)
    {
        cc->Acknowledge(Ack(false, F, 4 * F));
    }
    EXPECT_EQ(cc->GetWindow(), w);
    // 9 frames before the ACK: 37458 + 4162 > 40960, the window was full: + MTU x F / W.
    cc->Acknowledge(Ack(false, F, 8 * F));
    EXPECT_EQ(cc->GetWindow(), uint64_t(std::llround(w + double(kMtu) * F / w)));
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
    Set("ns3::UbNic::CongestionControl", "ns3::DctcpCongestionControl");
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
    // The UB NIC ran the one DCTCP class.
    EXPECT_EQ(net.GetFlowTable()->Get(0).cc->GetInstanceTypeId().GetName(),
              "ns3::DctcpCongestionControl");
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
