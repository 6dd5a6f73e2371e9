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
            .AddAttribute("Scheduler",
                          "Egress scheduling among the 8 priorities.",
                          EnumValue(STRICT_PRIORITY),
                          MakeEnumAccessor(&FabricNetDevice::m_scheduler),
                          MakeEnumChecker(STRICT_PRIORITY, "strict", DWRR, "dwrr"))
            .AddAttribute("DwrrQuantum",
                          "Bytes each priority may send per DWRR round (equal weights).",
                          UintegerValue(9216),
                          MakeUintegerAccessor(&FabricNetDevice::m_dwrrQuantum),
                          MakeUintegerChecker<uint32_t>(64))
            .AddAttribute("LossRate",
                          "Probability that a frame arriving on this port is lost on the cable "
                          "(bit errors); PFC frames excepted. Lost frames are counted as drops.",
                          DoubleValue(0.0),
                          MakeDoubleAccessor(&FabricNetDevice::m_lossRate),
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
                          MakeTimeAccessor(&FabricNetDevice::m_creditReturnInterval),
                          MakeTimeChecker(Time(0)))
            .AddAttribute("CreditSyncInterval",
                          "CBFC credit-loss recovery: this long after a credit UPDATE the "
                          "receiver sends a SYNC with its cumulative returns; a sender stalled "
                          "this long without a credit asks for one. 0 turns recovery off.",
                          TimeValue(MicroSeconds(10)),
                          MakeTimeAccessor(&FabricNetDevice::m_creditSyncInterval),
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

FabricNetDevice::FabricNetDevice()
{
    m_pausedUntil.fill(Time(0));
    m_lastPause.fill(PicoSeconds(-1));
}

int64_t
FabricNetDevice::AssignStreams(int64_t stream)
{
    m_lossRng.SetStream(stream);
    return kStreams;
}

FabricNetDevice::~FabricNetDevice() = default;

void
FabricNetDevice::DoDispose()
{
    m_node = nullptr;
    m_channel = nullptr;
    for (auto& q : m_queues)
    {
        q.clear();
    }
    m_control.clear();
    m_onWire.clear();
    m_rxCallback = NetDevice::ReceiveCallback();
    m_promiscCallback = NetDevice::PromiscReceiveCallback();
    m_completeEvent.Cancel();
    m_completePending = false;
    m_resumeEvent.Cancel();
    m_creditReturnEvent.Cancel();
    m_creditSyncEvent.Cancel();
    m_creditRequestEvent.Cancel();
    m_stormEvent.Cancel();
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
        m_credits = std::make_unique<CreditFlowControl>(cell,
                                                        m_creditBuffer.GetValue() / cell,
                                                        m_creditLanes,
                                                        m_creditShared);
    }
}

uint64_t
FabricNetDevice::GetCreditReserveBytes() const
{
    return m_credits ? uint64_t(m_credits->GetAdvertisedCells()) * m_credits->GetCellBytes() : 0;
}

Ptr<FabricNetDevice>
FabricNetDevice::GetPeer() const
{
    return m_channel ? m_channel->GetPeer(this) : nullptr;
}

uint64_t
FabricNetDevice::GetTotalQueueBytes() const
{
    uint64_t total = 0;
    for (auto b : m_queueBytes)
    {
        total += b;
    }
    return total;
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
    if ((m_dropMask >> prio) & 1)
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
    m_queueBytes[prio] += item.bytes;
    m_queues[prio].push_back(std::move(item));
    m_nonEmpty |= static_cast<uint8_t>(1u << prio);
    m_queueBytesTrace(prio, m_queueBytes[prio]);
    TryTransmit();
}

