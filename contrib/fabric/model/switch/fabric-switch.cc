#include "fabric-switch.h"

#include "hop-class-stage.h"
#include "link/fabric-channel.h"
#include "pfc-watchdog.h"
#include "sim/fabric-now.h"
#include "trim-stage.h"

#include "ns3/boolean.h"
#include "ns3/double.h"
#include "ns3/enum.h"
#include "ns3/log.h"
#include "ns3/node.h"
#include "ns3/simulator.h"
#include "ns3/string.h"
#include "ns3/type-id.h"
#include "ns3/uinteger.h"

#include <sstream>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("FabricSwitch");
NS_OBJECT_ENSURE_REGISTERED(FabricSwitch);

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
            .AddAttribute("LoadBalancer",
                          "Forwarding strategy choosing among equal-cost ports (a subclass of "
                          "ns3::SwitchLoadBalancer).",
                          TypeIdValue(EcmpLoadBalancer::GetTypeId()),
                          MakeTypeIdAccessor(&FabricSwitch::m_loadBalancerType),
                          MakeTypeIdChecker())
            .AddAttribute("TransportStages",
                          "Egress stages the hosts' congestion control needs (ns3::EgressStage "
                          "subclasses, comma-separated TypeId names), run in order after ECN "
                          "marking and C-AQM. A scenario's cc: sets it from the congestion "
                          "control's plug-in record (its SwitchStage).",
                          StringValue(""),
                          MakeStringAccessor(&FabricSwitch::m_transportStages),
                          MakeStringChecker())
            .AddAttribute("EgressStages",
                          "Further egress stages (ns3::EgressStage subclasses), comma-separated "
                          "TypeId names, run in order after ECN marking, C-AQM and the "
                          "TransportStages (a scenario's switch.stages).",
                          StringValue(""),
                          MakeStringAccessor(&FabricSwitch::m_extraEgressStages),
                          MakeStringChecker())
            .AddAttribute("EcnEnabled",
                          "Mark CE on ECN-capable frames per the Kmin/Kmax/Pmax curve "
                          "(the switch's ns3::EcnMarkStage).",
                          BooleanValue(true),
                          MakeBooleanAccessor(&FabricSwitch::m_ecnEnabled),
                          MakeBooleanChecker())
            .AddAttribute("EcnKmin",
                          "Egress queue depth where marking starts. 0B = per-port-speed default "
                          "(100 KB per 25 Gb/s of port rate: the HPCC simulator's KMIN_MAP, "
                          "simulation/run.py:97).",
                          QueueSizeValue(QueueSize("0B")),
                          MakeQueueSizeAccessor(&FabricSwitch::m_kmin),
                          MakeQueueSizeChecker())
            .AddAttribute("EcnKmax",
                          "Egress queue depth where marking reaches Pmax (above it: always). "
                          "0B = per-port-speed default (400 KB per 25 Gb/s: the HPCC "
                          "simulator's KMAX_MAP, simulation/run.py:96).",
                          QueueSizeValue(QueueSize("0B")),
                          MakeQueueSizeAccessor(&FabricSwitch::m_kmax),
                          MakeQueueSizeChecker())
            .AddAttribute("EcnPmax",
                          "Marking probability at Kmax (HPCC simulator's PMAX_MAP, "
                          "simulation/run.py:98: 0.2).",
                          DoubleValue(0.2),
                          MakeDoubleAccessor(&FabricSwitch::m_pmax),
                          MakeDoubleChecker<double>(0.0, 1.0))
            .AddAttribute("EcnSpeedMap",
                          "Per-link-speed marking curves, overriding EcnKmin/EcnKmax/EcnPmax on "
                          "ports of a listed rate: \"RATE:KMIN:KMAX:PMAX\" entries separated by "
                          "commas (the HPCC simulators' KMIN_MAP, KMAX_MAP and PMAX_MAP, "
                          "alibaba-edu/High-Precision-Congestion-Control simulation/scratch/"
                          "third.cc:589-624). Empty: none.",
                          StringValue(""),
                          MakeStringAccessor(&FabricSwitch::m_ecnSpeedMap),
                          MakeStringChecker())
            .AddAttribute("EcnMarkPoint",
                          "Decide marking when a frame is enqueued or when it is dequeued.",
                          EnumValue(EcnMarkStage::MARK_ON_ENQUEUE),
                          MakeEnumAccessor(&FabricSwitch::m_markPoint),
                          MakeEnumChecker(EcnMarkStage::MARK_ON_ENQUEUE,
                                          "enqueue",
                                          EcnMarkStage::MARK_ON_DEQUEUE,
                                          "dequeue"))
            .AddAttribute("HopClassIncrement",
                          "Deadlock avoidance by buffer classes: a lossless frame leaves on the "
                          "next priority up (DSCP rewritten), so buffer dependencies only climb "
                          "classes and cannot close a cycle while hops < free lossless classes.",
                          BooleanValue(false),
                          MakeBooleanAccessor(&FabricSwitch::m_hopClassIncrement),
                          MakeBooleanChecker())
            .AddAttribute("AckHighPriority",
                          "RoCE ACKs, NAKs and CNPs leave every port in the highest-priority "
                          "queue (priority 7, DSCP rewritten; ns3::AckPriorityStage), still "
                          "charged to the buffer class they arrived in. Off by default, as "
                          "conweave-project/conweave-ns3 src/point-to-point/model/"
                          "switch-node.cc:31 (AckHighPrio 0); its scratch/"
                          "network-load-balance.cc:1445 turns it on for every switch.",
                          BooleanValue(false),
                          MakeBooleanAccessor(&FabricSwitch::m_ackHighPriority),
                          MakeBooleanChecker())
            .AddAttribute("Caqm",
                          "Add the C-AQM egress stage (ns3::CaqmSwitch): grant or refuse "
                          "the window increases Unified Bus DATA frames request as they leave "
                          "each port, mark congestion.",
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
            .AddAttribute("TrimEnabled",
                          "Packet trimming (NDP, Handley et al., SIGCOMM 2017; Ultra Ethernet): "
                          "a data frame the buffer would drop, or whose egress queue would "
                          "exceed TrimThreshold, loses its payload; its headers go on at "
                          "TrimPriority, marked trimmed in the DSCP, so the receiver asks for "
                          "the packet again at once.",
                          BooleanValue(false),
                          MakeBooleanAccessor(&FabricSwitch::m_trimEnabled),
                          MakeBooleanChecker())
            .AddAttribute("TrimThreshold",
                          "Egress queue depth (bytes of the frame's priority, the frame "
                          "included) above which a data frame is trimmed; 0B: only frames the "
                          "buffer would drop (NDP trims beyond an 8-packet queue).",
                          QueueSizeValue(QueueSize("0B")),
                          MakeQueueSizeAccessor(&FabricSwitch::m_trimThreshold),
                          MakeQueueSizeChecker())
            .AddAttribute("TrimPriority",
                          "Priority a trimmed header leaves by (NDP and Ultra Ethernet forward "
                          "trimmed headers ahead of data).",
                          UintegerValue(7),
                          MakeUintegerAccessor(&FabricSwitch::m_trimPriority),
                          MakeUintegerChecker<uint8_t>(0, kFabricPriorities - 1))
            .AddTraceSource("Watchdog",
                            "The PFC watchdog triggered (true) or restored (false) a queue.",
                            MakeTraceSourceAccessor(&FabricSwitch::m_watchdogTrace),
                            "ns3::FabricSwitch::WatchdogTracedCallback")
            .AddTraceSource("Trim",
                            "Packet trimming cut a data frame's payload: flow id, egress port, "
                            "payload bytes cut (the same bytes are a Drop with reason 5).",
                            MakeTraceSourceAccessor(&FabricSwitch::m_trimTrace),
                            "ns3::FabricSwitch::TrimTracedCallback")
            .AddTraceSource("Drop",
                            "A frame was dropped: flow id, payload bytes, reason "
                            "(0 buffer full, 1 headroom violation, 2 no route, 3 link down, "
                            "4 PFC watchdog, 5 payload trimmed: the header went on, 6 frame "
                            "error on a working link, 7 an egress stage's drop verdict, 8 a "
                            "lossy frame over its egress queue's threshold: switch.mmu abm, or "
                            "dynamic with a lossy alpha).",
                            MakeTraceSourceAccessor(&FabricSwitch::m_dropTrace),
                            "ns3::FabricSwitch::DropTracedCallback")
            .AddTraceSource("Mark",
                            "An egress stage's verdict marked a frame ECN CE: flow id, egress "
                            "port, reason (0: the Kmin/Kmax/Pmax curve of ns3::EcnMarkStage).",
                            MakeTraceSourceAccessor(&FabricSwitch::m_markTrace),
                            "ns3::FabricSwitch::MarkTracedCallback");
    return tid;
}

