// RoCE ACKs at the highest priority on switches (FabricSwitch::AckHighPriority,
// ns3::AckPriorityStage), as conweave-project/conweave-ns3 runs every switch
// (scratch/network-load-balance.cc:1445 AckHighPrio 1; src/point-to-point/model/
// switch-node.cc:226-236: ACK/NACK to queue 0, its highest priority).
//
// Star of four hosts at 100 Gb/s. Hosts 1 and 3 each write 1 MiB to host 0 from t = 0 at line
// rate (no congestion control): the switch port toward host 0 receives twice what it sends and
// stays busy, frames back to back. At 20 us host 0 writes one packet to host 2, whose ACK comes
// back through that congested port. A recording stage (after the switch's own) notes when each
// frame leaves the port and what was queued at priority 3 when the ACK arrived.
//
// Derivation (strict priority, link/port-queues.h): every data frame is 4096 B of payload + 58 B
// of headers = 4154 B, 4178 B on the wire with 24 B of wire overhead, S = 334.24 ns at
// 100 Gb/s. With the attribute off the ACK joins the priority-3 queue behind Q bytes = Q / 4154
// frames and leaves after them; with it on it waits only for the frame on the wire, so it
// leaves at the end of that frame: exactly S after the previous departure, and Q / 4154 x S
// earlier than without. Everything before the ACK's arrival is the same in both runs, and the
// writer's completion (on the ACK) moves by the same amount.

#include "../fabric-sim-util.h"
#include "roce/rdma-nic.h"
#include "switch/fabric-switch.h"
#include "switch/shared-buffer-mmu.h"
#include "switch/switch-stages.h"
#include "wire/bth-header.h"
#include "wire/roce-header-view.h"

namespace ns3
{

/// Records the frames that leave each port, and the priority-3 backlog an ACK found.
class ToyAckWatchStage : public EgressStage
{
  public:
    struct Departure
    {
        Time at;
        uint32_t port;
        uint8_t opcode;
        uint8_t priority;
        uint32_t bytes;
    };

    static TypeId GetTypeId()
    {
        static TypeId tid = TypeId("ns3::ToyAckWatchStage")
                                .SetParent<EgressStage>()
                                .SetGroupName("Fabric")
                                .AddConstructor<ToyAckWatchStage>();
        return tid;
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
        if (IsRoceFrame(item.info) && item.info.opcode == RoceOpcode::ACKNOWLEDGE &&
            port.GetIfIndex() == m_watched && m_ackArrival.IsZero())
        {
            m_ackArrival = Simulator::Now();
            m_backlog = port.GetQueueBytes(3);
            m_ackIngressPriority = item.ingressPriority;
        }
        return StageVerdict::Pass();
    }

    StageVerdict OnDequeue(FabricNetDevice& port, QueuedFrame& item) override
    {
        if (port.GetIfIndex() == m_watched)
        {
            m_left.push_back({Simulator::Now(),
                              port.GetIfIndex(),
                              IsRoceFrame(item.info) ? item.info.opcode : uint8_t(0xFF),
                              item.priority,
                              item.bytes});
        }
        return StageVerdict::Pass();
    }

