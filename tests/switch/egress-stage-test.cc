// A toy egress stage, written as docs/architecture.md ("Adding an egress stage") tells a
// newcomer to: a TypeId, OnEnqueue/OnDequeue, selected by the switch's EgressStages attribute.
// It counts the frames and payload bytes that leave each port and the deepest queue a frame
// found on arrival; the test checks them against the numbers the workload implies.

#include "../fabric-sim-util.h"
#include "switch/switch-stages.h"
#include "wire/roce-frame-header.h"

namespace ns3
{

/// Counts what passes each egress port (the toy stage of docs/architecture.md).
class ToyCountingStage : public EgressStage
{
  public:
    static TypeId GetTypeId()
    {
        static TypeId tid = TypeId("ns3::ToyCountingStage")
                                .SetParent<EgressStage>()
                                .SetGroupName("Fabric")
                                .AddConstructor<ToyCountingStage>();
        return tid;
    }

    void Install(const FabricSwitch& sw) override
    {
        m_frames.assign(sw.GetNPorts(), 0);
        m_payload.assign(sw.GetNPorts(), 0);
        m_deepest.assign(sw.GetNPorts(), 0);
    }

    bool RunsOnEnqueue() const override
    {
        return true;
    }

    bool RunsOnDequeue() const override
    {
        return true;
    }

    StageVerdict OnEnqueue(FabricNetDevice& port, QueuedFrame& item, uint64_t queueBytes) override
    {
        uint64_t& d = m_deepest[port.GetIfIndex()];
        d = std::max(d, queueBytes);
        return StageVerdict::Pass();
    }

    StageVerdict OnDequeue(FabricNetDevice& port, QueuedFrame& item) override
    {
        ++m_frames[port.GetIfIndex()];
        m_payload[port.GetIfIndex()] += item.payloadBytes;
        return StageVerdict::Pass();
    }

    std::vector<uint64_t> m_frames;
    std::vector<uint64_t> m_payload;
    std::vector<uint64_t> m_deepest;
};

NS_OBJECT_ENSURE_REGISTERED(ToyCountingStage);

/// Verdicts by arrival order on each port: drops every fourth frame (3, 7, 11, ...), marks the
/// frames after a drop's predecessor (1, 5, 9, ...), passes the rest; counts on dequeue the
/// frames that leave and how many of them carry CE.
class ToyVerdictStage : public EgressStage
{
  public:
    static TypeId GetTypeId()
    {
        static TypeId tid = TypeId("ns3::ToyVerdictStage")
                                .SetParent<EgressStage>()
                                .SetGroupName("Fabric")
                                .AddConstructor<ToyVerdictStage>();
        return tid;
    }

    void Install(const FabricSwitch& sw) override
    {
        m_arrived.assign(sw.GetNPorts(), 0);
        m_left.assign(sw.GetNPorts(), 0);
        m_leftMarked.assign(sw.GetNPorts(), 0);
    }

    bool RunsOnEnqueue() const override
    {
        return true;
    }

    bool RunsOnDequeue() const override
    {
        return true;
    }

    StageVerdict OnEnqueue(FabricNetDevice& port, QueuedFrame& item, uint64_t) override
    {
        uint64_t n = m_arrived[port.GetIfIndex()]++;
        if (n % 4 == 3)
        {
            return StageVerdict::Drop(FabricSwitch::DROP_EGRESS_STAGE);
        }
        return n % 4 == 1 ? StageVerdict::Mark(MARK_ECN_CURVE) : StageVerdict::Pass();
    }

    StageVerdict OnDequeue(FabricNetDevice& port, QueuedFrame& item) override
    {
        ++m_left[port.GetIfIndex()];
        m_leftMarked[port.GetIfIndex()] += item.info.ecn == 3 ? 1 : 0;
        return StageVerdict::Pass();
    }