FabricSwitch::FabricSwitch()
    : m_mmu(CreateObject<SharedBufferMmu>())
{
}

void
FabricSwitch::DoDispose()
{
    for (auto& e : m_pauseRefresh)
    {
        e.Cancel();
    }
    m_watchdog.reset();
    m_ports.clear();
    m_mmu = nullptr;
    m_loadBalancer = nullptr;
    m_ecnStage = nullptr;
    m_egressStages.clear();
    m_onEnqueue.clear();
    m_onDequeue.clear();
    m_receiveHooks.clear();
    m_receiveHookObjects.clear();
    Object::DoDispose();
}

uint32_t
FabricSwitch::AddPort(Ptr<FabricNetDevice> device, int towardHost)
{
    NS_LOG_FUNCTION(this << device << towardHost);
    m_portTowardHost.push_back(towardHost);
    device->SetOwner(this);
    m_ports.push_back(device);
    return static_cast<uint32_t>(m_ports.size() - 1);
}

bool
FabricSwitch::IsPortTowardHost(uint32_t i) const
{
    if (m_portTowardHost[i] >= 0)
    {
        return m_portTowardHost[i] == 1;
    }
    Ptr<FabricNetDevice> peer = m_ports[i]->GetPeer();
    return peer && !peer->GetNode()->GetObject<FabricSwitch>();
}

