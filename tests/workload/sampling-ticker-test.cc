// SamplingTicker woken by an announced launch ticks at the same instants, and sees what the
// ticker that ticks throughout sees there, whichever of them runs first at the launch's tick:
// ticking, the tick at g is scheduled by the tick at g - interval, so a launch scheduled before
// that runs before it, one scheduled after runs after it. The launch here changes what a tick
// reads at once (as a SHARP member's first frame does) and schedules a change exactly one
// interval later (which tick sees it depends on whether the tick at g ran before the launch).

#include "../fabric-sim-util.h"
#include "record/fabric-idleness.h"
#include "record/sampling-ticker.h"

#include <gtest/gtest.h>
#include <vector>

namespace ns3
{
namespace test
{
namespace
{

struct Sample
{
    int64_t ns;
    int state;

    bool operator==(const Sample& o) const
    {
        return ns == o.ns && state == o.state;
    }
};

class SamplingTickerTest : public SimTest
{
  protected:
    /// A ticker every 1 us from 0 on an empty two-host star; \p announcer runs at \p announceAt
    /// (scheduled from an event at that time when \p chained: as a job phase that becomes ready
    /// when a compute phase ends) and announces a launch at \p launchAt. The launch sets the
    /// state to 1 (work in progress: the fabric is busy) and 1 us later to 2 (done).
    std::vector<Sample> Run(bool sleep, Time announceAt, Time launchAt, bool chained)
    {
        FabricNetwork net =
            FabricNetwork::Build(MakeStar(2, DataRate("400Gbps"), NanoSeconds(10)), 0, 0);
        FabricIdleness idleness(&net, {}, sleep);
        int state = 0;
        idleness.AddBusyCheck([&state]() { return state == 1; });
        std::vector<Sample> seen;
        SamplingTicker ticker(MicroSeconds(1), [&]() {
            seen.push_back(Sample{Simulator::Now().GetNanoSeconds(), state});
            return true;
        });
        ticker.SetIdleness(&idleness);
        ticker.Start(Time(0));
        auto launch = [&state]() {
            state = 1;
            Simulator::Schedule(MicroSeconds(1), [&state]() { state = 2; });
        };
        auto announce = [&, launch]() {
            idleness.Announce(launchAt);
            Simulator::Schedule(launchAt - Simulator::Now(), launch);
        };
        if (chained)
        {
            Simulator::Schedule(announceAt, [announce]() { Simulator::ScheduleNow(announce); });
        }
        else
        {
            Simulator::Schedule(announceAt, announce);
        }
        Simulator::Stop(MicroSeconds(20));
        Simulator::Run();
        Simulator::Destroy();
        return seen;
    }

    /// The sleeping ticker's samples: at 0, then at every tick from the first at or after the
    /// launch until it sees the work done, each equal to the ticking one's at that instant.
    void Check(Time announceAt, Time launchAt, bool chained, int atFirst, int atSecond)
    {
        std::vector<Sample> ticking = Run(false, announceAt, launchAt, chained);
        std::vector<Sample> sleeping = Run(true, announceAt, launchAt, chained);
        ASSERT_EQ(ticking.size(), 20u); // 0 .. 19 us
        const int64_t first = (launchAt.GetNanoSeconds() + 999) / 1000 * 1000;
        ASSERT_GE(sleeping.size(), 3u);
        ASSERT_LE(sleeping.size(), 4u); // at most one tick while the launch is pending
        EXPECT_EQ(sleeping[0].ns, 0);
        EXPECT_EQ(sleeping[1].ns, first);
        for (size_t i = 2; i < sleeping.size(); ++i)
        {
            EXPECT_EQ(sleeping[i].ns, sleeping[i - 1].ns + 1000);
        }
        EXPECT_EQ(sleeping.back().state, 2); // then asleep for good
        for (const Sample& s : sleeping)
        {
            EXPECT_TRUE(s == ticking[s.ns / 1000])
                << "at " << s.ns << " ns: " << s.state << " sleeping, "
                << ticking[s.ns / 1000].state << " ticking";
        }
        EXPECT_EQ(sleeping[1].state, atFirst);
        EXPECT_EQ(sleeping[2].state, atSecond);
    }
};

TEST_F(SamplingTickerTest, LaunchOnATickAnnouncedEarlierRunsBeforeTheTick)
{
    // Announced at 3.5 us for 10 us: ticking, the tick at 10 us is scheduled at 9 us, after the
    // launch; it sees the launch, and the tick at 11 us its change 1 us later.
    Check(NanoSeconds(3500), MicroSeconds(10), false, 1, 2);
}

TEST_F(SamplingTickerTest, LaunchOnATickAnnouncedWithinAnIntervalRunsAfterTheTick)
{
    // Announced at 9.5 us for 10 us: the tick at 10 us (scheduled at 9 us) runs first, and
    // schedules the tick at 11 us before the launch schedules its change: both see one step
    // less.
    Check(NanoSeconds(9500), MicroSeconds(10), false, 0, 1);
}

TEST_F(SamplingTickerTest, LaunchAnnouncedOnTheTickBeforeBySomethingThatBecameReadyThere)
{
    // Announced at 9 us by an event scheduled at 9 us (after the tick at 9 us was): ticking,
    // the tick at 9 us schedules the tick at 10 us before the launch is scheduled.
    Check(MicroSeconds(9), MicroSeconds(10), true, 0, 1);
}

TEST_F(SamplingTickerTest, LaunchBetweenTicks)
{
    // At 10.5 us: the tick at 11 us sees it, the tick at 12 us its change at 11.5 us.
    Check(NanoSeconds(3500), NanoSeconds(10500), false, 1, 2);
}

} // namespace
} // namespace test
} // namespace ns3