    std::vector<uint64_t> m_arrived;
    std::vector<uint64_t> m_left;
    std::vector<uint64_t> m_leftMarked;
};

NS_OBJECT_ENSURE_REGISTERED(ToyVerdictStage);

namespace test
{
namespace
{

class EgressStages : public SimTest
{
};

TEST_F(EgressStages, ToyStageSelectedByAttributeSeesEveryFrameOfItsPort)
{
    Set("ns3::FabricSwitch::EgressStages", "ns3::ToyCountingStage");
    Set("ns3::FabricSwitch::EcnEnabled", "false");
    const DataRate rate("100Gbps");
    // Star: hosts 0..2 on one switch; port i of the switch leads to host i.
    FabricNetwork net = FabricNetwork::Build(MakeStar(3, rate, NanoSeconds(100)), 0, 0);
    const uint32_t mtu = net.GetHost(0)->GetPayloadMtu();
    const uint64_t bytes = 25 * uint64_t(mtu) + 100; // 26 frames, the last with 100 B
    AddFlow(net, 0, 2, bytes);
    AddFlow(net, 1, 2, bytes);
    Simulator::Run();

    Ptr<FabricSwitch> sw;
    for (uint32_t n = 0; !sw; ++n)
    {
        sw = net.GetSwitch(n);
    }
    Ptr<ToyCountingStage> toy = sw->GetEgressStage<ToyCountingStage>();
    ASSERT_TRUE(toy) << "the EgressStages attribute did not install the stage";
    // Two raw flows of 26 data frames each leave through the port toward host 2; nothing
    // leaves toward the senders (raw flows have no ACKs).
    uint32_t toHost2 = net.PeerOf(net.NodeOfHost(2), 0).port;
    EXPECT_EQ(toy->m_frames[toHost2], 52u);
    EXPECT_EQ(toy->m_payload[toHost2], 2 * bytes);
    uint32_t toHost0 = net.PeerOf(net.NodeOfHost(0), 0).port;
    EXPECT_EQ(toy->m_frames[toHost0], 0u);
    // Two line-rate senders into one port of the same rate: the second frame of each pair
    // finds the first queued, so some arrival finds at least one full frame ahead of it.
    EXPECT_GE(toy->m_deepest[toHost2], uint64_t(mtu) + kRoceFrameOverhead);
    // The built-in ECN stage still runs first (and is off here).
    EXPECT_TRUE(sw->GetEgressStage<EcnMarkStage>());
    EXPECT_EQ(sw->GetEcnMarkedFrames(), 0u);
}

TEST_F(EgressStages, VerdictsDropAndMarkWithTheReasonTheSwitchTraces)
{
    Set("ns3::FabricSwitch::EgressStages", "ns3::ToyVerdictStage");
    Set("ns3::FabricSwitch::EcnEnabled", "false");
    FabricNetwork net =
        FabricNetwork::Build(MakeStar(3, DataRate("100Gbps"), NanoSeconds(100)), 0, 0);
    const uint32_t mtu = net.GetHost(0)->GetPayloadMtu();
    AddFlow(net, 0, 2, 25 * uint64_t(mtu) + 100); // 26 data frames, raw: nothing is resent
    Ptr<FabricSwitch> sw;
    for (uint32_t n = 0; !sw; ++n)
    {
        sw = net.GetSwitch(n);
    }
    std::vector<uint8_t> drops;
    std::vector<uint8_t> marks;
    sw->TraceConnectWithoutContext(
        "Drop",
        MakeCallback(+[](std::vector<uint8_t>* d, uint32_t, uint32_t, uint8_t reason) {
            d->push_back(reason);
        }).Bind(&drops));
    sw->TraceConnectWithoutContext(
        "Mark",
        MakeCallback(+[](std::vector<uint8_t>* m, uint32_t, uint32_t, uint8_t reason) {
            m->push_back(reason);
        }).Bind(&marks));
    Simulator::Run();

    Ptr<ToyVerdictStage> toy = sw->GetEgressStage<ToyVerdictStage>();
    ASSERT_TRUE(toy);
    uint32_t toHost2 = net.PeerOf(net.NodeOfHost(2), 0).port;
    // Frames 0..25: 3, 7, ..., 23 dropped (6), 1, 5, ..., 25 marked (7), the rest passed.
    EXPECT_EQ(toy->m_arrived[toHost2], 26u);
    EXPECT_EQ(toy->m_left[toHost2], 20u);
    EXPECT_EQ(toy->m_leftMarked[toHost2], 7u);
    EXPECT_EQ(drops, std::vector<uint8_t>(6, FabricSwitch::DROP_EGRESS_STAGE));
    EXPECT_EQ(marks, std::vector<uint8_t>(7, MARK_ECN_CURVE));
    // A dropped frame leaves the buffer it was admitted to: nothing stays charged.
    EXPECT_EQ(sw->GetMmu()->GetSharedUsed() + sw->GetMmu()->GetHeadroomUsed(), 0u);
}

TEST_F(EgressStages, StreamCountIsKnownBeforeTheSwitchIsBuiltAndMatchesAssignStreams)
{
    // A switch another rank simulates is never built, but its streams still count: ECN (one,
    // even when it does not mark) and C-AQM (one); ECMP and the toy stage take none.
    Set("ns3::FabricSwitch::Caqm", "true");
    Set("ns3::FabricSwitch::EcnEnabled", "false");
    Set("ns3::FabricSwitch::EgressStages", "ns3::ToyCountingStage");
    Ptr<FabricSwitch> probe = CreateObject<FabricSwitch>();
    EXPECT_EQ(probe->GetStreamCount(), 2);
    Ptr<FabricSwitch> other = CreateObject<FabricSwitch>();
    EXPECT_EQ(other->AssignStreams(100), 2);
}

} // namespace
} // namespace test
} // namespace ns3