void
FabricNetDevice::SendPause(uint8_t priority, uint16_t quanta)
{
    PfcPauseHeader pfc;
    pfc.SetPauseQuanta(priority, quanta);
    Ptr<Packet> frame = Create<Packet>();
    frame->AddHeader(pfc);
    EthernetHeader eth(false);
    eth.SetSource(m_address);
    eth.SetDestination(PfcPauseHeader::DestinationAddress());
    eth.SetLengthType(PfcPauseHeader::kEtherType);
    frame->AddHeader(eth);
    m_control.push_back(frame);
    ++m_pfcFramesSent;
    m_pfcSentTrace(priority, quanta);
    TryTransmit();
}

int
FabricNetDevice::SelectPriority(Time now)
{
    if (m_scheduler == STRICT_PRIORITY)
    {
        for (uint32_t waiting = m_nonEmpty; waiting != 0;)
        {
            int p = 31 - __builtin_clz(waiting); // the highest priority with frames
            if (m_pausedUntil[p] <= now && (!m_credits || HasCreditsFor(p)))
            {
                return p;
            }
            waiting &= ~(1u << p);
        }
        return -1;
    }
    // DWRR: visit priorities round-robin; a priority keeps the turn while its deficit covers
    // its head frame, then the next one gets a fresh quantum.
    bool anyEligible = false;
    for (uint8_t p = 0; p < kFabricPriorities; ++p)
    {
        if (!m_queues[p].empty() && m_pausedUntil[p] <= now && (!m_credits || HasCreditsFor(p)))
        {
            anyEligible = true;
        }
    }
    if (!anyEligible)
    {
        return -1;
    }
    for (;;)
    {
        uint8_t p = m_dwrrNext;
        if (!m_queues[p].empty() && m_pausedUntil[p] <= now && (!m_credits || HasCreditsFor(p)))
        {
            if (!m_dwrrTurnStarted)
            {
                m_deficit[p] += m_dwrrQuantum;
                m_dwrrTurnStarted = true;
            }
            if (m_deficit[p] >= static_cast<int64_t>(m_queues[p].front().bytes))
            {
                m_deficit[p] -= m_queues[p].front().bytes;
                return p;
            }
        }
        // The turn ends: an emptied queue forfeits its deficit, a paused one keeps it.
        if (m_queues[p].empty())
        {
            m_deficit[p] = 0;
        }
        m_dwrrTurnStarted = false;
        m_dwrrNext = static_cast<uint8_t>((m_dwrrNext + 1) % kFabricPriorities);
    }
}

void
FabricNetDevice::StartPfcStorm(uint8_t priority)
{
    NS_LOG_FUNCTION(this << unsigned(priority));
    m_stormMask |= static_cast<uint8_t>(1u << priority);
    StormRefresh();
}

void
FabricNetDevice::StopPfcStorm()
{
    m_stormMask = 0;
    m_stormEvent.Cancel();
}

void
FabricNetDevice::StormRefresh()
{
    for (uint8_t p = 0; p < kFabricPriorities; ++p)
    {
        if ((m_stormMask >> p) & 1)
        {
            SendPause(p, 0xFFFF);
        }
    }
    // Refresh well before 65535 quanta expire, as a stuck NIC's pause generator does.
    m_stormEvent =
        Simulator::Schedule(GetPauseQuantum() * 0x7FFF, &FabricNetDevice::StormRefresh, this);
}

void
FabricNetDevice::SetPauseIgnored(uint8_t priority, bool ignored)
{
    if (ignored)
    {
        m_ignorePauseMask |= static_cast<uint8_t>(1u << priority);
        m_pausedUntil[priority] = Time(0);
        TryTransmit();
    }
    else
    {
        m_ignorePauseMask &= static_cast<uint8_t>(~(1u << priority));
    }
}

void
FabricNetDevice::SetPriorityDropping(uint8_t priority, bool dropping)
{
    if (dropping)
    {
        m_dropMask |= static_cast<uint8_t>(1u << priority);
        DropQueue(priority);
    }
    else
    {
        m_dropMask &= static_cast<uint8_t>(~(1u << priority));
    }
}