namespace
{
/// An Object of the TypeId named \p name that is a \p T; SwitchStageError naming
/// \p attribute otherwise (a scenario names stages through attributes, checked when the switch
/// is built; fabric-run reports it as bad input).
template <class T>
Ptr<T>
CreateStage(const std::string& name, const std::string& attribute)
{
    TypeId tid;
    if (!TypeId::LookupByNameFailSafe(name, &tid) || !tid.HasConstructor() ||
        !tid.IsChildOf(T::GetTypeId()))
    {
        throw SwitchStageError("ns3::FabricSwitch::" + attribute + ": '" + name +
                               "' is not a TypeId of a " + T::GetTypeId().GetName() +
                               " with a constructor");
    }
    ObjectFactory factory;
    factory.SetTypeId(tid);
    return DynamicCast<T>(factory.Create());
}
} // namespace

void
FabricSwitch::BuildPipeline()
{
    if (m_pipelineBuilt)
    {
        return;
    }
    m_pipelineBuilt = true;
    m_loadBalancer = CreateStage<SwitchLoadBalancer>(m_loadBalancerType.GetName(), "LoadBalancer");
    m_ecmp = m_loadBalancer->GetInstanceTypeId() == EcmpLoadBalancer::GetTypeId();
    m_plainEcmp = m_ecmp && m_boundConnections.empty();
    m_lbSeesFrames = m_loadBalancer->SeesFrames();
    // ECN first: it takes the switch's first random stream whether or not it marks. The hop
    // class rewrite (no streams) runs before it on enqueue, so that ECN sees the queue of the
    // class the frame leaves in; trimming acts only before admission.
    m_ecnStage = CreateObject<EcnMarkStage>();
    std::vector<Ptr<EgressStage>> stages;
    if (m_ackHighPriority) // first: the hop class and ECN see the class an ACK leaves in
    {
        stages.push_back(CreateStage<EgressStage>("ns3::AckPriorityStage", "AckHighPriority"));
    }
    if (m_hopClassIncrement)
    {
        stages.push_back(CreateObject<HopClassStage>());
    }
    stages.push_back(m_ecnStage);
    if (m_trimEnabled)
    {
        Ptr<TrimStage> trim = CreateObject<TrimStage>();
        trim->Configure(m_trimThreshold, m_trimPriority);
        stages.push_back(trim);
    }
    if (m_caqmEnabled && m_transportStages.find("ns3::CaqmSwitch") == std::string::npos)
    {
        stages.push_back(CreateStage<EgressStage>("ns3::CaqmSwitch", "Caqm"));
    }
    // What the transport needs first, then what the scenario adds: --attr EgressStages=...
    // appends to a stage that cc: installed instead of replacing it.
    for (const auto& [list, attribute] :
         {std::pair<const std::string&, const char*>{m_transportStages, "TransportStages"},
          {m_extraEgressStages, "EgressStages"}})
    {
        std::istringstream names(list);
        std::string name;
        while (std::getline(names, name, ','))
        {
            if (!name.empty())
            {
                stages.push_back(CreateStage<EgressStage>(name, attribute));
            }
        }
    }
    // Stages added by AddEgressStage before the pipeline was built come after these.
    stages.insert(stages.end(), m_egressStages.begin(), m_egressStages.end());
    if (Ptr<EgressStage> companion = m_loadBalancer->CreateCompanionStage())
    {
        stages.push_back(companion);
    }
    m_egressStages = std::move(stages);
}

