#include "sharp-service.h"

#include "link/frame-codec.h"

#include "ns3/log.h"
#include "ns3/simulator.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <string>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("SharpService");
NS_OBJECT_ENSURE_REGISTERED(SharpService);

TypeId
SharpService::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::SharpHostAgent") // the scenario keys name it after its role
            .SetParent<CollectiveSharpService>()
            .SetGroupName("Fabric")
            .AddConstructor<SharpService>()
            .AddAttribute("PacketPayload",
                          "Payload bytes of a SHARP contribution / result frame.",
                          UintegerValue(4096),
                          MakeUintegerAccessor(&SharpService::m_payload),
                          MakeUintegerChecker<uint32_t>(64, 9000))
            .AddAttribute("RetransmitTimeout",
                          "A member resends the contributions whose result is missing this "
                          "long after its last progress.",
                          TimeValue(MicroSeconds(500)),
                          MakeTimeAccessor(&SharpService::m_timeout),
                          MakeTimeChecker(NanoSeconds(1)))
            .AddAttribute("RetryLimit",
                          "Timeout rounds in a row without a new result after which a member "
                          "gives the reduction up and the collective fails (0: never).",
                          UintegerValue(7),
                          MakeUintegerAccessor(&SharpService::m_retryLimit),
                          MakeUintegerChecker<uint32_t>())
            .AddAttribute("Priority",
                          "Traffic class of the members' SHARP frames.",
                          UintegerValue(3),
                          MakeUintegerAccessor(&SharpService::m_priority),
                          MakeUintegerChecker<uint8_t>(0, 7));
    return tid;
}

SharpService::SharpService() = default;

void
SharpService::DoDispose()
{
    for (auto& [k, op] : m_ops)
    {
        op.timer.Cancel();
    }
    m_ops.clear();
    m_members.clear();
    CollectiveSharpService::DoDispose();
}

void
SharpService::AddMember(uint32_t rank, uint32_t host, Ptr<FabricNetDevice> nic)
{
    Member m;
    m.host = host;
    m.nic = nic;
    m_members[rank] = m;
    nic->TraceConnectWithoutContext("Sniffer", MakeCallback(&SharpService::Sniff, this).Bind(rank));
}

uint64_t
SharpService::GetContribFramesSent(uint32_t rank) const
{
    auto it = m_members.find(rank);
    return it == m_members.end() ? 0 : it->second.frames;
}

uint64_t
SharpService::GetContribPayloadSent(uint32_t rank) const
{
    auto it = m_members.find(rank);
    return it == m_members.end() ? 0 : it->second.payload;
}

std::pair<uint32_t, uint32_t>
SharpService::PacketBytes(const Op& op, uint32_t i) const
{
    uint64_t b = uint64_t(i) * m_payload;
    uint64_t e = std::min<uint64_t>(b + m_payload, op.bytes);
    return {static_cast<uint32_t>(b), static_cast<uint32_t>(e)};
}

std::pair<uint32_t, uint32_t>
SharpService::PacketValues(const Op& op, uint32_t i) const
{
    auto [b, e] = PacketBytes(op, i);
    uint64_t n = op.values.size();
    return {static_cast<uint32_t>(b * n / op.bytes), static_cast<uint32_t>(e * n / op.bytes)};
}

void
SharpService::Send(uint16_t group,
                   uint32_t reductionId,
                   uint32_t rank,
                   uint64_t bytes,
                   const std::vector<float>& values,
                   DoneCallback done,
                   FailedCallback failed)
{
    Key key{group, reductionId, rank};
    Op& op = m_ops[key];
    op.bytes = bytes;
    op.packets = static_cast<uint32_t>((bytes + m_payload - 1) / m_payload);
    op.values = values;
    op.result.assign(values.size(), 0.0f);
    op.got.assign(op.packets, 0);
    op.remaining = op.packets;
    op.done = done;
    op.failed = failed;
    for (uint32_t i = 0; i < op.packets; ++i)
    {
        SendContrib(key, i, false);
    }
    op.timer = Simulator::Schedule(m_timeout + (m_members[rank].nextSend - Simulator::Now()),
                                   &SharpService::Timeout,
                                   this,
                                   key);
}

