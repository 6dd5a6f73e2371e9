#include "fabric-switch.h"

#include "ns3/boolean.h"
#include "ns3/double.h"
#include "ns3/enum.h"
#include "ns3/log.h"
#include "ns3/node.h"
#include "ns3/simulator.h"
#include "ns3/uinteger.h"

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("FabricSwitch");
NS_OBJECT_ENSURE_REGISTERED(FabricSwitch);

namespace
{
/// Final mix of MurmurHash3: cheap, and every input bit affects every output bit, so nearby
/// 5-tuples (consecutive ports, addresses) spread uniformly over the uplinks.
inline uint32_t
Mix32(uint32_t h)
{
    h ^= h >> 16;
    h *= 0x85ebca6bu;
    h ^= h >> 13;
    h *= 0xc2b2ae35u;
    h ^= h >> 16;
    return h;
}

/// Flow of a frame carrying \p payload bytes (FlowPayloadBytes) for per-flow accounting: data
/// frames only (ACKs, CNPs carry no flow bytes).
inline uint32_t
FlowOf(const FrameInfo& info, uint32_t payload)
{
    return payload > 0 ? info.destQp : kNoFlow;
}
} // namespace

uint32_t
FabricFlowHash(const FrameInfo& info, uint32_t salt)
{
    uint32_t h = Mix32(salt ^ 0x9e3779b9u);
    if (info.isUb)
    {
        return Mix32(h ^ info.srcPort);
    }
    h = Mix32(h ^ info.srcIp);
    h = Mix32(h ^ info.dstIp);
    h = Mix32(h ^ ((uint32_t(info.srcPort) << 16) | info.dstPort));
    h = Mix32(h ^ info.protocol);
    return h;
}