void
FabricSwitch::AddEgressStage(Ptr<EgressStage> stage)
{
    NS_ABORT_MSG_IF(IsInitialized(), "FabricSwitch::AddEgressStage after Initialize()");
    m_egressStages.push_back(stage);
}

int64_t
FabricSwitch::GetStreamCount()
{
    BuildPipeline();
    int64_t n = m_loadBalancer->GetStreamCount();
    for (const Ptr<EgressStage>& s : m_egressStages)
    {
        n += s->GetStreamCount();
    }
    return n;
}

void
FabricSwitch::DoInitialize()
{
    NS_LOG_FUNCTION(this);
    BuildPipeline();
    uint32_t n = GetNPorts();
    if (n > 0 && m_ports[0]->GetCredits())
    {
        // Credits guarantee each (port, credited lane) the buffer it advertised: the MMU keeps
        // that much in reserve per (port, lane) instead of PFC headroom, and never pauses.
        m_mmu->UseCredits(m_ports[0]->GetCreditReserveBytes(), m_ports[0]->GetCreditLanes());
    }
    std::vector<std::pair<DataRate, Time>> cables;
    for (uint32_t i = 0; i < n; ++i)
    {
        Ptr<FabricChannel> channel = DynamicCast<FabricChannel>(m_ports[i]->GetChannel());
        cables.emplace_back(m_ports[i]->GetDataRate(), channel ? channel->GetDelay() : Time(0));
    }
    m_mmu->SetPortCables(std::move(cables));
    m_mmu->Configure(n);
    m_pauseRefresh.assign(static_cast<size_t>(n) * kFabricPriorities, EventId());
    if (m_watchdogEnabled)
    {
        m_watchdog =
            std::make_unique<PfcWatchdog>(m_ports,
                                          *m_mmu,
                                          m_watchdogDetection,
                                          m_watchdogRestore,
                                          m_watchdogAction == WATCHDOG_DROP,
                                          [this](uint32_t port, uint8_t priority, bool triggered) {
                                              m_watchdogTriggers += triggered ? 1 : 0;
                                              m_watchdogTrace(port, priority, triggered);
                                          });
        m_watchdog->Start();
    }
    m_maxQueueBytes.assign(n, 0);
    InstallLoadBalancer();
    m_ecnStage->Configure(m_ecnEnabled, m_kmin, m_kmax, m_pmax, m_markPoint);
    m_ecnStage->ConfigureSpeedMap(m_ecnSpeedMap);
    for (const Ptr<EgressStage>& s : m_egressStages)
    {
        s->Install(*this);
        if (s->RunsOnAdmission())
        {
            m_onAdmission.push_back(PeekPointer(s));
        }
        if (s->RunsOnEnqueue())
        {
            m_onEnqueue.push_back(PeekPointer(s));
        }
        if (s->RunsOnDequeue())
        {
            m_onDequeue.push_back(PeekPointer(s));
        }
    }
    Object::DoInitialize();
}

void
FabricSwitch::SetRoutes(std::vector<uint32_t> groupOfHost,
                        std::vector<std::vector<uint16_t>> groups)
{
    NS_LOG_FUNCTION(this << groups.size());
    m_groupOfHost = std::move(groupOfHost);
    m_groups = std::move(groups);
}

