// TIMELY's simulator variant (Variant "simulator") against numbers computed by hand from the
// HPCC-family simulators' code: inet-tub/ns3-datacenter simulator/ns-3.39/src/point-to-point/
// model/rdma-hw.cc:1103-1173 (HandleAckTimely, UpdateRateTimely, FastReactTimely), the same as
// alibaba-edu/High-Precision-Congestion-Control simulation/src/point-to-point/model/
// rdma-hw.cc:923-993. Default constants: alpha 0.875, beta 0.8, RATE_AI = AdditiveIncrease
// 10 Mb/s, RATE_HAI = HaiMultiplier x RATE_AI = 50 Mb/s after HaiThreshold = 5 increases,
// T_low 50 us, T_high 500 us, minRTT 20 us, MinRate 100 Mb/s; a 25 Gb/s NIC.
//
// Every ACK below acknowledges 16 KiB, one paper Segment, so the paper variant would update on
// each of them: each test fails on the paper variant for the rule it names.

#include "cc-unit-test.h"
#include "roce/timely.h"

#include "ns3/data-rate.h"
#include "ns3/object-factory.h"
#include "ns3/string.h"

#include <cstdint>
#include <gtest/gtest.h>

namespace ns3
{
namespace test
{
namespace
{

constexpr uint64_t kSeg = 16 * 1024; // bytes per ACK
constexpr uint64_t kLine = 25000000000;
constexpr uint64_t kAi = 10000000;  // RATE_AI
constexpr uint64_t kHai = 50000000; // RATE_HAI

/// What the reference's `DataRate * double` gives (ns3-datacenter data-rate.cc:162-164,
/// `(uint64_t)(m_bps * rhs)`): the product truncated to whole bit/s.
uint64_t
Times(uint64_t bps, double c)
{
    return static_cast<uint64_t>(double(bps) * c);
}

class TimelySimulator : public CcUnitTest
{
  protected:
    void SetUp() override
    {
        CcUnitTest::SetUp();
        ObjectFactory f;
        f.SetTypeId("ns3::TimelyCongestionControl");
        f.Set("Variant", StringValue("simulator"));
        m_cc = StartCc<TimelyCongestionControl>(f, DataRate(kLine));
    }

    /// An ACK of kSeg new bytes with RTT \p us, leaving \p inflight bytes outstanding (so the
    /// sender's snd_nxt is the bytes acknowledged so far plus \p inflight).
    void Ack(double us, uint64_t inflight = 0)
    {
        RoceAckFeedback a;
        a.rtt = NanoSeconds(int64_t(us * 1000));
        a.ackedBytes = kSeg;
        a.inflightBytes = inflight;
        m_cc->OnAck(a);
    }

    uint64_t Rate() const
    {
        return m_cc->GetRate().GetBitRate();
    }

    /// Two ACKs at 600 us (> T_high, gradient 0): the first records, the second cuts by
    /// c = 1 - 0.8 (1 - 500/600) = 1 - 0.8/6: 25 Gb/s x 0.8667 = 21 666 666 666.67 bit/s,
    /// truncated to 21 666 666 666. Increase stage 0.
    void CutOnce()
    {
        Ack(600);
        Ack(600);
        ASSERT_EQ(Rate(), 21666666666u);
    }

