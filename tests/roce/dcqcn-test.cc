// DCQCN reaction point: hand-computed rate and alpha sequences (Zhu et al., SIGCOMM 2015).
//
// Rates are compared in bit/s with a 1 bit/s tolerance: DcqcnCongestionControl keeps its rates
// as doubles and rounds to the nearest bit/s, so any wrong step (a missed halving, R_AI instead
// of R_HAI, a wrong stage) is off by megabits or more. Most tests use R_AI = 1 Gbps and
// R_HAI = 5 Gbps so that the sequences are short decimal numbers of Gbps.

#include "cc-unit-test.h"
#include "roce/dcqcn.h"
#include "roce/roce-congestion-control.h"

#include "ns3/boolean.h"
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

constexpr double kG = 1.0 / 256;       // paper's g, also the default of attribute G
constexpr double kRateTol = 1.0;       // bit/s
constexpr double kAlphaTol = 1e-12;    // alpha is a product of at most a few hundred factors
const Time kPeriod = MicroSeconds(55); // AlphaTimer and RateIncreaseTimer used below

double
Gbps(double x)
{
    return x * 1e9;
}

#define EXPECT_RATE(rate, bps)                                                                     \
    EXPECT_NEAR(static_cast<double>((rate).GetBitRate()), (bps), kRateTol)

// Every test may have scheduled DCQCN timers: CcUnitTest leaves an empty simulator behind.
class Dcqcn : public CcUnitTest
{
  protected:
    /// A DCQCN instance with R_AI = 1 Gbps, R_HAI = 5 Gbps, 55 us timers and MinRate 100 Mbps.
    static Ptr<DcqcnCongestionControl> Make()
    {
        Ptr<DcqcnCongestionControl> cc = CreateObject<DcqcnCongestionControl>();
        cc->SetAttribute("G", DoubleValue(kG));
        cc->SetAttribute("InitialAlpha", DoubleValue(1.0));
        cc->SetAttribute("AlphaTimer", TimeValue(kPeriod));
        cc->SetAttribute("RateIncreaseTimer", TimeValue(kPeriod));
        cc->SetAttribute("FastRecoveryStages", UintegerValue(5));
        cc->SetAttribute("RateAI", DataRateValue(DataRate("1Gbps")));
        cc->SetAttribute("RateHAI", DataRateValue(DataRate("5Gbps")));
        cc->SetAttribute("MinRate", DataRateValue(DataRate("100Mbps")));
        cc->SetAttribute("ClampTargetRate", BooleanValue(true));
        return cc;
    }

    /// Runs the simulator until absolute time \p t.
    static void RunUntil(Time t)
    {
        Simulator::Stop(t - Simulator::Now());
        Simulator::Run();
    }

    /// Runs to the middle of the k-th period after time 0, so that exactly k timer expiries
    /// (at k x 55 us) have happened and no tie with a timer event can occur.
    static void RunPeriods(uint32_t k)
    {
        RunUntil(kPeriod * k + kPeriod / 2);
    }
};

TEST(NoCongestionControl, AlwaysLineRate)
{
    Ptr<NoCongestionControl> cc = CreateObject<NoCongestionControl>();
    cc->Start(DataRate("400Gbps"));
    EXPECT_EQ(cc->GetRate(), DataRate("400Gbps"));
    cc->OnCnp();
    cc->OnBytesSent(1 << 30);
    RoceAckFeedback ack;
    ack.rtt = MicroSeconds(20);
    ack.ackedBytes = 4096;
    ack.ecnEcho = true;
    cc->OnAck(ack);
    EXPECT_EQ(cc->GetWindow(), 0u);
    EXPECT_EQ(cc->GetRate(), DataRate("400Gbps"));
    EXPECT_EQ(cc->GetName(), "none");
    EXPECT_TRUE(std::isnan(cc->GetTraceValue()));
    cc->Stop();
}

