#include "partitioned-run.h"

#include "rank-exchange.h"

#include "ns3/header.h"
#include "ns3/node.h"
#include "ns3/simulator.h"

#include <ostream>

namespace ns3
{

/**
 * What a cut cable adds in front of a frame: message type, flow id and payload bytes. A header
 * (not bytes prepended with AddAtEnd) so that the frame's zero-filled payload stays virtual and
 * the MPI message holds only the frame's headers.
 */
class CutHeader : public Header
{
  public:
    static TypeId GetTypeId()
    {
        static TypeId tid = TypeId("ns3::FabricCutHeader")
                                .SetParent<Header>()
                                .SetGroupName("Fabric")
                                .AddConstructor<CutHeader>();
        return tid;
    }
    TypeId GetInstanceTypeId() const override { return GetTypeId(); }
    uint32_t GetSerializedSize() const override { return 9; }
    void Serialize(Buffer::Iterator i) const override
    {
        i.WriteU8(type);
        i.WriteHtonU32(flowId);
        i.WriteHtonU32(payload);
    }
    uint32_t Deserialize(Buffer::Iterator i) override
    {
        type = i.ReadU8();
        flowId = i.ReadNtohU32();
        payload = i.ReadNtohU32();
        return 9;
    }
    void Print(std::ostream& os) const override
    {
        os << "cut type=" << unsigned(type) << " flow=" << flowId << " payload=" << payload;
    }

    uint8_t type = 0;
    uint32_t flowId = 0;
    uint32_t payload = 0;
};

NS_OBJECT_ENSURE_REGISTERED(CutHeader);

PartitionedRun::PartitionedRun(FabricNetwork* net, const PartitionPlan& plan)
    : m_net(net),
      m_plan(plan)
{
    Time maxDelay(0);
    for (const TopologyLink& l : net->Spec().links)
    {
        maxDelay = std::max(maxDelay, l.delay);
    }
    m_drain = maxDelay + PicoSeconds(1);
    m_noticeTarget.assign(plan.size, {UINT32_MAX, UINT32_MAX});
}

void
PartitionedRun::ConnectCuts()
{
    const std::vector<uint32_t>& rankOf = m_plan.partition.rankOfNode;
    for (uint32_t li : m_plan.partition.cutLinks)
    {
        auto [a, b] = m_net->LinkEnds(li);
        for (const PortRef& end : {a, b})
        {
            uint32_t r = rankOf[end.node];
            if (m_noticeTarget[r].first == UINT32_MAX)
            {
                m_noticeTarget[r] = {m_net->GetNode(end.node)->GetId(), end.port};
            }
            if (r != m_plan.rank)
            {
                continue;
            }
            Ptr<FabricNetDevice> dev = m_net->GetDevice(end.node, end.port);
            dev->GetFabricChannel()->SetRemotePeer(
                dev,
                MakeCallback(&PartitionedRun::SendFrame, this));
            RankExchange::AttachReceiver(dev,
                                         MakeCallback(&PartitionedRun::Receive, this).Bind(dev));
        }
    }
    // Every rank now has a notice target: PartitionTopology rejects a rank without a cut cable.
}

void
PartitionedRun::SendFrame(Ptr<Packet> frame,
                          Time rxTime,
                          uint32_t node,
                          uint32_t device,
                          uint32_t flowId,
                          uint32_t payload)
{
    CutHeader h;
    h.type = FRAME;
    h.flowId = flowId;
    h.payload = payload;
    Ptr<Packet> message = frame->Copy(); // copy-on-write: the header goes in front of a view
    message->AddHeader(h);
    RankExchange::SendPacket(message, rxTime, node, device);
}

void
PartitionedRun::Receive(Ptr<FabricNetDevice> device, Ptr<Packet> message)
{
    CutHeader h;
    message->RemoveHeader(h);
    if (h.type == FINISH_NOTICE)
    {
        CountFinish();
        return;
    }
    device->ReceiveFromRemote(message, h.flowId, h.payload);
}

void
PartitionedRun::InstallFinishRule()
{
    m_net->GetFlowTable()->SetFlowFinishedCallback(
        MakeCallback(&PartitionedRun::FlowFinished, this));
}

void
PartitionedRun::FlowFinished(uint32_t flowId)
{
    Time at = Simulator::Now() + m_drain;
    Simulator::Schedule(m_drain, &PartitionedRun::CountFinish, this);
    for (uint32_t r = 0; r < m_plan.size; ++r)
    {
        if (r == m_plan.rank)
        {
            continue;
        }
        CutHeader h;
        h.type = FINISH_NOTICE;
        h.flowId = flowId;
        Ptr<Packet> notice = Create<Packet>();
        notice->AddHeader(h);
        auto [node, port] = m_noticeTarget[r];
        RankExchange::SendPacket(notice, at, node, port);
    }
}

void
PartitionedRun::CountFinish()
{
    if (++m_finishedSeen == m_net->GetFlowTable()->GetN())
    {
        Simulator::Stop();
    }
}

} // namespace ns3
