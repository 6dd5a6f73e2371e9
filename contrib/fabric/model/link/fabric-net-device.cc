#include "fabric-net-device.h"

#include "fabric-channel.h"
#include "sim/fabric-now.h"
#include "wire/credit-update-header.h"
#include "wire/pfc-pause-header.h"

#include "ns3/abort.h"
#include "ns3/ethernet-header.h"
#include "ns3/log.h"
#include "ns3/node.h"

#include <limits>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("FabricNetDevice");

FabricNetDevice::FabricNetDevice() = default;

int64_t
FabricNetDevice::AssignStreams(int64_t stream)
{
    m_faults.SetStream(stream);
    return kStreams;
}

FabricNetDevice::~FabricNetDevice() = default;

void
FabricNetDevice::DoDispose()
{
    m_node = nullptr;
    m_channel = nullptr;
    m_queues.Clear();
    m_rxCallback = NetDevice::ReceiveCallback();
    m_promiscCallback = NetDevice::PromiscReceiveCallback();
    m_completeEvent.Cancel();
    m_completePending = false;
    m_pfc.Cancel();
    if (m_credits)
    {
        m_credits->Cancel();
    }
    m_owner = nullptr;
    m_ownerPulls = false;
    NetDevice::DoDispose();
}

void
FabricNetDevice::Attach(Ptr<FabricChannel> channel)
{
    m_channel = channel;
    channel->Attach(this);
    if (m_flowControl == FLOW_CONTROL_CBFC && !m_credits)
    {
        uint32_t cell = m_creditCell.GetValue();
        NS_ABORT_MSG_IF(cell == 0, "FabricNetDevice::CreditCell must be at least 1 byte");
        m_credits = std::make_unique<CreditPort>(this,
                                                 m_queues,
                                                 cell,
                                                 m_creditBuffer.GetValue() / cell,
                                                 m_creditLanes,
                                                 m_creditShared);
        m_credits->SetReturnInterval(m_creditReturnInterval);
        m_credits->SetSyncInterval(m_creditSyncInterval);
    }
}

uint64_t
FabricNetDevice::GetCreditReserveBytes() const
{
    const CreditFlowControl* c = GetCredits();
    return c ? uint64_t(c->GetAdvertisedCells()) * c->GetCellBytes() : 0;
}

const FrameFifo<WireFrame>&
FabricNetDevice::GetOnWire() const
{
    static const FrameFifo<WireFrame> kNone;
    return m_channel ? m_channel->GetOnWire(this) : kNone;
}

const FrameFifo<RemoteWireFrame>&
FabricNetDevice::GetRemoteOnWire() const
{
    static const FrameFifo<RemoteWireFrame> kNone;
    return m_channel ? m_channel->GetRemoteOnWire(this) : kNone;
}

Ptr<FabricNetDevice>
FabricNetDevice::GetPeer() const
{
    return m_channel ? m_channel->GetPeer(this) : nullptr;
}

Time
BitsAtRate(uint64_t bits, DataRate rate, bool roundUp)
{
    uint64_t bps = std::max<uint64_t>(1, rate.GetBitRate());
    return PicoSeconds((bits * 1000000000000ULL + (roundUp ? bps - 1 : 0)) / bps);
}

std::string
FabricNetDevice::BlockedReason(uint8_t priority) const
{
    if (!IsLinkUp())
    {
        return "its NIC link is down";
    }
    if (IsPaused(priority))
    {
        return "its NIC is paused by PFC (priority " + std::to_string(priority) + ")";
    }
    return "";
}

Time
FabricNetDevice::GetPauseQuantum() const
{
    return BitsAtRate(512, m_rate, true);
}

Time
FabricNetDevice::FrameTxTime(uint32_t bytes) const
{
    return BitsAtRate(uint64_t(bytes + m_wireOverhead) * 8, m_rate, true);
}

