#include "partitioned-run.h"

#include "rank-exchange.h"

#include "ns3/node.h"
#include "ns3/simulator.h"

#include <cstring>

namespace ns3
{

namespace
{
constexpr uint32_t kCutHeaderBytes = 9;

void
PutU32(uint8_t* b, uint32_t v)
{
    b[0] = v >> 24;
    b[1] = v >> 16;
    b[2] = v >> 8;
    b[3] = v;
}

uint32_t
GetU32(const uint8_t* b)
{
    return (uint32_t(b[0]) << 24) | (uint32_t(b[1]) << 16) | (uint32_t(b[2]) << 8) | b[3];
}
} // namespace

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
}

void
PartitionedRun::SendFrame(Ptr<Packet> frame,
                          Time rxTime,
                          uint32_t node,
                          uint32_t device,
                          uint32_t flowId,
                          uint32_t payload)
{
    uint8_t header[kCutHeaderBytes];
    header[0] = FRAME;
    PutU32(header + 1, flowId);
    PutU32(header + 5, payload);
    Ptr<Packet> message = Create<Packet>(header, kCutHeaderBytes);
    message->AddAtEnd(frame);
    RankExchange::SendPacket(message, rxTime, node, device);
}

void
PartitionedRun::Receive(Ptr<FabricNetDevice> device, Ptr<Packet> message)
{
    uint8_t header[kCutHeaderBytes];
    message->CopyData(header, kCutHeaderBytes);
    if (header[0] == FINISH_NOTICE)
    {
        CountFinish();
        return;
    }
    message->RemoveAtStart(kCutHeaderBytes);
    device->ReceiveFromRemote(message, GetU32(header + 1), GetU32(header + 5));
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
        uint8_t header[kCutHeaderBytes] = {FINISH_NOTICE};
        PutU32(header + 1, flowId);
        auto [node, port] = m_noticeTarget[r];
        RankExchange::SendPacket(Create<Packet>(header, kCutHeaderBytes), at, node, port);
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
