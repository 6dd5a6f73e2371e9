// Rate-based DCTCP (`cc: dctcp-rate`), the HPCC simulator's CC_MODE 8: alpha and rate sequences
// worked out by hand from HandleAckDctcp (alibaba-edu/High-Precision-Congestion-Control
// simulation/src/point-to-point/model/rdma-hw.cc:998-1050), and a 2:1 incast whose queue peak
// follows from the first cut's feedback delay.

#include "../fabric-sim-util.h"
#include "../test-files.h"
#include "cc-unit-test.h"
#include "config/scenario-config.h"
#include "roce/rate-dctcp.h"
#include "run/scenario-runner.h"

#include "ns3/data-rate.h"
#include "ns3/double.h"
#include "ns3/object-factory.h"

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <gtest/gtest.h>
#include <unistd.h>

namespace ns3
{
namespace test
{
namespace
{

constexpr uint64_t kMtu = 1000;
constexpr uint64_t kLine = 100000000000ULL; // 100 Gb/s
constexpr uint64_t kAi = 1000000000ULL;     // RateAi default: DCTCP_RATE_AI 1000Mb/s
constexpr double kG = 1.0 / 256;            // G default: EWMA_GAIN 0.00390625

class RateDctcp : public CcUnitTest
{
  protected:
    static ObjectFactory Factory()
    {
        ObjectFactory f;
        f.SetTypeId("ns3::RateDctcpCongestionControl");
        return f;
    }

    /// Started as an RdmaNic starts it: 1000-byte payloads, paced.
    static Ptr<RateDctcpCongestionControl> Begin(const ObjectFactory& f, uint64_t line = kLine)
    {
        Ptr<RateDctcpCongestionControl> cc = f.Create<RateDctcpCongestionControl>();
        CcSender sender;
        sender.lineRate = DataRate(line);
        sender.mtu = kMtu;
        sender.packetBytes = kMtu;
        sender.paced = true;
        cc->Start(sender);
        return cc;
    }

    /// One packet acknowledged with \p inflight payload still in flight after it.
    static CcFeedback Ack(bool ecn, uint64_t inflight = 9 * kMtu)
    {
        CcFeedback a;
        a.rtt = MicroSeconds(5);
        a.ackedBytes = kMtu;
        a.inflightBytes = inflight;
        a.ecnEcho = ecn;
        return a;
    }