TEST_F(Dcqcn, DefaultsMatchDocumentedSources)
{
    ObjectFactory factory("ns3::DcqcnCongestionControl");
    Ptr<RoceCongestionControl> base = factory.Create<RoceCongestionControl>();
    Ptr<DcqcnCongestionControl> cc = DynamicCast<DcqcnCongestionControl>(base);
    ASSERT_TRUE(cc);
    DoubleValue d;
    cc->GetAttribute("G", d);
    EXPECT_DOUBLE_EQ(d.Get(), 1.0 / 256);
    cc->GetAttribute("InitialAlpha", d);
    EXPECT_DOUBLE_EQ(d.Get(), 1.0);
    TimeValue t;
    cc->GetAttribute("AlphaTimer", t);
    EXPECT_EQ(t.Get(), MicroSeconds(55));
    cc->GetAttribute("RateIncreaseTimer", t);
    EXPECT_EQ(t.Get(), MicroSeconds(55));
    QueueSizeValue q;
    cc->GetAttribute("ByteCounter", q);
    EXPECT_EQ(q.Get(), QueueSize(QueueSizeUnit::BYTES, 10000000));
    UintegerValue u;
    cc->GetAttribute("FastRecoveryStages", u);
    EXPECT_EQ(u.Get(), 5U);
    DataRateValue r;
    cc->GetAttribute("RateAI", r);
    EXPECT_EQ(r.Get(), DataRate("40Mbps"));
    cc->GetAttribute("RateHAI", r);
    EXPECT_EQ(r.Get(), DataRate("200Mbps"));
    cc->GetAttribute("MinRate", r);
    EXPECT_EQ(r.Get(), DataRate("100Mbps"));
    BooleanValue b;
    cc->GetAttribute("ClampTargetRate", b);
    EXPECT_TRUE(b.Get());
    EXPECT_EQ(cc->GetName(), "dcqcn");
}

TEST_F(Dcqcn, LineRateAndNoTimersBeforeFirstCnp)
{
    Ptr<DcqcnCongestionControl> cc = Make();
    cc->Start(DataRate("400Gbps"));
    EXPECT_RATE(cc->GetRate(), Gbps(400));
    EXPECT_RATE(cc->GetTargetRate(), Gbps(400));
    EXPECT_DOUBLE_EQ(cc->GetAlpha(), 1.0);
    EXPECT_DOUBLE_EQ(cc->GetTraceValue(), 1.0);
    EXPECT_FALSE(cc->IsRateLimited());
    // Nothing scheduled: the QP is not rate limited, so no timer needs to run.
    EXPECT_TRUE(Simulator::IsFinished());
    // Bytes before the first CNP do not count towards a byte-counter event.
    cc->OnBytesSent(20000000);
    EXPECT_EQ(cc->GetByteCount(), 0U);
    EXPECT_EQ(cc->GetByteStage(), 0U);
    EXPECT_RATE(cc->GetRate(), Gbps(400));

    cc->OnCnp();
    EXPECT_TRUE(cc->IsRateLimited());
    EXPECT_FALSE(Simulator::IsFinished());
}

TEST_F(Dcqcn, CnpCutsByHalfAlpha)
{
    Ptr<DcqcnCongestionControl> cc = Make();
    cc->Start(DataRate("400Gbps"));
    cc->OnCnp();
    // Rt = Rc = 400; Rc = 400 (1 - 1/2) = 200; alpha = (1-g) 1 + g = 1.
    EXPECT_RATE(cc->GetRate(), Gbps(200));
    EXPECT_RATE(cc->GetTargetRate(), Gbps(400));
    EXPECT_NEAR(cc->GetAlpha(), 1.0, kAlphaTol);
    EXPECT_EQ(cc->GetTimerStage(), 0U);
    EXPECT_EQ(cc->GetByteStage(), 0U);

    cc->OnCnp();
    // Second CNP at the same instant: Rt = 200; Rc = 200 (1 - 1/2) = 100; alpha still 1.
    EXPECT_RATE(cc->GetRate(), Gbps(100));
    EXPECT_RATE(cc->GetTargetRate(), Gbps(200));
    EXPECT_NEAR(cc->GetAlpha(), 1.0, kAlphaTol);
}

