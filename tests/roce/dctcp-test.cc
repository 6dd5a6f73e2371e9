// DCTCP sender: alpha and window sequences computed by hand from the DCTCP paper's rules
// (Alizadeh et al., SIGCOMM 2010, §3.1 eq. 1 and 2).

#include "cc-unit-test.h"
#include "host/dctcp.h"

#include "ns3/data-rate.h"
#include "ns3/double.h"
#include "ns3/object-factory.h"
#include "ns3/queue-size.h"
#include "ns3/simulator.h"

#include <cmath>
#include <gtest/gtest.h>

namespace ns3
{
namespace test
{
namespace
{

constexpr uint64_t kPacket = 4096;

class Dctcp : public CcUnitTest
{
  protected:
    static Ptr<DctcpCongestionControl> Make(uint64_t initialWindow)
    {
        ObjectFactory f;
        f.SetTypeId("ns3::DctcpCongestionControl");
        f.Set("InitialWindow", QueueSizeValue(QueueSize(QueueSizeUnit::BYTES, initialWindow)));
        return Begin(f);
    }

    /// The sender \p f describes, started as an RdmaNic starts it: 400 Gb/s, 4 KiB packets,
    /// the window counting payload and open while the outstanding payload is below it, paced.
    static Ptr<DctcpCongestionControl> Begin(const ObjectFactory& f)
    {
        Ptr<DctcpCongestionControl> cc = f.Create<DctcpCongestionControl>();
        CcSender sender;
        sender.lineRate = DataRate("400Gbps");
        sender.mtu = kPacket;
        sender.packetBytes = kPacket;
        sender.paced = true;
        cc->Start(sender);
        return cc;
    }

