// Adaptive routing (model/switch/adaptive-load-balancer.h): the least-queued uplink that is not
// paused at the frame's priority; a paused uplink only when all are.

#include "switch/adaptive-load-balancer.h"
#include "uplink-state.h"

#include <set>

namespace ns3
{
namespace test
{
namespace
{

class Adaptive : public SimTest
{
  protected:
    void SetUp() override
    {
        SimTest::SetUp();
        Set("ns3::FabricSwitch::LoadBalancer", "ns3::AdaptiveLoadBalancer");
    }
};

TEST_F(Adaptive, AvoidsAPausedAndALoadedUplink)
{
    UplinkFabric fabric(8);
    ASSERT_EQ(fabric.uplinks.size(), 4u);
    fabric.Pause(0); // paused, empty
    fabric.Pause(1); // loaded below (the pause keeps its frames queued)
    std::vector<uint32_t> chosen;
    Simulator::Schedule(MicroSeconds(10), [&] {
        fabric.Load(1, 2);
        for (int c = 0; c < 40; ++c)
        {
            chosen.push_back(fabric.Choose(fabric.Frame()));
        }
    });
    Simulator::Stop(MicroSeconds(20));
    Simulator::Run();
    ASSERT_EQ(chosen.size(), 40u);
    std::set<uint32_t> used(chosen.begin(), chosen.end());
    // Uplinks 2 and 3 are empty and unpaused: only they are chosen, and ties rotate over both.
    EXPECT_EQ(used, (std::set<uint32_t>{2, 3}));
}

TEST_F(Adaptive, AllPausedFallsBackToTheLeastLoaded)
{
    UplinkFabric fabric(8);
    for (uint32_t i = 0; i < 4; ++i)
    {
        fabric.Pause(i);
    }
    std::vector<uint32_t> chosen;
    Simulator::Schedule(MicroSeconds(10), [&] {
        fabric.Load(0, 3);
        fabric.Load(1, 1);
        fabric.Load(2, 2);
        fabric.Load(3, 4);
        for (int c = 0; c < 8; ++c)
        {
            chosen.push_back(fabric.Choose(fabric.Frame()));
        }
    });
    Simulator::Stop(MicroSeconds(20));
    Simulator::Run();
    EXPECT_EQ(chosen, std::vector<uint32_t>(8, 1u));
}

TEST_F(Adaptive, PerFlowletKeepsTheChoiceWithinAFlowlet)
{
    Set("ns3::AdaptiveLoadBalancer::FlowletGap", "50us");
    UplinkFabric fabric(8);
    std::vector<uint32_t> chosen;
    Simulator::Schedule(MicroSeconds(10), [&] {
        chosen.push_back(fabric.Choose(fabric.Frame()));
        fabric.Pause(chosen[0]); // pausing it later does not move the flowlet...
    });
    Simulator::Schedule(MicroSeconds(30), [&] { chosen.push_back(fabric.Choose(fabric.Frame())); });
    // ...but the next flowlet (a gap of 60 us > 50 us) leaves the paused uplink.
    Simulator::Schedule(MicroSeconds(90), [&] { chosen.push_back(fabric.Choose(fabric.Frame())); });
    Simulator::Stop(MicroSeconds(100));
    Simulator::Run();
    ASSERT_EQ(chosen.size(), 3u);
    EXPECT_EQ(chosen[1], chosen[0]);
    EXPECT_NE(chosen[2], chosen[0]);
}

} // namespace
} // namespace test
} // namespace ns3
