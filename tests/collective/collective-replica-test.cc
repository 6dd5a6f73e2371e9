// A replica of the collective engine, as each rank of a distributed run holds one
// (docs/distributed.md): transfers simulated elsewhere arrive as announcements.
//   - an announced transfer completes at its announced end, not when the announcement arrives,
//     and its values reach the destination;
//   - an announcement that overtakes its inputs' announcements waits for them, but not for
//     inputs this replica will never hear of;
//   - a dependent launched here starts at input end + LaunchCost when the announcement arrives
//     within LaunchCost, and on arrival (counted late, by arrival - planned start) otherwise;
//   - only transfers completed on this process's network are announced.

#include "../fabric-sim-util.h"
#include "collective/collective-engine.h"
#include "host/flow-table.h"

#include <gtest/gtest.h>
#include <vector>

namespace ns3
{
namespace
{

/// SHARP stand-in: records when a rank's contribution was handed over and returns the
/// contribution itself as the reduced result 1 us later.
class RecordingSharp : public CollectiveSharpService
{
  public:
    void Send(uint16_t,
              uint32_t,
              uint32_t rank,
              uint64_t,
              const std::vector<float>& values,
              DoneCallback done,
              FailedCallback) override
    {
        sends.emplace_back(rank, Simulator::Now());
        Simulator::Schedule(MicroSeconds(1), [done, values]() { done(values); });
    }

    std::vector<std::pair<uint32_t, Time>> sends;
};

struct Announcement
{
    uint32_t id;
    Time start;
    Time end;
    std::vector<float> payload;
};

class CollectiveReplicaTest : public test::SimTest
{
  protected:
    static constexpr uint64_t kMessage = 3000; // 3 value elements per rank: 1000 B each

    /// Rank 0 -> rank 1 (bytes [0, 1000), a flow), then rank 1's SHARP reduction of the same
    /// range, which depends on it; ranks 0..2 on hosts 0..2.
    CollectivePlan TwoStepPlan()
    {
        CollectiveJob job;
        job.ranks = 3;
        job.gpusPerServer = 1;
        job.serverOfRank = {0, 1, 2};
        job.localOfRank = {0, 0, 0};
        job.messageBytes = kMessage;
        CollectivePlan plan(job);
        CollectiveTransfer write;
        write.src = 0;
        write.dst = 1;
        write.byteEnd = 1000;
        write.op = CollectiveOp::REDUCE;
        plan.Add(write);
        CollectiveTransfer sharp;
        sharp.src = sharp.dst = 1;
        sharp.byteEnd = 1000;
        sharp.op = CollectiveOp::COPY;
        sharp.sharp = true;
        sharp.step = 1;
        sharp.deps = {0};
        plan.Add(sharp);
        return plan;
    }

    Ptr<CollectiveEngine> Replica(const CollectivePlan& plan,
                                  std::vector<bool> local,
                                  std::vector<bool> known = {})
    {
        Set("ns3::CollectiveEngine::ValueElements", "3");
        Set("ns3::CollectiveEngine::LaunchCost", "830ns");
        table = CreateObject<FlowTable>();
        sharp = CreateObject<RecordingSharp>();
        Ptr<CollectiveEngine> engine = CreateObject<CollectiveEngine>();
        // No transport: nothing launched here may be a flow.
        engine->Configure(table, std::vector<Ptr<HostTransport>>(3), {0, 1, 2}, 1);
        engine->SetPlan(plan);
        engine->SetSharpService(sharp);
        engine->SetLocalRanks(std::move(local));
        engine->SetKnownTransfers(std::move(known));
        engine->SetAnnounceCallback(MakeCallback(&CollectiveReplicaTest::Announced, this));
        engine->Start();
        return engine;
    }

    /// Transfer 0 (rank 0 -> 1, from 1 to 4 us, carrying 7) announced to this replica at
    /// \p arrival.
    static void ReplayWriteAt(Ptr<CollectiveEngine> engine, Time arrival)
    {
        Simulator::Schedule(arrival, [engine]() {
            engine->ApplyRemoteCompletion(0, MicroSeconds(1), MicroSeconds(4), {7.0f});
        });
    }

    static void RunFor20us()
    {
        Simulator::Stop(MicroSeconds(20));
        Simulator::Run();
    }

    void Announced(uint32_t id, Time start, Time end, const std::vector<float>& payload)
    {
        announced.push_back({id, start, end, payload});
    }

