// Job timelines (model/job, docs/models.md#job-timelines) run end to end through fabric-run on
// tests/data/scenarios/job-*.yaml, each checked against a step time derived by hand from the
// fabric ("Datacenter networks", chapter 7, §7.6):
//   - readiness (§7.6.1): ranks ready at 0, 0, 0, 2 ms around a ~0.4 ms exchange: 2.4 ms;
//     the exchange halved: 2.2 ms; all ready at 0: 0.4 ms; the early ranks wait 2 ms;
//   - a chain compute -> collective -> update, two steps: each step the sum of the three;
//   - gradient buckets: the collective of bucket 0 runs during the compute of bucket 1, so
//     only the last bucket's collective is exposed;
//   - a skewed start: the critical path runs through the late rank's compute;
//   - a job alone vs two jobs whose transfers share a spine uplink: the shared one takes one
//     more transfer's serialization;
//   - pipeline stages: stage 1 computes after stage 0's activations have arrived;
//   - launch overhead (§7.6.3): 72 reductions of 8 KiB are launch-bound (α = 5 µs -> 2 µs saves
//     72 · 14 · 3 µs), one of 8 MiB bandwidth-bound (50 -> 150 GB/s: 364 -> 168 µs analytic);
//   - bad job sections are errors naming file, line and key.
//
// Packet-level times. Every link is 100 Gbps with 2 m cables (d = 10 ns), 4096 B payloads: a
// data frame occupies D = 4096 + 58 + 24 = 4178 B of wire, an ACK A = 62 + 24 = 86 B. A ring
// round of n frames over a star, where every host link also carries the ACKs of the flow it
// receives (one per frame), takes L + n (D + A)/R + D/R (the switch stores the last frame) +
// 4d (data and ACK, two cables each); the few ns of the ACK's own serialization and the first
// frame's 16 B RETH are inside the tolerance.