    static uint64_t Rate(const Ptr<RateDctcpCongestionControl>& cc)
    {
        return cc->GetRate().GetBitRate();
    }
};

// With one packet per ACK and 9 packets in flight after each, sndNxt = ackSeq + 9000. ACK 1
// ends the first batch (ackSeq 1000 > lastUpdateSeq 0): lastUpdateSeq = 10000, batch =
// 10000 / 1000 + 1 = 11, ecnCnt kept. Every later batch ends 10 ACKs after the previous one
// (ackSeq > previous ackSeq + 9000) with batch = 9000 / 1000 + 1 = 10.
TEST_F(RateDctcp, AlphaIsUpdatedOncePerWindowFromTheMarkedAcks)
{
    Ptr<RateDctcpCongestionControl> cc = Begin(Factory());
    EXPECT_DOUBLE_EQ(cc->GetAlpha(), 1.0); // rdma-queue-pair.cc:63
    // ACKs 1..10 unmarked: ACK 1 only records the first batch's end.
    for (int k = 1; k <= 10; ++k)
    {
        cc->Acknowledge(Ack(false));
        EXPECT_EQ(cc->GetAlpha(), 1.0) << "ACK " << k;
    }
    // ACK 11 (ackSeq 11000 > 10000): F = 0 / 11, alpha = (1 - g) 1.
    cc->Acknowledge(Ack(false));
    const double a1 = 1 - kG;
    EXPECT_DOUBLE_EQ(cc->GetAlpha(), a1);
    // ACKs 12..21 all marked; alpha stays until ACK 21 (ackSeq 21000 > 20000) ends the window:
    // F = 10 / 10, alpha = (1 - g) alpha + g.
    for (int k = 12; k <= 20; ++k)
    {
        cc->Acknowledge(Ack(true));
        EXPECT_EQ(cc->GetAlpha(), a1) << "ACK " << k;
    }
    cc->Acknowledge(Ack(true));
    const double a2 = (1 - kG) * a1 + kG;
    EXPECT_DOUBLE_EQ(cc->GetAlpha(), a2);
    EXPECT_NEAR(a2, 1 - kG + kG * kG, 1e-15);
    // ACKs 22..31, three marked: F = 3 / 10 (ACKs are counted, not bytes).
    for (int k = 22; k <= 31; ++k)
    {
        cc->Acknowledge(Ack(k <= 24));
    }
    EXPECT_DOUBLE_EQ(cc->GetAlpha(), (1 - kG) * a2 + kG * 0.3);
}

TEST_F(RateDctcp, FirstWindowCountsItsFirstAckAndDividesBySndNxtOverMtuPlusOne)
{
    // ecnCnt is not cleared when the first batch is recorded (rdma-hw.cc:1010-1012): ACKs 1..11
    // all marked give F = min(1, 11 / 11) = 1. With InitialAlpha 0.5: alpha = 0.5 (1 - g) + g.
    // Were the first ACK's mark dropped, or the batch 10, F would be 10/11 or 1 (capped).
    ObjectFactory f = Factory();
    f.Set("InitialAlpha", DoubleValue(0.5));
    Ptr<RateDctcpCongestionControl> cc = Begin(f);
    for (int k = 1; k <= 11; ++k)
    {
        cc->Acknowledge(Ack(true));
    }
    EXPECT_DOUBLE_EQ(cc->GetAlpha(), 0.5 * (1 - kG) + kG);
    // Same with only ACKs 2..11 marked: F = 10 / 11.
    Ptr<RateDctcpCongestionControl> cc2 = Begin(f);
    for (int k = 1; k <= 11; ++k)
    {
        cc2->Acknowledge(Ack(k >= 2));
    }
    EXPECT_DOUBLE_EQ(cc2->GetAlpha(), 0.5 * (1 - kG) + kG * 10.0 / 11);
}

TEST_F(RateDctcp, CutsByHalfAlphaOncePerWindowAndIncreasesOncePerWindowOutsideCwr)
{
    Ptr<RateDctcpCongestionControl> cc = Begin(Factory());
    EXPECT_EQ(Rate(cc), kLine); // rdma-hw.cc:239-241: a QP starts at the NIC's rate
    // ACK 1 marked: alpha = 1 (no update yet), rate = 100 G x (1 - 1/2) = 50 G, CWR until an
    // ACK passes highSeq = sndNxt = 10000. No increase on the ACK that cut.
    cc->Acknowledge(Ack(true));
    EXPECT_EQ(Rate(cc), kLine / 2);
    EXPECT_TRUE(cc->InCwr());
    // ACKs 2..10 marked (ackSeq <= 10000): still CWR, no second cut.
    for (int k = 2; k <= 10; ++k)
    {
        cc->Acknowledge(Ack(true));
        EXPECT_EQ(Rate(cc), kLine / 2) << "ACK " << k;
        EXPECT_TRUE(cc->InCwr()) << "ACK " << k;
    }
    // ACK 11 unmarked (ackSeq 11000): a new batch (ecnCnt 10 of 11: alpha = 1 - g/11), CWR
    // ends (11000 > 10000), and the batch raises the rate by RateAi: 51 G.
    cc->Acknowledge(Ack(false));
    EXPECT_FALSE(cc->InCwr());
    const double alpha = (1 - kG) * 1.0 + kG * 10.0 / 11;
    EXPECT_DOUBLE_EQ(cc->GetAlpha(), alpha);
    EXPECT_EQ(Rate(cc), kLine / 2 + kAi);
    // ACK 12 marked, outside CWR: rate = trunc(51 G x (1 - alpha/2)) = 51e9 x (1/2 + g/22) =
    // 25 509 055 397.7 -> 25 509 055 397 (the reference's DataRate * double truncates);
    // highSeq = 12000 + 9000 = 21000.
    cc->Acknowledge(Ack(true));
    const uint64_t cut = 25509055397ULL;
    EXPECT_EQ(Rate(cc), static_cast<uint64_t>(51e9 * (1 - alpha / 2)));
    EXPECT_EQ(Rate(cc), cut);
    // ACKs 13..21 unmarked: ACK 21 (21000 > 20000) ends a batch, but 21000 does not pass
    // highSeq 21000: still CWR, no increase.
    for (int k = 13; k <= 21; ++k)
    {
        cc->Acknowledge(Ack(false));
        EXPECT_TRUE(cc->InCwr()) << "ACK " << k;
        EXPECT_EQ(Rate(cc), cut) << "ACK " << k;
    }
    // ACK 22 leaves CWR but is no batch end (lastUpdateSeq 30000): no increase yet.
    cc->Acknowledge(Ack(false));
    EXPECT_FALSE(cc->InCwr());
    EXPECT_EQ(Rate(cc), cut);
    // ACKs 23..30 inside the batch; ACK 31 ends it: + RateAi once.
    for (int k = 23; k <= 30; ++k)
    {
        cc->Acknowledge(Ack(false));
        EXPECT_EQ(Rate(cc), cut) << "ACK " << k;
    }
    cc->Acknowledge(Ack(false));
    EXPECT_EQ(Rate(cc), cut + kAi);
}

TEST_F(RateDctcp, IncreasesByRateAiPerWindowUpToTheLineRate)
{
    // One cut to 50 G (ACK 1), then unmarked ACKs: ACK 11 ends CWR and the batch (+1 G); every
    // 10th ACK after it ends a batch: after ACK 11 + 10 n the rate is 51 G + n G, until the
    // line rate (100 G, n = 49) caps it.
    Ptr<RateDctcpCongestionControl> cc = Begin(Factory());
    cc->Acknowledge(Ack(true));
    for (int k = 2; k <= 11; ++k)
    {
        cc->Acknowledge(Ack(false));
    }
    EXPECT_EQ(Rate(cc), 51 * kAi);
    for (uint64_t n = 1; n <= 60; ++n)
    {
        for (int i = 0; i < 9; ++i)
        {
            cc->Acknowledge(Ack(false));
        }
        EXPECT_EQ(Rate(cc), std::min(kLine, (50 + n) * kAi)) << "n=" << n;
        cc->Acknowledge(Ack(false));
        EXPECT_EQ(Rate(cc), std::min(kLine, (51 + n) * kAi)) << "n=" << n;
    }
    EXPECT_EQ(Rate(cc), kLine);
}

TEST_F(RateDctcp, CutsStopAtMinRate)
{
    // G = 0 keeps alpha at 1: every cut halves. With nothing in flight each ACK ends a batch
    // and leaves CWR (sndNxt = ackSeq), so every marked ACK cuts: 100 G / 2^k, exact for
    // k <= 9 (100e9 = 2^11 x 48828125); the 10th would be 97 656 250 b/s < MinRate 100 Mb/s.
    ObjectFactory f = Factory();
    f.Set("G", DoubleValue(0.0));
    Ptr<RateDctcpCongestionControl> cc = Begin(f);
    for (int k = 1; k <= 9; ++k)
    {
        cc->Acknowledge(Ack(true, 0));
        EXPECT_EQ(Rate(cc), kLine >> k) << "cut " << k;
    }
    for (int k = 10; k <= 20; ++k)
    {
        cc->Acknowledge(Ack(true, 0));
        EXPECT_EQ(Rate(cc), 100000000u) << "cut " << k;
    }
}

TEST_F(RateDctcp, TheCutTruncatesToWholeBitsPerSecond)
{
    // Line 100 000 000 001 b/s, alpha 0.3: 1e11 x 0.85 + 0.85 = 85 000 000 000.85 b/s ->
    // 85 000 000 000 (truncated as DataRate(double) does, not rounded).
    ObjectFactory f = Factory();
    f.Set("InitialAlpha", DoubleValue(0.3));
    Ptr<RateDctcpCongestionControl> cc = Begin(f, kLine + 1);
    cc->Acknowledge(Ack(true));
    EXPECT_EQ(Rate(cc), 85000000000ULL);
}

TEST_F(RateDctcp, CnpsAreIgnoredAndTheTraceShowsRateAndAlpha)
{
    Ptr<RateDctcpCongestionControl> cc = Begin(Factory());
    cc->OnCnp();
    EXPECT_EQ(Rate(cc), kLine);
    EXPECT_EQ(cc->GetName(), "dctcp-rate");
    EXPECT_EQ(cc->GetWindow(), 0u); // paced by the rate alone
    cc->Acknowledge(Ack(true));
    CcTraceState s = cc->GetTraceState();
    EXPECT_DOUBLE_EQ(s.rate, 50e9);
    EXPECT_DOUBLE_EQ(s.alpha, 1.0);
}

namespace fs = std::filesystem;

class RateDctcpIncast : public SimTest
{
  protected:
    void TearDown() override
    {
        fs::remove_all(m_dir);
        SimTest::TearDown();
    }