    uint32_t m_watched = 0;
    Time m_ackArrival;
    uint64_t m_backlog = 0;
    uint8_t m_ackIngressPriority = 0xFF;
    std::vector<Departure> m_left;
};

NS_OBJECT_ENSURE_REGISTERED(ToyAckWatchStage);

namespace test
{
namespace
{

constexpr uint32_t kDataFrame = 4154;        // 4096 B payload + 58 B of headers
const Time kFrameTime = PicoSeconds(334240); // (4154 + 24) B x 8 / 100 Gb/s
const Time kProbeStart = MicroSeconds(20);   // the one-packet write host 0 -> host 2

struct AckRun
{
    Time arrival; ///< the ACK reached the port toward host 0
    uint64_t backlog = 0;
    uint8_t ingressPriority = 0xFF;
    Time left;                    ///< it left that port
    Time before;                  ///< the departure before it
    uint8_t priority = 0xFF;      ///< the queue it left from
    uint32_t dataFramesAfter = 0; ///< data frames that left after it
    Time probeFinish;
    uint64_t mmuLeft = 0; ///< buffer still charged at the end
};

class AckPriority : public SimTest
{
  protected:
    AckRun Run(bool high)
    {
        Set("ns3::RdmaNic::Mtu", "4096");
        Set("ns3::FabricSwitch::EcnEnabled", "false");
        Set("ns3::FabricSwitch::EgressStages", "ns3::ToyAckWatchStage");
        Set("ns3::FabricSwitch::AckHighPriority", high ? "true" : "false");
        FabricNetwork net =
            FabricNetwork::Build(MakeStar(4, DataRate("100Gbps"), NanoSeconds(150)), 0, 0);
        std::vector<Ptr<HostTransport>> nics = InstallNics(net, "ns3::RdmaNic");
        Ptr<FabricSwitch> sw;
        for (uint32_t n = 0; !sw; ++n)
        {
            sw = net.GetSwitch(n);
        }
        Ptr<ToyAckWatchStage> watch = sw->GetEgressStage<ToyAckWatchStage>();
        EXPECT_TRUE(watch);
        watch->m_watched = net.PeerOf(net.NodeOfHost(0), 0).port;
        auto post = [&](uint32_t src, uint32_t dst, uint64_t bytes, Time start) {
            FlowRecord r;
            r.src = src;
            r.dst = dst;
            r.bytes = bytes;
            r.start = start;
            r.priority = 3;
            r.verb = RdmaVerb::WRITE;
            r.entropy = static_cast<uint16_t>(49152 + src * 7 + dst);
            uint32_t id = net.GetFlowTable()->Add(r);
            nics[src]->StartFlowAt(id);
            return id;
        };
        post(1, 0, 1 << 20, Time(0));
        post(3, 0, 1 << 20, Time(0));
        uint32_t probe = post(0, 2, 4096, kProbeStart);
        Simulator::Stop(MilliSeconds(2));
        Simulator::Run();

        AckRun r;
        r.arrival = watch->m_ackArrival;
        r.backlog = watch->m_backlog;
        r.ingressPriority = watch->m_ackIngressPriority;
        const auto& left = watch->m_left;
        for (size_t i = 0; i < left.size(); ++i)
        {
            if (left[i].opcode == RoceOpcode::ACKNOWLEDGE && left[i].at >= r.arrival &&
                r.left.IsZero())
            {
                r.left = left[i].at;
                r.before = i > 0 ? left[i - 1].at : Time(0);
                r.priority = left[i].priority;
                EXPECT_GT(i, 0u);
                EXPECT_EQ(left[i - 1].bytes, kDataFrame); // a data frame was on the wire
                for (size_t j = i + 1; j < left.size(); ++j)
                {
                    r.dataFramesAfter += left[j].bytes == kDataFrame;
                }
            }
        }
        const FlowRecord& f = net.GetFlowTable()->Get(probe);
        EXPECT_TRUE(f.finished);
        r.probeFinish = f.finish;
        r.mmuLeft = sw->GetMmu()->GetSharedUsed() + sw->GetMmu()->GetHeadroomUsed();
        for (uint32_t id = 0; id < net.GetFlowTable()->GetN(); ++id)
        {
            EXPECT_TRUE(net.GetFlowTable()->Get(id).finished) << "flow " << id;
        }
        Simulator::Destroy();
        return r;
    }
};

TEST_F(AckPriority, AnAckBehindDataOnACongestedPortLeavesFirst)
{
    AckRun off = Run(false);
    AckRun on = Run(true);
    // The same ACK reaches the port at the same time, behind the same backlog: only the
    // queue it joins differs. The backlog is whole data frames, many of them.
    ASSERT_FALSE(off.arrival.IsZero());
    EXPECT_EQ(on.arrival, off.arrival);
    EXPECT_EQ(on.backlog, off.backlog);
    ASSERT_EQ(off.backlog % kDataFrame, 0u);
    const uint64_t ahead = off.backlog / kDataFrame;
    EXPECT_GE(ahead, 10u);
    RecordProperty("frames_ahead", std::to_string(ahead));
    RecordProperty("ack_arrival_ps", std::to_string(off.arrival.GetPicoSeconds()));
    RecordProperty("left_on_ps", std::to_string(on.left.GetPicoSeconds()));
    RecordProperty("left_off_ps", std::to_string(off.left.GetPicoSeconds()));
    // Both charge it to the class it arrived in (the NIC sends it at its data's, 3).
    EXPECT_EQ(off.ingressPriority, 3);
    EXPECT_EQ(on.ingressPriority, 3);
    // On: it leaves from queue 7 the moment the frame on the wire ends, S after that frame
    // began, which it found already on the wire.
    EXPECT_EQ(on.priority, 7);
    EXPECT_LT(on.before, on.arrival);
    EXPECT_EQ(on.left, on.before + kFrameTime);
    EXPECT_LE(on.left - on.arrival, kFrameTime);
    // Off: queue 3, after the whole backlog: ahead frames x S later.
    EXPECT_EQ(off.priority, 3);
    EXPECT_EQ(off.left - on.left, kFrameTime * static_cast<int64_t>(ahead));
    // The writer completes on the ACK: earlier by the same amount.
    EXPECT_EQ(off.probeFinish - on.probeFinish, kFrameTime * static_cast<int64_t>(ahead));
    // The frames it passed still leave (it overtook them, it did not push any out).
    EXPECT_EQ(on.dataFramesAfter, off.dataFramesAfter + ahead);
    // Every class the buffer charged was released.
    EXPECT_EQ(off.mmuLeft, 0u);
    EXPECT_EQ(on.mmuLeft, 0u);
}

TEST_F(AckPriority, OffByDefault)
{
    // As the reference's SwitchNode (switch-node.cc:31: AckHighPrio 0).
    TypeId::AttributeInformation info;
    ASSERT_TRUE(
        TypeId::LookupByName("ns3::FabricSwitch").LookupAttributeByName("AckHighPriority", &info));
    EXPECT_EQ(info.initialValue->SerializeToString(info.checker), "false");
}

} // namespace
} // namespace test
} // namespace ns3
