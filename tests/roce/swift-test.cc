// Swift window updates and target delay computed by hand from the paper's Algorithm 1 and
// §3.5 (Kumar et al., SIGCOMM 2020). Packets of 4096 bytes; base target 5 us + 1 hop x 1 us.

#include "cc-unit-test.h"
#include "roce/swift.h"

#include "ns3/data-rate.h"
#include "ns3/double.h"
#include "ns3/nstime.h"
#include "ns3/object-factory.h"
#include "ns3/queue-size.h"
#include "ns3/simulator.h"
#include "ns3/uinteger.h"

#include <cmath>
#include <gtest/gtest.h>

namespace ns3
{
namespace test
{
namespace
{

constexpr double kPacket = 4096;

class Swift : public CcUnitTest
{
  protected:
    /// Swift starting at \p packets (its MaxCwnd) with flow scaling range \p fsRange.
    static Ptr<SwiftCongestionControl> Make(double packets, Time fsRange = Time(0))
    {
        ObjectFactory f;
        f.SetTypeId("ns3::SwiftCongestionControl");
        f.Set("MaxCwnd",
              QueueSizeValue(QueueSize(QueueSizeUnit::BYTES, uint32_t(packets * kPacket))));
        f.Set("FsRange", TimeValue(fsRange));
        return StartCc<SwiftCongestionControl>(f);
    }