TypeId
FabricSwitch::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::FabricSwitch")
            .SetParent<Object>()
            .SetGroupName("Fabric")
            .AddConstructor<FabricSwitch>()
            .AddAttribute("HashSalt",
                          "Salt of the ECMP hash; the builder gives every switch its own so that "
                          "successive tiers decorrelate (no hash polarization).",
                          UintegerValue(0),
                          MakeUintegerAccessor(&FabricSwitch::m_hashSalt),
                          MakeUintegerChecker<uint32_t>())
            .AddAttribute("EcnEnabled",
                          "Mark CE on ECN-capable frames per the Kmin/Kmax/Pmax curve.",
                          BooleanValue(true),
                          MakeBooleanAccessor(&FabricSwitch::m_ecnEnabled),
                          MakeBooleanChecker())
            .AddAttribute("EcnKmin",
                          "Egress queue depth where marking starts. 0B = per-port-speed default "
                          "(100 KiB per 100 Gb/s of port rate).",
                          QueueSizeValue(QueueSize("0B")),
                          MakeQueueSizeAccessor(&FabricSwitch::m_kmin),
                          MakeQueueSizeChecker())
            .AddAttribute("EcnKmax",
                          "Egress queue depth where marking reaches Pmax (above it: always). "
                          "0B = per-port-speed default (400 KiB per 100 Gb/s).",
                          QueueSizeValue(QueueSize("0B")),
                          MakeQueueSizeAccessor(&FabricSwitch::m_kmax),
                          MakeQueueSizeChecker())
            .AddAttribute("EcnPmax",
                          "Marking probability at Kmax.",
                          DoubleValue(0.2),
                          MakeDoubleAccessor(&FabricSwitch::m_pmax),
                          MakeDoubleChecker<double>(0.0, 1.0))
            .AddAttribute("EcnMarkPoint",
                          "Decide marking when a frame is enqueued or when it is dequeued.",
                          EnumValue(MARK_ON_ENQUEUE),
                          MakeEnumAccessor(&FabricSwitch::m_markPoint),
                          MakeEnumChecker(MARK_ON_ENQUEUE, "enqueue", MARK_ON_DEQUEUE, "dequeue"))
            .AddAttribute("HopClassIncrement",
                          "Deadlock avoidance by buffer classes: a lossless frame leaves on the "
                          "next priority up (DSCP rewritten), so buffer dependencies only climb "
                          "classes and cannot close a cycle while hops < free lossless classes.",
                          BooleanValue(false),
                          MakeBooleanAccessor(&FabricSwitch::m_hopClassIncrement),
                          MakeBooleanChecker())
            .AddAttribute("Caqm",
                          "Run C-AQM on Unified Bus DATA frames as they leave each port (grant "
                          "or refuse window increases, mark congestion; see ns3::CaqmSwitch).",
                          BooleanValue(false),
                          MakeBooleanAccessor(&FabricSwitch::m_caqmEnabled),
                          MakeBooleanChecker())
            .AddAttribute("PfcWatchdog",
                          "Detect PFC storms: a lossless egress queue paused and unable to send "
                          "for the detection time triggers the watchdog action.",
                          BooleanValue(false),
                          MakeBooleanAccessor(&FabricSwitch::m_watchdogEnabled),
                          MakeBooleanChecker())
            .AddAttribute("PfcWatchdogDetection",
                          "How long a queue must stay paused without sending to be a storm "
                          "victim (switches ship 100-200 ms; studies use less).",
                          TimeValue(MicroSeconds(200)),
                          MakeTimeAccessor(&FabricSwitch::m_watchdogDetection),
                          MakeTimeChecker(NanoSeconds(1)))
            .AddAttribute("PfcWatchdogRestore",
                          "The watchdog stands down once no pause has arrived for this long.",
                          TimeValue(MilliSeconds(1)),
                          MakeTimeAccessor(&FabricSwitch::m_watchdogRestore),
                          MakeTimeChecker(NanoSeconds(1)))
            .AddAttribute("PfcWatchdogAction",
                          "drop: discard the stormed queue's frames and ignore its pauses; "
                          "forward: ignore pauses and keep sending.",
                          EnumValue(WATCHDOG_DROP),
                          MakeEnumAccessor(&FabricSwitch::m_watchdogAction),
                          MakeEnumChecker(WATCHDOG_DROP, "drop", WATCHDOG_FORWARD, "forward"))
            .AddTraceSource("Watchdog",
                            "The PFC watchdog triggered (true) or restored (false) a queue.",
                            MakeTraceSourceAccessor(&FabricSwitch::m_watchdogTrace),
                            "ns3::FabricSwitch::WatchdogTracedCallback")
            .AddTraceSource("Drop",
                            "A frame was dropped: flow id, payload bytes, reason "
                            "(0 buffer full, 1 headroom violation, 2 no route, 3 link down, "
                            "4 PFC watchdog).",
                            MakeTraceSourceAccessor(&FabricSwitch::m_dropTrace),
                            "ns3::FabricSwitch::DropTracedCallback");
    return tid;
}

FabricSwitch::FabricSwitch()
    : m_mmu(CreateObject<SharedBufferMmu>()),
      m_rng(CreateObject<UniformRandomVariable>())
{
}

void
FabricSwitch::DoDispose()
{
    for (auto& e : m_pauseRefresh)
    {
        e.Cancel();
    }
    m_watchdogEvent.Cancel();
    for (auto& w : m_watchdog)
    {
        w.deadline.Cancel();
    }
    m_ports.clear();
    m_mmu = nullptr;
    m_rng = nullptr;
    m_caqm = nullptr;
    m_sharp = nullptr; // SHARP hook
    Object::DoDispose();
}

uint32_t
FabricSwitch::AddPort(Ptr<FabricNetDevice> device, int towardHost)
{
    m_portTowardHost.push_back(towardHost);
    device->SetOwner(this);
    m_ports.push_back(device);
    return static_cast<uint32_t>(m_ports.size() - 1);
}