void
FabricNetDevice::DropQueue(uint8_t p)
{
    while (!m_queues[p].empty())
    {
        QueuedFrame item = TakeHead(p);
        if (m_owner)
        {
            m_owner->FrameLost(this, item);
        }
    }
}

QueuedFrame
FabricNetDevice::TakeHead(uint8_t p)
{
    QueuedFrame item = std::move(m_queues[p].front());
    m_queues[p].pop_front();
    if (m_queues[p].empty())
    {
        m_nonEmpty &= static_cast<uint8_t>(~(1u << p));
    }
    m_queueBytes[p] -= item.bytes;
    m_queueBytesTrace(p, m_queueBytes[p]);
    return item;
}

void
FabricNetDevice::SetLinkUp(bool up)
{
    NS_LOG_FUNCTION(this << up);
    bool changed = up != m_linkUp;
    m_linkUp = up;
    if (changed)
    {
        m_linkChangeCallbacks();
    }
    if (up)
    {
        TryTransmit();
        return;
    }
    m_control.clear();
    for (uint8_t p = 0; p < kFabricPriorities; ++p)
    {
        DropQueue(p);
    }
}

void
FabricNetDevice::TryTransmit()
{
    if (!m_channel || !m_linkUp)
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
    if (!m_control.empty())
    {
        WireFrame wire;
        wire.frame = std::move(m_control.front());
        m_control.pop_front();
        uint32_t bytes = wire.frame->GetSize();
        StartTransmission(std::move(wire), bytes, now);
        return;
    }
    Ptr<Packet> creditFrame = m_credits && CreditFrameWanted() ? BuildCreditFrame() : nullptr;
    if (creditFrame)
    {
        WireFrame wire;
        wire.frame = std::move(creditFrame);
        uint32_t bytes = wire.frame->GetSize();
        ++m_creditFramesSent;
        m_creditBytesSent += bytes;
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
    if (m_credits && item.hasInfo && item.info.IsIpv4() &&
        m_credits->IsCredited(item.info.priority))
    {
        m_credits->Consume(item.info.priority, item.bytes);
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
        // The peer lives on another rank: remember the frame until it would have arrived, so
        // that conservation still finds it on the cable at the end of the run.
        while (!m_remoteOnWire.empty() && m_remoteOnWire.front().arrival <= now)
        {
            m_remoteOnWire.pop_front();
        }
        m_remoteOnWire.push_back(RemoteWireFrame{arrival, wire.flowId, wire.payloadBytes});
        m_channel->TransmitRemote(wire.frame.Get(), this, arrival, wire.flowId, wire.payloadBytes);
    }
    else
    {
        m_onWire.push_back(std::move(wire));
        m_channel->Transmit(this, arrival - now);
    }
    if (m_nonEmpty != 0 || !m_control.empty() || m_ownerPulls || CreditFrameWanted())
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
    Time earliest = Time::Max();
    for (uint8_t p = 0; p < kFabricPriorities; ++p)
    {
        if (!m_queues[p].empty() && m_pausedUntil[p] > now && m_pausedUntil[p] < earliest)
        {
            earliest = m_pausedUntil[p];
        }
    }
    if (earliest == Time::Max())
    {
        return;
    }
    if (m_resumeEvent.IsRunning() &&
        m_resumeEvent.GetTs() <= static_cast<uint64_t>(earliest.GetTimeStep()))
    {
        return;
    }
    m_resumeEvent.Cancel();
    m_resumeEvent = Simulator::Schedule(earliest - now, &FabricNetDevice::TryTransmit, this);
}

void
FabricNetDevice::ReceiveFromRemote(Ptr<Packet> frame, uint32_t flowId, uint32_t payload)
{
    WireFrame wire;
    wire.frame = frame;
    wire.flowId = flowId;
    wire.payloadBytes = payload;
    Deliver(wire);
}

void
FabricNetDevice::Deliver(WireFrame& wire)
{
    FrameRef& frame = wire.frame;
    bool lost = false;
    if (m_lossRate > 0 && m_lossRng.GetValue() < m_lossRate)
    {
        uint8_t type[14];
        frame->CopyData(type, 14);
        lost = ((type[12] << 8) | type[13]) != PfcPauseHeader::kEtherType;
        m_lostFrames += lost ? 1 : 0;
    }
    if (!m_linkUp || lost)
    {
        if (m_credits)
        {
            DiscardCredited(wire);
        }
        ReportLost(wire);
        return;
    }
    if (m_stormMask && !lost)
    {
        uint8_t b[16];
        if (frame->CopyData(b, 16) == 16 && ((b[12] << 8) | b[13]) == 0x0800 &&
            ((m_stormMask >> ((b[15] >> 2) >> 3)) & 1))
        {
            lost = true; // the stuck NIC accepts nothing of the paused priority
        }
    }
    if (lost)
    {
        if (m_credits)
        {
            DiscardCredited(wire);
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
        HandlePfcFrame(frame.Get());
        return;
    }
    if (m_credits)
    {
        if (wire.info.etherType == CreditUpdateHeader::kEtherType)
        {
            HandleCreditFrame(frame.Get());
            return;
        }
        int lane = CreditLaneOf(wire.info);
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
FabricNetDevice::DiscardCredited(WireFrame& wire)
{
    if (!wire.hasInfo)
    {
        wire.info = FrameInfo();
        wire.hasInfo = ParseFrame(wire.frame.Get(), &wire.info);
    }
    int lane = wire.hasInfo ? CreditLaneOf(wire.info) : -1;
    if (lane < 0)
    {
        return;
    }
    m_credits->Free(static_cast<uint8_t>(lane), wire.info.frameBytes, false);
    ScheduleCreditReturn();
}

void
FabricNetDevice::FreeCredits(uint8_t lane, uint32_t bytes)
{
    m_credits->Free(lane, bytes, true);
    ScheduleCreditReturn();
}

void
FabricNetDevice::ScheduleCreditReturn()
{
    if (m_creditReturnInterval.IsZero())
    {
        m_creditUpdateWanted = true;
        TryTransmit();
        return;
    }
    if (!m_creditReturnEvent.IsRunning())
    {
        m_creditReturnEvent =
            Simulator::Schedule(m_creditReturnInterval, &FabricNetDevice::CreditReturnDue, this);
    }
}

void
FabricNetDevice::CreditReturnDue()
{
    m_creditUpdateWanted = true;
    TryTransmit();
}

void
FabricNetDevice::CreditSyncDue()
{
    m_creditSyncWanted = true;
    TryTransmit();
}

Ptr<Packet>
FabricNetDevice::BuildCreditFrame()
{
    CreditUpdateHeader credit;
    if (m_creditSyncWanted)
    {
        // A SYNC carries everything freed so far: pending returns are in it too.
        m_credits->FillSync(&credit);
        m_creditSyncWanted = false;
        m_creditUpdateWanted = false;
    }
    else if (m_creditUpdateWanted && m_credits->HasPending())
    {
        m_credits->FillUpdate(&credit);
        m_creditUpdateWanted = false;
        // Recovery: a SYNC follows the last UPDATE by at most one interval, so an UPDATE lost
        // on the cable costs its credits for that long, not for ever.
        if (!m_creditSyncInterval.IsZero() && !m_creditSyncEvent.IsRunning())
        {
            m_creditSyncEvent =
                Simulator::Schedule(m_creditSyncInterval, &FabricNetDevice::CreditSyncDue, this);
        }
    }
    else if (m_creditRequestWanted)
    {
        m_creditUpdateWanted = false; // nothing pending: an earlier frame returned it
        credit.SetKind(CreditUpdateHeader::REQUEST);
        m_creditRequestWanted = false;
    }
    else
    {
        m_creditUpdateWanted = false; // an earlier frame returned what this one would have
        return nullptr;
    }
    Ptr<Packet> frame = Create<Packet>();
    frame->AddHeader(credit);
    EthernetHeader eth(false);
    eth.SetSource(m_address);
    eth.SetDestination(CreditUpdateHeader::DestinationAddress());
    eth.SetLengthType(CreditUpdateHeader::kEtherType);
    frame->AddHeader(eth);
    return frame;
}

void
FabricNetDevice::HandleCreditFrame(Ptr<Packet> frame)
{
    EthernetHeader eth(false);
    frame->RemoveHeader(eth);
    CreditUpdateHeader credit;
    frame->RemoveHeader(credit);
    if (!credit.IsValid())
    {
        return;
    }
    if (credit.GetKind() == CreditUpdateHeader::REQUEST)
    {
        m_creditSyncWanted = true;
        TryTransmit();
        return;
    }
    m_credits->Apply(credit);
    m_lastCreditArrival = FabricNow();
    m_creditStalledMask = 0; // a stall that continues counts again from here
    TryTransmit();
}

bool
FabricNetDevice::HasCreditsFor(uint8_t p)
{
    const QueuedFrame& head = m_queues[p].front();
    if (!head.hasInfo || !head.info.IsIpv4() || !m_credits->IsCredited(head.info.priority))
    {
        return true;
    }
    if (m_credits->CanSend(head.info.priority, head.bytes))
    {
        return true;
    }
    uint8_t bit = static_cast<uint8_t>(1u << p);
    if ((m_creditStalledMask & bit) == 0)
    {
        m_creditStalledMask |= bit;
        ++m_creditStalls;
        if (!m_creditSyncInterval.IsZero() && !m_creditRequestEvent.IsRunning())
        {
            m_creditRequestEvent = Simulator::Schedule(m_creditSyncInterval,
                                                       &FabricNetDevice::CreditRequestCheck,
                                                       this);
        }
    }
    return false;
}

void
FabricNetDevice::CreditRequestCheck()
{
    bool stalled = false;
    for (uint8_t p = 0; p < kFabricPriorities; ++p)
    {
        if (m_queues[p].empty())
        {
            continue;
        }
        const QueuedFrame& head = m_queues[p].front();
        stalled |= head.hasInfo && head.info.IsIpv4() &&
                   m_credits->IsCredited(head.info.priority) &&
                   !m_credits->CanSend(head.info.priority, head.bytes);
    }
    if (!stalled)
    {
        return;
    }
    Time now = FabricNow();
    if (now - m_lastCreditArrival >= m_creditSyncInterval)
    {
        // Stalled for a whole interval without a credit: credit frames may have been lost.
        m_creditRequestWanted = true;
        TryTransmit();
    }
    m_creditRequestEvent =
        Simulator::Schedule(m_creditSyncInterval, &FabricNetDevice::CreditRequestCheck, this);
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
                                         << " payload bytes" << (m_linkUp ? "" : " (link down)"));
    if (m_owner)
    {
        QueuedFrame lost;
        lost.flowId = wire.flowId;
        lost.payloadBytes = wire.payloadBytes;
        lost.bytes = wire.frame->GetSize();
        m_owner->FrameLost(this, lost);
    }
}

void
FabricNetDevice::HandlePfcFrame(Ptr<Packet> frame)
{
    EthernetHeader eth(false);
    frame->RemoveHeader(eth);
    PfcPauseHeader pfc;
    frame->RemoveHeader(pfc);
    if (!pfc.IsValid())
    {
        return; // other MAC Control opcodes (e.g. 802.3x PAUSE) are not modelled
    }
    Time now = FabricNow();
    Time quantum = GetPauseQuantum();
    bool resumed = false;
    for (uint8_t p = 0; p < kFabricPriorities; ++p)
    {
        if (!pfc.IsEnabled(p))
        {
            continue;
        }
        uint16_t quanta = pfc.GetPauseQuanta(p);
        NS_LOG_LOGIC("PFC priority " << unsigned(p) << " quanta " << quanta);
        m_pfcReceivedTrace(p, quanta);
        if (quanta > 0)
        {
            m_lastPause[p] = now;
            if (m_pausedUntil[p] <= now)
            {
                m_pausedSince[p] = now; // a new pause, not a refresh of one in force
            }
        }
        if ((m_ignorePauseMask >> p) & 1)
        {
            continue; // a PFC watchdog stopped honouring pauses for this priority
        }
        m_pausedUntil[p] = now + quantum * quanta;
        resumed |= quanta == 0;
    }
    if (resumed)
    {
        TryTransmit();
    }
    else if (!IsBusy())
    {
        ScheduleResumeCheck();
    }
}

// ---- NetDevice boilerplate: the fabric does not use ns-3's IP stack, so Send() is a thin
// compatibility path and addresses are plain MACs.

void
FabricNetDevice::SetIfIndex(const uint32_t index)
{
    m_ifIndex = index;
}

uint32_t
FabricNetDevice::GetIfIndex() const
{
    return m_ifIndex;
}

Ptr<Channel>
FabricNetDevice::GetChannel() const
{
    return m_channel;
}

void
FabricNetDevice::SetAddress(Address address)
{
    m_address = Mac48Address::ConvertFrom(address);
}

Address
FabricNetDevice::GetAddress() const
{
    return m_address;
}

bool
FabricNetDevice::SetMtu(const uint16_t mtu)
{
    m_mtu = mtu;
    return true;
}

uint16_t
FabricNetDevice::GetMtu() const
{
    return m_mtu;
}

bool
FabricNetDevice::IsLinkUp() const
{
    return m_channel != nullptr && m_linkUp;
}

void
FabricNetDevice::AddLinkChangeCallback(Callback<void> callback)
{
    m_linkChangeCallbacks.ConnectWithoutContext(callback);
}

bool
FabricNetDevice::IsBroadcast() const
{
    return true;
}

Address
FabricNetDevice::GetBroadcast() const
{
    return Mac48Address::GetBroadcast();
}

bool
FabricNetDevice::IsMulticast() const
{
    return false;
}

Address
FabricNetDevice::GetMulticast(Ipv4Address multicastGroup) const
{
    return Mac48Address::GetMulticast(multicastGroup);
}

Address
FabricNetDevice::GetMulticast(Ipv6Address addr) const
{
    return Mac48Address::GetMulticast(addr);
}

bool
FabricNetDevice::IsPointToPoint() const
{
    return true;
}

bool
FabricNetDevice::IsBridge() const
{
    return false;
}

bool
FabricNetDevice::Send(Ptr<Packet> packet, const Address& dest, uint16_t protocolNumber)
{
    EthernetHeader eth(false);
    eth.SetSource(m_address);
    eth.SetDestination(Mac48Address::ConvertFrom(dest));
    eth.SetLengthType(protocolNumber);
    packet->AddHeader(eth);
    QueuedFrame item;
    item.bytes = packet->GetSize();
    item.frame = packet;
    Enqueue(std::move(item));
    return true;
}

bool
FabricNetDevice::SendFrom(Ptr<Packet> packet,
                          const Address& source,
                          const Address& dest,
                          uint16_t protocolNumber)
{
    return Send(packet, dest, protocolNumber);
}

Ptr<Node>
FabricNetDevice::GetNode() const
{
    return m_node;
}

void
FabricNetDevice::SetNode(Ptr<Node> node)
{
    m_node = node;
}

bool
FabricNetDevice::NeedsArp() const
{
    return false;
}

void
FabricNetDevice::SetReceiveCallback(NetDevice::ReceiveCallback cb)
{
    m_rxCallback = cb;
}

void
FabricNetDevice::SetPromiscReceiveCallback(NetDevice::PromiscReceiveCallback cb)
{
    m_promiscCallback = cb;
}

bool
FabricNetDevice::SupportsSendFrom() const
{
    return false;
}

} // namespace ns3
