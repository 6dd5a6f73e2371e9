// HPCC and PowerTCP senders on synthetic INT sequences: each window worked out by hand from
// the papers' Algorithm 1 (HPCC, SIGCOMM 2019; PowerTCP, NSDI 2022) and from the authors'
// simulators' update code, cited per test (docs/models.md#hpcc, #powertcp).

#include "roce/hpcc.h"
#include "roce/powertcp.h"

#include "ns3/double.h"
#include "ns3/enum.h"
#include "ns3/queue-size.h"
#include "ns3/uinteger.h"

#include <gtest/gtest.h>
#include <vector>

namespace ns3
{
namespace
{

/// One hop at 100 Gb/s (code 6) at \p timeNs, \p byteUnits x 128 B sent, \p queueBytes queued.
RoceAckFeedback
Ack(uint32_t timeNs, uint32_t byteUnits, uint32_t queueBytes, uint64_t acked, uint64_t inflight)
{
    RoceAckFeedback ack;
    ack.rtt = MicroSeconds(2);
    ack.ackedBytes = acked;
    ack.inflightBytes = inflight;
    ack.hasTelemetry = true;
    ack.telemetry.hopCount = 1;
    ack.telemetry.hops[0] = IntHop::Stamp(DataRate("100Gbps"),
                                          NanoSeconds(timeNs),
                                          uint64_t(byteUnits) * 128,
                                          queueBytes);
    return ack;
}

TEST(Hpcc, WindowFollowsAlgorithmOneOnASyntheticIntSequence)
{
    // η = 0.95, maxStage = 2 (so that the stage limit shows), W_AI = 1000 B, T = 10 us,
    // B = 100 Gb/s: B T = 125 000 B is the starting (and largest) window, U starts at 1.
    Ptr<HpccCongestionControl> cc = CreateObject<HpccCongestionControl>();
    cc->SetAttribute("MaxStage", UintegerValue(2));
    cc->SetAttribute("WAi", QueueSizeValue(QueueSize("1000B")));
    cc->SetAttribute("BaseRtt", TimeValue(MicroSeconds(10)));
    cc->Start(DataRate("100Gbps"));
    EXPECT_TRUE(cc->UsesInt());
    EXPECT_EQ(cc->GetWindow(), 125000u);
    EXPECT_EQ(cc->GetRate(), DataRate("100Gbps"));

    // ACK 0 only records the hop (two samples are needed for a rate).
    cc->OnAck(Ack(1000, 0, 0, 4096, 0));
    EXPECT_DOUBLE_EQ(cc->GetWindowBytes(), 125000);

    // Every ACK below is 1 us after the last (τ = 1 us, τ/T = 0.1), and covers new bytes past
    // the last reference update (inflight 0), so W_c follows W, until ACK 5.
    // ACK 1: 100 units = 12 800 B in 1 us = 102.4 Gb/s: u = 1.024 (min(q, q_prev) = 0).
    // U = 0.9 x 1 + 0.1 x 1.024 = 1.0024 >= η: W = 125000 / (1.0024 / 0.95) + 1000
    // = 119 465.682 B.
    cc->OnAck(Ack(2000, 100, 128000, 4096, 0));
    EXPECT_NEAR(cc->GetUtilisation(), 1.0024, 1e-12);
    EXPECT_NEAR(cc->GetWindowBytes(), 119465.682362, 1e-5);
    EXPECT_EQ(cc->GetIncreaseStage(), 0u);

    // ACK 2: u = 1.024 + min(256000, 128000) x 8 / (100e9 x 10e-6) = 1.024 + 1.024 = 2.048;
    // U = 0.9 x 1.0024 + 0.2048 = 1.10696: W = 119465.682 x 0.95 / 1.10696 + 1000
    // = 103 526.196 B.
    cc->OnAck(Ack(3000, 200, 256000, 4096, 0));
    EXPECT_NEAR(cc->GetUtilisation(), 1.10696, 1e-12);
    EXPECT_NEAR(cc->GetWindowBytes(), 103526.196289, 1e-5);

    // ACK 3: nothing sent, queue gone: u = 0, U = 0.996264, still >= η:
    // W = 103526.196 x 0.95 / 0.996264 + 1000 = 99 718.700 B.
    cc->OnAck(Ack(4000, 200, 0, 4096, 0));
    EXPECT_NEAR(cc->GetUtilisation(), 0.996264, 1e-12);
    EXPECT_NEAR(cc->GetWindowBytes(), 99718.699536, 1e-5);

    // ACK 4: u = 0, U = 0.8966376 < η, stage 0 < 2: additive, W = W_c + 1000, stage 1.
    cc->OnAck(Ack(5000, 200, 0, 4096, 0));
    EXPECT_NEAR(cc->GetUtilisation(), 0.8966376, 1e-12);
    EXPECT_NEAR(cc->GetWindowBytes(), 100718.699536, 1e-5);
    EXPECT_EQ(cc->GetIncreaseStage(), 1u);

    // ACK 5: 110 units (u = 1.1264): U = 0.80697384 + 0.11264 = 0.91961384 < η, stage 1:
    // additive again, stage 2. It leaves 1 MB in flight, so the next ACK does not reach the
    // byte that was next to send: no reference update there.
    cc->OnAck(Ack(6000, 310, 0, 4096, 1000000));
    EXPECT_NEAR(cc->GetWindowBytes(), 101718.699536, 1e-5);
    EXPECT_EQ(cc->GetIncreaseStage(), 2u);

    // ACK 6: u = 1.024, U = 0.9 x 0.91961384 + 0.1024 = 0.930052456 < η, but the stage has
    // reached maxStage: multiplicative, W = W_c x 0.95 / 0.930052456 + 1000 = 104 900.338 B,
    // and as no reference update is due, W_c and the stage stay.
    cc->OnAck(Ack(7000, 410, 0, 4096, 0));
    EXPECT_NEAR(cc->GetUtilisation(), 0.930052456, 1e-12);
    EXPECT_NEAR(cc->GetWindowBytes(), 104900.338025, 1e-5);
    EXPECT_NEAR(cc->GetReferenceWindow(), 101718.699536, 1e-5);
    EXPECT_EQ(cc->GetIncreaseStage(), 2u);
    // The rate is W / T: 104 900.338 x 8 / 10 us = 83.920 Gb/s.
    EXPECT_NEAR(cc->GetRate().GetBitRate(), 83920270420.0, 1.0);
    EXPECT_EQ(cc->GetWindow(), 104900u);

    RoceCcTraceState trace = cc->GetTraceState();
    EXPECT_EQ(trace.windowBytes, 104900u);
    EXPECT_NEAR(trace.utilisation, 0.930052456, 1e-12);
    EXPECT_TRUE(std::isnan(trace.alpha));
}

TEST(Hpcc, DefaultsAreTheAuthorsEvaluationAMultiplicativeStepEveryUpdate)
{
    // The authors' evaluation runs HPCC with MI_THRESH 0 (alibaba-edu/High-Precision-Congestion-
    // Control simulation/run.py:72 --mi default 0 -> run.py:41), U_TARGET 0.95 (run.py:71/40),
    // RATE_AI = 10 bw/25 Mb/s (run.py:112), MIN_RATE 1000Mb/s (run.py:28). Every window below
    // is rdma-hw.cc's UpdateRateHp on this INT sequence, worked by hand: u at line 800,
    // U = (U (T - τ) + u τ) / T at 829, and with incStage >= MI_THRESH always true,
    // W = W_c / (U/η) + W_AI at 833, W_c committed on the once-per-RTT update (892-896).
    // T = 10 us, B = 100 Gb/s: W = W_c = B T = 125 000 B, U = 1, W_AI = B T / 2500 = 50 B.
    Ptr<HpccCongestionControl> cc = CreateObject<HpccCongestionControl>();
    cc->SetAttribute("BaseRtt", TimeValue(MicroSeconds(10)));
    cc->Start(DataRate("100Gbps"));
    EXPECT_DOUBLE_EQ(cc->GetWindowAi(), 50.0);
    DataRateValue minRate;
    cc->GetAttribute("MinRate", minRate);
    EXPECT_EQ(minRate.Get(), DataRate("1Gbps"));
    cc->OnAck(Ack(1000, 0, 0, 4096, 0));

    // ACK 1: 12 800 B in 1 us (u = 1.024): U = 0.9 + 0.1024 = 1.0024;
    // W = 125000 x 0.95 / 1.0024 + 50 = 118 515.682 B; new RTT: W_c = W.
    cc->OnAck(Ack(2000, 100, 0, 4096, 0));
    EXPECT_NEAR(cc->GetUtilisation(), 1.0024, 1e-12);
    EXPECT_NEAR(cc->GetWindowBytes(), 118515.682362, 1e-5);

    // ACK 2: 5 120 B (u = 0.4096): U = 0.90216 + 0.04096 = 0.94312 < η. Stage 0: with
    // maxStage 5 this is an additive step (118 565.682 B); with the authors' 0 it is
    // multiplicative: W = 118515.682 x 0.95 / 0.94312 + 50 = 119 430.247 B. New RTT, and 1 MB
    // left in flight: the next ACK does not reach the update point.
    cc->OnAck(Ack(3000, 140, 0, 4096, 1000000));
    EXPECT_NEAR(cc->GetUtilisation(), 0.94312, 1e-12);
    EXPECT_NEAR(cc->GetWindowBytes(), 119430.246675, 1e-5);
    EXPECT_NEAR(cc->GetReferenceWindow(), 119430.246675, 1e-5);

    // ACK 3 (fast react): u = 1.024 (the queue of 25 600 B was 0 at the last ACK: min = 0),
    // U = 0.9 x 0.94312 + 0.1024 = 0.951208; W = 119430.247 x 0.95 / 0.951208 + 50
    // = 119 328.575 B; W_c stays.
    cc->OnAck(Ack(4000, 240, 25600, 4096, 0));
    EXPECT_NEAR(cc->GetUtilisation(), 0.951208, 1e-12);
    EXPECT_NEAR(cc->GetWindowBytes(), 119328.574551, 1e-5);
    EXPECT_NEAR(cc->GetReferenceWindow(), 119430.246675, 1e-5);

    // ACK 4: u = 1.024 + 25600 x 8 / (100e9 x 10e-6) = 1.2288, U = 0.9789672;
    // W = 119430.247 x 0.95 / 0.9789672 + 50 = 115 946.359 B, a new RTT: W_c = W.
    cc->OnAck(Ack(5000, 340, 25600, 1000000, 0));
    EXPECT_NEAR(cc->GetUtilisation(), 0.9789672, 1e-12);
    EXPECT_NEAR(cc->GetWindowBytes(), 115946.359287, 1e-5);
    EXPECT_NEAR(cc->GetReferenceWindow(), 115946.359287, 1e-5);
    EXPECT_EQ(cc->GetIncreaseStage(), 0u);
}

TEST(Hpcc, IgnoresAcksWithoutTelemetryAndLongPaths)
{
    Ptr<HpccCongestionControl> cc = CreateObject<HpccCongestionControl>();
    cc->SetAttribute("BaseRtt", TimeValue(MicroSeconds(10)));
    cc->Start(DataRate("100Gbps"));
    // The default W_AI: B T / 2500 = 125000 / 2500 = 50 B.
    EXPECT_DOUBLE_EQ(cc->GetWindowAi(), 50.0);
    RoceAckFeedback plain;
    plain.ackedBytes = 4096;
    cc->OnAck(plain);
    cc->OnAck(Ack(1000, 0, 0, 4096, 0));
    RoceAckFeedback longPath = Ack(2000, 100, 500000, 4096, 0);
    longPath.telemetry.hopCount = 6; // more switches than records: no measurement
    cc->OnAck(longPath);
    EXPECT_DOUBLE_EQ(cc->GetWindowBytes(), 125000);
    EXPECT_DOUBLE_EQ(cc->GetUtilisation(), 1.0);
}

// The INT sequence both PowerTCP variants see below (τ = 10 us, B = 100 Gb/s = 12.5e9 B/s:
// W starts at B τ = 125 000 B, Γ_n at 1, e = B² τ = 1.5625e15 B²/s; the default β is
// 150 Mb/s x τ = 187.5 B, γ = 0.9):
//   ACK 0: the first, stamped at 1 us with nothing sent and no queue.
//   ACK 1: the queue grew 0 -> 25 600 B in 1 us while 12 800 B left: λ = q̇ + µ = 38.4e9 B/s,
//          Γ' = 38.4e9 x (25600 + 125000) / e = 3.7011456; a new RTT, leaving 1 MB in flight.
//   ACK 2: queue steady, 12 800 B: Γ' = 12.8e9 x 150600 / e = 1.2337152; the same RTT.
//   ACK 3: the queue drains 25 600 B while 12 800 B leave: λ = -12.8e9 B/s, a new RTT.
// \p power: Γ_n expected after ACKs 1 and 2 (it depends on what the variant makes of ACK 0).
void
FeedPowerTcpSequence(Ptr<PowerTcpCongestionControl> cc,
                     std::vector<double>* windows,
                     double power1,
                     double power2)
{
    cc->OnAck(Ack(1000, 0, 0, 4096, 0));
    EXPECT_DOUBLE_EQ(cc->GetWindowBytes(), 125000);
    cc->OnAck(Ack(2000, 100, 25600, 4096, 1000000));
    EXPECT_NEAR(cc->GetNormalisedPower(), power1, 1e-12);
    windows->push_back(cc->GetWindowBytes());
    cc->OnAck(Ack(3000, 200, 25600, 4096, 0));
    EXPECT_NEAR(cc->GetNormalisedPower(), power2, 1e-12);
    windows->push_back(cc->GetWindowBytes());
    cc->OnAck(Ack(4000, 300, 0, 1000000, 0));
    windows->push_back(cc->GetWindowBytes());
}

TEST(PowerTcp, DefaultIsTheAuthorsSimulatorGammaAgainstTheReferenceWindowOverEta)
{
    // inet-tub/ns3-datacenter simulator/ns-3.39/src/point-to-point/model/rdma-hw.cc,
    // UpdateRatePower: the arrival rate floored at B/2 (lines 1020-1022), power over B² τ
    // (1025-1026), Γ_n smoothed (1062), R = 0.9 (R_c / (Γ_n / η) + 150 Mb/s) + 0.1 R_c
    // (1064-1065) on every ACK against R_c, which takes R on the once-per-RTT update
    // (1082-1087); η = 0.95 (config-burst.txt:36). Its hop records start zeroed and the first
    // ACK is measured against them (no first-RTT case, unlike HPCC's rdma-hw.cc:801). As
    // windows (W = R τ):
    //   ACK 0: against zeros: 1 us, no bytes, no queue: λ counts as B/2, Γ' = 0.5,
    //          Γ_n = (1 x 9 + 0.5 x 1) / 10 = 0.95; W = 0.9 (125000 + 187.5) + 12500, capped
    //          at B τ = 125 000 B; new RTT: W_c = 125 000 B.
    //   ACK 1: Γ_n = (0.95 x 9 + 3.7011456) / 10 = 1.22511456;
    //          W = 0.9 (125000 x 0.95 / 1.22511456 + 187.5) + 0.1 x 125000 = 99 905.490 B;
    //          new RTT: W_c = W.
    //   ACK 2: Γ_n = (1.22511456 x 9 + 1.2337152) / 10 = 1.225974624;
    //          W = 0.9 (99905.490 x 0.95 / 1.225974624 + 187.5) + 0.1 x 99905.490
    //          = 79 833.819 B (against W_c, not the current window); W_c stays.
    //   ACK 3: λ counts as B/2: Γ' = 0.5, Γ_n = 1.1533771616;
    //          W = 0.9 (99905.490 x 0.95 / 1.1533771616 + 187.5) + 0.1 x 99905.490
    //          = 84 219.369 B; new RTT: W_c = W.
    Ptr<PowerTcpCongestionControl> cc = CreateObject<PowerTcpCongestionControl>();
    cc->SetAttribute("BaseRtt", TimeValue(MicroSeconds(10)));
    cc->Start(DataRate("100Gbps"));
    EXPECT_TRUE(cc->UsesInt());
    EXPECT_DOUBLE_EQ(cc->GetBetaBytes(), 187.5);
    std::vector<double> w;
    FeedPowerTcpSequence(cc, &w, 1.22511456, 1.225974624);
    ASSERT_EQ(w.size(), 3u);
    EXPECT_NEAR(w[0], 99905.489722, 1e-5);
    EXPECT_NEAR(w[1], 79833.819178, 1e-5);
    EXPECT_NEAR(w[2], 84219.369308, 1e-5);
    EXPECT_NEAR(cc->GetNormalisedPower(), 1.1533771616, 1e-12);
    EXPECT_NEAR(cc->GetReferenceWindow(), 84219.369308, 1e-5);
    EXPECT_NEAR(cc->GetRate().GetBitRate(), 84219.369308 * 8 / 10e-6, 1.0);
    EXPECT_NEAR(cc->GetTraceState().utilisation, 1.1533771616, 1e-12);
}

TEST(PowerTcp, PaperVariantIsAlgorithmOneGammaAgainstTheCurrentWindow)
{
    // Algorithm 1 of the paper (as transcribed in inet-tub/powertcp-linux tcp_powertcp.c):
    // W <- γ (W_old / Γ_n + β) + (1 - γ) W on every ACK, λ = max(0, q̇ + µ), no η; W_old the
    // window set at the last once-per-RTT point (powertcp.c update_old / get_cwnd):
    //   ACK 1: W = 0.9 (125000 / 1.27011456 + 187.5) + 0.1 x 125000 = 101 243.437 B;
    //          new RTT: W_old = W.
    //   ACK 2: W = 0.9 (101243.437 / 1.266474624 + 187.5) + 0.1 x 101243.437 = 82 240.128 B.
    //   ACK 3: λ < 0 counts as 0: Γ_n = 0.9 x 1.266474624 = 1.1398271616;
    //          W = 0.9 (101243.437 / 1.1398271616 + 187.5) + 0.1 x 82240.128 = 88 333.912 B.
    Ptr<PowerTcpCongestionControl> cc = CreateObject<PowerTcpCongestionControl>();
    cc->SetAttribute("Variant", EnumValue(PowerTcpCongestionControl::PAPER));
    cc->SetAttribute("BaseRtt", TimeValue(MicroSeconds(10)));
    cc->Start(DataRate("100Gbps"));
    std::vector<double> w;
    // ACK 0 only records the hops: Γ_n = 0.9 + 0.37011456 after ACK 1, then
    // 0.9 x 1.27011456 + 0.12337152.
    FeedPowerTcpSequence(cc, &w, 1.27011456, 1.266474624);
    ASSERT_EQ(w.size(), 3u);
    EXPECT_NEAR(w[0], 101243.437310, 1e-5);
    EXPECT_NEAR(w[1], 82240.128320, 1e-5);
    EXPECT_NEAR(w[2], 88333.912375, 1e-5);
    EXPECT_NEAR(cc->GetNormalisedPower(), 1.1398271616, 1e-12);
}

} // namespace
} // namespace ns3