int64_t
FabricSwitch::AssignStreams(int64_t stream)
{
    BuildPipeline();
    int64_t first = stream;
    for (const Ptr<EgressStage>& s : m_egressStages)
    {
        stream += s->AssignStreams(stream);
        if (s == m_ecnStage)
        {
            stream += m_loadBalancer->AssignStreams(stream);
        }
    }
    return stream - first;
}

void
FabricSwitch::InstallLoadBalancer()
{
    BuildPipeline();
    if (!m_loadBalancer->IsInitialized())
    {
        m_loadBalancer->Install(*this);
        m_loadBalancer->Initialize();
    }
}

uint32_t
FabricSwitch::SelectEgressPort(const FrameInfo& info)
{
    InstallLoadBalancer(); // may be asked before the switch is initialized (tests)
    return Route(info);
}

uint32_t
FabricSwitch::Route(const FrameInfo& info)
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
    if (!m_plainEcmp)
    {
        auto bound = m_boundConnections.find(info.connection);
        if (bound != m_boundConnections.end())
        {
            return group[bound->second % group.size()];
        }
        if (!m_ecmp)
        {
            return m_loadBalancer->SelectPort(info, group);
        }
    }
    // The default strategy without a virtual call: it runs at every hop of every frame.
    return group[FabricFlowHash(info, m_hashSalt) % group.size()];
}

const std::vector<uint16_t>&
FabricSwitch::GetRouteGroup(uint32_t host) const
{
    static const std::vector<uint16_t> none;
    return host < m_groupOfHost.size() ? m_groups[m_groupOfHost[host]] : none;
}

uint32_t
FabricSwitch::RouteFrame(uint32_t inPort, WireFrame& frame)
{
    const std::vector<uint16_t>& group = GetRouteGroup(HostIndexOfIp(frame.info.dstIp));
    if (group.empty())
    {
        return UINT32_MAX;
    }
    auto bound = m_boundConnections.find(frame.info.connection);
    if (bound != m_boundConnections.end())
    {
        return group[bound->second % group.size()];
    }
    return m_loadBalancer->ForwardFrame(inPort, frame, group);
}

void
FabricSwitch::Drop(const WireFrame& frame, uint8_t reason)
{
    NS_LOG_INFO("drop reason " << unsigned(reason) << " flow " << frame.flowId << " bytes "
                               << frame.info.frameBytes);
    ++m_droppedFrames;
    m_droppedBytes += frame.info.frameBytes;
    m_dropTrace(frame.flowId, frame.payloadBytes, reason);
}

bool
FabricSwitch::AdmissionStagesTrim(WireFrame& frame, uint32_t outPort, bool bufferFull)
{
    for (EgressStage* stage : m_onAdmission)
    {
        uint32_t payload = frame.payloadBytes;
        StageVerdict verdict = stage->OnAdmission(*m_ports[outPort], frame, bufferFull);
        if (verdict.action == StageVerdict::TRIM)
        {
            uint32_t cut = payload - frame.payloadBytes;
            ++m_trimmedFrames;
            m_trimmedBytes += cut;
            NS_LOG_INFO("trim flow " << frame.flowId << " payload " << cut << " bytes");
            m_trimTrace(frame.flowId, outPort, cut);
            m_dropTrace(frame.flowId, cut, verdict.reason);
            return true;
        }
    }
    return false;
}

void
FabricSwitch::FrameReceived(FabricNetDevice* device, WireFrame& frame)
{
    int lane = frame.hasInfo ? device->CreditLaneOf(frame.info) : -1;
    if (lane < 0)
    {
        Forward(device, frame, false);
        return;
    }
    // Under credits the frame's cells stay taken while it is queued here; anything else that
    // becomes of it (dropped, trimmed, taken by an in-network service) frees them now.
    uint32_t bytes = frame.info.frameBytes;
    if (!Forward(device, frame, true))
    {
        device->FreeCredits(static_cast<uint8_t>(lane), bytes);
    }
}