TEST_F(Dcqcn, CutUsesAlphaBeforeTheUpdate)
{
    Ptr<DcqcnCongestionControl> cc = Make();
    cc->SetAttribute("InitialAlpha", DoubleValue(0.5));
    cc->Start(DataRate("400Gbps"));
    cc->OnCnp();
    // Rc = 400 (1 - 0.5/2) = 300; alpha = (1-g) 0.5 + g = 0.5 + 0.5 g.
    EXPECT_RATE(cc->GetRate(), Gbps(300));
    const double a1 = 0.5 + 0.5 * kG;
    EXPECT_NEAR(cc->GetAlpha(), a1, kAlphaTol);
    cc->OnCnp();
    // Rt = 300; Rc = 300 (1 - a1/2); alpha = (1-g) a1 + g.
    EXPECT_RATE(cc->GetTargetRate(), Gbps(300));
    EXPECT_RATE(cc->GetRate(), Gbps(300) * (1 - a1 / 2));
    EXPECT_NEAR(cc->GetAlpha(), (1 - kG) * a1 + kG, kAlphaTol);
}

TEST_F(Dcqcn, AlphaDecaysOncePerPeriodWithoutCnp)
{
    Ptr<DcqcnCongestionControl> cc = Make();
    cc->Start(DataRate("400Gbps"));
    cc->OnCnp(); // t = 0, alpha = 1
    for (uint32_t k = 1; k <= 40; ++k)
    {
        // k periods of 55 us without CNP: alpha = (1-g)^k.
        RunPeriods(k);
        EXPECT_NEAR(cc->GetAlpha(), std::pow(1 - kG, k), kAlphaTol) << "k=" << k;
    }
    // Spot value: (255/256)^40 = 0.85503...
    EXPECT_NEAR(cc->GetAlpha(), 0.855, 1e-3);
}

TEST_F(Dcqcn, CnpRestartsAlphaTimer)
{
    Ptr<DcqcnCongestionControl> cc = Make();
    cc->SetAttribute("InitialAlpha", DoubleValue(0.5));
    cc->Start(DataRate("400Gbps"));
    cc->OnCnp(); // t = 0: a1 = (1-g) 0.5 + g
    const double a1 = (1 - kG) * 0.5 + kG;
    RunUntil(MicroSeconds(40));
    EXPECT_NEAR(cc->GetAlpha(), a1, kAlphaTol);
    cc->OnCnp(); // t = 40 us: a2 = (1-g) a1 + g; next decay due at 95 us, not 55 us
    const double a2 = (1 - kG) * a1 + kG;
    RunUntil(MicroSeconds(90));
    EXPECT_NEAR(cc->GetAlpha(), a2, kAlphaTol);
    RunUntil(MicroSeconds(100));
    EXPECT_NEAR(cc->GetAlpha(), a2 * (1 - kG), kAlphaTol);
    RunUntil(MicroSeconds(155));
    EXPECT_NEAR(cc->GetAlpha(), a2 * (1 - kG) * (1 - kG), kAlphaTol);
}

TEST_F(Dcqcn, FastRecoveryHalvesTheGapForFTimerPeriods)
{
    Ptr<DcqcnCongestionControl> cc = Make();
    cc->Start(DataRate("400Gbps"));
    cc->OnCnp(); // Rc0 = 200, Rt = 400
    const double rt = Gbps(400);
    const double rc0 = Gbps(200);
    // Rc_k = Rt - (Rt - Rc0) / 2^k: 300, 350, 375, 387.5, 393.75.
    const double expected[] = {Gbps(300), Gbps(350), Gbps(375), Gbps(387.5), Gbps(393.75)};
    for (uint32_t k = 1; k <= 5; ++k)
    {
        RunPeriods(k);
        EXPECT_RATE(cc->GetRate(), expected[k - 1]) << "k=" << k;
        EXPECT_RATE(cc->GetRate(), rt - (rt - rc0) / std::pow(2.0, k)) << "k=" << k;
        EXPECT_RATE(cc->GetTargetRate(), rt) << "k=" << k;
        EXPECT_EQ(cc->GetTimerStage(), k);
        EXPECT_EQ(cc->GetByteStage(), 0U);
    }
}

