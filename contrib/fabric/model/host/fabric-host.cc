#include "fabric-host.h"

#include "link/frame-codec.h"
#include "sim/fabric-now.h"
#include "wire/bth-header.h"
#include "wire/roce-frame-header.h"
#include "wire/roce-header-view.h"

#include "ns3/log.h"
#include "ns3/simulator.h"
#include "ns3/uinteger.h"

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("FabricHost");
NS_OBJECT_ENSURE_REGISTERED(FabricHost);

TypeId
FabricHost::GetTypeId()
{
    static TypeId tid = TypeId("ns3::FabricHost")
                            .SetParent<Object>()
                            .SetGroupName("Fabric")
                            .AddConstructor<FabricHost>()
                            .AddAttribute("Mtu",
                                          "Payload bytes per frame (RoCE path MTU: 1024, 2048 "
                                          "or 4096; any value is accepted for studies).",
                                          UintegerValue(4096),
                                          MakeUintegerAccessor(&FabricHost::m_mtu),
                                          MakeUintegerChecker<uint32_t>(64, 9000));
    return tid;
}

FabricHost::FabricHost() = default;

void
FabricHost::DoDispose()
{
    for (auto& p : m_ports)
    {
        p.wakeup.Cancel();
        p.device = nullptr;
    }
    m_flows = nullptr;
    Object::DoDispose();
}

uint32_t
FabricHost::AddPort(Ptr<FabricNetDevice> device)
{
    device->SetOwner(this);
    Port p;
    p.device = device;
    m_ports.push_back(std::move(p));
    return static_cast<uint32_t>(m_ports.size() - 1);
}

void
FabricHost::SetRoutes(std::vector<uint32_t> groupOfHost, std::vector<std::vector<uint16_t>> groups)
{
    m_groupOfHost = std::move(groupOfHost);
    m_groups = std::move(groups);
}

void
FabricHost::StartFlowAt(uint32_t flowId)
{
    Time at = m_flows->Get(flowId).start - FabricNow();
    Simulator::Schedule(at.IsNegative() ? Time(0) : at, &FabricHost::StartFlow, this, flowId);
}

uint32_t
FabricHost::EgressPortFor(uint32_t dstHost, uint16_t entropy) const
{
    if (m_ports.size() == 1 || dstHost >= m_groupOfHost.size())
    {
        return 0;
    }
    const std::vector<uint16_t>& group = m_groups[m_groupOfHost[dstHost]];
    return group.empty() ? 0 : group[entropy % group.size()];
}

void
FabricHost::StartFlow(uint32_t flowId)
{
    const FlowRecord& f = m_flows->Get(flowId);
    if (f.bytes == 0)
    {
        return;
    }
    uint32_t portIndex = EgressPortFor(f.dst, f.entropy);
    m_ports[portIndex].flows.push_back(ActiveFlow{flowId, f.bytes, 0, FabricNow()});
    ServePort(portIndex);
}

void
FabricHost::PortIdle(FabricNetDevice* device)
{
    ServePort(device->GetIfIndex());
}

void
FabricHost::ServePort(uint32_t portIndex)
{
    Port& port = m_ports[portIndex];
    FabricNetDevice& dev = *port.device;
    Time now = FabricNow();
    if (dev.IsBusyAt(now) || !dev.IsLinkUp())
    {
        return;
    }
    Time wake = Time::Max();
    bool sent = m_client ? m_client->OfferFrame(portIndex, now, &wake)
                         : OfferRawFrame(portIndex, now, &wake);
    if (sent || wake == Time::Max())
    {
        return;
    }
    if (!(port.wakeup.IsRunning() && port.wakeup.GetTs() <= uint64_t(wake.GetTimeStep())))
    {
        NS_LOG_LOGIC("port " << portIndex << " wakes at " << wake);
        port.wakeup.Cancel();
        port.wakeup = Simulator::Schedule(wake - now, &FabricHost::ServePort, this, portIndex);
    }
}