    /// An ACK of \p packets packets with delay \p delay, delivered at simulated time \p at.
    static void AckAt(Ptr<SwiftCongestionControl> cc, Time at, Time delay, double packets = 1)
    {
        Simulator::Schedule(at, [cc, delay, packets]() {
            RoceAckFeedback a;
            a.rtt = delay;
            a.ackedBytes = uint64_t(packets * kPacket);
            a.inflightBytes = 1 << 20;
            cc->OnAck(a);
        });
    }
};

TEST_F(Swift, TargetIsBasePlusHopsPlusFlowScaling)
{
    // Without flow scaling: 5 us + 1 x 1 us.
    EXPECT_EQ(Make(10)->GetTargetDelay(), MicroSeconds(6));
    // fs_range 5 us over cwnd 0.1 .. 100: a = 5 / (1/sqrt(0.1) - 1/sqrt(100)) = 1.63270 us,
    // b = -a / 10. At cwnd = 100 flow scaling adds 0, at 1 packet a + b = 1.46943 us, at or
    // below 0.1 packets the whole 5 us.
    const Time fs = MicroSeconds(5);
    const double a = 5e-6 / (1 / std::sqrt(0.1) - 0.1);
    EXPECT_NEAR(Make(100, fs)->GetTargetDelay().GetSeconds(), 6e-6, 1e-12);
    EXPECT_NEAR(Make(1, fs)->GetTargetDelay().GetSeconds(), 6e-6 + 0.9 * a, 1e-12);
    EXPECT_NEAR(0.9 * a, 1.46943e-6, 1e-10);
    EXPECT_NEAR(Make(0.05, fs)->GetTargetDelay().GetSeconds(), 11e-6, 1e-12);
}

// The target scales with the QP's own path (Swift §3.5: hops from the IP TTL; htsim
// swift.cpp:792 from the route), not a global constant: 5 us + 3 x 1 us across a 2-tier Clos
// spine, 5 us + 1 us within a leaf. The default window follows: 400 Gb/s x 8 us = 400 000 B.
TEST_F(Swift, TargetScalesWithThePathsHops)
{
    ObjectFactory f;
    f.SetTypeId("ns3::SwiftCongestionControl");
    f.Set("FsRange", TimeValue(Time(0)));
    Ptr<SwiftCongestionControl> spine = f.Create<SwiftCongestionControl>();
    spine->SetPathHops(3);
    spine->Start(DataRate("400Gbps"));
    EXPECT_EQ(spine->GetHops(), 3u);
    EXPECT_EQ(spine->GetTargetDelay(), MicroSeconds(8));
    EXPECT_EQ(spine->GetWindow(), 400000u);
    Ptr<SwiftCongestionControl> leaf = f.Create<SwiftCongestionControl>();
    leaf->SetPathHops(1);
    leaf->Start(DataRate("400Gbps"));
    EXPECT_EQ(leaf->GetTargetDelay(), MicroSeconds(6));
    // A configured Hops wins over the path.
    f.Set("Hops", UintegerValue(2));
    Ptr<SwiftCongestionControl> fixed = f.Create<SwiftCongestionControl>();
    fixed->SetPathHops(3);
    fixed->Start(DataRate("400Gbps"));
    EXPECT_EQ(fixed->GetTargetDelay(), MicroSeconds(7));
}

TEST_F(Swift, DecreasesInProportionToTheExcessDelayOncePerRtt)
{
    Ptr<SwiftCongestionControl> cc = Make(100);
    // delay 12 us against target 6 us: cwnd x max(1 - 0.8 x 6/12, 1 - 0.5) = x 0.6.
    AckAt(cc, MicroSeconds(100), MicroSeconds(12));
    // 1 us later: within one RTT (12 us) of the decrease, no second one.
    AckAt(cc, MicroSeconds(101), MicroSeconds(12));
    Simulator::Run();
    EXPECT_NEAR(cc->GetCwndPackets(), 60.0, 1e-9);
    // 12 us after the first: decrease again, x 0.6.
    AckAt(cc, MicroSeconds(112), MicroSeconds(12));
    Simulator::Run();
    EXPECT_NEAR(cc->GetCwndPackets(), 36.0, 1e-9);
    // delay 60 us: 1 - 0.8 x 54/60 = 0.28, capped by max_mdf at 0.5.
    AckAt(cc, MicroSeconds(200), MicroSeconds(60));
    Simulator::Run();
    EXPECT_NEAR(cc->GetCwndPackets(), 18.0, 1e-9);
}

TEST_F(Swift, IncreasesAdditivelyBelowTarget)
{
    Ptr<SwiftCongestionControl> cc = Make(100);
    AckAt(cc, MicroSeconds(10), MicroSeconds(12)); // 60 packets
    // delay 3 us < 6 us: cwnd += 1 x 1 / 60.
    AckAt(cc, MicroSeconds(20), MicroSeconds(3));
    Simulator::Run();
    EXPECT_NEAR(cc->GetCwndPackets(), 60.0 + 1.0 / 60, 1e-9);
    // A whole window of ACKs (60 more packets) adds between 60/61 and 1 packet.
    for (int i = 0; i < 60; ++i)
    {
        AckAt(cc, MicroSeconds(30 + i), MicroSeconds(3));
    }
    Simulator::Run();
    double grown = cc->GetCwndPackets() - (60.0 + 1.0 / 60);
    EXPECT_GE(grown, 60.0 / 61 - 1e-3);
    EXPECT_LE(grown, 1.0);
    // The ceiling is MaxCwnd.
    for (int i = 0; i < 10000; ++i)
    {
        AckAt(cc, MicroSeconds(100 + i), MicroSeconds(3), 10);
    }
    Simulator::Run();
    EXPECT_NEAR(cc->GetCwndPackets(), 100.0, 1e-9);
}

TEST_F(Swift, PacesBelowOnePacket)
{
    Ptr<SwiftCongestionControl> cc = Make(1);
    EXPECT_EQ(cc->GetRate(), DataRate("400Gbps"));
    // delay 100 us: capped cut x 0.5 -> 0.5 packets, paced at 0.5 x 4096 x 8 bits per 100 us
    // = 163.84 Mb/s; the window the NIC sees is half a packet.
    AckAt(cc, MicroSeconds(100), MicroSeconds(100));
    Simulator::Run();
    EXPECT_NEAR(cc->GetCwndPackets(), 0.5, 1e-12);
    EXPECT_EQ(cc->GetWindow(), 2048u);
    EXPECT_EQ(cc->GetRate(), DataRate("163840000bps"));
    // Below target with cwnd < 1: cwnd += ai x acked (no division).
    AckAt(cc, MicroSeconds(300), MicroSeconds(3), 0.25);
    Simulator::Run();
    EXPECT_NEAR(cc->GetCwndPackets(), 0.75, 1e-12);
    EXPECT_EQ(cc->GetName(), "swift");
    EXPECT_EQ(cc->GetTraceState().rtt, MicroSeconds(3));
}

TEST_F(Swift, DefaultWindowIsLineRateTimesTarget)
{
    // MaxCwnd 0B: 400 Gb/s x (5 + 1) us = 300 000 bytes.
    ObjectFactory f;
    f.SetTypeId("ns3::SwiftCongestionControl");
    Ptr<SwiftCongestionControl> cc = f.Create<SwiftCongestionControl>();
    cc->Start(DataRate("400Gbps"));
    EXPECT_EQ(cc->GetWindow(), 300000u);
}

} // namespace
} // namespace test
} // namespace ns3