void
FabricSwitch::Initialize()
{
    uint32_t n = GetNPorts();
    m_mmu->Configure(n);
    m_pauseRefresh.assign(static_cast<size_t>(n) * kFabricPriorities, EventId());
    m_watchdog.assign(static_cast<size_t>(n) * kFabricPriorities, WatchdogState());
    if (m_watchdogEnabled)
    {
        m_watchdogEvent = Simulator::Schedule(m_watchdogDetection / 4, &FabricSwitch::WatchdogCheck,
                                              this);
    }
    m_maxQueueBytes.assign(n, 0);
    if (m_caqmEnabled)
    {
        m_caqm = CreateObject<CaqmSwitch>();
        for (uint32_t i = 0; i < n; ++i)
        {
            Ptr<FabricNetDevice> peer = m_ports[i]->GetPeer();
            bool towardHost = m_portTowardHost[i] >= 0
                                  ? m_portTowardHost[i] == 1
                                  : peer && !peer->GetNode()->GetObject<FabricSwitch>();
            m_caqm->AddPort(m_ports[i]->GetDataRate(), towardHost);
        }
    }
    m_ecn.assign(n, EcnCurve());
    for (uint32_t i = 0; i < n; ++i)
    {
        double per100G = static_cast<double>(m_ports[i]->GetDataRate().GetBitRate()) / 100e9;
        EcnCurve& c = m_ecn[i];
        c.kmin = m_kmin.GetValue() ? m_kmin.GetValue()
                                   : static_cast<uint64_t>(100 * 1024 * per100G);
        c.kmax = m_kmax.GetValue() ? m_kmax.GetValue()
                                   : static_cast<uint64_t>(400 * 1024 * per100G);
        c.pmax = m_pmax;
    }
}

void
FabricSwitch::SetRoutes(std::vector<uint32_t> groupOfHost, std::vector<std::vector<uint16_t>> groups)
{
    m_groupOfHost = std::move(groupOfHost);
    m_groups = std::move(groups);
}

int64_t
FabricSwitch::AssignStreams(int64_t stream)
{
    m_rng->SetStream(stream);
    return 1 + (m_caqm ? m_caqm->AssignStreams(stream + 1) : 0);
}

uint32_t
FabricSwitch::SelectEgressPort(const FrameInfo& info) const
{
    uint32_t host = HostIndexOfIp(info.dstIp);
    if (host >= m_groupOfHost.size())
    {
        return UINT32_MAX;
    }
    const std::vector<uint16_t>& group = m_groups[m_groupOfHost[host]];
    if (group.empty())
    {
        return UINT32_MAX;
    }
    if (group.size() == 1)
    {
        return group[0];
    }
    return group[FabricFlowHash(info, m_hashSalt) % group.size()];
}

void
FabricSwitch::Drop(const FrameInfo& info, uint8_t reason)
{
    ++m_droppedFrames;
    m_droppedBytes += info.frameBytes;
    uint32_t payload = FlowPayloadBytes(info);
    m_dropTrace(FlowOf(info, payload), payload, reason);
}

