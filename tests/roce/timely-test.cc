// TIMELY rate updates computed by hand from the paper's Algorithm 1 (Mittal et al.,
// SIGCOMM 2015), default constants: alpha 0.875, beta 0.8, delta 10 Mb/s, T_low 50 us,
// T_high 500 us, minRTT 20 us, five completions before hyper-active increase (N = 5).

#include "cc-unit-test.h"
#include "roce/timely.h"

#include "ns3/data-rate.h"
#include "ns3/object-factory.h"
#include "ns3/queue-size.h"
#include "ns3/simulator.h"

#include <gtest/gtest.h>

namespace ns3
{
namespace test
{
namespace
{

constexpr double kDelta = 10e6; // bit/s

class Timely : public CcUnitTest
{
  protected:
    void SetUp() override
    {
        CcUnitTest::SetUp();
        ObjectFactory f;
        f.SetTypeId("ns3::TimelyCongestionControl");
        m_cc = StartCc<TimelyCongestionControl>(f);
    }

    /// One completion event: an ACK of a whole 16 KiB segment with RTT \p us microseconds.
    void Complete(double us)
    {
        RoceAckFeedback a;
        a.rtt = NanoSeconds(int64_t(us * 1000));
        a.ackedBytes = 16 * 1024;
        a.inflightBytes = 1 << 20;
        m_cc->OnAck(a);
    }

    double Rate() const
    {
        return double(m_cc->GetRate().GetBitRate());
    }

    Ptr<TimelyCongestionControl> m_cc;
};

TEST_F(Timely, FirstCompletionOnlyRecordsTheRtt)
{
    Complete(600); // above T_high, but there is no previous RTT yet
    EXPECT_EQ(Rate(), 400e9);
    EXPECT_EQ(m_cc->GetCompletions(), 1u);
}

TEST_F(Timely, CutsOnAPositiveGradient)
{
    // 60 -> 70 us: new_rtt_diff = 10 us, rtt_diff = 0.875 x 10 = 8.75 us, gradient =
    // 8.75 / 20 = 0.4375, rate x (1 - 0.8 x 0.4375) = 400 x 0.65 = 260 Gb/s.
    Complete(60);
    Complete(70);
    EXPECT_NEAR(m_cc->GetRttDiff().GetSeconds(), 8.75e-6, 1e-12);
    EXPECT_NEAR(Rate(), 260e9, 1.0);
}

TEST_F(Timely, CutsAboveTHighWhateverTheGradient)
{
    // 600 -> 600 us: gradient 0, but RTT > T_high: rate x (1 - 0.8 (1 - 500/600)) =
    // 400 x (1 - 0.8/6) = 346.667 Gb/s.
    Complete(600);
    Complete(600);
    EXPECT_NEAR(Rate(), 400e9 * (1 - 0.8 / 6), 1.0);
    // Still above T_high with a falling RTT: cut again, by 1 - 0.8 (1 - 500/550).
    Complete(550);
    EXPECT_NEAR(Rate(), 400e9 * (1 - 0.8 / 6) * (1 - 0.8 * (1 - 500.0 / 550)), 1.0);
}

TEST_F(Timely, IncreasesBelowTLowWhateverTheGradient)
{
    Complete(600);
    Complete(600); // 346.667 Gb/s, as above
    const double cut = 400e9 * (1 - 0.8 / 6);
    // 40, 42, 44, 46 us: all below T_low. rtt_diff: 0.875 x (-560) = -490; then
    // -61.25 + 1.75 = -59.5; -7.4375 + 1.75 = -5.6875; -0.7109 + 1.75 = +1.039 us: the last
    // gradient is positive, yet each completion adds delta.
    for (double us : {40.0, 42.0, 44.0, 46.0})
    {
        Complete(us);
    }
    EXPECT_GT(m_cc->GetRttDiff().GetSeconds(), 0.0);
    EXPECT_NEAR(Rate(), cut + 4 * kDelta, 1.0);
}

TEST_F(Timely, HyperActiveIncreaseAfterFiveNonPositiveGradients)
{
    Complete(60);
    Complete(70); // 260 Gb/s
    // 60 us: rtt_diff = 0.125 x 8.75 - 0.875 x 10 = -7.656 us < 0; then 60 us again:
    // rtt_diff = -7.656 x 0.125^k stays negative. Completions 1-4 add delta, the fifth 5 delta.
    for (int i = 1; i <= 4; ++i)
    {
        Complete(60);
        EXPECT_NEAR(Rate(), 260e9 + i * kDelta, 1.0) << i;
    }
    Complete(60);
    EXPECT_NEAR(Rate(), 260e9 + 9 * kDelta, 1.0);
    // A positive gradient ends the run: back to delta after the cut.
    Complete(80);
    double afterCut = Rate();
    EXPECT_LT(afterCut, 260e9);
    Complete(60);
    EXPECT_NEAR(Rate(), afterCut + kDelta, 1.0);
}

TEST_F(Timely, CompletionIsASegmentOfAcknowledgedBytes)
{
    // 4 KiB ACKs: a completion every fourth one (16 KiB segments).
    RoceAckFeedback a;
    a.rtt = MicroSeconds(60);
    a.ackedBytes = 4096;
    a.inflightBytes = 1 << 20;
    for (int i = 0; i < 7; ++i)
    {
        m_cc->OnAck(a);
    }
    EXPECT_EQ(m_cc->GetCompletions(), 1u);
    m_cc->OnAck(a);
    EXPECT_EQ(m_cc->GetCompletions(), 2u);
    EXPECT_EQ(m_cc->GetTraceState().rtt, MicroSeconds(60));
    EXPECT_EQ(m_cc->GetWindow(), 0u);
    EXPECT_EQ(m_cc->GetName(), "timely");
}

TEST_F(Timely, AnEmptyPipeIsNotACompletionTheMessagesEndIs)
{
    // A QP paced below a round trip's worth of data has nothing in flight after each ACK; the
    // completion event is still a Segment of acknowledged payload (paper Algorithm 1), so four
    // 4 KiB ACKs make one. Only the ACK of the message's last byte completes a short segment.
    RoceAckFeedback a;
    a.rtt = MicroSeconds(60);
    a.ackedBytes = 4096;
    a.inflightBytes = 0;
    for (int i = 0; i < 4; ++i)
    {
        m_cc->OnAck(a);
    }
    EXPECT_EQ(m_cc->GetCompletions(), 1u);
    m_cc->OnAck(a);
    EXPECT_EQ(m_cc->GetCompletions(), 1u);
    a.messageDone = true;
    m_cc->OnAck(a);
    EXPECT_EQ(m_cc->GetCompletions(), 2u);
}

} // namespace
} // namespace test
} // namespace ns3