TEST_F(Dcqcn, AdditiveIncreaseAfterFastRecovery)
{
    Ptr<DcqcnCongestionControl> cc = Make();
    cc->Start(DataRate("400Gbps"));
    cc->OnCnp();
    cc->OnCnp(); // Rt = 200, Rc = 100
    // Fast recovery towards Rt = 200: 150, 175, 187.5, 193.75, 196.875.
    RunPeriods(5);
    EXPECT_RATE(cc->GetRate(), Gbps(196.875));
    EXPECT_RATE(cc->GetTargetRate(), Gbps(200));
    // Event 6 (T = 5 = F, BC = 0): additive. Rt = 200 + 1 = 201;
    // Rc = (201 + 196.875) / 2 = 198.9375.
    RunPeriods(6);
    EXPECT_RATE(cc->GetTargetRate(), Gbps(201));
    EXPECT_RATE(cc->GetRate(), Gbps(198.9375));
    // Event 7: Rt = 202; Rc = (202 + 198.9375) / 2 = 200.46875.
    RunPeriods(7);
    EXPECT_RATE(cc->GetTargetRate(), Gbps(202));
    EXPECT_RATE(cc->GetRate(), Gbps(200.46875));
    // Event 8: Rt = 203; Rc = (203 + 200.46875) / 2 = 201.734375.
    RunPeriods(8);
    EXPECT_RATE(cc->GetTargetRate(), Gbps(203));
    EXPECT_RATE(cc->GetRate(), Gbps(201.734375));
    // Timer alone never reaches hyper increase (BC stays 0): R_AI per event from here on.
    double rt = Gbps(203);
    double rc = Gbps(201.734375);
    for (uint32_t k = 9; k <= 30; ++k)
    {
        rt += Gbps(1);
        rc = (rt + rc) / 2;
        RunPeriods(k);
        EXPECT_RATE(cc->GetTargetRate(), rt) << "k=" << k;
        EXPECT_RATE(cc->GetRate(), rc) << "k=" << k;
    }
    EXPECT_RATE(cc->GetTargetRate(), Gbps(225)); // 200 + 25 additive events (6..30)
}

TEST_F(Dcqcn, HyperIncreaseOnceBothCountersExceedF)
{
    const uint32_t b = 1000000; // bytes per byte-counter event
    Ptr<DcqcnCongestionControl> cc = Make();
    cc->SetAttribute("ByteCounter", QueueSizeValue(QueueSize("1000000B")));
    cc->Start(DataRate("400Gbps"));
    cc->OnCnp();
    cc->OnCnp(); // Rt = 200, Rc = 100
    // Six timer events (55..330 us): five fast recovery, one additive (see above):
    // Rt = 201, Rc = 198.9375, T = 6, BC = 0.
    RunUntil(MicroSeconds(350));
    EXPECT_EQ(cc->GetTimerStage(), 6U);
    EXPECT_RATE(cc->GetTargetRate(), Gbps(201));
    EXPECT_RATE(cc->GetRate(), Gbps(198.9375));

    // Byte events with BC = 0..5: min(T, BC) <= F, max > F -> additive, R_AI = 1 each:
    // Rt 202..207; Rc = (Rt + Rc) / 2: 200.46875, 201.734375, 202.8671875, 203.93359375,
    // 204.966796875, 205.9833984375.
    const double rcAi[] = {Gbps(200.46875),
                           Gbps(201.734375),
                           Gbps(202.8671875),
                           Gbps(203.93359375),
                           Gbps(204.966796875),
                           Gbps(205.9833984375)};
    for (uint32_t n = 0; n < 6; ++n)
    {
        cc->OnBytesSent(b);
        EXPECT_EQ(cc->GetByteStage(), n + 1);
        EXPECT_RATE(cc->GetTargetRate(), Gbps(202 + n)) << "n=" << n;
        EXPECT_RATE(cc->GetRate(), rcAi[n]) << "n=" << n;
    }
    // BC = 6, T = 6: hyper, i = min(6, 6) - 5 = 1: Rt = 207 + 1 x 5 = 212;
    // Rc = (212 + 205.9833984375) / 2 = 208.99169921875.
    cc->OnBytesSent(b);
    EXPECT_RATE(cc->GetTargetRate(), Gbps(212));
    EXPECT_RATE(cc->GetRate(), Gbps(208.99169921875));
    // BC = 7, T = 6: i = 1 again: Rt = 217; Rc = (217 + 208.99169921875) / 2 = 212.995849609375.
    cc->OnBytesSent(b);
    EXPECT_RATE(cc->GetTargetRate(), Gbps(217));
    EXPECT_RATE(cc->GetRate(), Gbps(212.995849609375));
    EXPECT_EQ(cc->GetByteStage(), 8U);
    // Timer event 7 at 385 us, T = 6, BC = 8: i = 1: Rt = 222;
    // Rc = (222 + 212.995849609375) / 2 = 217.4979248046875.
    RunUntil(MicroSeconds(400));
    EXPECT_EQ(cc->GetTimerStage(), 7U);
    EXPECT_RATE(cc->GetTargetRate(), Gbps(222));
    EXPECT_RATE(cc->GetRate(), Gbps(217.4979248046875));
    // Byte event, T = 7, BC = 8: i = min(7, 8) - 5 = 2: Rt = 222 + 2 x 5 = 232;
    // Rc = (232 + 217.4979248046875) / 2 = 224.74896240234375.
    cc->OnBytesSent(b);
    EXPECT_RATE(cc->GetTargetRate(), Gbps(232));
    EXPECT_RATE(cc->GetRate(), Gbps(224.74896240234375));
    EXPECT_EQ(cc->GetByteStage(), 9U);
}

