// PFC storm and watchdog on one switch: h0's NIC stops draining and keeps pausing its port.
// h1 sends to h0 and, on the same lossless priority, to h3 (the victim). The switch's queue to
// h0 fills, its ingress from h1 crosses XOFF and pauses h1 entirely: the victim stalls though it
// never touches h0. The watchdog finds the queue to h0 paused without progress for its
// detection time, drops its frames and ignores its pauses; h1 resumes and the victim finishes.

#include "../fabric-sim-util.h"
#include "record/conservation.h"

namespace ns3
{
namespace test
{
namespace
{

class PfcStorm : public SimTest
{
  protected:
    struct Result
    {
        FlowRecord toStuck;
        FlowRecord victim;
        std::vector<std::pair<Time, uint32_t>> triggers; ///< time, port
        bool conserved;
    };

    Result Run(bool watchdog)
    {
        Set("ns3::SharedBufferMmu::BufferSize", "2MiB");
        Set("ns3::SharedBufferMmu::XoffThreshold", "64KiB");
        Set("ns3::SharedBufferMmu::XonThreshold", "32KiB");
        Set("ns3::FabricSwitch::EcnEnabled", "false");
        Set("ns3::FabricSwitch::PfcWatchdog", watchdog ? "true" : "false");
        Set("ns3::FabricSwitch::PfcWatchdogDetection", "100us");
        Set("ns3::FabricSwitch::PfcWatchdogRestore", "10ms");
        FabricNetwork net =
            FabricNetwork::Build(MakeStar(4, DataRate("400Gbps"), NanoSeconds(150)), 0, 0);
        AddFlow(net, 1, 0, 8 << 20);
        AddFlow(net, 1, 3, 2 << 20, MicroSeconds(5));
        Result r;
        Ptr<FabricSwitch> sw = net.GetSwitch(net.Spec().Find("sw0").value());
        sw->TraceConnectWithoutContext(
            "Watchdog",
            MakeCallback(+[](Result* r, uint32_t port, uint8_t, bool on) {
                if (on)
                {
                    r->triggers.emplace_back(Simulator::Now(), port);
                }
            }).Bind(&r));
        Simulator::Schedule(MicroSeconds(1),
                            &FabricNetDevice::StartPfcStorm,
                            net.GetHost(0)->GetPort(0),
                            3);
        Simulator::Stop(MilliSeconds(2));
        Simulator::Run();
        r.toStuck = net.GetFlowTable()->Get(0);
        r.victim = net.GetFlowTable()->Get(1);
        r.conserved = CheckConservation(net).Ok();
        return r;
    }
};

TEST_F(PfcStorm, WithoutWatchdogTheVictimStalls)
{
    Result r = Run(false);
    EXPECT_FALSE(r.victim.finished);
    EXPECT_LT(r.victim.deliveredBytes, 2u << 20);
    // Only what reached h0 before the storm began at 1 us (< 1 us at 50 GB/s).
    EXPECT_LT(r.toStuck.deliveredBytes, 50000u);
    EXPECT_TRUE(r.triggers.empty());
    EXPECT_TRUE(r.conserved);
}

TEST_F(PfcStorm, WatchdogDropsTheStuckQueueAndTheVictimFinishes)
{
    Result r = Run(true);
    // One trigger, on the port toward h0 (port 0), one detection time after the first pause
    // reached the switch: storm at 1 us + PFC frame (84 B at 400 Gb/s = 1.68 ns) + 150 ns.
    ASSERT_EQ(r.triggers.size(), 1u);
    EXPECT_EQ(r.triggers[0].second, 0u);
    Time firstPause = MicroSeconds(1) + PicoSeconds(1680) + NanoSeconds(150);
    EXPECT_EQ(r.triggers[0].first, firstPause + MicroSeconds(100));
    EXPECT_TRUE(r.victim.finished);
    EXPECT_EQ(r.victim.deliveredBytes, 2u << 20);
    EXPECT_LT(r.toStuck.deliveredBytes, 50000u);
    EXPECT_GT(r.toStuck.droppedBytes, 0u);
    EXPECT_TRUE(r.conserved);
}

} // namespace
} // namespace test
} // namespace ns3