    RunOutcome Run(const std::vector<std::string>& extra)
    {
        m_dir = fs::temp_directory_path() / ("fabric-dctcp-rate-" + std::to_string(getpid()));
        fs::remove_all(m_dir);
        fs::create_directories(m_dir);
        std::vector<std::string> overrides{"workload.senders=2", "workload.bytes_per_sender=4MiB"};
        overrides.insert(overrides.end(), extra.begin(), extra.end());
        ScenarioConfig cfg = LoadScenario(std::string(FABRIC_SOURCE_DIR) +
                                              "/tests/data/scenarios/dctcp-incast-8.yaml",
                                          overrides,
                                          FABRIC_SOURCE_DIR);
        return ScenarioRunner::Run(cfg, m_dir.string());
    }

    /// The largest sampled queue of sw0 port 0 (the receiver's port), bytes.
    double PeakQueue() const
    {
        double peak = 0;
        for (const auto& r : ReadCsv((m_dir / "queues.csv").string()).rows)
        {
            if (r.at("node") == "sw0" && r.at("port") == "0")
            {
                peak = std::max(peak, std::stod(r.at("bytes")));
            }
        }
        return peak;
    }

    fs::path m_dir;
};

TEST_F(RateDctcpIncast, TwoToOneQueuePeaksOneFeedbackDelayAfterK)
{
    // tests/data/scenarios/dctcp-incast-8.yaml with two senders of 4 MiB: 400 Gb/s star, 300 m
    // cables (d = 1.5 us), 4096-byte payloads in 4154-byte frames taking S = 4178 x 8 / 400G =
    // 83.56 ns of wire, every packet ACKed, marking at enqueue of every frame that finds more
    // than K = 160 KiB = 39.4 frames queued.
    //
    // Both senders start at line rate, so from the first arrival (d + S) the port gains one
    // frame per S. The first frame to find K queued is marked after n_K = 39.4 frame times,
    // leaves n_K frame times later, reaches the receiver after S + d, and its ACK returns in 2d.
    // The sender then cuts to C (1 - alpha/2) = C/2 (alpha = 1: rdma-queue-pair.cc:63), whose
    // frames reach the port d + S later: the two flows now fill the port exactly, and CWR
    // forbids a second cut until the queue ahead of the cut has drained. So the queue stops
    // growing after t = 2 n_K S + 2 S + 4 d, at
    //   Q_peak = 2 n_K + 2 + 4d / S = 78.9 + 2 + 71.8 = 152.7 frames = 634 KB.
    // The second sender sees its first mark within a frame of the first; the pacer counts the
    // 4154 queued bytes, not the 4178 of wire time, so two flows at C/2 still gain 0.6% of C
    // until the second cut (~ Q_peak + RTT = 227 frame times: +1.3 frames). Held to 4 frames.
    // Without the cut (cc: none) the queue grows for the whole 4 MiB until PFC pauses both
    // senders at 2 MiB each: several MB.
    RunOutcome o = Run({"cc=dctcp-rate"});
    ASSERT_EQ(o.exitCode, 0) << o.message;
    const auto& c = o.summary["counters"];
    EXPECT_EQ(c["dropped_bytes"].get<uint64_t>(), 0u);
    EXPECT_EQ(c["retransmitted_bytes"].get<uint64_t>(), 0u);
    EXPECT_EQ(c["pfc_frames_sent"].get<uint64_t>(), 0u); // the queue never nears XOFF
    EXPECT_TRUE(o.summary["conservation_ok"].get<bool>());
    EXPECT_EQ(o.summary["flows_finished"].get<uint32_t>(), 2u);

    const double s = 4178 * 8 / 400e9;
    const double nK = 160 * 1024 / 4154.0;
    const double peakFrames = 2 * nK + 2 + 4 * 1.5e-6 / s;
    EXPECT_NEAR(peakFrames, 152.7, 0.1);
    EXPECT_NEAR(PeakQueue() / 4154, peakFrames + 1.3, 4.0);
}

} // namespace
} // namespace test
} // namespace ns3