bool
FabricHost::OfferRawFrame(uint32_t portIndex, Time now, Time* wake)
{
    Port& port = m_ports[portIndex];
    Ptr<FabricNetDevice> dev = port.device;
    for (size_t k = 0, n = port.flows.size(); k < n; ++k)
    {
        ActiveFlow af = port.flows.front();
        port.flows.pop_front();
        const FlowRecord& rec = m_flows->Get(af.id);
        uint8_t prio = rec.priority;
        Time offUntil = OffUntil(rec, now);
        bool paused = IsPaused(*dev, prio, wake);
        if (paused || af.nextSend > now || offUntil > now || dev->GetQueueBytes(prio) > 0)
        {
            // A pause set the wake-up at its end already; a queued frame of the priority
            // brings the port back idle by itself.
            if (!paused && offUntil > now)
            {
                *wake = std::min(*wake, offUntil);
            }
            else if (!paused && af.nextSend > now)
            {
                *wake = std::min(*wake, af.nextSend);
            }
            port.flows.push_back(af);
            continue;
        }
        uint32_t payload = static_cast<uint32_t>(std::min<uint64_t>(m_mtu, af.remaining));
        bool first = af.remaining == rec.bytes;
        bool last = payload == af.remaining;
        RoceFrameSpec spec;
        spec.srcMac = dev->GetMacAddress();
        spec.dstMac = dev->GetPeer()->GetMacAddress();
        spec.srcHost = m_hostIndex;
        spec.dstHost = rec.dst;
        spec.srcPort = rec.entropy;
        spec.priority = prio;
        spec.ecnCapable = rec.ecnCapable;
        spec.opcode = first ? (last ? RoceOpcode::SEND_ONLY : RoceOpcode::SEND_FIRST)
                            : (last ? RoceOpcode::SEND_LAST : RoceOpcode::SEND_MIDDLE);
        spec.destQp = af.id;
        spec.psn = af.psn;
        spec.ackRequest = last;
        spec.payloadBytes = payload;
        Ptr<Packet> frame = BuildRoceFrame(spec);

        af.remaining -= payload;
        af.psn = (af.psn + 1) & 0xFFFFFF;
        uint32_t bytes = frame->GetSize();
        DataRate rate = RateAt(rec, now);
        if (rate.GetBitRate() > 0 && rate < dev->GetDataRate())
        {
            af.nextSend = now + BitsAtRate(uint64_t(bytes) * 8, rate, false);
        }
        if (af.remaining > 0)
        {
            port.flows.push_back(af);
        }
        m_flows->Get(af.id).sentBytes += payload;

        QueuedFrame item;
        item.frame = frame;
        item.bytes = bytes;
        item.payloadBytes = payload;
        item.flowId = af.id;
        item.priority = prio;
        dev->Enqueue(std::move(item));
        return true;
    }
    return false;
}

DataRate
FabricHost::RateAt(const FlowRecord& f, Time now)
{
    DataRate rate = f.rate;
    for (const auto& [at, r] : f.rateSchedule)
    {
        if (now >= f.start + at)
        {
            rate = r;
        }
    }
    return rate;
}

Time
FabricHost::OffUntil(const FlowRecord& f, Time now)
{
    Time until(0);
    if (f.period.IsStrictlyPositive() && now >= f.start)
    {
        // Periodic bursts: off for the rest of the period once onTime has passed.
        int64_t k = (now - f.start).GetTimeStep() / f.period.GetTimeStep();
        Time periodStart = f.start + f.period * k;
        if (now >= periodStart + f.onTime)
        {
            until = periodStart + f.period;
        }
    }
    return until;
}

void
FabricHost::FrameReceived(FabricNetDevice* device, WireFrame& received)
{
    if (m_client)
    {
        m_client->ReceiveFrame(device, received);
        return;
    }
    if (!received.hasInfo || !IsRoceFrame(received.info))
    {
        return;
    }
    const FrameInfo& info = received.info; // parsed once, where the frame was first queued
    if (HostIndexOfIp(info.dstIp) != m_hostIndex || !m_flows->Contains(info.connection))
    {
        ++m_misdelivered;
        return;
    }
    m_flows->Delivered(info.connection, RoceFlowPayloadBytes(info), info.ecn == 3);
}

void
FabricHost::FrameLost(FabricNetDevice* device, const QueuedFrame& item)
{
    if (m_client)
    {
        m_client->LoseFrame(device, item);
        return;
    }
    m_flows->Dropped(item.flowId, item.payloadBytes);
}

} // namespace ns3