void
SharpService::SendContrib(Key key, uint32_t packet, bool retransmission)
{
    Op& op = m_ops[key];
    Member& m = m_members[std::get<2>(key)];
    SharpHeader h;
    h.opcode = SharpHeader::CONTRIB;
    h.group = std::get<0>(key);
    h.reduction = std::get<1>(key);
    h.packet = packet;
    h.sender = static_cast<uint16_t>(std::get<2>(key));
    auto [vb, ve] = PacketValues(op, packet);
    h.values.assign(op.values.begin() + vb, op.values.begin() + ve);
    auto [b, e] = PacketBytes(op, packet);
    // Paced at the NIC's line rate: the frame is handed to the port when the previous one of
    // this member would have finished serializing.
    Time now = Simulator::Now();
    Time at = std::max(now, m.nextSend);
    Time tx = m.nic->GetDataRate().CalculateBytesTxTime(SharpHeader::FrameBytes(e - b) + 24);
    m.nextSend = at + tx;
    if (!retransmission)
    {
        ++m.frames; // first transmissions: "each chunk once"
        m.payload += e - b;
    }
    if (at == now)
    {
        SendFrame(std::get<2>(key), h, e - b);
    }
    else
    {
        Simulator::Schedule(at - now, &SharpService::SendFrame, this, std::get<2>(key), h, e - b);
    }
}

void
SharpService::SendFrame(uint32_t rank, SharpHeader h, uint32_t payload)
{
    Member& m = m_members[rank];
    EthernetIpv4Udp outer;
    outer.srcMac = Mac48Address::ConvertFrom(m.nic->GetAddress());
    Ptr<FabricNetDevice> peer = m.nic->GetPeer();
    outer.dstMac = Mac48Address::ConvertFrom(peer->GetAddress());
    outer.srcIp = HostIpv4(m.host).Get();
    outer.dstIp = 0xFFFFFFFFu;
    outer.tos = static_cast<uint8_t>(m_priority << 5);
    outer.srcPort = static_cast<uint16_t>(49152 + (h.group & 0x3FFF));
    QueuedFrame item;
    item.frame = h.Build(outer, payload);
    item.bytes = item.frame->GetSize();
    item.priority = m_priority;
    item.ingressPriority = m_priority;
    m.nic->Enqueue(std::move(item));
}

void
SharpService::Sniff(uint32_t rank, Ptr<const Packet> frame)
{
    SharpHeader h;
    if (!h.Parse(frame) || h.opcode != SharpHeader::RESULT)
    {
        return; // our own CONTRIB / ACK frames leaving, or not SHARP
    }
    Key key{h.group, h.reduction, static_cast<uint32_t>(rank)};
    auto it = m_ops.find(key);
    if (it == m_ops.end() || h.packet >= it->second.packets)
    {
        return;
    }
    Op& op = it->second;
    Member& m = m_members[rank];
    // Acknowledge (again, if the first ACK was lost and the switch resent the result).
    SharpHeader ack;
    ack.opcode = SharpHeader::ACK;
    ack.group = h.group;
    ack.reduction = h.reduction;
    ack.packet = h.packet;
    ack.sender = static_cast<uint16_t>(rank);
    SendFrame(rank, ack, 0);
    if (op.got[h.packet])
    {
        return;
    }
    op.got[h.packet] = 1;
    op.retries = 0;
    auto [vb, ve] = PacketValues(op, h.packet);
    for (uint32_t i = vb; i < ve && i - vb < h.values.size(); ++i)
    {
        op.result[i] = h.values[i - vb];
    }
    op.timer.Cancel();
    if (--op.remaining == 0)
    {
        DoneCallback done = op.done;
        std::vector<float> result = op.result;
        m_ops.erase(it);
        done(result);
        return;
    }
    op.timer = Simulator::Schedule(m_timeout + std::max(Time(0), m.nextSend - Simulator::Now()),
                                   &SharpService::Timeout,
                                   this,
                                   key);
}

void
SharpService::Timeout(Key key)
{
    auto it = m_ops.find(key);
    if (it == m_ops.end())
    {
        return;
    }
    Op& op = it->second;
    if (m_retryLimit > 0 && op.retries == m_retryLimit)
    {
        const uint32_t rank = std::get<2>(key);
        std::string reason = "SHARP reduction " + std::to_string(std::get<1>(key)) + " of group " +
                             std::to_string(std::get<0>(key)) + ": rank " + std::to_string(rank) +
                             " still missed " + std::to_string(op.remaining) + " of " +
                             std::to_string(op.packets) + " results after " +
                             std::to_string(m_retryLimit) + " retransmission rounds (at " +
                             std::to_string(Simulator::Now().GetNanoSeconds()) +
                             " ns); the aggregation tree lost a member or a link";
        FailedCallback failed = op.failed;
        m_ops.erase(it);
        ++m_failed;
        m_lastFailure = Simulator::Now();
        if (!failed.IsNull())
        {
            failed(reason);
        }
        return;
    }
    ++op.retries;
    for (uint32_t i = 0; i < op.packets; ++i)
    {
        if (!op.got[i])
        {
            ++m_retransmitted;
            SendContrib(key, i, true);
        }
    }
    Member& m = m_members[std::get<2>(key)];
    op.timer = Simulator::Schedule(m_timeout + std::max(Time(0), m.nextSend - Simulator::Now()),
                                   &SharpService::Timeout,
                                   this,
                                   key);
}

} // namespace ns3
