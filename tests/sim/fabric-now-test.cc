// FabricNow() (FabricWheelScheduler::Now) must be Simulator::Now() everywhere a model may ask:
// inside events at any time (same-timestamp events, events beyond the wheel's span that wait
// in its overflow heap, events scheduled from events), before the first event, after the run,
// after the simulator moved its events to another scheduler, and after Simulator::Destroy.

#include "sim/fabric-now.h"

#include "ns3/map-scheduler.h"
#include "ns3/object-factory.h"
#include "ns3/simulator.h"

#include <gtest/gtest.h>
#include <utility>
#include <vector>

namespace ns3
{
namespace test
{
namespace
{

struct Clock
{
    std::vector<std::pair<Time, Time>> seen; ///< (FabricNow, Simulator::Now) in each event

    void Record()
    {
        seen.emplace_back(FabricNow(), Simulator::Now());
    }

    void RecordAndSchedule(Time delay)
    {
        Record();
        Simulator::Schedule(delay, &Clock::Record, this);
    }
};

void
ExpectAllEqual(const Clock& clock, size_t events)
{
    ASSERT_EQ(clock.seen.size(), events);
    for (const auto& [fabric, simulator] : clock.seen)
    {
        EXPECT_EQ(fabric, simulator);
    }
}

TEST(FabricNow, IsSimulatorNowInEveryEventAndAfterTheRun)
{
    Simulator::SetScheduler(ObjectFactory("ns3::FabricWheelScheduler"));
    EXPECT_EQ(FabricNow(), Simulator::Now());
    Clock clock;
    for (Time t : {NanoSeconds(0),
                   NanoSeconds(3),
                   NanoSeconds(3),
                   PicoSeconds(4097),
                   MicroSeconds(5),
                   MilliSeconds(2),
                   Seconds(1)}) // the last two beyond the wheel
    {
        Simulator::Schedule(t, &Clock::RecordAndSchedule, &clock, NanoSeconds(7));
    }
    Simulator::Run();
    ExpectAllEqual(clock, 14);
    EXPECT_EQ(clock.seen.back().first, Seconds(1) + NanoSeconds(7));
    EXPECT_EQ(FabricNow(), Simulator::Now());
    Simulator::Destroy();
    EXPECT_EQ(FabricNow(), Time(0)); // the destroyed scheduler no longer answers
    EXPECT_EQ(Simulator::Now(), Time(0));
    Simulator::Destroy();
}

TEST(FabricNow, FollowsTheSimulatorToAnotherScheduler)
{
    Simulator::SetScheduler(ObjectFactory("ns3::FabricWheelScheduler"));
    Clock clock;
    Simulator::Schedule(MicroSeconds(1), &Clock::Record, &clock);
    Simulator::Schedule(MicroSeconds(9), &Clock::Record, &clock);
    Simulator::Schedule(MicroSeconds(5), &Simulator::Stop);
    Simulator::Run();
    ASSERT_EQ(Simulator::Now(), MicroSeconds(5));
    // The wheel hands its last event to a map scheduler (RemoveNext) and is destroyed.
    Simulator::SetScheduler(ObjectFactory("ns3::MapScheduler"));
    EXPECT_EQ(FabricNow(), MicroSeconds(5));
    Simulator::Run();
    ExpectAllEqual(clock, 2);
    EXPECT_EQ(clock.seen.back().first, MicroSeconds(9));
    Simulator::Destroy();
}

} // namespace
} // namespace test
} // namespace ns3
