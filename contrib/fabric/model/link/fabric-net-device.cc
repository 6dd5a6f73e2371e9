#include "fabric-net-device.h"

#include "fabric-channel.h"
#include "sim/fabric-now.h"
#include "wire/credit-update-header.h"
#include "wire/pfc-pause-header.h"

#include "ns3/abort.h"
#include "ns3/boolean.h"
#include "ns3/double.h"
#include "ns3/enum.h"
#include "ns3/ethernet-header.h"
#include "ns3/log.h"
#include "ns3/node.h"
#include "ns3/uinteger.h"

#include <limits>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("FabricNetDevice");
NS_OBJECT_ENSURE_REGISTERED(FabricNetDevice);

TypeId
FabricNetDevice::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::FabricNetDevice")
            .SetParent<NetDevice>()
            .SetGroupName("Fabric")
            .AddConstructor<FabricNetDevice>()
            .AddAttribute("DataRate",
                          "Line rate of the port, per direction.",
                          DataRateValue(DataRate("400Gbps")),
                          MakeDataRateAccessor(&FabricNetDevice::m_rate),
                          MakeDataRateChecker())
            .AddAttribute("Mtu",
                          "Largest frame payload the port accepts (bytes).",
                          UintegerValue(9000),
                          MakeUintegerAccessor(&FabricNetDevice::m_mtu),
                          MakeUintegerChecker<uint16_t>(64))
            .AddAttribute("WireOverhead",
                          "Bytes each frame occupies on the wire beyond its stored bytes: "
                          "preamble+SFD (8), FCS (4) and inter-frame gap (12). Set 0 to "
                          "compare with formulas that ignore them.",
                          UintegerValue(24),
                          MakeUintegerAccessor(&FabricNetDevice::m_wireOverhead),
                          MakeUintegerChecker<uint32_t>())
            .AddAttribute(
                "Scheduler",
                "Egress scheduling among the 8 priorities.",
                EnumValue(STRICT_PRIORITY),
                MakeEnumAccessor(&FabricNetDevice::SetScheduler, &FabricNetDevice::GetScheduler),
                MakeEnumChecker(STRICT_PRIORITY, "strict", DWRR, "dwrr"))
            .AddAttribute("DwrrQuantum",
                          "Bytes each priority may send per DWRR round (equal weights).",
                          UintegerValue(9216),
                          MakeUintegerAccessor(&FabricNetDevice::SetDwrrQuantum,
                                               &FabricNetDevice::GetDwrrQuantum),
                          MakeUintegerChecker<uint32_t>(64))
            .AddAttribute(
                "LossRate",
                "Probability that a frame arriving on this port is lost on the cable "
                "(bit errors); PFC frames excepted. Lost frames are counted as drops.",
                DoubleValue(0.0),
                MakeDoubleAccessor(&FabricNetDevice::SetLossRate, &FabricNetDevice::GetLossRate),
                MakeDoubleChecker<double>(0.0, 1.0))
            .AddAttribute("FlowControl",
                          "Link-level flow control of the lossless priorities: pfc (pauses from "
                          "the switch) or cbfc (credits: a frame of a credited lane leaves only "
                          "with the credits its cells need).",
                          EnumValue(FLOW_CONTROL_PFC),
                          MakeEnumAccessor(&FabricNetDevice::m_flowControl),
                          MakeEnumChecker(FLOW_CONTROL_PFC, "pfc", FLOW_CONTROL_CBFC, "cbfc"))
            .AddAttribute("CreditCell",
                          "CBFC: bytes of buffer one credit stands for; a frame of b bytes "
                          "needs ceil(b / cell) credits.",
                          QueueSizeValue(QueueSize("256B")),
                          MakeQueueSizeAccessor(&FabricNetDevice::m_creditCell),
                          MakeQueueSizeChecker())
            .AddAttribute("CreditBuffer",
                          "CBFC: receive buffer each credited lane of a port advertises to its "
                          "peer (rounded down to whole cells): the credits of that lane.",
                          QueueSizeValue(QueueSize("128KiB")),
                          MakeQueueSizeAccessor(&FabricNetDevice::m_creditBuffer),
                          MakeQueueSizeChecker())
            .AddAttribute("CreditShared",
                          "CBFC: false gives every credited lane its own CreditBuffer; true "
                          "lets all credited lanes of the port share one CreditBuffer.",
                          BooleanValue(false),
                          MakeBooleanAccessor(&FabricNetDevice::m_creditShared),
                          MakeBooleanChecker())
            .AddAttribute("CreditLanes",
                          "CBFC: bit mask of the priorities under credit (bit i = priority i); "
                          "the scenario sets the lossless priorities.",
                          UintegerValue(0x08),
                          MakeUintegerAccessor(&FabricNetDevice::m_creditLanes),
                          MakeUintegerChecker<uint8_t>())
            .AddAttribute("CreditReturnInterval",
                          "CBFC: 0 returns freed credits at once (one credit frame per freeing, "
                          "merged while one waits to be sent); otherwise at most one credit "
                          "frame per interval carries everything freed.",
                          TimeValue(Time(0)),
                          MakeTimeAccessor(&FabricNetDevice::SetCreditReturnInterval,
                                           &FabricNetDevice::GetCreditReturnInterval),
                          MakeTimeChecker(Time(0)))
            .AddAttribute("CreditSyncInterval",
                          "CBFC credit-loss recovery: this long after a credit UPDATE the "
                          "receiver sends a SYNC with its cumulative returns; a sender stalled "
                          "this long without a credit asks for one. 0 turns recovery off.",
                          TimeValue(MicroSeconds(10)),
                          MakeTimeAccessor(&FabricNetDevice::SetCreditSyncInterval,
                                           &FabricNetDevice::GetCreditSyncInterval),
                          MakeTimeChecker(Time(0)))
            .AddAttribute("RxLatency",
                          "Pipelines a data frame crosses after its last bit arrived and before "
                          "the port's owner sees it: at a NIC, the sending NIC's TX pipeline "
                          "and its own RX pipeline (a NIC's host path sets it; "
                          "docs/models.md#remote-read-stages). FIFO, at line rate; PFC and "
                          "credit frames are MAC control and bypass it.",
                          TimeValue(Time(0)),
                          MakeTimeAccessor(&FabricNetDevice::m_rxLatency),
                          MakeTimeChecker(Time(0)))
            .AddTraceSource("PfcReceived",
                            "A PFC frame arrived: priority and pause quanta (0 = resume).",
                            MakeTraceSourceAccessor(&FabricNetDevice::m_pfcReceivedTrace),
                            "ns3::FabricNetDevice::PfcTracedCallback")
            .AddTraceSource("PfcSent",
                            "A PFC frame was queued for sending: priority and pause quanta.",
                            MakeTraceSourceAccessor(&FabricNetDevice::m_pfcSentTrace),
                            "ns3::FabricNetDevice::PfcTracedCallback")
            .AddTraceSource("QueueBytes",
                            "An egress queue changed: priority and its new occupancy in bytes.",
                            MakeTraceSourceAccessor(&FabricNetDevice::m_queueBytesTrace),
                            "ns3::FabricNetDevice::QueueBytesTracedCallback")
            .AddTraceSource("Sniffer",
                            "Every frame as it starts transmission and as it is received.",
                            MakeTraceSourceAccessor(&FabricNetDevice::m_snifferTrace),
                            "ns3::FabricNetDevice::FrameTracedCallback");
    return tid;
}

FabricNetDevice::FabricNetDevice() = default;

int64_t
FabricNetDevice::AssignStreams(int64_t stream)
{
    m_faults.SetStream(stream);
    return kStreams;
}

void
FabricNetDevice::SetCreditReturnInterval(Time interval)
{
    m_creditReturnInterval = interval;
    if (m_credits)
    {
        m_credits->SetReturnInterval(interval);
    }
}

void
FabricNetDevice::SetCreditSyncInterval(Time interval)
{
    m_creditSyncInterval = interval;
    if (m_credits)
    {
        m_credits->SetSyncInterval(interval);
    }
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