void
FabricNetDevice::Enqueue(QueuedFrame&& item)
{
    uint8_t prio = item.priority;
    if (m_faults.IsDropping(prio))
    {
        if (m_owner)
        {
            m_owner->FrameLost(this, item);
        }
        return;
    }
    if (!item.hasInfo)
    {
        // A frame from a host or an aggregator: read its headers now, while they are in cache;
        // every hop after this one uses the parsed copy.
        item.hasInfo = ParseFrame(item.frame.Get(), &item.info);
    }
    uint64_t bytes = m_queues.Push(std::move(item));
    m_queueBytesTrace(prio, bytes);
    TryTransmit();
}

void
FabricNetDevice::SendPause(uint8_t priority, uint16_t quanta)
{
    m_queues.Control().push_back(m_pfc.BuildPause(m_address, priority, quanta));
    m_pfcSentTrace(priority, quanta);
    TryTransmit();
}

void
FabricNetDevice::StartPfcStorm(uint8_t priority)
{
    NS_LOG_FUNCTION(this << unsigned(priority));
    m_pfc.AddStorm(priority);
    StormRefresh();
}

void
FabricNetDevice::StopPfcStorm()
{
    m_pfc.StopStorm();
}

void
FabricNetDevice::StormRefresh()
{
    for (uint8_t p = 0; p < kFabricPriorities; ++p)
    {
        if ((m_pfc.GetStormMask() >> p) & 1)
        {
            SendPause(p, 0xFFFF);
        }
    }
    // Refresh well before 65535 quanta expire, as a stuck NIC's pause generator does.
    m_pfc.StormEvent() =
        Simulator::Schedule(GetPauseQuantum() * 0x7FFF, &FabricNetDevice::StormRefresh, this);
}

void
FabricNetDevice::SetPauseIgnored(uint8_t priority, bool ignored)
{
    m_pfc.SetPauseIgnored(priority, ignored);
    if (ignored)
    {
        TryTransmit();
    }
}

void
FabricNetDevice::SetPriorityDropping(uint8_t priority, bool dropping)
{
    m_faults.SetDropping(priority, dropping);
    if (dropping)
    {
        DropQueue(priority);
    }
}

void
FabricNetDevice::DropQueue(uint8_t p)
{
    while (!m_queues.Queue(p).empty())
    {
        QueuedFrame item = TakeHead(p);
        if (m_owner)
        {
            m_owner->FrameLost(this, item);
        }
    }
}

void
FabricNetDevice::SetLinkUp(bool up)
{
    NS_LOG_FUNCTION(this << up);
    if (m_faults.SetLinkUp(up))
    {
        m_linkChangeCallbacks();
    }
    if (up)
    {
        TryTransmit();
        return;
    }
    m_queues.Control().clear();
    for (uint8_t p = 0; p < kFabricPriorities; ++p)
    {
        DropQueue(p);
    }
}

void
FabricNetDevice::TryTransmit()
{
    if (!m_channel || !m_faults.IsLinkUp())
    {
        return;
    }
    Time now = FabricNow();
    if (now < m_busyUntil)
    {
        if (!m_completePending)
        {
            ScheduleComplete(m_busyUntil - now);
        }
        return;
    }
    FrameFifo<Ptr<Packet>>& control = m_queues.Control();
    if (!control.empty())
    {
        WireFrame wire;
        wire.frame = std::move(control.front());
        control.pop_front();
        uint32_t bytes = wire.frame->GetSize();
        StartTransmission(std::move(wire), bytes, now);
        return;
    }
    Ptr<Packet> creditFrame = CreditFrameWanted() ? m_credits->BuildFrame(m_address) : nullptr;
    if (creditFrame)
    {
        WireFrame wire;
        wire.frame = std::move(creditFrame);
        uint32_t bytes = wire.frame->GetSize();
        StartTransmission(std::move(wire), bytes, now);
        return;
    }
    int prio = SelectPriority(now);
    if (prio < 0)
    {
        ScheduleResumeCheck();
        if (!m_ownerPulls)
        {
            return;
        }
        // Let the owner (a host NIC) offer its next packet; it calls Enqueue, which re-enters
        // TryTransmit while the port is still idle.
        m_owner->PortIdle(this);
        return;
    }
    QueuedFrame item = TakeHead(static_cast<uint8_t>(prio));
    m_txBytesPerPriority[prio] += item.bytes;
    if (m_credits)
    {
        m_credits->Consume(item);
    }
    if (m_owner)
    {
        m_owner->FrameDequeued(this, item);
    }
    WireFrame wire;
    wire.frame = std::move(item.frame);
    wire.flowId = item.flowId;
    wire.payloadBytes = item.payloadBytes;
    wire.hasInfo = item.hasInfo;
    wire.unscheduled = item.unscheduled;
    wire.info = item.info;
    StartTransmission(std::move(wire), item.bytes, now);
}