    Ptr<FlowTable> table;
    Ptr<RecordingSharp> sharp;
    std::vector<Announcement> announced;
};

TEST_F(CollectiveReplicaTest, AnnouncedTransferCompletesAtItsEndWithItsValues)
{
    Ptr<CollectiveEngine> engine = Replica(TwoStepPlan(), {false, false, false});
    // Rank 0's contribution for element 0 is InitialValue(0, 0) = 1; rank 1 holds 2.
    ReplayWriteAt(engine, MicroSeconds(5));
    RunFor20us();
    const auto& s = engine->States();
    ASSERT_TRUE(s[0].done);
    EXPECT_EQ(s[0].start, MicroSeconds(1));
    EXPECT_EQ(s[0].end, MicroSeconds(4)); // not 5 us, when the announcement arrived
    EXPECT_EQ(engine->Values(1)[0], 2.0f + 7.0f);
    EXPECT_EQ(engine->Values(1)[1], CollectiveEngine::InitialValue(1, 1)); // outside the range
    // The dependent's source (rank 1) is not simulated here: nothing launched, nothing
    // announced, and the flow of transfer 0 never posted on this replica.
    EXPECT_TRUE(sharp->sends.empty());
    EXPECT_FALSE(s[1].done);
    EXPECT_TRUE(announced.empty());
    EXPECT_EQ(table->Get(static_cast<uint32_t>(s[0].flow)).start, Time::Max());
}

TEST_F(CollectiveReplicaTest, AnnouncementOvertakingItsInputWaitsForIt)
{
    Ptr<CollectiveEngine> engine = Replica(TwoStepPlan(), {false, false, false});
    Simulator::Schedule(MicroSeconds(6), [&]() {
        engine->ApplyRemoteCompletion(1, MicroSeconds(5), MicroSeconds(6), {42.0f});
    });
    ReplayWriteAt(engine, MicroSeconds(7));
    RunFor20us();
    const auto& s = engine->States();
    ASSERT_TRUE(engine->IsComplete());
    EXPECT_EQ(s[1].end, MicroSeconds(6));
    EXPECT_EQ(s[1].binding, 0);             // its start waited for transfer 0
    EXPECT_EQ(engine->Values(1)[0], 42.0f); // COPY of the reduced result after the REDUCE
    EXPECT_EQ(engine->CompletionTime(), MicroSeconds(6));
}

TEST_F(CollectiveReplicaTest, ReplicaWaitsOnlyForInputsItWillHearOf)
{
    // Transfer 0 is not announced to this replica (no dependent of it is launched here), so
    // transfer 1's announcement completes it at once; with transfer 0 known it would wait.
    Ptr<CollectiveEngine> engine = Replica(TwoStepPlan(), {false, false, false}, {false, true});
    Simulator::Schedule(MicroSeconds(6), [engine]() {
        engine->ApplyRemoteCompletion(1, MicroSeconds(5), MicroSeconds(6), {42.0f});
    });
    RunFor20us();
    const auto& s = engine->States();
    EXPECT_FALSE(s[0].done);
    ASSERT_TRUE(s[1].done);
    EXPECT_EQ(s[1].end, MicroSeconds(6));
    EXPECT_EQ(engine->Values(1)[0], 42.0f);
}

TEST_F(CollectiveReplicaTest, DependentStartsAtInputEndPlusLaunchCostWhenNoticeIsInTime)
{
    Ptr<CollectiveEngine> engine = Replica(TwoStepPlan(), {false, true, false});
    // Announcement 500 ns after the end: within the 830 ns launch cost.
    ReplayWriteAt(engine, NanoSeconds(4500));
    RunFor20us();
    ASSERT_EQ(sharp->sends.size(), 1u);
    EXPECT_EQ(sharp->sends[0].first, 1u);
    EXPECT_EQ(sharp->sends[0].second, NanoSeconds(4830));
    EXPECT_EQ(engine->GetLateLaunches(), 0u);
    // Rank 1's reduction completed here, so it is announced with its times and values; the
    // replayed transfer 0 is not.
    ASSERT_EQ(announced.size(), 1u);
    EXPECT_EQ(announced[0].id, 1u);
    EXPECT_EQ(announced[0].start, NanoSeconds(4830));
    EXPECT_EQ(announced[0].end, NanoSeconds(5830));
    EXPECT_EQ(announced[0].payload, std::vector<float>({9.0f})); // rank 1's 2 + the 7 received
}

TEST_F(CollectiveReplicaTest, LateNoticeLaunchesOnArrivalAndIsCounted)
{
    Ptr<CollectiveEngine> engine = Replica(TwoStepPlan(), {false, true, false});
    // Announcement 2 us after the end: the planned start, 4.83 us, has passed.
    ReplayWriteAt(engine, MicroSeconds(6));
    RunFor20us();
    ASSERT_EQ(sharp->sends.size(), 1u);
    EXPECT_EQ(sharp->sends[0].second, MicroSeconds(6));
    EXPECT_EQ(engine->GetLateLaunches(), 1u);
    EXPECT_EQ(engine->GetLateLaunchTime(), NanoSeconds(6000 - 4830));
    EXPECT_EQ(engine->States()[1].start, MicroSeconds(6));
}

} // namespace
} // namespace ns3