TEST_F(Dcqcn, ByteCounterDrivesIncreaseWithoutTimer)
{
    Ptr<DcqcnCongestionControl> cc = Make();
    cc->SetAttribute("RateIncreaseTimer", TimeValue(Seconds(1000)));
    cc->SetAttribute("ByteCounter", QueueSizeValue(QueueSize("65536B")));
    cc->Start(DataRate("400Gbps"));
    cc->OnCnp(); // Rc = 200, Rt = 400
    // 15 frames of 4096 B = 61440 B < 65536 B: no event yet.
    for (int i = 0; i < 15; ++i)
    {
        cc->OnBytesSent(4096);
    }
    EXPECT_EQ(cc->GetByteCount(), 61440U);
    EXPECT_EQ(cc->GetByteStage(), 0U);
    EXPECT_RATE(cc->GetRate(), Gbps(200));
    // The 16th frame completes 65536 B: fast recovery, Rc = (400 + 200) / 2 = 300.
    cc->OnBytesSent(4096);
    EXPECT_EQ(cc->GetByteCount(), 0U);
    EXPECT_EQ(cc->GetByteStage(), 1U);
    EXPECT_RATE(cc->GetRate(), Gbps(300));
    // One call of 3 x 65536 + 100 B: three events, Rc = 350, 375, 387.5; 100 B carried over.
    cc->OnBytesSent(3 * 65536 + 100);
    EXPECT_EQ(cc->GetByteStage(), 4U);
    EXPECT_EQ(cc->GetByteCount(), 100U);
    EXPECT_RATE(cc->GetRate(), Gbps(387.5));
    EXPECT_RATE(cc->GetTargetRate(), Gbps(400));
    // 1 ms of simulated time: only the alpha timer runs, the rate does not move.
    RunUntil(MilliSeconds(1));
    EXPECT_EQ(cc->GetTimerStage(), 0U);
    EXPECT_RATE(cc->GetRate(), Gbps(387.5));
}

TEST_F(Dcqcn, ZeroByteCounterDisablesByteEvents)
{
    Ptr<DcqcnCongestionControl> cc = Make();
    cc->SetAttribute("ByteCounter", QueueSizeValue(QueueSize("0B")));
    cc->Start(DataRate("400Gbps"));
    cc->OnCnp();
    cc->OnBytesSent(100000000);
    EXPECT_EQ(cc->GetByteStage(), 0U);
    EXPECT_RATE(cc->GetRate(), Gbps(200));
}

