// PFC deadlock detection on the ring of topologies/ring5.yaml: five flows h_i → h_i+2 close a
// cyclic buffer dependency and deadlock; drop one flow and the cycle is broken (the last hop of
// every remaining chain drains into a host), so everything completes.

#include "../fabric-sim-util.h"
#include "config/topology-reader.h"
#include "record/deadlock-detector.h"

namespace ns3
{
namespace test
{
namespace
{

class PfcDeadlock : public SimTest
{
  protected:
    void RunRing(uint32_t flows,
                 DeadlockDetector** out,
                 FabricNetwork* net,
                 bool hopClasses = false)
    {
        if (hopClasses)
        {
            Set("ns3::FabricSwitch::HopClassIncrement", "true");
            Set("ns3::SharedBufferMmu::LosslessPriorities", std::to_string(0xF8)); // 3..7
        }
        Set("ns3::SharedBufferMmu::BufferSize", "1MiB");
        Set("ns3::SharedBufferMmu::XoffThreshold", "64KiB");
        Set("ns3::SharedBufferMmu::XonThreshold", "32KiB");
        Set("ns3::FabricSwitch::EcnEnabled", "false");
        *net = FabricNetwork::Build(
            ReadTopologyFile(std::string(FABRIC_SOURCE_DIR) + "/topologies/ring5.yaml"),
            0,
            0);
        for (uint32_t i = 0; i < flows; ++i)
        {
            AddFlow(*net, i, (i + 2) % 5, 4 << 20);
        }
        net->GetFlowTable()->SetAllFinishedCallback(
            MakeCallback(static_cast<void (*)()>(&Simulator::Stop)));
        *out = new DeadlockDetector(net, MicroSeconds(50), MicroSeconds(500));
        (*out)->Start();
        Simulator::Stop(MilliSeconds(20));
        Simulator::Run();
    }
};

TEST_F(PfcDeadlock, CycleOfFiveRingLinksIsDetectedAndStopsTheRun)
{
    FabricNetwork net;
    DeadlockDetector* d = nullptr;
    RunRing(5, &d, &net);
    std::unique_ptr<DeadlockDetector> owner(d);
    ASSERT_TRUE(d->Detected());
    // Every ring link's clockwise egress queue is in the cycle, and nothing else.
    ASSERT_EQ(d->Cycle().size(), 5u);
    std::set<std::string> members;
    for (const PausedQueue& q : d->Cycle())
    {
        PortRef peer = net.PeerOf(q.node, q.port);
        members.insert(net.NodeName(q.node) + ">" + net.NodeName(peer.node));
        EXPECT_EQ(q.priority, 3);
    }
    EXPECT_EQ(members, (std::set<std::string>{"s0>s1", "s1>s2", "s2>s3", "s3>s4", "s4>s0"}));
    // It stopped well before stop_time, one timeout after the cycle formed.
    EXPECT_LT(Simulator::Now(), MilliSeconds(2));
    EXPECT_LT(net.GetFlowTable()->GetFinishedCount(), 5u);
}

TEST_F(PfcDeadlock, BrokenCycleCompletesWithoutFalseAlarm)
{
    FabricNetwork net;
    DeadlockDetector* d = nullptr;
    RunRing(4, &d, &net);
    std::unique_ptr<DeadlockDetector> owner(d);
    EXPECT_FALSE(d->Detected());
    EXPECT_EQ(net.GetFlowTable()->GetFinishedCount(), 4u);
}

TEST_F(PfcDeadlock, HopClassesBreakTheCycle)
{
    // The same five flows, but every switch hop moves lossless frames one priority up: the
    // buffer a frame waits for is always of a higher class than the one it holds, so no cycle
    // can close. Everything completes, nothing is dropped.
    FabricNetwork net;
    DeadlockDetector* d = nullptr;
    RunRing(5, &d, &net, true);
    std::unique_ptr<DeadlockDetector> owner(d);
    EXPECT_FALSE(d->Detected());
    EXPECT_EQ(net.GetFlowTable()->GetFinishedCount(), 5u);
    for (const FlowRecord& f : net.GetFlowTable()->All())
    {
        EXPECT_EQ(f.droppedBytes, 0u);
        EXPECT_EQ(f.deliveredBytes, f.bytes);
    }
}

} // namespace
} // namespace test
} // namespace ns3