bool
FabricSwitch::Forward(FabricNetDevice* device, WireFrame& frame, bool credited)
{
    if (!frame.hasInfo)
    {
        return false;
    }
    const FrameInfo& info = frame.info;
    if (!info.IsIpv4())
    {
        return false; // not IP: nothing a fabric switch forwards
    }
    for (SwitchReceiveHook* hook : m_receiveHooks)
    {
        if (hook->Claims(info))
        {
            hook->Receive(device, frame); // an in-network service: not forwarded
            return false;
        }
    }
    uint32_t inPort = device->GetIfIndex();
    uint32_t outPort = m_lbSeesFrames ? RouteFrame(inPort, frame) : Route(info);
    if (outPort == kFrameTaken)
    {
        return false; // the load balancer took it (ConWeave's control frames)
    }
    if (outPort == UINT32_MAX)
    {
        Drop(frame, DROP_NO_ROUTE);
        return false;
    }
    uint8_t prio = info.priority;
    bool sendXoff = false;
    bool trimmed = !m_onAdmission.empty() && AdmissionStagesTrim(frame, outPort, false);
    SharedBufferMmu::Verdict v = SharedBufferMmu::ADMIT;
    if (!trimmed)
    {
        v = m_mmu->Admit(inPort, prio, info.frameBytes, &sendXoff, outPort, frame.unscheduled);
        if (sendXoff)
        {
            SendXoff(inPort, prio);
        }
        // A data frame the buffer would drop may be trimmed instead (lossy priorities).
        trimmed = (v == SharedBufferMmu::DROP_LOSSY || v == SharedBufferMmu::DROP_THRESHOLD) &&
                  !m_onAdmission.empty() && AdmissionStagesTrim(frame, outPort, true);
    }
    if (trimmed)
    {
        credited = false;     // the buffer holds a header, not the frame the credits paid for
        prio = info.priority; // info now describes the header that is left
        v = m_mmu->Admit(inPort, prio, info.frameBytes, &sendXoff, outPort, frame.unscheduled);
        if (sendXoff)
        {
            SendXoff(inPort, prio);
        }
    }
    if (v == SharedBufferMmu::DROP_HEADROOM)
    {
        ++m_headroomViolationFrames;
        m_headroomViolationBytes += info.frameBytes;
        Drop(frame, DROP_HEADROOM_VIOLATION);
        return false;
    }
    if (v == SharedBufferMmu::DROP_LOSSY)
    {
        Drop(frame, DROP_BUFFER_FULL);
        return false;
    }
    if (v == SharedBufferMmu::DROP_THRESHOLD)
    {
        Drop(frame, DROP_BUFFER_THRESHOLD);
        return false;
    }
    uint64_t used = m_mmu->GetSharedUsed() + m_mmu->GetHeadroomUsed();
    if (used > m_maxBufferUsed)
    {
        m_maxBufferUsed = used;
    }
    // The parsed headers travel with the frame; a stage that rewrites a header updates
    // item.info too.
    QueuedFrame item;
    item.hasInfo = true;
    item.info = info;
    item.frame = std::move(frame.frame); // no reference count change: the packet stays untouched
    item.bytes = info.frameBytes;
    item.payloadBytes = frame.payloadBytes;
    item.flowId = frame.flowId;
    item.unscheduled = frame.unscheduled;
    item.inPort = static_cast<uint16_t>(inPort);
    item.ingressPriority = prio;
    item.holdsCredit = credited;
    item.priority = prio;
    if (m_lbSeesFrames && m_loadBalancer->HoldFrame(item, outPort))
    {
        return credited; // held (charged, or UnchargeHeld freed it): EnqueueHeld queues it later
    }
    return EnqueueAdmitted(std::move(item), outPort) && credited;
}

void
FabricSwitch::UnchargeHeld(QueuedFrame& item, uint32_t outPort)
{
    if (item.inPort == kNoIngressPort)
    {
        return;
    }
    ReleaseBuffer(item.inPort, item.ingressPriority, item.bytes, outPort, false);
    if (item.holdsCredit)
    {
        m_ports[item.inPort]->FreeCredits(item.ingressPriority, item.bytes);
    }
    item.inPort = kNoIngressPort;
    item.holdsCredit = false;
}

void
FabricSwitch::EnqueueHeld(QueuedFrame&& item, uint32_t outPort)
{
    bool credited = item.holdsCredit;
    uint16_t inPort = item.inPort;
    uint8_t lane = item.ingressPriority;
    uint32_t bytes = item.bytes;
    if (!EnqueueAdmitted(std::move(item), outPort) && credited)
    {
        m_ports[inPort]->FreeCredits(lane, bytes); // an egress stage dropped it
    }
}

