// DCQCN, Variant mellanox: the HPCC simulator's CC_MODE 1 ("Mellanox's version of DCQCN",
// alibaba-edu/High-Precision-Congestion-Control, simulation/src/point-to-point/model/
// rdma-hw.cc:618-738), driven with hand-made CNPs and ACKs.
//
// Every expected number is derived by hand from those functions:
//   cnp_received_mlx (638-653): sets the alpha and decrease flags; the first signal instead sets
//     alpha = 1, clears the alpha flag, schedules UpdateAlphaMlx after ALPHA_RESUME_INTERVAL and
//     CheckRateDecreaseMlx after RATE_DECREASE_INTERVAL + 1 ns, and sets Rt = Rc. No cut.
//   UpdateAlphaMlx (618-633): alpha = (1-g) alpha + g if the flag is set, else (1-g) alpha.
//   CheckRateDecreaseMlx (655-678): every RATE_DECREASE_INTERVAL; if the decrease flag is set,
//     Rt = Rc (CLAMP_TARGET_RATE, or a timer increase since the last cut), Rc = max(MinRate,
//     Rc (1 - alpha/2)) truncated to whole bit/s, T = 0, the RP timer restarts.
//   RateIncEventTimerMlx / RateIncEventMlx (683-697): every RP_TIMER; T < F fast recovery
//     (699-706: Rc = Rc/2 + Rt/2), T = F additive (708-722: Rt += R_AI), T > F hyper (724-738:
//     Rt += R_HAI); Rt capped at the line rate; halves truncated to whole bit/s; then T++.
// Rates are compared exactly (whole bit/s): the reference's rates are ns-3 DataRates.
//
// Constants of every test (unless a test says otherwise): line rate 100 Gbps, g = 1/16,
// ALPHA_RESUME_INTERVAL K = 10 us, RATE_DECREASE_INTERVAL 4 us, RP_TIMER 100 us, F = 1,
// MinRate 100 Mbps, CLAMP_TARGET_RATE 0. Signals arrive at instants that fall on no timer.
// Each test also fails with Variant paper (one cut per CNP at once, ACK echoes ignored).

#include "cc-unit-test.h"
#include "roce/dcqcn.h"
#include "roce/roce-congestion-control.h"

#include "ns3/boolean.h"
#include "ns3/data-rate.h"
#include "ns3/double.h"
#include "ns3/enum.h"
#include "ns3/nstime.h"
#include "ns3/simulator.h"
#include "ns3/uinteger.h"

#include <cmath>
#include <cstdint>
#include <gtest/gtest.h>

namespace ns3
{
namespace test
{
namespace
{

constexpr double kG = 1.0 / 16;
constexpr double kA = 1 - kG; // 15/16: alpha's factor per update without a signal
constexpr uint64_t kLine = 100000000000ULL;

class DcqcnMellanox : public CcUnitTest
{
  protected:
    static Ptr<DcqcnCongestionControl> Make(bool clampTargetRate = false)
    {
        Ptr<DcqcnCongestionControl> cc = CreateObject<DcqcnCongestionControl>();
        cc->SetAttribute("Variant", EnumValue(DcqcnCongestionControl::MELLANOX));
        cc->SetAttribute("G", DoubleValue(kG));
        cc->SetAttribute("InitialAlpha", DoubleValue(1.0));
        cc->SetAttribute("AlphaTimer", TimeValue(MicroSeconds(10)));
        cc->SetAttribute("RateDecreaseInterval", TimeValue(MicroSeconds(4)));
        cc->SetAttribute("RateIncreaseTimer", TimeValue(MicroSeconds(100)));
        cc->SetAttribute("FastRecoveryStages", UintegerValue(1));
        cc->SetAttribute("RateAI", DataRateValue(DataRate("1Gbps")));
        cc->SetAttribute("RateHAI", DataRateValue(DataRate("5Gbps")));
        cc->SetAttribute("MinRate", DataRateValue(DataRate("100Mbps")));
        cc->SetAttribute("ClampTargetRate", BooleanValue(clampTargetRate));
        cc->Start(DataRate(kLine));
        return cc;
    }

    static void RunUntil(Time t)
    {
        Simulator::Stop(t - Simulator::Now());
        Simulator::Run();
    }

    static void CnpAt(Ptr<DcqcnCongestionControl> cc, Time t)
    {
        Simulator::Schedule(t - Simulator::Now(), [cc]() { cc->OnCnp(); });
    }

    static void AckAt(Ptr<DcqcnCongestionControl> cc, Time t, bool ecnEcho)
    {
        Simulator::Schedule(t - Simulator::Now(), [cc, ecnEcho]() {
            CcFeedback ack;
            ack.rtt = MicroSeconds(5);
            ack.ackedBytes = 1000;
            ack.ecnEcho = ecnEcho;
            cc->Acknowledge(ack);
        });
    }