// The NIC's timer-only reaction point (byte counter off, as the `scaled` preset runs it): the
// HPCC simulator's RateIncEventMlx (alibaba-edu/High-Precision-Congestion-Control,
// simulation/src/point-to-point/model/rdma-hw.cc:686-733) does fast recovery while the timer
// stage T < F, one additive step at T = F and a hyper step of R_HAI at every later event.
TEST_F(Dcqcn, TimerOnlyGoesHyperAfterOneAdditiveStep)
{
    Ptr<DcqcnCongestionControl> cc = Make();
    cc->SetAttribute("ByteCounter", QueueSizeValue(QueueSize("0B")));
    cc->Start(DataRate("400Gbps"));
    cc->OnCnp();
    cc->OnCnp();   // Rt = 200, Rc = 100
    RunPeriods(5); // fast recovery: Rc = 196.875
    EXPECT_RATE(cc->GetRate(), Gbps(196.875));
    EXPECT_RATE(cc->GetTargetRate(), Gbps(200));
    // Event 6 (T = 5 = F): additive, Rt = 201, Rc = (201 + 196.875) / 2 = 198.9375.
    RunPeriods(6);
    EXPECT_RATE(cc->GetTargetRate(), Gbps(201));
    EXPECT_RATE(cc->GetRate(), Gbps(198.9375));
    // Event 7 (T = 6 > F): hyper, Rt = 201 + 5 = 206, Rc = (206 + 198.9375) / 2 = 202.46875.
    RunPeriods(7);
    EXPECT_RATE(cc->GetTargetRate(), Gbps(206));
    EXPECT_RATE(cc->GetRate(), Gbps(202.46875));
    // Event 8: a constant R_HAI step (the NIC has no i): Rt = 211, Rc = 206.734375.
    RunPeriods(8);
    EXPECT_RATE(cc->GetTargetRate(), Gbps(211));
    EXPECT_RATE(cc->GetRate(), Gbps(206.734375));
    EXPECT_EQ(cc->GetByteStage(), 0U);
}

// The same with the timer off and the byte counter alone: the byte stage decides.
TEST_F(Dcqcn, ByteCounterOnlyGoesHyperAfterOneAdditiveStep)
{
    Ptr<DcqcnCongestionControl> cc = Make();
    cc->SetAttribute("RateIncreaseTimer", TimeValue(Time(0)));
    cc->SetAttribute("ByteCounter", QueueSizeValue(QueueSize("1000000B")));
    cc->Start(DataRate("400Gbps"));
    cc->OnCnp();
    cc->OnCnp();                  // Rt = 200, Rc = 100
    cc->OnBytesSent(5 * 1000000); // fast recovery x5: Rc = 196.875
    EXPECT_RATE(cc->GetRate(), Gbps(196.875));
    cc->OnBytesSent(1000000); // BC = 5 = F: additive, Rt = 201, Rc = 198.9375
    EXPECT_RATE(cc->GetTargetRate(), Gbps(201));
    cc->OnBytesSent(1000000); // BC = 6: hyper, Rt = 206, Rc = 202.46875
    EXPECT_RATE(cc->GetTargetRate(), Gbps(206));
    EXPECT_RATE(cc->GetRate(), Gbps(202.46875));
    EXPECT_EQ(cc->GetTimerStage(), 0U);
}

TEST_F(Dcqcn, MinRateClampUnderRepeatedCnps)
{
    Ptr<DcqcnCongestionControl> cc = Make();
    cc->SetAttribute("MinRate", DataRateValue(DataRate("10Gbps")));
    cc->Start(DataRate("400Gbps"));
    // alpha stays 1 ((1-g) 1 + g = 1), so every CNP halves: 200, 100, 50, 25, 12.5, then
    // 6.25 < 10 is clamped to 10, and 10 stays 10.
    const double rc[] =
        {Gbps(200), Gbps(100), Gbps(50), Gbps(25), Gbps(12.5), Gbps(10), Gbps(10), Gbps(10)};
    double before = Gbps(400);
    for (double expected : rc)
    {
        cc->OnCnp();
        EXPECT_RATE(cc->GetRate(), expected);
        EXPECT_RATE(cc->GetTargetRate(), before); // Rt = Rc before the cut
        before = expected;
    }
}

