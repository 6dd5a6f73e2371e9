// θ-PowerTCP (delay-based PowerTCP, no INT) on a synthetic RTT sequence: each rate worked out
// by hand from the authors' simulator's update code and from the paper's Algorithm 2
// (docs/models.md#theta-powertcp).

#include "cc-unit-test.h"
#include "roce/theta-powertcp.h"

#include "ns3/enum.h"
#include "ns3/simulator.h"

#include <gtest/gtest.h>
#include <vector>

namespace ns3
{
namespace test
{
namespace
{

using ThetaPowerTcp = CcUnitTest;

struct Sample
{
    double power;
    double rate;
    double window;
};

/// ACKs at 1, 2, 3 and 4 us with RTTs 8, 9, 8.4 and 7 us. ACK 1 opens a new RTT and leaves
/// 1 MB in flight, so ACK 2 does not reach the update point and ACK 3 (acknowledging that
/// megabyte) does. Returns Γ_n, R and W after ACKs 1-3.
std::vector<Sample>
FeedRttSequence(Ptr<ThetaPowerTcpCongestionControl> cc)
{
    struct Step
    {
        double atUs;
        double rttUs;
        uint64_t acked;
        uint64_t inflight;
    };

    std::vector<Sample> out;
    for (const Step& s : {Step{1, 8, 4096, 0},
                          Step{2, 9, 4096, 1000000},
                          Step{3, 8.4, 4096, 0},
                          Step{4, 7, 1000000, 0}})
    {
        Simulator::Schedule(NanoSeconds(static_cast<int64_t>(s.atUs * 1000)), [cc, s, &out]() {
            RoceAckFeedback ack;
            ack.rtt = NanoSeconds(static_cast<int64_t>(s.rttUs * 1000));
            ack.ackedBytes = s.acked;
            ack.inflightBytes = s.inflight;
            cc->OnAck(ack);
            if (s.atUs > 1)
            {
                out.push_back({cc->GetNormalisedPower(),
                               cc->GetRateBps(),
                               static_cast<double>(cc->GetWindow())});
            }
        });
    }
    Simulator::Run();
    return out;
}

TEST_F(ThetaPowerTcp, DefaultIsTheAuthorsSimulator)
{
    // inet-tub/ns3-datacenter simulator/ns-3.39/src/point-to-point/model/rdma-hw.cc,
    // UpdateRatePower with PowerTCPdelay: τ = min(τ, RTT) (line 992); A = ΔRTT/Δt + 1, at
    // least 0.5 (1031-1033); Γ = A RTT / (1.05 τ) (1034-1035); Γ_n = (Γ_n (τ - Δt) + Γ Δt) / τ
    // with Δt the time since the last ACK, at most τ (1041, 1056-1062);
    // R = 0.7 (R_c / Γ_n + 150 Mb/s) + 0.3 R_c (1069-1070), R_c <- R once per RTT (1082-1091).
    // B = 100 Gb/s: R = R_c = B, Γ_n = 1, τ = 10 us until the first RTT sample (8 us).
    //   ACK 1: A = 1/1 + 1 = 2, Γ = 2 x 9 / 8.4 = 2.142857, Γ_n = (7 + 2.142857) / 8
    //          = 1.142857; R = 0.7 (100e9 / 1.142857 + 0.15e9) + 30e9 = 91.355 Gb/s = R_c.
    //   ACK 2: A = -0.6 + 1 = 0.4 -> 0.5, Γ = 0.5 x 8.4 / 8.4 = 0.5, Γ_n = 1.0625;
    //          R = 0.7 (91.355e9 / 1.0625 + 0.15e9) + 0.3 x 91.355e9 = 87.698 Gb/s.
    //   ACK 3: τ = 7 us; A = -1.4 + 1 -> 0.5, Γ = 0.5 x 7 / 7.35 = 0.476190,
    //          Γ_n = (1.0625 x 6 + 0.476190) / 7 = 0.978741;
    //          R = 0.7 (91.355e9 / 0.978741 + 0.15e9) + 0.3 x 91.355e9 = 92.849 Gb/s,
    //          W = R τ = 81 242 B.
    Ptr<ThetaPowerTcpCongestionControl> cc = StartCc<ThetaPowerTcpCongestionControl>(
        ObjectFactory("ns3::ThetaPowerTcpCongestionControl"),
        DataRate("100Gbps"));
    EXPECT_FALSE(cc->UsesInt());
    EXPECT_EQ(cc->GetName(), "theta-powertcp");
    EXPECT_EQ(cc->GetRate(), DataRate("100Gbps"));
    std::vector<Sample> s = FeedRttSequence(cc);
    ASSERT_EQ(s.size(), 3u);
    EXPECT_NEAR(s[0].power, 1.142857142857143, 1e-12);
    EXPECT_NEAR(s[0].rate, 91355000000.0, 1.0);
    EXPECT_NEAR(s[1].power, 1.0625, 1e-12);
    EXPECT_NEAR(s[1].rate, 87698323529.41174, 1.0);
    EXPECT_NEAR(s[2].power, 0.9787414965986394, 1e-12);
    EXPECT_NEAR(s[2].rate, 92848976976.54211, 1.0);
    EXPECT_EQ(cc->GetBaseRtt(), MicroSeconds(7));
    EXPECT_EQ(s[2].window, 81242.0);
    EXPECT_NEAR(cc->GetReferenceRateBps(), 92848976976.54211, 1.0);
}

TEST_F(ThetaPowerTcp, PaperVariantIsAlgorithmTwo)
{
    // Algorithm 2 of the paper (transcribed in inet-tub/powertcp-linux tcp_powertcp.c):
    // Γ = (θ̇ + 1) θ / τ with θ̇ + 1 floored at 0 only, smoothed on every ACK; the rate moves
    // once per RTT: R <- 0.7 (R / Γ_n + 0.15e9) + 0.3 R.
    //   ACK 1: Γ = 2 x 9 / 8 = 2.25, Γ_n = (7 + 2.25) / 8 = 1.15625, a new RTT:
    //          R = 0.7 (100e9 / 1.15625 + 0.15e9) + 30e9 = 90.646 Gb/s.
    //   ACK 2: Γ = 0.4 x 8.4 / 8 = 0.42, Γ_n = 1.06421875; the same RTT: R stays.
    //   ACK 3: τ = 7 us; θ̇ + 1 = -0.4 -> 0, Γ_n = 1.06421875 x 6 / 7 = 0.9121875, a new RTT:
    //          R = 0.7 (90.646e9 / 0.9121875 + 0.15e9) + 0.3 x 90.646e9 = 96.859 Gb/s.
    ObjectFactory f("ns3::ThetaPowerTcpCongestionControl");
    f.Set("Variant", EnumValue(ThetaPowerTcpCongestionControl::PAPER));
    Ptr<ThetaPowerTcpCongestionControl> cc =
        StartCc<ThetaPowerTcpCongestionControl>(f, DataRate("100Gbps"));
    std::vector<Sample> s = FeedRttSequence(cc);
    ASSERT_EQ(s.size(), 3u);
    EXPECT_NEAR(s[0].power, 1.15625, 1e-12);
    EXPECT_NEAR(s[0].rate, 90645540540.54053, 1.0);
    EXPECT_NEAR(s[1].power, 1.06421875, 1e-12);
    EXPECT_NEAR(s[1].rate, 90645540540.54053, 1.0);
    EXPECT_NEAR(s[2].power, 0.9121875, 1e-12);
    EXPECT_NEAR(s[2].rate, 96858789195.67047, 1.0);
    EXPECT_EQ(s[2].window, 84751.0);
}

} // namespace
} // namespace test
} // namespace ns3
