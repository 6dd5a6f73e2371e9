// Late communications and failures inside a job's steps (model/job,
// docs/models.md#job-timelines), run end to end through fabric-run and checked against times
// derived by hand ("Datacenter networks", chapter 7, §7.6.3, tails):
//   - examples/job-tails.yaml: 100 steps of one ~0.4 ms ring exchange of four ranks; rank 3 is
//     2 ms late in step 17 only (a skew with `step`); host h2's link is down from 10 to 20 ms.
//     98 steps take the exchange, step 17 takes 2 ms more, the step the link fails in takes
//     the 10 ms outage more (and at most one retransmission timeout after the link is back);
//     p99 is the late one (2.4 ms), with two outages a recovery (10.4 ms);
//   - a link that fails mid-step and comes back stretches that step by its outage, and the
//     critical path names the exchange;
//   - a link that never comes back leaves the job unfinished: fabric-run says so, non-zero;
//   - a rank whose NIC has failed sends through a neighbour's NIC: one NVLink hop more;
//   - a skew's step out of range, a relay on another server, name file, line and key.
// Ring times: tests/job/job-timeline-test.cc (RingOf4 in tests/job/job-run-fixture.h).

#include "job-run-fixture.h"

#include <algorithm>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace
{

using ns3::test::kTolerance;
using ns3::test::RingOf4;

using JobFailureTest = ns3::test::JobRunFixture;

constexpr double kRtoHigh = 320e3; // ns: ns3::RdmaNic::RtoHigh, the senders' timeout

std::vector<double>
StepTimes(const nlohmann::json& summary)
{
    std::vector<double> out;
    for (const auto& s : summary["jobs"][0]["steps"])
    {
        out.push_back(s["step_time_ns"].get<double>());
    }
    return out;
}

/// The chapter's p99 of 100: the 99th in ascending order.
double
P99(std::vector<double> v)
{
    std::sort(v.begin(), v.end());
    return v.at(98);
}

TEST_F(JobFailureTest, OneLateAndOneRecoveredAmongAHundred)
{
    ASSERT_EQ(RunScenario("examples/job-tails.yaml", "tails", {}), 0) << m_log;
    const std::vector<double> t = StepTimes(Summary());
    ASSERT_EQ(t.size(), 100u);
    const double normal = RingOf4(192);
    uint32_t normals = 0;
    for (uint32_t s = 0; s < t.size(); ++s)
    {
        if (s == 17)
        {
            EXPECT_NEAR(t[s], 2e6 + normal, kTolerance) << "the late step";
        }
        else if (t[s] > 1e6)
        {
            // The outage [10, 20] ms lies inside this step: the exchange resumes at a timeout
            // after 20 ms.
            EXPECT_GE(t[s], 10e6 + normal - kTolerance) << "step " << s;
            EXPECT_LE(t[s], 10e6 + 2 * normal + kRtoHigh) << "step " << s;
        }
        else
        {
            EXPECT_NEAR(t[s], normal, kTolerance) << "step " << s;
            ++normals;
        }
    }
    EXPECT_EQ(normals, 98u);
    EXPECT_NEAR(P99(t), 2e6 + normal, kTolerance); // chapter: 2.4 ms
    // The halved exchange (96 frames a round): p99 2.2 ms.
    ASSERT_EQ(
        RunScenario("examples/job-tails.yaml", "halved", {"workload.jobs.0.phases.0.bytes=1.5MiB"}),
        0)
        << m_log;
    EXPECT_NEAR(P99(StepTimes(Summary())), 2e6 + RingOf4(96), kTolerance);
    // A second outage of 10 ms: the p99 is a recovery.
    ASSERT_EQ(RunScenario("examples/job-tails.yaml",
                          "two",
                          {"events=[{at: 10ms, link_down: [h2, sw0]}, {at: 20ms, link_up: [h2, "
                           "sw0]}, {at: 25ms, link_down: [h1, sw0]}, {at: 35ms, link_up: [h1, "
                           "sw0]}]"}),
              0)
        << m_log;
    const double p99 = P99(StepTimes(Summary()));
    EXPECT_GE(p99, 10e6 + normal - kTolerance);
    EXPECT_LE(p99, 10e6 + 2 * normal + kRtoHigh);
}

TEST_F(JobFailureTest, LinkDownMidStepStretchesTheStep)
{
    // All ranks ready at 0; h2's link fails 0.2 ms into the 0.4 ms exchange for 1 ms.
    ASSERT_EQ(Run("job-star4.yaml",
                  "mid-step",
                  {"workload.jobs.0.skew=[]",
                   "events=[{at: 200us, link_down: [h2, sw0]}, {at: 1200us, link_up: [h2, sw0]}]"}),
              0)
        << m_log;
    const nlohmann::json step = Summary()["jobs"][0]["steps"][0];
    const double T = step["step_time_ns"].get<double>();
    EXPECT_GE(T, 1e6 + RingOf4(192) - kTolerance);
    EXPECT_LE(T, 1e6 + 2 * RingOf4(192) + kRtoHigh);
    EXPECT_EQ(step["exposed_communication_ns"].get<double>(), T) << "nothing to overlap with";
    ASSERT_EQ(step["critical_path"].size(), 1u);
}

TEST_F(JobFailureTest, LinkThatNeverReturnsLeavesTheJobUnfinished)
{
    EXPECT_NE(Run("job-star4.yaml",
                  "down",
                  {"workload.jobs.0.skew=[]",
                   "events=[{at: 200us, link_down: [h2, sw0]}]",
                   "stop_time=5ms"}),
              0);
    EXPECT_TRUE(ns3::test::Contains(m_log, "did not finish every step")) << m_log;
    EXPECT_FALSE(Summary()["jobs_complete"].get<bool>());
}

TEST_F(JobFailureTest, FailedNicRelaysThroughANeighbour)
{
    // The rail cluster (examples/job-expert-parallel.yaml): 400 Gbps NICs on 3 m cables
    // (15 ns), NVLink 450 GB/s. Rank 1 -> rank 9, 4 MiB = 1024 frames (the first with its
    // 16 B RETH), both on rail 1's leaf: (n + 1) D/R + 4d + 2 A/R.
    constexpr double R = 400e9;
    const double D = (4096 + 58 + 24) * 8 / R * 1e9;
    const double A = (62 + 24) * 8 / R * 1e9;
    const double direct = 1025 * D + 4 * 15 + 2 * A;
    const std::string p2p = "workload.jobs.0.phases=[{name: x, type: p2p, group: all, from: 1, "
                            "to: 9, bytes: 4MiB, launch_cost: 0us}]";
    ASSERT_EQ(RunScenario("examples/job-expert-parallel.yaml", "direct", {p2p}), 0) << m_log;
    const double t0 = Summary()["jobs"][0]["steps"][0]["step_time_ns"].get<double>();
    EXPECT_NEAR(t0, direct, kTolerance);
    // Rank 1's NIC failed: the bytes go over NVLink to rank 0 (1025 frames at 3600 Gbit/s, each
    // whole transfer stored before the next hop), then from rank 0's NIC on rail 0 through a
    // spine to rail 1: two more switches and four more 30 m cables on the way and back.
    ASSERT_EQ(RunScenario("examples/job-expert-parallel.yaml",
                          "relay",
                          {p2p, "workload.jobs.0.nic_failures=[{rank: 1, helpers: [0]}]"}),
              0)
        << m_log;
    const nlohmann::json s = Summary();
    EXPECT_TRUE(s["jobs_complete"].get<bool>());
    const double t1 = s["jobs"][0]["steps"][0]["step_time_ns"].get<double>();
    const double nvlink = 1025 * (4096 + 58 + 24) * 8 / 3600e9 * 1e9;
    const double detour = 2 * D + 4 * 150 + 2 * A;
    EXPECT_GE(t1 - t0, nvlink);
    EXPECT_LE(t1 - t0, nvlink + detour + 200);
}

TEST_F(JobFailureTest, SkewStepOutOfRangeNamesTheKey)
{
    EXPECT_NE(Run("job-star4.yaml", "bad", {"workload.jobs.0.skew=[{rank: 3, at: 2ms, step: 1}]"}),
              0);
    EXPECT_TRUE(ns3::test::Contains(m_log, "job-star4.yaml")) << m_log;
    EXPECT_TRUE(ns3::test::Contains(m_log, "workload.jobs[0].skew[0].step")) << m_log;
    EXPECT_NE(RunScenario("examples/job-expert-parallel.yaml",
                          "bad-helper",
                          {"workload.jobs.0.nic_failures=[{rank: 1, helpers: [9]}]"}),
              0);
    EXPECT_TRUE(ns3::test::Contains(m_log, "workload.jobs[0].nic_failures[0].helpers")) << m_log;
}

} // namespace