    static CcFeedback Ack(bool ecn, uint64_t inflight, uint64_t bytes = kPacket)
    {
        CcFeedback a;
        a.rtt = MicroSeconds(5);
        a.ackedBytes = bytes;
        a.inflightBytes = inflight;
        a.ecnEcho = ecn;
        return a;
    }
};

TEST_F(Dctcp, AlphaConvergesToTheMarkedFraction)
{
    // One packet per ACK with 9 more in flight: the first ACK opens an estimate window that
    // ends at the 10th packet, so every later window is exactly ACKs 10j+2 .. 10j+11: ten ACKs.
    // ACK k echoes ECN when k mod 10 < 3, so every window of ten consecutive ACKs holds
    // exactly three marks: F = 0.3. With alpha_0 = 1 and g = 1/16 (paper §3.4), after n
    // windows alpha_n = 0.3 + 0.7 (15/16)^n.
    const double g = 1.0 / 16;
    const double p = 0.3;
    Ptr<DctcpCongestionControl> cc = Make(100 * kPacket);
    EXPECT_DOUBLE_EQ(cc->GetAlpha(), 1.0);
    uint32_t k = 0;
    for (uint32_t n = 1; n <= 200; ++n)
    {
        // ACKs up to 10n (ACK 1 first): alpha is not touched inside a window...
        while (k < 10 * n)
        {
            ++k;
            cc->Acknowledge(Ack(k % 10 < 3, 9 * kPacket));
        }
        EXPECT_NEAR(cc->GetAlpha(), p + (1 - p) * std::pow(1 - g, n - 1), 1e-12) << "n=" << n;
        // ... and ACK 10n+1 ends window n.
        ++k;
        cc->Acknowledge(Ack(k % 10 < 3, 9 * kPacket));
        EXPECT_NEAR(cc->GetAlpha(), p + (1 - p) * std::pow(1 - g, n), 1e-12) << "n=" << n;
    }
    EXPECT_NEAR(cc->GetAlpha(), p, 1e-5);
}

TEST_F(Dctcp, CutsByHalfAlphaAtMostOncePerWindow)
{
    // Window 100 packets, alpha 1 (no estimate yet): the first ECN echo halves the window.
    Ptr<DctcpCongestionControl> cc = Make(100 * kPacket);
    cc->Acknowledge(Ack(true, 99 * kPacket)); // 100 packets sent so far: CWR until ACK of #100
    EXPECT_EQ(cc->GetWindow(), 50 * kPacket);
    EXPECT_TRUE(cc->InCwr());
    // Further echoes for data sent before the cut: no second cut, no increase.
    for (int i = 0; i < 99; ++i)
    {
        cc->Acknowledge(Ack(true, 99 * kPacket));
    }
    EXPECT_EQ(cc->GetWindow(), 50 * kPacket);
    // ACK 101 acknowledges data sent after the cut: CWR ends. It also ends the first
    // estimate window (ACKs 2..101, 100 echoes of 100): alpha = 15/16 + 1/16 = 1; the echo cuts
    // again by 1/2.
    cc->Acknowledge(Ack(true, 99 * kPacket));
    EXPECT_DOUBLE_EQ(cc->GetAlpha(), 1.0);
    EXPECT_EQ(cc->GetWindow(), 25 * kPacket);
}

TEST_F(Dctcp, AlphaSetsTheDepthOfTheCut)
{
    // Alpha = 0.3 after the ramp of the first test's sequence would take long; instead a
    // window without marks: alpha_1 = 15/16. The next echo cuts by alpha/2 = 15/32.
    Ptr<DctcpCongestionControl> cc = Make(10 * kPacket);
    cc->Acknowledge(Ack(false, 9 * kPacket)); // opens the estimate window (ends at packet 10)
    for (int i = 0; i < 10; ++i)
    {
        cc->Acknowledge(Ack(false, 9 * kPacket)); // ACKs 2..11: window 1 has F = 0
    }
    EXPECT_DOUBLE_EQ(cc->GetAlpha(), 15.0 / 16);
    double before = double(cc->GetWindow());
    cc->Acknowledge(Ack(true, 9 * kPacket));
    EXPECT_NEAR(double(cc->GetWindow()), before * (1 - 15.0 / 32), 1.0);
}

TEST_F(Dctcp, GrowsOnePacketPerWindowWithoutMarks)
{
    // Congestion avoidance: cwnd += 1 packet x acked / cwnd. Acknowledging one whole window
    // W0 = 40 packets one packet at a time adds between W0/(W0+1) and 1 packet.
    // The window is full at every ACK (the NIC refilled it after the previous one).
    Ptr<DctcpCongestionControl> cc = Make(40 * kPacket);
    for (int i = 0; i < 40; ++i)
    {
        cc->Acknowledge(Ack(false, cc->GetWindow()));
    }
    double grown = (double(cc->GetWindow()) - 40.0 * kPacket) / kPacket;
    EXPECT_GE(grown, 40.0 / 41 - 1e-3);
    EXPECT_LE(grown, 1.0);
    EXPECT_EQ(cc->GetRate(), DataRate("400Gbps")); // the window, not a pacer, limits it
}

// Linux grows cwnd only while it limits the sender (tcp_is_cwnd_limited; RFC 7661 §4.1). A QP
// whose outstanding payload before the ACK stays below the window (its line rate or the end of
// its data held it back) keeps the window exactly.
TEST_F(Dctcp, DoesNotGrowAWindowThatDoesNotLimit)
{
    Ptr<DctcpCongestionControl> cc = Make(40 * kPacket);
    for (int i = 0; i < 1000; ++i)
    {
        cc->Acknowledge(Ack(false, 38 * kPacket)); // 39 packets outstanding < 40: not limited
    }
    EXPECT_EQ(cc->GetWindow(), 40 * kPacket);
    // One packet more outstanding: the window was full, and it grows by 1 packet x 1/40.
    cc->Acknowledge(Ack(false, 39 * kPacket));
    EXPECT_EQ(cc->GetWindow(), 40 * kPacket + kPacket / 40);
}

TEST_F(Dctcp, MaxWindowCapsTheGrowth)
{
    ObjectFactory f;
    f.SetTypeId("ns3::DctcpCongestionControl");
    f.Set("InitialWindow", QueueSizeValue(QueueSize(QueueSizeUnit::BYTES, 40 * kPacket)));
    f.Set("MaxWindow", QueueSizeValue(QueueSize(QueueSizeUnit::BYTES, 41 * kPacket)));
    Ptr<DctcpCongestionControl> cc = Begin(f);
    for (int i = 0; i < 10000; ++i)
    {
        cc->Acknowledge(Ack(false, cc->GetWindow())); // always window-limited
    }
    EXPECT_EQ(cc->GetWindow(), 41 * kPacket);
}

TEST_F(Dctcp, InitialWindowIsTheBdpAndCnpsAreIgnored)
{
    // 0B: line rate x BaseRtt (default 4 us): 400 Gb/s x 4 us = 200 000 bytes.
    Ptr<DctcpCongestionControl> cc = Make(0);
    EXPECT_EQ(cc->GetWindow(), 200000u);
    cc->OnCnp();
    EXPECT_EQ(cc->GetWindow(), 200000u);
    EXPECT_EQ(cc->GetName(), "dctcp");
    CcTraceState s = cc->GetTraceState();
    EXPECT_EQ(s.windowBytes, 200000u);
    EXPECT_DOUBLE_EQ(s.alpha, 1.0);
}

} // namespace
} // namespace test
} // namespace ns3