    /// \p us microseconds (fractions down to the picosecond).
    static Time Us(double us)
    {
        return PicoSeconds(std::llround(us * 1e6));
    }
};

TEST_F(DcqcnMellanox, DefaultsAreThePaperVariantAndAFourMicrosecondDecreaseInterval)
{
    Ptr<DcqcnCongestionControl> cc = CreateObject<DcqcnCongestionControl>();
    EnumValue v;
    cc->GetAttribute("Variant", v);
    EXPECT_EQ(v.Get(), DcqcnCongestionControl::PAPER);
    TimeValue t;
    cc->GetAttribute("RateDecreaseInterval", t);
    // rdma-hw.cc:77-81 RateDecreaseInterval 4.0 (us); mix/config.txt:17 RATE_DECREASE_INTERVAL 4.
    EXPECT_EQ(t.Get(), MicroSeconds(4));
}

// The first signal only starts the alpha and decrease timers (rdma-hw.cc:641-652); the first cut
// comes at the first decrease check, 4 us + 1 ns later, with alpha = 1: Rc = 100 G x 1/2.
TEST_F(DcqcnMellanox, FirstCnpDoesNotCutTheFirstCheckCutsWithAlphaOne)
{
    Ptr<DcqcnCongestionControl> cc = Make();
    CnpAt(cc, Us(1));
    RunUntil(Us(1.5));
    EXPECT_EQ(cc->GetRate().GetBitRate(), kLine);
    EXPECT_EQ(cc->GetTargetRate().GetBitRate(), kLine);
    EXPECT_DOUBLE_EQ(cc->GetAlpha(), 1.0);
    RunUntil(Us(5.0005)); // 0.5 ns before the check at 1 + 4 us + 1 ns
    EXPECT_EQ(cc->GetRate().GetBitRate(), kLine);
    RunUntil(Us(5.0015));
    EXPECT_EQ(cc->GetRate().GetBitRate(), kLine / 2);
    // CLAMP_TARGET_RATE 0 and no timer increase yet (T = 0): Rt keeps the line rate.
    EXPECT_EQ(cc->GetTargetRate().GetBitRate(), kLine);
    EXPECT_EQ(cc->GetTimerStage(), 0U);
    cc->Stop();
}

// An ACK with the ECN echo is the reference's CNP-flagged ACK (rdma-hw.cc:419-424): the same
// timeline as a CNP. An ACK without the echo is no signal.
TEST_F(DcqcnMellanox, EcnEchoAckIsACongestionSignal)
{
    Ptr<DcqcnCongestionControl> marked = Make();
    Ptr<DcqcnCongestionControl> clean = Make();
    AckAt(marked, Us(1), true);
    AckAt(clean, Us(1), false);
    RunUntil(Us(5.0005));
    EXPECT_EQ(marked->GetRate().GetBitRate(), kLine);
    EXPECT_TRUE(marked->IsRateLimited());
    RunUntil(Us(5.0015));
    EXPECT_EQ(marked->GetRate().GetBitRate(), kLine / 2);
    // A second marked ACK in (5.001, 9.001] us: one more cut at 9.001 us, alpha still 1.
    AckAt(marked, Us(7), true);
    AckAt(clean, Us(7), false);
    RunUntil(Us(9.0015));
    EXPECT_EQ(marked->GetRate().GetBitRate(), kLine / 4);
    EXPECT_EQ(clean->GetRate().GetBitRate(), kLine);
    EXPECT_FALSE(clean->IsRateLimited());
    marked->Stop();
    clean->Stop();
}

// Alpha changes only at the updates every K = 10 us after the first signal (at 0): without a
// signal alpha = (1-g)^k after k updates; a signal in (20, 30] us raises it at 30 us, not when it
// arrives: alpha(30) = (1-g) alpha(20) + g.
TEST_F(DcqcnMellanox, AlphaUpdatedOncePerIntervalFromWhetherASignalCame)
{
    Ptr<DcqcnCongestionControl> cc = Make();
    cc->OnCnp(); // t = 0: alpha = 1, updates at 10, 20, 30, ... us
    RunUntil(Us(5));
    EXPECT_DOUBLE_EQ(cc->GetAlpha(), 1.0);
    RunUntil(Us(15));
    EXPECT_DOUBLE_EQ(cc->GetAlpha(), kA); // the first signal's flag was cleared
    RunUntil(Us(25));
    EXPECT_DOUBLE_EQ(cc->GetAlpha(), kA * kA);
    cc->OnCnp(); // t = 25 us
    EXPECT_DOUBLE_EQ(cc->GetAlpha(), kA * kA);
    RunUntil(Us(35));
    const double a30 = kA * kA * kA + kG;
    EXPECT_DOUBLE_EQ(cc->GetAlpha(), a30);
    double a = a30;
    for (int k = 1; k <= 5; ++k)
    {
        RunUntil(Us(35 + 10 * k));
        a = kA * a;
        EXPECT_DOUBLE_EQ(cc->GetAlpha(), a) << "k=" << k;
    }
    cc->Stop();
}

// Many signals in one RATE_DECREASE_INTERVAL give one cut; a check with no signal since the
// previous one does not cut. First signal at 0: checks at 4.001, 8.001, 12.001 us.
TEST_F(DcqcnMellanox, AtMostOneCutPerDecreaseInterval)
{
    Ptr<DcqcnCongestionControl> cc = Make();
    cc->OnCnp();
    RunUntil(Us(4.5));
    EXPECT_EQ(cc->GetRate().GetBitRate(), 50000000000ULL); // 100 G x (1 - 1/2)
    CnpAt(cc, Us(5));
    CnpAt(cc, Us(6));
    CnpAt(cc, Us(7));
    RunUntil(Us(7.5));
    EXPECT_EQ(cc->GetRate().GetBitRate(), 50000000000ULL);
    RunUntil(Us(8.5));
    // One cut with alpha = 1 (the first update is at 10 us): 50 G x 1/2.
    EXPECT_EQ(cc->GetRate().GetBitRate(), 25000000000ULL);
    RunUntil(Us(20.5)); // checks at 12.001, 16.001, 20.001: no signal since 8.001
    EXPECT_EQ(cc->GetRate().GetBitRate(), 25000000000ULL);
    // The next cut uses the alpha of the last update: signal at 21 us, check at 24.001 us:
    // alpha(10) = (1-g) 1 + g = 1 (signals at 5-7 us), alpha(20) = 1 - g (none in (10, 20]).
    CnpAt(cc, Us(21));
    RunUntil(Us(24.5));
    EXPECT_DOUBLE_EQ(cc->GetAlpha(), kA);
    // 25 G x (1 - (15/16)/2) = 25 G x 17/32 = 13 281 250 000 bit/s.
    EXPECT_EQ(cc->GetRate().GetBitRate(), 13281250000ULL);
    cc->Stop();
}

// Cuts and halves truncate to whole bit/s (ns-3's DataRate * double and DataRate / double): on a
// 3 bit/s "line" every product is fractional.
TEST_F(DcqcnMellanox, CutAndHalvesTruncateToWholeBitsPerSecond)
{
    Ptr<DcqcnCongestionControl> cc = Make();
    cc->SetAttribute("MinRate", DataRateValue(DataRate(1)));
    cc->Start(DataRate(3));
    cc->OnCnp(); // t = 0
    RunUntil(Us(4.5));
    // 3 x (1 - 1/2) = 1.5 -> 1 bit/s (the paper's double rate would round 1.5 to 2).
    EXPECT_EQ(cc->GetRate().GetBitRate(), 1U);
    EXPECT_EQ(cc->GetTargetRate().GetBitRate(), 3U);
    // Fast recovery at 104.001 us: 1/2 + 3/2 = 0 + 1 = 1 bit/s (truncated halves).
    RunUntil(Us(104.5));
    EXPECT_EQ(cc->GetRate().GetBitRate(), 1U);
    EXPECT_EQ(cc->GetTimerStage(), 1U);
    cc->Stop();
}

// Increase events at RP_TIMER = 100 us after the last cut, CLAMP_TARGET_RATE 1, F = 1, with
// odd steps so that every halving truncates: R_AI = 1 000 000 001, R_HAI = 5 000 000 001 bit/s.
// Signals at 0 and 5 us: cut at 4.001 us (Rt = 100 G, Rc = 50 G), cut at 8.001 us (Rt = 50 G,
// Rc = 25 G, alpha still 1) which restarts the RP timer: events at 108.001, 208.001, ... us.
TEST_F(DcqcnMellanox, FastRecoveryAdditiveAndHyperStepsAtTheRpTimer)
{
    Ptr<DcqcnCongestionControl> cc = Make(true);
    cc->SetAttribute("RateAI", DataRateValue(DataRate(1000000001)));
    cc->SetAttribute("RateHAI", DataRateValue(DataRate(5000000001)));
    cc->Start(DataRate(kLine));
    cc->OnCnp();
    CnpAt(cc, Us(5));
    RunUntil(Us(8.5));
    EXPECT_EQ(cc->GetRate().GetBitRate(), 25000000000ULL);
    EXPECT_EQ(cc->GetTargetRate().GetBitRate(), 50000000000ULL);
    RunUntil(Us(106)); // the timer armed by the first cut (104.001 us) was restarted
    EXPECT_EQ(cc->GetRate().GetBitRate(), 25000000000ULL);
    EXPECT_EQ(cc->GetTimerStage(), 0U);
    // 108.001: T = 0 < F, fast recovery: Rc = 12.5 G + 25 G.
    RunUntil(Us(108.5));
    EXPECT_EQ(cc->GetRate().GetBitRate(), 37500000000ULL);
    EXPECT_EQ(cc->GetTargetRate().GetBitRate(), 50000000000ULL);
    EXPECT_EQ(cc->GetTimerStage(), 1U);
    // 208.001: T = F, additive: Rt = 51 000 000 001; Rc = 18 750 000 000 + 25 500 000 000.
    RunUntil(Us(208.5));
    EXPECT_EQ(cc->GetTargetRate().GetBitRate(), 51000000001ULL);
    EXPECT_EQ(cc->GetRate().GetBitRate(), 44250000000ULL);
    // 308.001: T > F, hyper: Rt = 56 000 000 002; Rc = 22 125 000 000 + 28 000 000 001.
    RunUntil(Us(308.5));
    EXPECT_EQ(cc->GetTargetRate().GetBitRate(), 56000000002ULL);
    EXPECT_EQ(cc->GetRate().GetBitRate(), 50125000001ULL);
    // 408.001: hyper by the same R_HAI: Rt = 61 000 000 003; Rc = 25 062 500 000 + 30 500 000 001.
    RunUntil(Us(408.5));
    EXPECT_EQ(cc->GetTargetRate().GetBitRate(), 61000000003ULL);
    EXPECT_EQ(cc->GetRate().GetBitRate(), 55562500001ULL);
    EXPECT_EQ(cc->GetTimerStage(), 4U);
    // Rt stops at the line rate: 61 000 000 003 + 7 x 5 000 000 001 at 1108.001 us, the next
    // step would pass 100 G.
    RunUntil(Us(1108.5));
    EXPECT_EQ(cc->GetTargetRate().GetBitRate(), 96000000010ULL);
    RunUntil(Us(1208.5));
    EXPECT_EQ(cc->GetTargetRate().GetBitRate(), kLine);
    cc->Stop();
}

// CLAMP_TARGET_RATE 0: a cut sets Rt = Rc only when a timer increase came since the previous
// cut (rdma-hw.cc:660-667). Signals at 0 and 5 us: both cuts keep Rt = 100 G; after the fast
// recovery at 108.001 us (Rc = 12.5 G + 50 G = 62.5 G, T = 1), a signal at 110.5 us cuts at
// 112.001 us with Rt = 62.5 G and alpha = (1-g)^10: 1 at 10 us (signal at 5 us), then ten
// updates without a signal (20 ... 110 us).
TEST_F(DcqcnMellanox, TargetClampedOnlyAfterATimerIncrease)
{
    Ptr<DcqcnCongestionControl> cc = Make(false);
    cc->OnCnp();
    CnpAt(cc, Us(5));
    RunUntil(Us(8.5));
    EXPECT_EQ(cc->GetRate().GetBitRate(), 25000000000ULL);
    EXPECT_EQ(cc->GetTargetRate().GetBitRate(), kLine);
    RunUntil(Us(108.5));
    EXPECT_EQ(cc->GetRate().GetBitRate(), 62500000000ULL);
    CnpAt(cc, Us(110.5));
    RunUntil(Us(112.5));
    EXPECT_EQ(cc->GetTargetRate().GetBitRate(), 62500000000ULL);
    double alpha = 1.0;
    for (int k = 0; k < 10; ++k)
    {
        alpha = kA * alpha;
    }
    EXPECT_DOUBLE_EQ(cc->GetAlpha(), alpha);
    EXPECT_EQ(cc->GetRate().GetBitRate(), static_cast<uint64_t>(62500000000.0 * (1 - alpha / 2)));
    cc->Stop();
}

// Stop cancels every timer; signals after it are ignored. Signals at 0 and 5 us, Stop at 6 us:
// the cut due at 8.001 us, the alpha update at 10 us and the fast recovery at 104.001 us never
// happen.
TEST_F(DcqcnMellanox, StopCancelsTheTimersAndIgnoresLaterSignals)
{
    Ptr<DcqcnCongestionControl> cc = Make();
    cc->OnCnp();
    CnpAt(cc, Us(5));
    RunUntil(Us(6));
    EXPECT_EQ(cc->GetRate().GetBitRate(), kLine / 2);
    cc->Stop();
    CnpAt(cc, Us(7));
    AckAt(cc, Us(7), true);
    RunUntil(Us(500));
    EXPECT_EQ(cc->GetRate().GetBitRate(), kLine / 2);
    EXPECT_DOUBLE_EQ(cc->GetAlpha(), 1.0);
    EXPECT_EQ(cc->GetTimerStage(), 0U);
}

} // namespace
} // namespace test
} // namespace ns3