    Ptr<TimelyCongestionControl> m_cc;
};

TEST_F(TimelySimulator, UpdatesOnlyWhenTheAckPassesTheRecordedSndNxt)
{
    // First ACK: snd_nxt = 16 KiB acknowledged + 4 x 16 KiB in flight = 5 x 16 KiB is
    // recorded with its RTT, 100 us; no rate change (rdma-hw.cc:1116, 1166-1170).
    Ack(100, 4 * kSeg);
    EXPECT_EQ(Rate(), kLine);
    EXPECT_EQ(m_cc->GetCompletions(), 1u);
    // ACKs up to sequence 5 x 16 KiB do not pass it (ack_seq > m_lastUpdateSeq is false,
    // :1106): nothing happens, however long their RTT (the paper variant cuts on each).
    for (uint64_t left : {3, 2, 1, 0})
    {
        Ack(600, left * kSeg);
        EXPECT_EQ(Rate(), kLine);
    }
    EXPECT_EQ(m_cc->GetCompletions(), 1u);
    // 6 x 16 KiB passes it: new_rtt_diff against the last update's 100 us, not the skipped
    // 600 us ones: 10 000 ns; rtt_diff = 0.875 x 10 000 = 8 750 ns; gradient 0.4375 > 0 with
    // T_low <= 110 us <= T_high: c = 1 - 0.8 x 0.4375 = 0.65, 16.25 Gb/s (:1117-1119, 1134,
    // 1153).
    Ack(110);
    EXPECT_EQ(m_cc->GetCompletions(), 2u);
    EXPECT_EQ(m_cc->GetRttDiff(), NanoSeconds(8750));
    EXPECT_EQ(Rate(), Times(kLine, 1 - 0.8 * 0.4375));
    EXPECT_NEAR(double(Rate()), 16.25e9, 1.0);
    EXPECT_EQ(m_cc->GetTraceState().rtt, MicroSeconds(110));
    EXPECT_EQ(m_cc->GetWindow(), 0u);
}

TEST_F(TimelySimulator, EveryIncreaseCountsAndTheSixthAddsRateHai)
{
    CutOnce();
    // RTT 40 us < T_low: an increase whatever the gradient (:1126-1127). The first five add
    // RATE_AI (m_incStage 0-4 < 5), the sixth RATE_HAI (:1140-1144); the paper variant adds
    // delta on every one below T_low.
    for (uint64_t i = 1; i <= 5; ++i)
    {
        Ack(40);
        EXPECT_EQ(Rate(), 21666666666u + i * kAi) << i;
    }
    Ack(40);
    EXPECT_EQ(Rate(), 21666666666u + 5 * kAi + kHai);
    Ack(40);
    EXPECT_EQ(Rate(), 21666666666u + 5 * kAi + 2 * kHai);
}

TEST_F(TimelySimulator, IncreasesBelowTLowAndOnNonPositiveGradientsCountTogether)
{
    CutOnce(); // last RTT 600 us, rtt_diff 0
    // Increases from both rules share m_incStage (:1139-1151); in the paper variant every
    // T_low update ends the run of gradients <= 0, so it never reaches hyper increase here.
    // 400 us: new_rtt_diff -200 000 ns, rtt_diff -175 000, gradient < 0 (T_low <= 400 us <=
    // T_high): increase 1.
    Ack(400);
    EXPECT_EQ(Rate(), 21666666666u + kAi);
    // 40 us < T_low: increase 2; rtt_diff 0.125 x -175 000 + 0.875 x -360 000 = -336 875.
    Ack(40);
    EXPECT_EQ(Rate(), 21666666666u + 2 * kAi);
    // 50 us (not below T_low): rtt_diff 0.125 x -336 875 + 0.875 x 10 000 = -33 359.375 <= 0:
    // increase 3.
    Ack(50);
    EXPECT_EQ(Rate(), 21666666666u + 3 * kAi);
    // 40 us twice: increases 4 and 5, RATE_AI; a third 40 us: the sixth, RATE_HAI.
    Ack(40);
    Ack(40);
    EXPECT_EQ(Rate(), 21666666666u + 5 * kAi);
    Ack(40);
    EXPECT_EQ(Rate(), 21666666666u + 5 * kAi + kHai);
}

TEST_F(TimelySimulator, ADecreaseRestartsTheCount)
{
    CutOnce();
    for (int i = 0; i < 6; ++i)
    {
        Ack(40);
    }
    const uint64_t climbed = 21666666666u + 5 * kAi + kHai; // as above
    ASSERT_EQ(Rate(), climbed);
    // 600 us > T_high: c = 1 - 0.8 (1 - 500/600) again, truncated (:1129, 1153); m_incStage = 0
    // (:1156).
    Ack(600);
    const uint64_t cut = Times(climbed, 1 - 0.8 * (1 - 500000.0 / 600000));
    EXPECT_EQ(Rate(), cut);
    EXPECT_NEAR(double(cut), 21766666666.0 * (1 - 0.8 / 6), 1.0);
    // Back below T_low: RATE_AI again for five increases.
    for (uint64_t i = 1; i <= 5; ++i)
    {
        Ack(40);
        EXPECT_EQ(Rate(), cut + i * kAi) << i;
    }
}

TEST_F(TimelySimulator, TheRateFloorsAtMinRateAndClimbsFromThere)
{
    // 100 -> 200 us: new_rtt_diff 100 000 ns, rtt_diff 87 500, gradient 4.375: c = 1 - 3.5 < 0
    // -> 0 (:1134-1136), rate max(MinRate, 0) = 100 Mb/s (:1153).
    Ack(100);
    Ack(200);
    EXPECT_EQ(Rate(), 100000000u);
    // Six increases below T_low: 100 + 5 x 10 + 50 = 200 Mb/s (the paper variant: 160 Mb/s).
    for (int i = 0; i < 6; ++i)
    {
        Ack(40);
    }
    EXPECT_EQ(Rate(), 200000000u);
}

} // namespace
} // namespace test
} // namespace ns3