TEST_F(Dcqcn, MinRateAboveLineRateKeepsLineRate)
{
    Ptr<DcqcnCongestionControl> cc = Make();
    cc->SetAttribute("MinRate", DataRateValue(DataRate("10Gbps")));
    cc->Start(DataRate("1Gbps"));
    cc->OnCnp();
    EXPECT_RATE(cc->GetRate(), Gbps(1));
}

TEST_F(Dcqcn, RecoveryIsClampedToLineRateThenStops)
{
    Ptr<DcqcnCongestionControl> cc = Make();
    cc->SetAttribute("RateAI", DataRateValue(DataRate("100Gbps")));
    cc->SetAttribute("RateHAI", DataRateValue(DataRate("100Gbps")));
    cc->SetAttribute("ByteCounter", QueueSizeValue(QueueSize("1000B")));
    cc->Start(DataRate("400Gbps"));
    cc->OnCnp(); // Rc = 200, Rt = 400
    // Every event, fast recovery or a capped increase, gives Rt = 400 and halves the gap:
    // Rc_k = 400 - 200 / 2^k. The gap drops below 1 bit/s at k = 38 (200e9 / 2^38 = 0.73),
    // where the rate snaps to 400 Gbps and the increase timer stops.
    for (uint32_t k = 1; k <= 38; ++k)
    {
        RunPeriods(k);
        EXPECT_LE(cc->GetTargetRate().GetBitRate(), 400000000000ULL);
        EXPECT_LE(cc->GetRate().GetBitRate(), 400000000000ULL);
        EXPECT_RATE(cc->GetTargetRate(), Gbps(400)) << "k=" << k;
        EXPECT_RATE(cc->GetRate(), Gbps(400) - Gbps(200) / std::pow(2.0, k)) << "k=" << k;
        EXPECT_EQ(cc->GetTimerStage(), k);
        EXPECT_EQ(cc->IsRateLimited(), k < 38) << "k=" << k;
    }
    EXPECT_EQ(cc->GetRate(), DataRate("400Gbps"));
    // Recovered: no more increase events, bytes are not counted, alpha keeps decaying.
    RunPeriods(60);
    EXPECT_EQ(cc->GetTimerStage(), 38U);
    cc->OnBytesSent(1000000);
    EXPECT_EQ(cc->GetByteStage(), 0U);
    EXPECT_EQ(cc->GetRate(), DataRate("400Gbps"));
    EXPECT_EQ(cc->GetTargetRate(), DataRate("400Gbps"));
    EXPECT_NEAR(cc->GetAlpha(), std::pow(1 - kG, 60), kAlphaTol);
    // The next CNP cuts from the line rate with the decayed alpha and restarts everything.
    cc->OnCnp();
    EXPECT_TRUE(cc->IsRateLimited());
    EXPECT_RATE(cc->GetRate(), Gbps(400) * (1 - std::pow(1 - kG, 60) / 2));
}

TEST_F(Dcqcn, HyperIncreaseIsClampedToLineRate)
{
    Ptr<DcqcnCongestionControl> cc = Make();
    cc->SetAttribute("RateHAI", DataRateValue(DataRate("300Gbps")));
    cc->SetAttribute("ByteCounter", QueueSizeValue(QueueSize("1000B")));
    cc->Start(DataRate("400Gbps"));
    cc->OnCnp();
    cc->OnCnp();                 // Rt = 200, Rc = 100
    RunUntil(MicroSeconds(350)); // T = 6: Rt = 201, Rc = 198.9375 (see above)
    cc->OnBytesSent(6000);       // BC 0..5 additive: Rt = 207, Rc = 205.9833984375
    EXPECT_RATE(cc->GetTargetRate(), Gbps(207));
    // BC = 6: hyper, Rt = min(400, 207 + 300) = 400; Rc = (400 + 205.9833984375) / 2.
    cc->OnBytesSent(1000);
    EXPECT_RATE(cc->GetTargetRate(), Gbps(400));
    EXPECT_RATE(cc->GetRate(), (Gbps(400) + Gbps(205.9833984375)) / 2);
}