#include "job-run-fixture.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace
{

using ns3::test::kA;
using ns3::test::kCable;
using ns3::test::kD;
using ns3::test::kLaunch;
using ns3::test::kRate;
using ns3::test::kTolerance;
using ns3::test::RingOf4;

using JobTimelineTest = ns3::test::JobRunFixture;

TEST_F(JobTimelineTest, LastReadyRankSetsTheStep)
{
    // Ready at 0, 0, 0, 2 ms; exchange of 3 MiB = 192 frames per round.
    ASSERT_EQ(Run("job-star4.yaml", "late", {}), 0) << m_log;
    nlohmann::json s = Summary();
    EXPECT_TRUE(s["job_collectives_correct"].get<bool>());
    EXPECT_EQ(s["job_collectives_checked"], 1);
    const nlohmann::json& step = s["jobs"][0]["steps"][0];
    EXPECT_NEAR(step["step_time_ns"].get<double>(), 2e6 + RingOf4(192), kTolerance);
    EXPECT_NEAR(RingOf4(192), 0.4e6, 0.005e6); // the chapter's 0.4 ms exchange
    for (uint32_t r = 0; r < 3; ++r)
    {
        EXPECT_EQ(Ns(Row("j", 0, "exchange", r), "waiting_ns"), 2e6) << r;
    }
    EXPECT_EQ(Ns(Row("j", 0, "exchange", 3), "waiting_ns"), 0);
    // The critical path: the exchange, started by rank 3's readiness.
    ASSERT_EQ(step["critical_path"].size(), 1u);
    EXPECT_EQ(step["critical_path"][0]["rank"], 3);
    EXPECT_EQ(step["critical_path"][0]["ready_ns"], 2000000);

    ASSERT_EQ(Run("job-star4.yaml", "halved", {"workload.jobs.0.phases.0.bytes=1.5MiB"}), 0)
        << m_log;
    EXPECT_NEAR(Summary()["jobs"][0]["steps"][0]["step_time_ns"].get<double>(),
                2e6 + RingOf4(96),
                kTolerance);
    EXPECT_NEAR(2e6 + RingOf4(96), 2.2e6, 0.005e6);

    ASSERT_EQ(Run("job-star4.yaml", "together", {"workload.jobs.0.skew=[]"}), 0) << m_log;
    EXPECT_NEAR(Summary()["jobs"][0]["steps"][0]["step_time_ns"].get<double>(),
                RingOf4(192),
                kTolerance);
}

TEST_F(JobTimelineTest, ChainStepIsTheSumOfItsPhases)
{
    ASSERT_EQ(Run("job-star4.yaml",
                  "chain",
                  {"workload.jobs.0.skew=[]",
                   "workload.jobs.0.steps=2",
                   "workload.jobs.0.phases=[{name: fwd, type: compute, duration: 1ms}, "
                   "{name: ar, type: collective, bytes: 3MiB, launch_cost: 1us, after: [fwd]}, "
                   "{name: opt, type: update, duration: 500us, after: [ar]}]"}),
              0)
        << m_log;
    const nlohmann::json summary = Summary();
    const nlohmann::json& steps = summary["jobs"][0]["steps"];
    ASSERT_EQ(steps.size(), 2u);
    const double expected = 1e6 + RingOf4(192) + 0.5e6;
    for (uint32_t s = 0; s < 2; ++s)
    {
        EXPECT_NEAR(steps[s]["step_time_ns"].get<double>(), expected, kTolerance) << s;
        // The update is all compute: only the collective is exposed.
        EXPECT_NEAR(steps[s]["exposed_communication_ns"].get<double>(), RingOf4(192), kTolerance);
    }
    EXPECT_EQ(steps[1]["begin_ns"], steps[0]["end_ns"]);
    // Step 1's compute begins when the rank's step 0 has ended.
    EXPECT_EQ(Ns(Row("j", 1, "fwd", 2), "start_ns"), Ns(Row("j", 0, "opt", 2), "end_ns"));
}

TEST_F(JobTimelineTest, BucketCollectiveOverlapsNextCompute)
{
    // Two buckets of 1 ms compute and 1.5 MiB each (~0.2 ms AllReduce): bucket 0's AllReduce
    // runs during bucket 1's compute; only bucket 1's is exposed.
    ASSERT_EQ(Run("job-star4.yaml",
                  "buckets",
                  {"workload.jobs.0.skew=[]",
                   "workload.jobs.0.phases=[{name: bwd, type: buckets, count: 2, compute: 1ms, "
                   "bytes: 1.5MiB, launch_cost: 1us}]"}),
              0)
        << m_log;
    const double T = RingOf4(96);
    const nlohmann::json summary = Summary();
    const nlohmann::json& step = summary["jobs"][0]["steps"][0];
    EXPECT_NEAR(step["step_time_ns"].get<double>(), 2e6 + T, kTolerance);
    EXPECT_NEAR(step["exposed_communication_ns"].get<double>(), T, kTolerance);
    for (uint32_t r = 0; r < 4; ++r)
    {
        auto ar0 = Row("j", 0, "bwd.ar0", r);
        auto c1 = Row("j", 0, "bwd.c1", r);
        EXPECT_EQ(Ns(ar0, "start_ns"), 1e6);
        EXPECT_EQ(Ns(c1, "start_ns"), 1e6);
        EXPECT_NEAR(Ns(ar0, "end_ns"), 1e6 + T, kTolerance);
        EXPECT_LT(Ns(ar0, "end_ns"), Ns(c1, "end_ns")); // hidden under bucket 1's compute
        EXPECT_EQ(Ns(Row("j", 0, "bwd.ar1", r), "start_ns"), 2e6);
    }
    // Without the split: one bucket of 2 ms compute, 3 MiB: both costs add up.
    ASSERT_EQ(Run("job-star4.yaml",
                  "one-bucket",
                  {"workload.jobs.0.skew=[]",
                   "workload.jobs.0.phases=[{name: bwd, type: buckets, count: 1, compute: 2ms, "
                   "bytes: 3MiB, launch_cost: 1us}]"}),
              0)
        << m_log;
    EXPECT_NEAR(Summary()["jobs"][0]["steps"][0]["step_time_ns"].get<double>(),
                2e6 + RingOf4(192),
                kTolerance);
}

TEST_F(JobTimelineTest, CriticalPathOfASkewedStart)
{
    ASSERT_EQ(Run("job-star4.yaml",
                  "skewed",
                  {"workload.jobs.0.skew=[{rank: 2, at: 300us}]",
                   "workload.jobs.0.phases=[{name: fwd, type: compute, duration: 1ms}, "
                   "{name: ar, type: collective, bytes: 3MiB, launch_cost: 1us, after: [fwd]}, "
                   "{name: opt, type: update, duration: 500us, after: [ar]}]"}),
              0)
        << m_log;
    const nlohmann::json summary = Summary();
    const nlohmann::json& step = summary["jobs"][0]["steps"][0];
    EXPECT_NEAR(step["step_time_ns"].get<double>(), 0.3e6 + 1e6 + RingOf4(192) + 0.5e6, kTolerance);
    const nlohmann::json& path = step["critical_path"];
    ASSERT_EQ(path.size(), 3u) << path.dump();
    EXPECT_EQ(path[0]["phase"], "fwd");
    EXPECT_EQ(path[0]["rank"], 2);
    EXPECT_EQ(path[0]["ready_ns"], 300000);
    EXPECT_EQ(path[1]["phase"], "ar");
    EXPECT_EQ(path[1]["rank"], 2);
    EXPECT_EQ(path[2]["phase"], "opt");
    // The others computed on time and waited 0.3 ms for rank 2.
    EXPECT_EQ(Ns(Row("j", 0, "ar", 0), "waiting_ns"), 0.3e6);
    EXPECT_EQ(Ns(Row("j", 0, "ar", 2), "waiting_ns"), 0);
}

TEST_F(JobTimelineTest, TwoJobsSharingASpineUplink)
{
    // 768 KiB = n = 192 frames from a leaf0 host to a leaf1 host: three switches store the
    // last frame, its ACK crosses four links back. Alone:
    //   L + n D/R + 3 D/R + 8d + 4 A/R.
    // Shared: leaf0 -> spine0 carries both transfers' 2n frames back to back from the moment
    // the first ones arrive, so the later one ends at L + (2n + 3) D/R + 8d + 4 A/R and the
    // other one frame earlier.
    const double n = 192;
    const double alone = kLaunch + (n + 3) * kD + 8 * kCable + 4 * kA;
    const double shared = kLaunch + (2 * n + 3) * kD + 8 * kCable + 4 * kA;
    ASSERT_EQ(Run("job-shared-spine.yaml", "apart", {"workload.jobs.1.start=1ms"}), 0) << m_log;
    nlohmann::json s = Summary();
    EXPECT_NEAR(s["jobs"][0]["steps"][0]["step_time_ns"].get<double>(), alone, kTolerance);
    EXPECT_NEAR(s["jobs"][1]["steps"][0]["step_time_ns"].get<double>(), alone, kTolerance);
    EXPECT_EQ(s["jobs"][1]["steps"][0]["begin_ns"], 1000000);

    ASSERT_EQ(Run("job-shared-spine.yaml", "shared", {}), 0) << m_log;
    s = Summary();
    double a = s["jobs"][0]["steps"][0]["step_time_ns"].get<double>();
    double b = s["jobs"][1]["steps"][0]["step_time_ns"].get<double>();
    EXPECT_NEAR(std::max(a, b), shared, kTolerance);
    EXPECT_NEAR(std::min(a, b), shared - kD, kTolerance);
}

TEST_F(JobTimelineTest, PipelineStageWaitsForTheTransfer)
{
    // pp = 2 over 4 ranks: stage 0 = ranks 0, 1; stage 1 = ranks 2, 3; pp groups {0, 2} and
    // {1, 3}. One 768 KiB transfer (n = 192 frames) per group over the star, nothing else on
    // its links: L + (n + 1) D/R + 4d + 2 A/R (the switch stores the last frame; the ACK's two
    // links).
    ASSERT_EQ(Run("job-star4.yaml",
                  "pipeline",
                  {"workload.jobs.0.skew=[]",
                   "workload.jobs.0.layout={pp: 2}",
                   "workload.jobs.0.phases=[{name: f0, type: compute, duration: 1ms, stages: [0]}, "
                   "{name: send, type: p2p, group: pp, bytes: 768KiB, launch_cost: 1us, after: "
                   "[f0]}, {name: f1, type: compute, duration: 1ms, stages: [1], after: [send]}]"}),
              0)
        << m_log;
    const double T = kLaunch + 193 * kD + 4 * kCable + 2 * (62 + 24) * 8 / kRate * 1e9;
    const nlohmann::json summary = Summary();
    EXPECT_NEAR(summary["jobs"][0]["steps"][0]["step_time_ns"].get<double>(), 2e6 + T, kTolerance);
    for (uint32_t r : {2u, 3u})
    {
        EXPECT_EQ(Ns(Row("j", 0, "f0", r), "end_ns"), 0) << "stage 1 does not run f0";
        EXPECT_EQ(Ns(Row("j", 0, "send", r), "waiting_ns"), 1e6) << "waits for stage 0";
        EXPECT_NEAR(Ns(Row("j", 0, "f1", r), "start_ns"), 1e6 + T, kTolerance);
    }
    for (uint32_t r : {0u, 1u})
    {
        EXPECT_EQ(Ns(Row("j", 0, "f1", r), "end_ns"), Ns(Row("j", 0, "f1", r), "start_ns"));
    }
}

TEST_F(JobTimelineTest, LaunchOverheadBindsSmallReductions)
{
    // A ring of 8: 14 rounds of M/8. One 1 KiB frame per round at 400 Gbps: the frame (with its
    // 16 B RETH) is stored once by the switch, its ACK comes back over two links:
    //   round = α + 2 D1/R + 2 A/R + 4d,  D1 = 1024 + 58 + 16 + 24 B.
    constexpr double R = 400e9;
    const double d1 = (1024 + 58 + 16 + 24) * 8 / R * 1e9;
    const double ack = (62 + 24) * 8 / R * 1e9;
    auto step = [&](double alpha) { return 72 * 14 * (alpha + 2 * d1 + 2 * ack + 4 * kCable); };
    ASSERT_EQ(Run("job-launch-overhead.yaml", "alpha5", {}), 0) << m_log;
    nlohmann::json s = Summary();
    EXPECT_TRUE(s["job_collectives_correct"].get<bool>());
    EXPECT_EQ(s["job_collectives_checked"], 72);
    const double slow = s["jobs"][0]["steps"][0]["step_time_ns"].get<double>();
    EXPECT_NEAR(slow, step(5000), kTolerance);
    // The chapter's analytic value: 72 (14 α + 1.75 M/B) = 5.06 ms.
    EXPECT_NEAR(slow, 72 * (14 * 5000 + 1.75 * 8192 / 50e9 * 1e9), 0.02 * slow);
    ASSERT_EQ(
        Run("job-launch-overhead.yaml", "alpha2", {"workload.jobs.0.phases.0.launch_cost=2us"}),
        0)
        << m_log;
    const double fast = Summary()["jobs"][0]["steps"][0]["step_time_ns"].get<double>();
    EXPECT_NEAR(fast, step(2000), kTolerance);
    EXPECT_NEAR(slow - fast, 72 * 14 * 3000, kTolerance); // 3.0 ms saved
}

TEST_F(JobTimelineTest, BandwidthBindsLargeReductions)
{
    // One 8 MiB ring of 8: 14 rounds of n = 256 full frames, each host link also carrying the
    // ACKs of the flow it receives: round = α + n (D + A)/R + D/R + 4d.
    auto ring = [&](double rate) {
        const double D = (4096 + 58 + 24) * 8 / rate * 1e9;
        const double A = (62 + 24) * 8 / rate * 1e9;
        return 14 * (5000 + 256 * (D + A) + D + 4 * kCable);
    };
    const std::vector<std::string> one = {"workload.jobs.0.phases.0.count=1",
                                          "workload.jobs.0.phases.0.bytes=8MiB"};
    ASSERT_EQ(Run("job-launch-overhead.yaml", "b50", one), 0) << m_log;
    const double b50 = Summary()["jobs"][0]["steps"][0]["step_time_ns"].get<double>();
    EXPECT_NEAR(b50, ring(400e9), kTolerance);
    std::vector<std::string> faster = one;
    faster.push_back("topology.rate=1200Gbps");
    ASSERT_EQ(Run("job-launch-overhead.yaml", "b150", faster), 0) << m_log;
    const double b150 = Summary()["jobs"][0]["steps"][0]["step_time_ns"].get<double>();
    EXPECT_NEAR(b150, ring(1200e9), kTolerance);
    // Analytic 14 α + 1.75 M/B: 364 and 168 µs; the packet level adds the headers and ACKs
    // (4264 wire bytes per 4096 B of payload, +4.1% of the transfer) and per-round latency
    // (the last frame stored by the switch, four cables: under 0.2 µs a round).
    for (auto [measured, B] : {std::pair{b50, 50e9}, std::pair{b150, 150e9}})
    {
        const double analytic = 14 * 5000 + 1.75 * 8388608 / B * 1e9;
        EXPECT_GT(measured, analytic);
        EXPECT_LT(measured, analytic + 1.75 * 8388608 / B * 1e9 * 0.045 + 14 * 200);
    }
}

TEST_F(JobTimelineTest, BadJobSectionsNameTheKey)
{
    struct Case
    {
        std::string set;
        std::string key;
    };

    const std::vector<Case> cases = {
        {"workload.jobs.0.phases=[{name: x, type: sleep}]", "workload.jobs[0].phases[0].type"},
        {"workload.jobs.0.phases=[{name: x, type: compute, duration: 1ms, after: [y]}]",
         "workload.jobs[0].phases[0].after"},
        {"workload.jobs.0.layout={tp: 3}", "workload.jobs[0].layout"},
        {"workload.jobs.0.skew=[{rank: 9, at: 1ms}]", "workload.jobs[0].skew[0].rank"},
        {"workload.jobs.0.phases=[{name: x, type: p2p, bytes: 1MiB, to: 7}]",
         "workload.jobs[0].phases[0].to"},
        {"workload.jobs.0.ranks=9", "workload.jobs[0].ranks"},
        {"workload.jobs.0.phases=[{name: x, type: compute, duration: 1ms, stages: [1]}]",
         "workload.jobs[0].phases[0].stages"},
        {"workload.jobs.0.phases=[{name: x, type: collective, bytes: 1MiB, algorithm: sharp}]",
         "workload.jobs[0].phases[0].algorithm"},
    };
    for (const Case& c : cases)
    {
        SCOPED_TRACE(c.set);
        EXPECT_NE(Run("job-star4.yaml", "bad", {c.set}), 0);
        EXPECT_TRUE(ns3::test::Contains(m_log, "job-star4.yaml")) << m_log;
        EXPECT_TRUE(ns3::test::Contains(m_log, c.key)) << m_log;
    }
}

} // namespace
