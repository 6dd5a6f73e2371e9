// A healthy GPU sending through its own NIC and neighbours' NICs over NVLink (FuseLink-style,
// "Datacenter networks", chapter 7, §7.2.4, figure 7-13; a job's nic_relays,
// docs/models.md#rail-alignment), end to end through fabric-run on the rail cluster of
// examples/job-expert-parallel.yaml (400 Gbit/s NICs on 3 m cables, NVLink 3600 Gbit/s).
// Rank 0 sends 12 MiB (3072 frames) to rank 8. B_eff = min(B_D, 50 + min(450, 100)) GB/s:
//   - direct: (n + 1)·D/R + 4d + 2A/R, every frame through rank 0's NIC;
//   - over NICs 0, 1, 2 into NICs 8, 9, 10 (B_D = 150 GB/s): each NIC carries a third, 1024
//     frames, plus the pipeline's fill and drain (the first chunk's NVLink hop, the last one's)
//     — about three times faster;
//   - the relayed shares whole instead of in chunks: the NVLink hops no longer overlap the NIC
//     hops;
//   - over the same three NICs into rank 8's NIC alone (B_D = 50 GB/s): every frame still
//     enters rank 8's link, nothing gained.
// Bad input names the key: a helper on the other server, zero chunks.

#include "job-run-fixture.h"

#include <gtest/gtest.h>
#include <string>

namespace
{

using JobNicRelayTest = ns3::test::JobRunFixture;

constexpr double kR = 400e9;
const double kD = (4096 + 58 + 24) * 8 / kR * 1e9;      // ns: a data frame on a NIC link
const double kA = (62 + 24) * 8 / kR * 1e9;             // ns: an ACK
const double kNv = (4096 + 58 + 24) * 8 / 3600e9 * 1e9; // ns: a data frame on NVLink
const std::string kSend = "workload.jobs.0.phases=[{name: x, type: p2p, group: all, from: 0, "
                          "to: 8, bytes: 12MiB, launch_cost: 0us}]";
const std::string kRelays = "workload.jobs.0.nic_relays=";

TEST_F(JobNicRelayTest, ThreeNicsIntoThreeNicsAreThreeTimesFaster)
{
    ASSERT_EQ(RunScenario("examples/job-expert-parallel.yaml", "direct", {kSend}), 0) << m_log;
    const double direct = Summary()["jobs"][0]["steps"][0]["step_time_ns"].get<double>();
    EXPECT_NEAR(direct, 3073 * kD + 4 * 15 + 2 * kA, ns3::test::kTolerance);

    ASSERT_EQ(RunScenario("examples/job-expert-parallel.yaml",
                          "relay150",
                          {kSend,
                           kRelays + "[{rank: 0, helpers: [0, 1, 2], chunks: 8}, "
                                     "{rank: 8, helpers: [8, 9, 10]}]"}),
              0)
        << m_log;
    const double fast = Summary()["jobs"][0]["steps"][0]["step_time_ns"].get<double>();
    // A third of the frames through each NIC is the floor. The relayed thirds move in 8 chunks
    // of 128 frames: the first two chunks share rank 0's NVLink port before any NIC hop of a
    // relayed piece, the last two share rank 8's after (fill and drain); a chunk's NIC hop
    // starts when the previous one has its last ACK (one transfer tail per chunk); the NVLink
    // hops have their own tails (two NVLink links, 10 ns cables).
    const double tail = kD + 4 * 15 + 2 * kA;
    const double nvTail = kNv + 4 * 10 + 2 * kA / 9;
    EXPECT_GE(fast, 1024 * kD);
    EXPECT_LE(fast, 1024 * kD + 2 * (2 * 128 * kNv) + 8 * tail + 2 * nvTail + 200);
    EXPECT_GT(direct / fast, 2.7); // 3 without the fill and drain (5 % of this short transfer)

    // The relayed shares whole (chunks: 1): each waits for all of its NVLink hop (the two
    // shares share rank 0's NVLink port, 2048 frames) before its NIC hop, and the receiving
    // side's NVLink hop waits for all of the NIC hop.
    ASSERT_EQ(RunScenario("examples/job-expert-parallel.yaml",
                          "relay150-whole",
                          {kSend,
                           kRelays + "[{rank: 0, helpers: [0, 1, 2]}, "
                                     "{rank: 8, helpers: [8, 9, 10]}]"}),
              0)
        << m_log;
    const double whole = Summary()["jobs"][0]["steps"][0]["step_time_ns"].get<double>();
    EXPECT_GE(whole, 2 * 2048 * kNv + 1024 * kD);
    EXPECT_GT(whole, fast + 2048 * kNv);

    ASSERT_EQ(RunScenario("examples/job-expert-parallel.yaml",
                          "relay50",
                          {kSend, kRelays + "[{rank: 0, helpers: [0, 1, 2], chunks: 8}]"}),
              0)
        << m_log;
    const double slow = Summary()["jobs"][0]["steps"][0]["step_time_ns"].get<double>();
    // Every frame enters rank 8's one link: B_D = 50 GB/s, the relay gains nothing.
    EXPECT_GE(slow, 3072 * kD);
    EXPECT_NEAR(slow, direct, 0.01 * direct);
}

TEST_F(JobNicRelayTest, BadRelaysNameTheKey)
{
    EXPECT_NE(RunScenario("examples/job-expert-parallel.yaml",
                          "bad-helper",
                          {kRelays + "[{rank: 0, helpers: [0, 9]}]"}),
              0);
    EXPECT_TRUE(ns3::test::Contains(m_log, "workload.jobs[0].nic_relays[0].helpers")) << m_log;
    EXPECT_NE(RunScenario("examples/job-expert-parallel.yaml",
                          "bad-chunks",
                          {kRelays + "[{rank: 0, helpers: [0, 1], chunks: 0}]"}),
              0);
    EXPECT_TRUE(ns3::test::Contains(m_log, "workload.jobs[0].nic_relays[0].chunks")) << m_log;
    EXPECT_NE(RunScenario("examples/job-expert-parallel.yaml",
                          "bad-shares",
                          {kRelays + "[{rank: 0, helpers: [0, 1], shares: [0.5, 0.6]}]"}),
              0);
    EXPECT_TRUE(ns3::test::Contains(m_log, "workload.jobs[0].nic_relays[0].shares")) << m_log;
}

} // namespace
