// Expert-parallel all-to-all and pipeline stage transfers as job phases (model/job,
// docs/models.md#job-timelines), run end to end through fabric-run and checked against times
// derived by hand ("Datacenter networks", chapter 7, §7.2.2 and §7.2.3):
//   - all_to_all into one receiver is bound by that receiver's link: every byte crosses it;
//   - its transpose (combine from one sender) by the sender's link, the same time;
//   - a full all-to-all of four: each link carries three flows' frames plus the ACKs of three;
//   - ranks that neither send nor receive pass through;
//   - four pipeline stages of 1 ms, eight microbatches, 8 KiB between stages at 50 GB/s with
//     a 5 µs launch (examples/job-pipeline.yaml): (m + p - 1) τ + (p - 1) T_msg;
//   - bad all_to_all keys name file, line and key.
//
// Star of tests/data/scenarios/job-star4.yaml (tests/job/job-run-fixture.h): a transfer of n
// full frames whose last frame is stored by the switch and acknowledged over two links takes
// L + (n + 1) D/R + 4d + 2 A/R (tests/job/job-timeline-test.cc, PipelineStageWaitsForTheTransfer).

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
using ns3::test::kTolerance;

using JobExpertPipelineTest = ns3::test::JobRunFixture;

/// n frames through one link of the star, last one stored, ACK back over two links.
double
ThroughOneLink(double frames)
{
    return kLaunch + (frames + 1) * kD + 4 * kCable + 2 * kA;
}

std::string
AllToAll(const std::string& senders, const std::string& receivers, const std::string& bytes)
{
    std::string phase = "workload.jobs.0.phases=[{name: a2a, type: all_to_all, bytes: " + bytes +
                        ", launch_cost: 1us";
    if (!senders.empty())
    {
        phase += ", senders: " + senders;
    }
    if (!receivers.empty())
    {
        phase += ", receivers: " + receivers;
    }
    return phase + "}]";
}

TEST_F(JobExpertPipelineTest, DispatchToOneReceiverIsBoundByItsLink)
{
    // Three senders x 256 KiB (64 frames) into rank 3: its link carries 192 frames; the ACKs
    // go back over the senders' links.
    ASSERT_EQ(Run("job-star4.yaml",
                  "hot",
                  {"workload.jobs.0.skew=[]", AllToAll("[0, 1, 2]", "[3]", "256KiB")}),
              0)
        << m_log;
    const double T = Summary()["jobs"][0]["steps"][0]["step_time_ns"].get<double>();
    EXPECT_NEAR(T, ThroughOneLink(192), kTolerance);
    for (uint32_t r = 0; r < 4; ++r)
    {
        EXPECT_EQ(Ns(Row("j", 0, "a2a", r), "bytes"), 262144) << "every rank takes part";
        EXPECT_EQ(Ns(Row("j", 0, "a2a", r), "waiting_ns"), 0);
    }
}

TEST_F(JobExpertPipelineTest, CombineFromOneSenderIsBoundByItsLink)
{
    // The transpose: rank 3 sends 64 frames to each of the others, 192 back to back on its
    // uplink, each stored once by the switch.
    ASSERT_EQ(Run("job-star4.yaml",
                  "hot-sender",
                  {"workload.jobs.0.skew=[]", AllToAll("[3]", "[0, 1, 2]", "256KiB")}),
              0)
        << m_log;
    const double T = Summary()["jobs"][0]["steps"][0]["step_time_ns"].get<double>();
    EXPECT_NEAR(T, ThroughOneLink(192), kTolerance);
}

