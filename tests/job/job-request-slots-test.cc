// A job's transfer as requests through the NIC's request slots (phase key request_size;
// docs/models.md#job-timelines, "Datacenter networks", chapter 7, §7.6.2 with §7.3.4), on the
// 100 Gbps star of tests/data/scenarios/job-star4.yaml (each host its own server), derived by
// hand:
//
//   one 256 B request: a WRITE-only frame of 256 + 58 + 16 (RETH) + 24 B = 354 B, 28.32 ns, its
//   ACK 86 B, 6.88 ns; stored once by the switch, acknowledged over two links, 2 m cables
//   (10 ns): T1 = 2 × 28.32 + 2 × 6.88 + 4 × 10 = 110.4 ns;
//
//   a p2p of 64 KiB as K = 256 requests of 256 B, N = 16 slots, launches δ = 40 ns apart
//   (longer than a frame), completions polled every P = 2 µs (a slot is free at the poll after
//   its completion): batches of N at 0, P, 2P, ..., each done (N − 1)·δ + T1 = 710.4 ns after it
//   starts, so the transfer takes (K/N − 1)·P + (N − 1)·δ + T1 = 30 000 + 600 + 110.4 ns.

#include "job-run-fixture.h"

namespace ns3::test
{
namespace
{

using JobRequestSlotsTest = JobRunFixture;

const std::vector<std::string> kSlots = {
    "workload.jobs.0.skew=[]",
    "roce.max_inflight_requests=16",
    "roce.completion_poll_interval=2us",
    "roce.completion_poll_batch=16",
    "roce.request_interval=40ns",
};

std::vector<std::string>
WithP2p(const std::string& requestSize)
{
    std::vector<std::string> sets = kSlots;
    sets.push_back("workload.jobs.0.phases=[{name: send, type: p2p, bytes: 64KiB, launch_cost: "
                   "0us, request_size: " +
                   requestSize + "}]");
    return sets;
}

TEST_F(JobRequestSlotsTest, P2pOfSmallRequestsTurnsTheSlotsAroundAtEachPoll)
{
    ASSERT_EQ(Run("job-star4.yaml", "slots", WithP2p("256B")), 0) << m_log;
    const double took =
        Ns(Row("j", 0, "send", 0), "end_ns") - Ns(Row("j", 0, "send", 0), "start_ns");
    const double T1 = 2 * 354 * 8 / kRate * 1e9 + 2 * 86 * 8 / kRate * 1e9 + 4 * kCable;
    EXPECT_NEAR(T1, 110.4, 1e-9);
    EXPECT_NEAR(took, (256 / 16 - 1) * 2000 + 15 * 40 + T1, 1.0); // job.csv: whole ns
    EXPECT_EQ(Summary()["flows_total"], 256);
}

TEST_F(JobRequestSlotsTest, WholeMessageWithoutRequestSize)
{
    // 0B: one message of 16 frames, one slot, no poll in its way: 17 frames' serialization
    // (the switch stores the last), 4 cables, two ACKs.
    ASSERT_EQ(Run("job-star4.yaml", "whole", WithP2p("0B")), 0) << m_log;
    const double took =
        Ns(Row("j", 0, "send", 0), "end_ns") - Ns(Row("j", 0, "send", 0), "start_ns");
    EXPECT_NEAR(took, 17 * kD + 4 * kCable + 2 * kA, 1.0 + 16 * 8 / kRate * 1e9);
    EXPECT_EQ(Summary()["flows_total"], 1);
}

TEST_F(JobRequestSlotsTest, RequestSizeBeyondFourGiBIsAnErrorNamingTheKey)
{
    EXPECT_NE(Run("job-star4.yaml", "bad", WithP2p("5GiB")), 0);
    EXPECT_TRUE(Contains(m_log, "job-star4.yaml")) << m_log;
    EXPECT_TRUE(Contains(m_log, "workload.jobs[0].phases[0].request_size")) << m_log;
}

} // namespace
} // namespace ns3::test