void
FabricNetDevice::StartTransmission(WireFrame&& wire, uint32_t bytes, Time now)
{
    m_txBytes += bytes;
    ++m_txFrames;
    if (!m_snifferTrace.IsEmpty()) // spares touching the packet when untraced
    {
        m_snifferTrace(wire.frame.Get());
    }
    Time txTime = FrameTxTime(bytes);
    m_busyUntil = now + txTime;
    Time arrival = m_channel->NextArrival(this, now, txTime);
    if (m_peerRemote)
    {
        m_channel->TransmitRemote(this, wire, arrival, now); // the peer lives on another rank
    }
    else
    {
        m_channel->Transmit(this, std::move(wire), arrival - now);
    }
    if (m_queues.NonEmptyMask() != 0 || !m_queues.Control().empty() || m_ownerPulls ||
        CreditFrameWanted())
    {
        ScheduleComplete(txTime);
    }
}

void
FabricNetDevice::ScheduleComplete(Time delay)
{
    ++m_completeGeneration;
    m_completePending = true;
    m_completeEvent =
        Simulator::Schedule(delay, &FabricNetDevice::TransmitComplete, this, m_completeGeneration);
}

void
FabricNetDevice::TransmitComplete(uint32_t generation)
{
    if (generation == m_completeGeneration)
    {
        m_completePending = false; // m_completeEvent has run
    }
    TryTransmit();
}

void
FabricNetDevice::ScheduleResumeCheck()
{
    // Some queue may hold data behind a pause that expires by itself (no XON): wake up then.
    Time now = FabricNow();
    Time earliest = m_pfc.EarliestResume(m_queues.NonEmptyMask(), now);
    if (earliest == Time::Max())
    {
        return;
    }
    EventId& resume = m_pfc.ResumeEvent();
    if (resume.IsRunning() && resume.GetTs() <= static_cast<uint64_t>(earliest.GetTimeStep()))
    {
        return;
    }
    resume.Cancel();
    resume = Simulator::Schedule(earliest - now, &FabricNetDevice::TryTransmit, this);
}

void
FabricNetDevice::ReceiveFromRemote(Ptr<Packet> frame, uint32_t flowId, uint32_t payload)
{
    WireFrame wire;
    wire.frame = frame;
    wire.flowId = flowId;
    wire.payloadBytes = payload;
    ReceiveFromCable(wire);
}