TEST_F(Dcqcn, NicTargetRateClampOnlyAfterTimerIncrease)
{
    Ptr<DcqcnCongestionControl> cc = Make();
    cc->SetAttribute("ClampTargetRate", BooleanValue(false));
    cc->SetAttribute("ByteCounter", QueueSizeValue(QueueSize("1000B")));
    cc->Start(DataRate("400Gbps"));
    cc->OnCnp(); // Rc = 200, Rt = 400 (= Rc before the cut either way)
    cc->OnCnp(); // T = 0: Rt stays 400; Rc = 100
    EXPECT_RATE(cc->GetTargetRate(), Gbps(400));
    EXPECT_RATE(cc->GetRate(), Gbps(100));
    // A byte-counter increase does not enable the clamp: Rc = (400 + 100) / 2 = 250.
    cc->OnBytesSent(1000);
    EXPECT_RATE(cc->GetRate(), Gbps(250));
    cc->OnCnp(); // T = 0: Rt stays 400; Rc = 125
    EXPECT_RATE(cc->GetTargetRate(), Gbps(400));
    EXPECT_RATE(cc->GetRate(), Gbps(125));
    // One timer increase (55 us): Rc = (400 + 125) / 2 = 262.5, T = 1.
    RunPeriods(1);
    EXPECT_RATE(cc->GetRate(), Gbps(262.5));
    // Now the CNP clamps: Rt = 262.5. The alpha timer also fired at 55 us (alpha = 1 - g), so
    // Rc = 262.5 (1 - (1 - g) / 2) = 131.25 + 262.5 g / 2 = 131.7626953125.
    cc->OnCnp();
    EXPECT_RATE(cc->GetTargetRate(), Gbps(262.5));
    EXPECT_RATE(cc->GetRate(), Gbps(131.7626953125));
}

TEST_F(Dcqcn, StopCancelsTimersAndIgnoresLateCnps)
{
    Ptr<DcqcnCongestionControl> cc = Make();
    cc->Start(DataRate("400Gbps"));
    cc->OnCnp();
    RunPeriods(1); // Rc = 300, alpha = 1 - g
    cc->Stop();
    RunUntil(MilliSeconds(2));
    EXPECT_RATE(cc->GetRate(), Gbps(300));
    EXPECT_EQ(cc->GetTimerStage(), 1U);
    EXPECT_NEAR(cc->GetAlpha(), 1 - kG, kAlphaTol);
    cc->OnCnp();
    cc->OnBytesSent(100000000);
    EXPECT_RATE(cc->GetRate(), Gbps(300));
    // Start() makes the object reusable for a new QP: everything back to the initial state.
    cc->Start(DataRate("100Gbps"));
    EXPECT_RATE(cc->GetRate(), Gbps(100));
    EXPECT_RATE(cc->GetTargetRate(), Gbps(100));
    EXPECT_DOUBLE_EQ(cc->GetAlpha(), 1.0);
    EXPECT_EQ(cc->GetTimerStage(), 0U);
    cc->OnCnp();
    EXPECT_RATE(cc->GetRate(), Gbps(50));
}

TEST_F(Dcqcn, DisposeWithPendingTimersIsSafe)
{
    {
        Ptr<DcqcnCongestionControl> cc = Make();
        cc->Start(DataRate("400Gbps"));
        cc->OnCnp();
        cc->Dispose();
    }
    {
        // Dropped without Dispose: the destructor cancels the timers.
        Ptr<DcqcnCongestionControl> cc = Make();
        cc->Start(DataRate("400Gbps"));
        cc->OnCnp();
    }
    RunUntil(MilliSeconds(1)); // would touch freed memory if a timer survived
    SUCCEED();
}

} // namespace
} // namespace test
} // namespace ns3
