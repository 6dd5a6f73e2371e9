// The RFC 6298 retransmission timer (contrib/fabric/model/host/rto-estimator.h) against the
// RFC's formulas worked by hand:
//   first sample R:   SRTT = R, RTTVAR = R/2                                          (§2.2)
//   later sample R':  RTTVAR = 3/4 RTTVAR + 1/4 |SRTT - R'|, then SRTT = 7/8 SRTT + 1/8 R' (§2.3)
//   RTO = max(floor, SRTT + max(G, 4 RTTVAR)), at most the maximum              (§2.2-§2.5)
//   expiry: RTO doubles, up to the maximum, until the next valid sample          (§5.5)

#include "host/rto-estimator.h"

#include <gtest/gtest.h>

namespace ns3
{
namespace test
{
namespace
{

TEST(RtoEstimator, FloorBeforeTheFirstSample)
{
    RtoEstimator e(MicroSeconds(300), Seconds(60));
    EXPECT_FALSE(e.HasSample());
    EXPECT_EQ(e.GetRto(), MicroSeconds(300)); // §2.1, with the floor as the initial RTO
}

TEST(RtoEstimator, SrttAndRttvarFollowRfc6298Section2)
{
    RtoEstimator e(NanoSeconds(1), Seconds(60));
    // R1 = 100 us: SRTT 100, RTTVAR 50, RTO 100 + 4·50 = 300 us.
    e.Sample(MicroSeconds(100));
    EXPECT_EQ(e.GetSrtt(), MicroSeconds(100));
    EXPECT_EQ(e.GetRttvar(), MicroSeconds(50));
    EXPECT_EQ(e.GetRto(), MicroSeconds(300));
    // R2 = 200 us: RTTVAR = 3/4·50 + 1/4·|100 - 200| = 62.5; SRTT = 7/8·100 + 1/8·200 = 112.5;
    // RTO = 112.5 + 250 = 362.5 us.
    e.Sample(MicroSeconds(200));
    EXPECT_EQ(e.GetRttvar(), NanoSeconds(62500));
    EXPECT_EQ(e.GetSrtt(), NanoSeconds(112500));
    EXPECT_EQ(e.GetRto(), NanoSeconds(362500));
    // R3 = 112.5 us (= SRTT): RTTVAR = 3/4·62.5 = 46.875; SRTT stays; RTO = 112.5 + 187.5 = 300.
    e.Sample(NanoSeconds(112500));
    EXPECT_EQ(e.GetRttvar(), PicoSeconds(46875000));
    EXPECT_EQ(e.GetSrtt(), NanoSeconds(112500));
    EXPECT_EQ(e.GetRto(), MicroSeconds(300));
    // R4 = 50 us, below SRTT: RTTVAR = 3/4·46.875 + 1/4·62.5 = 50.78125; SRTT = 7/8·112.5 +
    // 1/8·50 = 104.6875; RTO = 104.6875 + 203.125 = 307.8125 us.
    e.Sample(MicroSeconds(50));
    EXPECT_EQ(e.GetRttvar(), PicoSeconds(50781250));
    EXPECT_EQ(e.GetSrtt(), PicoSeconds(104687500));
    EXPECT_EQ(e.GetRto(), PicoSeconds(307812500));
}

TEST(RtoEstimator, FloorMaximumAndGranularity)
{
    // §2.4: 300 us computed, 1 ms floor.
    RtoEstimator floored(MilliSeconds(1), Seconds(60));
    floored.Sample(MicroSeconds(100));
    EXPECT_EQ(floored.GetRto(), MilliSeconds(1));
    // §2.5: 300 us computed, 250 us maximum.
    RtoEstimator capped(NanoSeconds(1), MicroSeconds(250));
    capped.Sample(MicroSeconds(100));
    EXPECT_EQ(capped.GetRto(), MicroSeconds(250));
    // §2.2: a constant RTT drives RTTVAR toward 0; G = 10 us keeps SRTT + G.
    RtoEstimator coarse(NanoSeconds(1), Seconds(60), MicroSeconds(10));
    coarse.Sample(MicroSeconds(8)); // RTTVAR 4: 4·4 = 16 > G
    EXPECT_EQ(coarse.GetRto(), MicroSeconds(24));
    coarse.Sample(MicroSeconds(8)); // RTTVAR 3: 12 > G
    EXPECT_EQ(coarse.GetRto(), MicroSeconds(20));
    coarse.Sample(MicroSeconds(8)); // RTTVAR 2.25: 9 < G
    EXPECT_EQ(coarse.GetRto(), MicroSeconds(18));
}

TEST(RtoEstimator, BackoffDoublesUntilTheNextSample)
{
    RtoEstimator e(NanoSeconds(1), MicroSeconds(1000));
    e.Sample(MicroSeconds(100)); // RTO 300 us
    e.Backoff();
    EXPECT_EQ(e.GetRto(), MicroSeconds(600));
    e.Backoff();
    EXPECT_EQ(e.GetRto(), MicroSeconds(1000)); // 1200 cut to the maximum (§5.5 with §2.5)
    e.Backoff();
    EXPECT_EQ(e.GetRto(), MicroSeconds(1000));
    // Karn and Partridge: the next valid sample recomputes the RTO. R = 100 us: RTTVAR =
    // 3/4·50 = 37.5, SRTT 100, RTO = 100 + 150 = 250 us.
    e.Sample(MicroSeconds(100));
    EXPECT_EQ(e.GetBackoffs(), 0u);
    EXPECT_EQ(e.GetRto(), MicroSeconds(250));
    // Before any sample the floor doubles.
    RtoEstimator fresh(MicroSeconds(300), Seconds(60));
    fresh.Backoff();
    fresh.Backoff();
    EXPECT_EQ(fresh.GetRto(), MicroSeconds(1200));
}

} // namespace
} // namespace test
} // namespace ns3
