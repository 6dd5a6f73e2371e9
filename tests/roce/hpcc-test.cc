// HPCC and PowerTCP senders on synthetic INT sequences: each window worked out by hand from
// the papers' Algorithm 1 (HPCC, SIGCOMM 2019; PowerTCP, NSDI 2022; docs/models.md).

#include "roce/hpcc.h"
#include "roce/powertcp.h"

#include "ns3/double.h"
#include "ns3/queue-size.h"
#include "ns3/uinteger.h"

#include <gtest/gtest.h>

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

TEST(PowerTcp, WindowFollowsAlgorithmOneOnASyntheticIntSequence)
{
    // γ = 0.9, β = 1000 B, τ = 10 us, B = 100 Gb/s = 12.5e9 B/s: B τ = 125 000 B, the base
    // power e = B² τ = 1.5625e15 B²/s; Γ_n starts at 1.
    Ptr<PowerTcpCongestionControl> cc = CreateObject<PowerTcpCongestionControl>();
    cc->SetAttribute("Beta", QueueSizeValue(QueueSize("1000B")));
    cc->SetAttribute("BaseRtt", TimeValue(MicroSeconds(10)));
    cc->Start(DataRate("100Gbps"));
    EXPECT_TRUE(cc->UsesInt());
    cc->OnAck(Ack(1000, 0, 0, 4096, 0));
    EXPECT_DOUBLE_EQ(cc->GetWindowBytes(), 125000);

    // ACK 1, 1 us later: the queue grew 0 -> 25 600 B (q̇ = 25.6e9 B/s) while the port sent
    // 12 800 B (µ = 12.8e9 B/s): λ = 38.4e9 B/s, Γ = λ (25600 + 125000) = 5.783e15,
    // Γ/e = 3.7011456. Γ_n = (1 x 9 us + 3.7011456 x 1 us) / 10 us = 1.27011456. A new RTT
    // (the ACK passes the last update): W_old = 125000, and
    // W = 0.9 (125000 / 1.27011456 + 1000) + 0.1 x 125000 = 101 974.687 B.
    cc->OnAck(Ack(2000, 100, 25600, 4096, 1000000));
    EXPECT_NEAR(cc->GetNormalisedPower(), 1.27011456, 1e-12);
    EXPECT_NEAR(cc->GetWindowBytes(), 101974.687310, 1e-5);

    // ACK 2: queue steady at 25 600 B, µ = 12.8e9: Γ/e = 12.8e9 x 150600 / 1.5625e15
    // = 1.2337152; Γ_n = 0.9 x 1.27011456 + 0.12337152 = 1.266474624. Same RTT (1 MB was in
    // flight): W_old stays 125000: W = 0.9 (125000 / 1.266474624 + 1000) + 0.1 x 101974.687
    // = 99 926.726 B.
    cc->OnAck(Ack(3000, 200, 25600, 4096, 0));
    EXPECT_NEAR(cc->GetNormalisedPower(), 1.266474624, 1e-12);
    EXPECT_NEAR(cc->GetWindowBytes(), 99926.725842, 1e-5);

    // ACK 3: the queue drains 25 600 B while 12 800 B leave: λ = q̇ + µ < 0 counts as 0,
    // Γ_n = 0.9 x 1.266474624 = 1.1398271616. New RTT: W_old = 99926.726;
    // W = 0.9 (99926.726 / 1.1398271616 + 1000) + 0.1 x 99926.726 = 89 794.155 B.
    cc->OnAck(Ack(4000, 300, 0, 1000000, 0));
    EXPECT_NEAR(cc->GetNormalisedPower(), 1.1398271616, 1e-12);
    EXPECT_NEAR(cc->GetWindowBytes(), 89794.155447, 1e-5);
    EXPECT_NEAR(cc->GetRate().GetBitRate(), 89794.155447 * 8 / 10e-6, 1.0);
    EXPECT_NEAR(cc->GetTraceState().utilisation, 1.1398271616, 1e-12);
}

} // namespace
} // namespace ns3