TEST_F(JobExpertPipelineTest, FullAllToAllLoadsEveryLinkAlike)
{
    // Every rank sends 64 frames to each of the three others: each host link carries 192 data
    // frames one way and the 192 ACKs of the flows it sends the same way, so no exchange ends
    // before a ring round of n = 192 frames: L + n (D + A)/R + D/R + 4d. The four senders run
    // in step and the three flows into a host end together: their last frames meet at the
    // switch and leave one after another, at most three frames later.
    ASSERT_EQ(
        Run("job-star4.yaml", "full", {"workload.jobs.0.skew=[]", AllToAll("", "", "256KiB")}),
        0)
        << m_log;
    const double T = Summary()["jobs"][0]["steps"][0]["step_time_ns"].get<double>();
    const double linkBound = kLaunch + 192 * (kD + kA) + kD + 4 * kCable;
    EXPECT_GE(T, linkBound - kTolerance);
    EXPECT_LE(T, linkBound + 3 * kD + kTolerance);
}

TEST_F(JobExpertPipelineTest, RanksOutsideTheExchangePassThrough)
{
    ASSERT_EQ(Run("job-star4.yaml",
                  "pass",
                  {"workload.jobs.0.skew=[{rank: 3, at: 2ms}]", AllToAll("[0]", "[1]", "256KiB")}),
              0)
        << m_log;
    // Rank 3's 2 ms readiness does not hold up the exchange between ranks 0 and 1.
    EXPECT_NEAR(Ns(Row("j", 0, "a2a", 1), "end_ns"), ThroughOneLink(64), kTolerance);
    for (uint32_t r : {2u, 3u})
    {
        EXPECT_EQ(Ns(Row("j", 0, "a2a", r), "bytes"), 0);
        EXPECT_EQ(Ns(Row("j", 0, "a2a", r), "end_ns"), Ns(Row("j", 0, "a2a", r), "ready_ns"));
    }
    EXPECT_EQ(Ns(Row("j", 0, "a2a", 3), "ready_ns"), 2e6);
}

TEST_F(JobExpertPipelineTest, PipelineOfFourStagesAndEightMicrobatches)
{
    // 400 Gbps: one 8 KiB transfer is two full frames, T_msg = α + 3 D/R + 4d + 2 A/R with
    // α = 5 µs. Microbatch 0 reaches stage 3 after three stages and three transfers; stage 3
    // then computes the other seven back to back: (8 + 4 - 1) ms + 3 T_msg.
    constexpr double R = 400e9;
    const double d = (4096 + 58 + 24) * 8 / R * 1e9;
    const double a = (62 + 24) * 8 / R * 1e9;
    const double msg = 5000 + 3 * d + 4 * kCable + 2 * a;
    EXPECT_NEAR(msg, 5000 + 8192 / 50e9 * 1e9, 200) << "the chapter's T_msg = α + M/B";
    ASSERT_EQ(RunScenario("examples/job-pipeline.yaml", "pipeline", {}), 0) << m_log;
    const double T = Summary()["jobs"][0]["steps"][0]["step_time_ns"].get<double>();
    EXPECT_NEAR(T, 11e6 + 3 * msg, kTolerance);
    // Stage 0 never waits; stage s starts microbatch k at (k + s) ms + s T_msg.
    for (uint32_t k : {0u, 3u, 7u})
    {
        for (uint32_t s = 0; s < 4; ++s)
        {
            const std::string f = "f" + std::to_string(k) + ".s" + std::to_string(s);
            EXPECT_NEAR(Ns(Row("pipeline", 0, f, s), "start_ns"),
                        (k + s) * 1e6 + s * msg,
                        kTolerance)
                << f;
        }
    }
}

TEST_F(JobExpertPipelineTest, BadAllToAllKeysNameTheKey)
{
    struct Case
    {
        std::string set;
        std::string key;
    };

    const std::vector<Case> cases = {
        {AllToAll("[0]", "[9]", "1MiB"), "workload.jobs[0].phases[0].receivers"},
        {AllToAll("[0, 0]", "[1]", "1MiB"), "workload.jobs[0].phases[0].senders"},
        {AllToAll("[2]", "[2]", "1MiB"), "workload.jobs[0].phases[0].receivers"},
        {AllToAll("[0]", "[1]", "0B"), "workload.jobs[0].phases[0].bytes"},
        {AllToAll("[]", "[1]", "1MiB"), "workload.jobs[0].phases[0].senders"},
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