bool
FabricSwitch::EnqueueAdmitted(QueuedFrame&& item, uint32_t outPort)
{
    FabricNetDevice& out = *m_ports[outPort];
    for (EgressStage* stage : m_onEnqueue)
    {
        // Of the class the frame leaves in so far (the hop class stage may raise it).
        StageVerdict verdict = stage->OnEnqueue(out, item, out.GetQueueBytes(item.priority));
        if (verdict.action == StageVerdict::MARK)
        {
            MarkCe(item, outPort, verdict.reason);
        }
        else if (verdict.action == StageVerdict::DROP)
        {
            // Not queued: the buffer it was admitted to is free again (the caller frees its
            // credits when this returns false).
            if (item.inPort != kNoIngressPort)
            {
                ReleaseBuffer(item.inPort, item.ingressPriority, item.bytes, outPort, false);
            }
            ++m_droppedFrames;
            m_droppedBytes += item.bytes;
            m_dropTrace(item.flowId, item.payloadBytes, verdict.reason);
            return false;
        }
    }
    uint64_t total = out.GetTotalQueueBytes() + item.bytes;
    if (total > m_maxQueueBytes[outPort])
    {
        m_maxQueueBytes[outPort] = total;
    }
    out.Enqueue(std::move(item));
    return true;
}

void
FabricSwitch::MarkCe(QueuedFrame& item, uint32_t outPort, uint8_t reason)
{
    MarkCongestionExperienced(item.frame.Get());
    item.info.ecn = 3;
    m_markTrace(item.flowId, outPort, reason);
}

void
FabricSwitch::FrameDequeued(FabricNetDevice* device, QueuedFrame& item)
{
    if (item.inPort == kNoIngressPort)
    {
        return;
    }
    for (EgressStage* stage : m_onDequeue)
    {
        StageVerdict verdict = stage->OnDequeue(*device, item);
        if (verdict.action == StageVerdict::MARK)
        {
            MarkCe(item, device->GetIfIndex(), verdict.reason);
        }
    }
    ReleaseBuffer(item.inPort, item.ingressPriority, item.bytes, device->GetIfIndex(), true);
    if (item.holdsCredit)
    {
        m_ports[item.inPort]->FreeCredits(item.ingressPriority, item.bytes);
    }
}

void
FabricSwitch::ReleaseBuffer(uint32_t inPort,
                            uint8_t priority,
                            uint32_t bytes,
                            uint32_t outPort,
                            bool sent)
{
    m_resumeScratch.clear();
    m_mmu->Release(inPort, priority, bytes, &m_resumeScratch, outPort, sent);
    for (const auto& [port, prio] : m_resumeScratch)
    {
        m_pauseRefresh[port * kFabricPriorities + prio].Cancel();
        NS_LOG_INFO("XON port " << port << " priority " << unsigned(prio));
        m_ports[port]->SendPause(prio, 0);
    }
}

void
FabricSwitch::FrameLost(FabricNetDevice* device, const QueuedFrame& item)
{
    if (item.inPort != kNoIngressPort)
    {
        ReleaseBuffer(item.inPort, item.ingressPriority, item.bytes, device->GetIfIndex(), false);
    }
    if (item.holdsCredit)
    {
        m_ports[item.inPort]->FreeCredits(item.ingressPriority, item.bytes);
    }
    ++m_droppedFrames;
    m_droppedBytes += item.bytes;
    // A port loses frames only to a dead link, a PFC watchdog's drop action, or a frame error
    // on a working cable (FabricNetDevice::LossRate).
    bool linkUp = device->IsLinkUp();
    bool watchdog =
        linkUp && m_watchdog && m_watchdog->IsTriggered(device->GetIfIndex(), item.priority);
    m_dropTrace(item.flowId,
                item.payloadBytes,
                !linkUp    ? DROP_LINK_DOWN
                : watchdog ? DROP_PFC_WATCHDOG
                           : DROP_LINK_ERROR);
}

void
FabricSwitch::SendXoff(uint32_t port, uint8_t priority)
{
    NS_LOG_INFO("XOFF port " << port << " priority " << unsigned(priority));
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
