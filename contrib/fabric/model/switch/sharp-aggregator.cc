#include "sharp-aggregator.h"

#include "link/frame-codec.h"
#include "sim/fabric-now.h"

#include "ns3/log.h"
#include "ns3/simulator.h"
#include "ns3/uinteger.h"

#include <algorithm>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("SharpAggregator");
NS_OBJECT_ENSURE_REGISTERED(SharpAggregator);

TypeId
SharpAggregator::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::SharpAggregator")
            .SetParent<Object>()
            .SetGroupName("Fabric")
            .AddConstructor<SharpAggregator>()
            .AddAttribute("BufferSize",
                          "Aggregation buffer: payload bytes of the partial sums held at once "
                          "(a slot lives from its first contribution until every child has "
                          "acknowledged the result).",
                          QueueSizeValue(QueueSize("4194304B")),
                          MakeQueueSizeAccessor(&SharpAggregator::m_bufferSize),
                          MakeQueueSizeChecker())
            .AddAttribute("AggregationRate",
                          "Reduction throughput of the switch: contribution frames are processed "
                          "one at a time at this rate.",
                          DataRateValue(DataRate("25600Gbps")), // 64 ports x 400 Gb/s
                          MakeDataRateAccessor(&SharpAggregator::m_rate),
                          MakeDataRateChecker())
            .AddAttribute("Priority",
                          "Traffic class of the frames the switch sends (partials, results).",
                          UintegerValue(3),
                          MakeUintegerAccessor(&SharpAggregator::m_priority),
                          MakeUintegerChecker<uint8_t>(0, 7));
    return tid;
}

SharpAggregator::SharpAggregator() = default;

void
SharpAggregator::DoDispose()
{
    m_ports.clear();
    m_slots.clear();
    m_held.clear();
    Object::DoDispose();
}

void
SharpAggregator::AddGroup(uint16_t group,
                          const std::vector<uint32_t>& childPorts,
                          const std::vector<int32_t>& childHosts,
                          int32_t parentPort)
{
    Group g;
    g.children = childPorts;
    g.childHosts = childHosts;
    g.parent = parentPort;
    for (uint32_t i = 0; i < childPorts.size(); ++i)
    {
        g.childOfPort[childPorts[i]] = i;
    }
    m_groups[group] = g;
}

void
SharpAggregator::Receive(Ptr<FabricNetDevice> device, Ptr<Packet> frame)
{
    SharpHeader h;
    if (!h.Parse(frame))
    {
        return;
    }
    uint32_t port = device->GetIfIndex();
    uint32_t payload = frame->GetSize() - SharpHeader::FrameBytes(0);
    auto git = m_groups.find(h.group);
    if (git == m_groups.end())
    {
        return; // not a member of this tree
    }
    Key key{h.group, h.reduction, h.packet};
    auto it = m_slots.find(key);
    if (h.opcode == SharpHeader::CONTRIB)
    {
        if (it == m_slots.end())
        {
            bool fits = m_held.empty() && m_used + payload <= m_bufferSize.GetValue();
            if (!fits)
            {
                // Lossless: wait for a slot to be released (FIFO, in arrival order).
                m_held.emplace_back(port, h, payload);
                ++m_heldFrames;
                m_peakHeld = std::max<uint64_t>(m_peakHeld, m_held.size());
                return;
            }
            Slot& s = m_slots[key];
            s.payloadBytes = payload;
            s.got.assign(git->second.children.size(), 0);
            s.acked.assign(git->second.children.size(), 0);
            m_used += payload;
            m_peakUsed = std::max(m_peakUsed, m_used);
        }
        // The switch's reduction unit: one contribution at a time at AggregationRate.
        Time cost = m_rate.CalculateBytesTxTime(SharpHeader::FrameBytes(payload));
        m_busyUntil = std::max(m_busyUntil, FabricNow()) + cost;
        Simulator::Schedule(m_busyUntil - FabricNow(),
                            &SharpAggregator::Process,
                            this,
                            port,
                            h,
                            payload);
        return;
    }
    if (it == m_slots.end())
    {
        return; // a late duplicate for a released slot
    }
    Slot& s = it->second;
    const Group& g = git->second;
    if (h.opcode == SharpHeader::RESULT)
    {
        bool first = !s.haveResult;
        s.haveResult = true;
        s.result = h.values;
        for (uint32_t c = 0; c < g.children.size(); ++c)
        {
            if (first || !s.acked[c])
            {
                SendResult(key, s, c);
            }
        }
    }
    else if (h.opcode == SharpHeader::ACK)
    {
        auto c = g.childOfPort.find(port);
        if (c == g.childOfPort.end() || s.acked[c->second])
        {
            return;
        }
        s.acked[c->second] = 1;
        if (++s.ackCount == g.children.size())
        {
            if (g.parent >= 0)
            {
                SharpHeader ack;
                ack.opcode = SharpHeader::ACK;
                ack.group = h.group;
                ack.reduction = h.reduction;
                ack.packet = h.packet;
                Send(static_cast<uint32_t>(g.parent), ack, 0, -1);
            }
            Release(key);
        }
    }
}