void
FabricNetDevice::ReceiveFromCable(WireFrame& wire)
{
    FrameRef& frame = wire.frame;
    bool lost = m_faults.LostOnArrival(frame);
    // A stuck NIC (PFC storm) accepts nothing of the priorities it pauses.
    if (!m_faults.IsLinkUp() || lost || (m_pfc.GetStormMask() && m_pfc.StormDrops(frame.Get())))
    {
        if (m_credits)
        {
            m_credits->Discard(wire);
        }
        ReportLost(wire);
        return;
    }
    // The frame's size from its parsed headers: the packet itself stays untouched (FrameRef).
    m_rxBytes += wire.hasInfo ? wire.info.frameBytes : frame->GetSize();
    if (!m_snifferTrace.IsEmpty())
    {
        m_snifferTrace(frame.Get());
    }
    // The sender's parsed headers came with the frame; only control frames and frames from
    // another rank are parsed here.
    if (!wire.hasInfo)
    {
        wire.info = FrameInfo();
        wire.hasInfo = ParseFrame(frame.Get(), &wire.info);
    }
    if (wire.info.etherType == PfcPauseHeader::kEtherType)
    {
        PfcPort::Received r =
            m_pfc.Receive(frame.Get(), FabricNow(), GetPauseQuantum(), m_pfcReceivedTrace);
        if (r == PfcPort::RESUMED)
        {
            TryTransmit();
        }
        else if (r == PfcPort::PAUSED && !IsBusy())
        {
            ScheduleResumeCheck();
        }
        return;
    }
    if (m_credits)
    {
        if (wire.info.etherType == CreditUpdateHeader::kEtherType)
        {
            m_credits->Receive(frame.Get());
            return;
        }
        int lane = m_credits->LaneOf(wire.info);
        if (lane >= 0)
        {
            // The frame takes its cells now; a switch frees them when the frame leaves its
            // buffer, anything else (a host NIC consumes what arrives) right away.
            uint32_t bytes = wire.info.frameBytes;
            m_credits->Hold(static_cast<uint8_t>(lane), bytes);
            bool buffered = m_owner && m_owner->BuffersReceivedFrames();
            if (m_owner)
            {
                ToOwner(wire);
            }
            else
            {
                DeliverUp(wire);
            }
            if (!buffered)
            {
                FreeCredits(static_cast<uint8_t>(lane), bytes);
            }
            return;
        }
    }
    if (m_owner)
    {
        ToOwner(wire);
        return;
    }
    DeliverUp(wire);
}

void
FabricNetDevice::EnterRxPipeline(WireFrame& wire)
{
    // A constant latency: frames leave the pipeline in arrival order, one event each.
    m_rxPipeline.push_back(std::move(wire));
    Simulator::Schedule(m_rxLatency, &FabricNetDevice::LeaveRxPipeline, this);
}

void
FabricNetDevice::LeaveRxPipeline()
{
    WireFrame wire = std::move(m_rxPipeline.front());
    m_rxPipeline.pop_front();
    if (m_owner)
    {
        m_owner->FrameReceived(this, wire);
    }
}

void
FabricNetDevice::DeliverUp(const WireFrame& wire)
{
    if (m_rxCallback.IsNull() && m_promiscCallback.IsNull())
    {
        return;
    }
    Ptr<Packet> packet = wire.frame->Copy();
    EthernetHeader eth(false);
    if (packet->RemoveHeader(eth) == 0)
    {
        return;
    }
    Mac48Address to = eth.GetDestination();
    NetDevice::PacketType type = to == m_address    ? NetDevice::PACKET_HOST
                                 : to.IsBroadcast() ? NetDevice::PACKET_BROADCAST
                                 : to.IsGroup()     ? NetDevice::PACKET_MULTICAST
                                                    : NetDevice::PACKET_OTHERHOST;
    NS_LOG_LOGIC("up: " << packet->GetSize() << " B, protocol 0x" << std::hex << eth.GetLengthType()
                        << std::dec << " from " << eth.GetSource());
    if (!m_promiscCallback.IsNull())
    {
        m_promiscCallback(this, packet, eth.GetLengthType(), eth.GetSource(), to, type);
    }
    if (type != NetDevice::PACKET_OTHERHOST && !m_rxCallback.IsNull())
    {
        m_rxCallback(this, packet, eth.GetLengthType(), eth.GetSource());
    }
}

void
FabricNetDevice::ReportLost(const WireFrame& wire)
{
    NS_LOG_INFO("lost on arrival: flow " << wire.flowId << ", " << wire.payloadBytes
                                         << " payload bytes"
                                         << (m_faults.IsLinkUp() ? "" : " (link down)"));
    if (m_owner)
    {
        QueuedFrame lost;
        lost.flowId = wire.flowId;
        lost.payloadBytes = wire.payloadBytes;
        lost.bytes = wire.frame->GetSize();
        m_owner->FrameLost(this, lost);
    }
}

} // namespace ns3
