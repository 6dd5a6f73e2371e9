// DRILL (model/switch/drill-load-balancer.h): per frame, the least-queued of d random ports and
// the m remembered from the last choice. The uplinks' queues are set by hand (paused, loaded),
// so the choice the paper's rule implies is known.

#include "uplink-state.h"

namespace ns3
{
namespace test
{
namespace
{

class Drill : public SimTest
{
  protected:
    void Use(uint32_t samples, uint32_t memory)
    {
        Set("ns3::FabricSwitch::LoadBalancer", "ns3::DrillLoadBalancer");
        Set("ns3::DrillLoadBalancer::Samples", std::to_string(samples));
        Set("ns3::DrillLoadBalancer::Memory", std::to_string(memory));
    }

    /// Pauses every uplink of \p fabric, loads uplink i with frames[i] frames, and from 10 us
    /// on (the pauses have arrived) makes \p n choices; returns them (uplink indices).
    std::vector<uint32_t> Choices(UplinkFabric& fabric, std::vector<uint32_t> frames, uint32_t n)
    {
        for (uint32_t i = 0; i < fabric.uplinks.size(); ++i)
        {
            fabric.Pause(i);
        }
        std::vector<uint32_t> chosen;
        Simulator::Schedule(MicroSeconds(10), [&fabric, frames, n, &chosen] {
            for (uint32_t i = 0; i < frames.size(); ++i)
            {
                fabric.Load(i, frames[i]);
            }
            for (uint32_t c = 0; c < n; ++c)
            {
                chosen.push_back(fabric.Choose(fabric.Frame(static_cast<uint16_t>(50000 + c))));
            }
        });
        Simulator::Stop(MicroSeconds(20));
        Simulator::Run();
        return chosen;
    }
};

TEST_F(Drill, TwoSamplesWithoutMemoryPickTheShorterOfTwoQueues)
{
    // Two uplinks, one holding 3 frames, one empty. Two samples with replacement both fall on
    // the loaded one with probability 1/4, and only then is it chosen: in 400 choices the
    // loaded uplink is chosen Binomial(400, 1/4) times, 100 +- 8.7 (we allow 5 sigma).
    Use(2, 0);
    UplinkFabric fabric(4);
    ASSERT_EQ(fabric.uplinks.size(), 2u);
    std::vector<uint32_t> chosen = Choices(fabric, {3, 0}, 400);
    ASSERT_EQ(chosen.size(), 400u);
    EXPECT_TRUE(fabric.net.GetDevice(fabric.leaf, fabric.uplinks[0])->IsPaused(0));
    long loaded = std::count(chosen.begin(), chosen.end(), 0u);
    EXPECT_NEAR(loaded, 100, 44);
}

TEST_F(Drill, MemoryKeepsTheShortestQueueOnceSampled)
{
    // Four uplinks with 3, 2, 1 and 0 frames queued. DRILL(2,1): once the empty uplink has
    // been sampled it is the remembered best, and no sample can beat it, so every later
    // choice is the empty uplink. Two samples miss it with probability 9/16 per choice: it is
    // found within 20 choices but for (9/16)^20 = 1e-5.
    Use(2, 1);
    UplinkFabric fabric(8);
    ASSERT_EQ(fabric.uplinks.size(), 4u);
    std::vector<uint32_t> chosen = Choices(fabric, {3, 2, 1, 0}, 200);
    auto first = std::find(chosen.begin(), chosen.end(), 3u);
    ASSERT_LT(first - chosen.begin(), 20);
    EXPECT_EQ(std::count(first, chosen.end(), 3u), chosen.end() - first);
    // The remembered port is a candidate of the next choice, so the chosen queue never grows:
    // uplink i holds 3 - i frames, the chosen index never decreases.
    EXPECT_TRUE(std::is_sorted(chosen.begin(), chosen.end()));
}

} // namespace
} // namespace test
} // namespace ns3