void
SharpAggregator::Process(uint32_t port, SharpHeader h, uint32_t payloadBytes)
{
    Key key{h.group, h.reduction, h.packet};
    auto it = m_slots.find(key);
    const Group& g = m_groups[h.group];
    auto c = g.childOfPort.find(port);
    if (it == m_slots.end() || c == g.childOfPort.end())
    {
        return;
    }
    Slot& s = it->second;
    ++m_contributions;
    if (s.got[c->second])
    {
        // A retransmission: the child missed what came after its contribution.
        ++m_duplicates;
        if (s.haveResult)
        {
            SendResult(key, s, c->second);
        }
        else if (s.complete && g.parent >= 0)
        {
            SendUp(key, s);
        }
        return;
    }
    s.got[c->second] = 1;
    if (s.sum.empty())
    {
        s.sum = h.values;
    }
    else
    {
        for (size_t i = 0; i < s.sum.size() && i < h.values.size(); ++i)
        {
            s.sum[i] += h.values[i];
        }
    }
    if (++s.count < g.children.size())
    {
        return;
    }
    s.complete = true;
    if (g.parent >= 0)
    {
        SendUp(key, s);
        return;
    }
    s.haveResult = true;
    s.result = s.sum;
    for (uint32_t i = 0; i < g.children.size(); ++i)
    {
        SendResult(key, s, i);
    }
}

void
SharpAggregator::SendUp(const Key& key, const Slot& s)
{
    SharpHeader up;
    up.opcode = SharpHeader::CONTRIB;
    std::tie(up.group, up.reduction, up.packet) = key;
    up.values = s.sum;
    Send(static_cast<uint32_t>(m_groups[up.group].parent), up, s.payloadBytes, -1);
}

void
SharpAggregator::SendResult(const Key& key, const Slot& s, uint32_t child)
{
    SharpHeader r;
    r.opcode = SharpHeader::RESULT;
    std::tie(r.group, r.reduction, r.packet) = key;
    r.values = s.result;
    const Group& g = m_groups[r.group];
    ++m_resultsSent;
    Send(g.children[child], r, s.payloadBytes, g.childHosts[child]);
}

void
SharpAggregator::Send(uint32_t port, const SharpHeader& h, uint32_t payloadBytes, int32_t dstHost)
{
    Ptr<FabricNetDevice> dev = m_ports[port];
    EthernetIpv4Udp outer;
    outer.srcMac = Mac48Address::ConvertFrom(dev->GetAddress());
    Ptr<FabricNetDevice> peer = dev->GetPeer();
    outer.dstMac =
        peer ? Mac48Address::ConvertFrom(peer->GetAddress()) : Mac48Address::GetBroadcast();
    outer.srcIp = 0;
    outer.dstIp = dstHost >= 0 ? HostIpv4(static_cast<uint32_t>(dstHost)).Get() : 0xFFFFFFFFu;
    outer.tos = static_cast<uint8_t>(m_priority << 5);
    outer.srcPort = static_cast<uint16_t>(49152 + (h.group & 0x3FFF));
    QueuedFrame item;
    item.frame = h.Build(outer, payloadBytes);
    item.bytes = item.frame->GetSize();
    item.priority = m_priority;
    item.ingressPriority = m_priority;
    dev->Enqueue(std::move(item));
}

void
SharpAggregator::Release(const Key& key)
{
    auto it = m_slots.find(key);
    if (it == m_slots.end())
    {
        return;
    }
    m_used -= it->second.payloadBytes;
    m_slots.erase(it);
    // Admit held contributions in arrival order while they fit.
    while (!m_held.empty())
    {
        auto& [port, h, payload] = m_held.front();
        Key k{h.group, h.reduction, h.packet};
        if (!m_slots.count(k) && m_used + payload > m_bufferSize.GetValue())
        {
            break;
        }
        auto held = m_held.front();
        m_held.pop_front();
        uint32_t heldPort = std::get<0>(held);
        const SharpHeader& hh = std::get<1>(held);
        uint32_t heldPayload = std::get<2>(held);
        if (!m_slots.count(k))
        {
            Slot& s = m_slots[k];
            const Group& g = m_groups[hh.group];
            s.payloadBytes = heldPayload;
            s.got.assign(g.children.size(), 0);
            s.acked.assign(g.children.size(), 0);
            m_used += heldPayload;
            m_peakUsed = std::max(m_peakUsed, m_used);
        }
        Time cost = m_rate.CalculateBytesTxTime(SharpHeader::FrameBytes(heldPayload));
        m_busyUntil = std::max(m_busyUntil, FabricNow()) + cost;
        Simulator::Schedule(m_busyUntil - FabricNow(),
                            &SharpAggregator::Process,
                            this,
                            heldPort,
                            hh,
                            heldPayload);
    }
}

} // namespace ns3