void
FabricSwitch::FrameReceived(FabricNetDevice* device, FrameRef& frame)
{
    FrameInfo parsed;
    const FrameInfo* rx = device->GetRxFrameInfo(frame, &parsed); // parsed once by the device
    if (!rx)
    {
        return;
    }
    const FrameInfo& info = *rx;
    if (!info.IsIpv4())
    {
        return; // not IP: nothing a fabric switch forwards
    }
    if (m_sharp && info.dstPort == kSharpUdpPort)
    {
        m_sharp->Receive(device, frame.Get()); // SHARP hook: reduction frames are not forwarded
        return;
    }
    uint32_t inPort = device->GetIfIndex();
    uint32_t outPort = SelectEgressPort(info);
    if (outPort == UINT32_MAX)
    {
        Drop(info, DROP_NO_ROUTE);
        return;
    }
    uint8_t prio = info.priority;
    bool sendXoff = false;
    SharedBufferMmu::Verdict v = m_mmu->Admit(inPort, prio, info.frameBytes, &sendXoff);
    if (sendXoff)
    {
        SendXoff(inPort, prio);
    }
    if (v == SharedBufferMmu::DROP_HEADROOM)
    {
        ++m_headroomViolationFrames;
        m_headroomViolationBytes += info.frameBytes;
        Drop(info, DROP_HEADROOM_VIOLATION);
        return;
    }
    if (v == SharedBufferMmu::DROP_LOSSY)
    {
        Drop(info, DROP_BUFFER_FULL);
        return;
    }
    uint64_t used = m_mmu->GetSharedUsed() + m_mmu->GetHeadroomUsed();
    if (used > m_maxBufferUsed)
    {
        m_maxBufferUsed = used;
    }
    Ptr<FabricNetDevice> out = m_ports[outPort];
    // The parsed headers travel with the frame; every header rewritten below is updated in
    // item.info too.
    QueuedFrame item;
    item.hasInfo = true;
    item.info = info;
    uint8_t outPrio = prio;
    if (m_hopClassIncrement && prio < kFabricPriorities - 1 && m_mmu->IsLossless(prio) &&
        m_mmu->IsLossless(prio + 1))
    {
        outPrio = prio + 1;
        SetFramePriority(frame.Get(), outPrio);
        item.info.priority = outPrio;
    }
    uint64_t queued = out->GetQueueBytes(outPrio);
    if (m_ecnEnabled && m_markPoint == MARK_ON_ENQUEUE)
    {
        MaybeMarkEcn(outPort, frame, item.info, queued);
    }
    uint64_t total = out->GetTotalQueueBytes() + info.frameBytes;
    if (total > m_maxQueueBytes[outPort])
    {
        m_maxQueueBytes[outPort] = total;
    }
    item.frame = std::move(frame); // no reference count change: the packet stays untouched
    item.bytes = info.frameBytes;
    item.payloadBytes = FlowPayloadBytes(info);
    item.flowId = FlowOf(info, item.payloadBytes);
    item.inPort = static_cast<uint16_t>(inPort);
    item.priority = outPrio;
    item.ingressPriority = prio;
    out->Enqueue(std::move(item));
}

void
FabricSwitch::MaybeMarkEcn(uint32_t port,
                           const FrameRef& frame,
                           FrameInfo& info,
                           uint64_t queueBytes)
{
    if (!info.IsEcnCapable() || info.ecn == 3)
    {
        return;
    }
    double p = m_ecn[port].Probability(queueBytes);
    if (p <= 0.0)
    {
        return;
    }
    if (p >= 1.0 || m_rng->GetValue() < p)
    {
        MarkCongestionExperienced(frame.Get());
        info.ecn = 3;
        ++m_ecnMarked;
    }
}

void
FabricSwitch::FrameDequeued(FabricNetDevice* device, QueuedFrame& item)
{
    if (item.inPort == kNoIngressPort)
    {
        return;
    }
    if (m_ecnEnabled && m_markPoint == MARK_ON_DEQUEUE)
    {
        MaybeMarkEcn(device->GetIfIndex(), item.frame, item.info,
                     device->GetQueueBytes(item.priority));
    }
    if (m_caqm && item.flowId != kNoFlow)
    {
        ApplyCaqm(device, item);
    }
    ReleaseBuffer(item.inPort, item.ingressPriority, item.bytes);
}

void
FabricSwitch::ApplyCaqm(Ptr<FabricNetDevice> device, QueuedFrame& item)
{
    FrameInfo& info = item.info; // parsed when queued (Enqueue)
    if (!item.hasInfo || !info.isUb || info.opcode != UbOpcode::DATA)
    {
        return;
    }
    UbCci in = UbCci::Decode(info.cci);
    UbCci out = m_caqm->OnDequeue(device->GetIfIndex(), in, device->GetTotalQueueBytes(),
                                  item.bytes);
    uint16_t field = out.Encode();
    if (field != info.cci)
    {
        UbFrameHeader h;
        item.frame->RemoveHeader(h);
        h.cci = field;
        item.frame->AddHeader(h);
        info.cci = field;
    }
}

void
FabricSwitch::ReleaseBuffer(uint32_t inPort, uint8_t priority, uint32_t bytes)
{
    m_resumeScratch.clear();
    m_mmu->Release(inPort, priority, bytes, &m_resumeScratch);
    for (const auto& [port, prio] : m_resumeScratch)
    {
        m_pauseRefresh[port * kFabricPriorities + prio].Cancel();
        m_ports[port]->SendPause(prio, 0);
    }
}

void
FabricSwitch::FrameLost(FabricNetDevice* device, const QueuedFrame& item)
{
    if (item.inPort != kNoIngressPort)
    {
        ReleaseBuffer(item.inPort, item.ingressPriority, item.bytes);
    }
    ++m_droppedFrames;
    m_droppedBytes += item.bytes;
    bool watchdog = device->IsLinkUp() && m_watchdogEnabled &&
                    m_watchdog[device->GetIfIndex() * kFabricPriorities + item.priority].triggered;
    m_dropTrace(item.flowId, item.payloadBytes, watchdog ? DROP_PFC_WATCHDOG : DROP_LINK_DOWN);
}

void
FabricSwitch::WatchdogCheck()
{
    // Poll for paused, non-empty lossless queues and arm a deadline at the exact end of their
    // detection time, counted from when the pause began. Queues deeper in a pause tree were
    // paused later than its root, so the root triggers first; its drops unwind the tree before
    // the others' deadlines, and only the real victim queue is touched.
    Time now = Simulator::Now();
    for (uint32_t port = 0; port < m_ports.size(); ++port)
    {
        Ptr<FabricNetDevice> dev = m_ports[port];
        for (uint8_t q = 0; q < kFabricPriorities; ++q)
        {
            if (!m_mmu->IsLossless(q))
            {
                continue;
            }
            WatchdogState& w = m_watchdog[port * kFabricPriorities + q];
            if (w.triggered)
            {
                if (now - dev->GetLastPauseReceived(q) >= m_watchdogRestore)
                {
                    w.triggered = false;
                    dev->SetPriorityDropping(q, false);
                    dev->SetPauseIgnored(q, false);
                    m_watchdogTrace(port, q, false);
                }
                continue;
            }
            if (!dev->IsPaused(q) || dev->GetQueueBytes(q) == 0)
            {
                continue;
            }
            Time since = dev->GetPausedSince(q);
            if (w.deadline.IsRunning() && w.pausedSince == since)
            {
                continue;
            }
            w.deadline.Cancel();
            w.pausedSince = since;
            w.txAtPause = dev->GetTxBytes(q);
            Time at = since + m_watchdogDetection;
            w.deadline = Simulator::Schedule(at > now ? at - now : Time(0),
                                             &FabricSwitch::WatchdogDeadline,
                                             this,
                                             port,
                                             q);
        }
    }
    m_watchdogEvent =
        Simulator::Schedule(m_watchdogDetection / 4, &FabricSwitch::WatchdogCheck, this);
}

void
FabricSwitch::WatchdogDeadline(uint32_t port, uint8_t q)
{
    Ptr<FabricNetDevice> dev = m_ports[port];
    WatchdogState& w = m_watchdog[port * kFabricPriorities + q];
    bool samePause = dev->IsPaused(q) && dev->GetPausedSince(q) == w.pausedSince;
    if (w.triggered || !samePause || dev->GetQueueBytes(q) == 0 || dev->GetTxBytes(q) != w.txAtPause)
    {
        return;
    }
    w.triggered = true;
    ++m_watchdogTriggers;
    m_watchdogTrace(port, q, true);
    dev->SetPauseIgnored(q, true);
    if (m_watchdogAction == WATCHDOG_DROP)
    {
        dev->SetPriorityDropping(q, true);
    }
}

void
FabricSwitch::SendXoff(uint32_t port, uint8_t priority)
{
    Ptr<FabricNetDevice> dev = m_ports[port];
    uint16_t quanta = m_mmu->GetPauseQuanta();
    dev->SendPause(priority, quanta);
    // Refresh at half the pause time so the upstream never resumes on expiry while we still
    // need it paused (what switches do instead of relying on long pause times).
    EventId& e = m_pauseRefresh[port * kFabricPriorities + priority];
    e.Cancel();
    e = Simulator::Schedule(dev->GetPauseQuantum() * (quanta / 2),
                            &FabricSwitch::RefreshPause,
                            this,
                            port,
                            priority);
}

void
FabricSwitch::RefreshPause(uint32_t port, uint8_t priority)
{
    if (m_mmu->IsPaused(port, priority))
    {
        SendXoff(port, priority);
    }
}

} // namespace ns3
