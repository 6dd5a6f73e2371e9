#include "nic-transport.h"

#include "sim/fabric-now.h"

#include "ns3/enum.h"
#include "ns3/simulator.h"
#include "ns3/uinteger.h"

#include <algorithm>

namespace ns3
{

NS_OBJECT_ENSURE_REGISTERED(NicTransport);

TypeId
NicTransport::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::NicTransport").SetParent<HostTransport>().SetGroupName("Fabric");
    return tid;
}

TypeId
NicTransport::AddNicAttributes(TypeId tid, const AttributeDefaults& defaults)
{
    return AddHostPathAttributes(tid)
        .AddAttribute("Mtu",
                      "Path MTU: payload bytes per packet (RoCE: 1024, 2048 or 4096).",
                      UintegerValue(4096),
                      MakeUintegerAccessor(&NicTransport::m_mtu),
                      MakeUintegerChecker<uint32_t>(64, 9000))
        .AddAttribute("AckInterval",
                      "The receiver ACKs every this many packets it accepts (and always the "
                      "last packet of a message; UB also at once on a gap opening or closing, a "
                      "change of the congestion mark and a full sender window; "
                      "docs/models.md#ub-ack-frequency).",
                      UintegerValue(1),
                      MakeUintegerAccessor(&NicTransport::m_ackInterval),
                      MakeUintegerChecker<uint32_t>(1))
        .AddAttribute("RtoMode",
                      "Retransmission timeout: adaptive (RFC 6298 SRTT + 4 RTTVAR per QP or "
                      "channel, Karn's rule, doubled on expiry; at least MinRto + "
                      "RtoQueueBound, at most RtoMax) or fixed (RoCE RtoLow / RtoHigh, UB Rto: "
                      "fires spuriously once lossless queues hold a packet longer).",
                      EnumValue(RTO_ADAPTIVE),
                      MakeEnumAccessor(&NicTransport::m_rtoMode),
                      MakeEnumChecker(RTO_FIXED, "fixed", RTO_ADAPTIVE, "adaptive"))
        .AddAttribute("MinRto",
                      "RtoMode adaptive: the RTO an unloaded fabric needs, the first term of the "
                      "floor (IRN's RTO_low: 100 us; Mittal et al., SIGCOMM 2018).",
                      TimeValue(MicroSeconds(100)),
                      MakeTimeAccessor(&NicTransport::m_minRto),
                      MakeTimeChecker(NanoSeconds(1)))
        .AddAttribute("RtoQueueBound",
                      "RtoMode adaptive: the worst queueing a lossless class allows, added to "
                      "MinRto as the RTO floor (no RTT estimate sees an incast's queue coming). "
                      "Default: HPCC's 32 MiB switch buffer drained at 100 Gb/s, 2.684 ms "
                      "(alibaba-edu/High-Precision-Congestion-Control simulation/mix/config.txt "
                      "BUFFER_SIZE 32, scratch/third.cc:847).",
                      TimeValue(PicoSeconds(2684354560)),
                      MakeTimeAccessor(&NicTransport::m_rtoQueueBound),
                      MakeTimeChecker(Time(0)))
        .AddAttribute("RtoMax",
                      "RtoMode adaptive: the largest RTO, where backoff stops (RFC 6298 §2.5: at "
                      "least 60 s).",
                      TimeValue(Seconds(60)),
                      MakeTimeAccessor(&NicTransport::m_maxRto),
                      MakeTimeChecker(NanoSeconds(1)))
        .AddAttribute("RequestInterval",
                      "Minimum time between two message launches on this NIC (RoCE RC: 18.6 ns; "
                      "UB: 6.2 ns, 322 MHz; docs/models.md#concurrency-limits).",
                      TimeValue(defaults.requestInterval),
                      MakeTimeAccessor(&NicTransport::m_requestInterval),
                      MakeTimeChecker(Time(0)))
        .AddAttribute("MaxInflightRequests",
                      "Messages outstanding at once per NIC (a slot is held until the message "
                      "completes); 0 = unlimited.",
                      UintegerValue(0),
                      MakeUintegerAccessor(&NicTransport::m_maxInflightRequests),
                      MakeUintegerChecker<uint32_t>())
        .AddAttribute("CompletionPollInterval",
                      "Software polls the completion queue at multiples of this interval and "
                      "only then frees the slots of the completions it handles "
                      "(docs/models.md#slot-release); 0 = a slot is free as its request "
                      "completes.",
                      TimeValue(Time(0)),
                      MakeTimeAccessor(&NicTransport::m_completionPollInterval),
                      MakeTimeChecker(Time(0)))
        .AddAttribute("CompletionPollBatch",
                      "Completions handled per poll (CompletionPollInterval), oldest first.",
                      UintegerValue(1),
                      MakeUintegerAccessor(&NicTransport::m_completionPollBatch),
                      MakeUintegerChecker<uint32_t>(1))
        .AddAttribute("CongestionControl",
                      "Congestion control of each sender (QP or channel): " +
                          defaults.congestionControlChoices + " (a subclass of " +
                          defaults.congestionControlBase.GetName() +
                          "; docs/architecture.md, Adding a congestion control).",
                      TypeIdValue(defaults.congestionControl),
                      MakeTypeIdAccessor(&NicTransport::m_ccType),
                      MakeTypeIdChecker());
}

TypeId
NicTransport::AddHostPathAttributes(TypeId tid)
{
    // Datacenter networks, chapter 7, §7.3.3 (docs/models.md#remote-read-stages); every stage
    // 0 by default: a NIC without a host path behaves as before.
    struct Stage
    {
        const char* name;
        const char* help;
        Time NicTransport::*member;
    };

    const Stage stages[] = {
        {"PostTime",
         "Requester: software post through the interface library (chapter: 50 ns).",
         &NicTransport::m_postTime},
        {"DescriptorBuildTime",
         "Requester: building the request descriptor (30 ns).",
         &NicTransport::m_descriptorBuildTime},
        {"DoorbellTime",
         "Requester: the PCIe doorbell write (150 ns).",
         &NicTransport::m_doorbellTime},
        {"DescriptorFetchTime",
         "Requester: the NIC's DMA read of the descriptor over PCIe (500 ns).",
         &NicTransport::m_descriptorFetchTime},
        {"SubmitBusTime",
         "Requester: the on-chip bus crossing to the bus controller (30 ns).",
         &NicTransport::m_submitBusTime},
        {"SequenceTime",
         "Requester: sequence-number allocation before the request leaves (PCIe NIC: 50 ns).",
         &NicTransport::m_sequenceTime},
        {"TargetDmaReadTime",
         "Responder: the NIC's DMA read of host memory over PCIe before the response (500 ns).",
         &NicTransport::m_targetDmaReadTime},
        {"TargetBusTime",
         "Responder: the controller's on-chip bus crossing to memory (30 ns).",
         &NicTransport::m_targetBusTime},
        {"DramTime",
         "Responder: the DRAM access, an open row (row hit: 30 ns).",
         &NicTransport::m_dramTime},
        {"PayloadWriteTime",
         "Requester: DMA write of the data a READ, load or atomic brought back (250 ns).",
         &NicTransport::m_payloadWriteTime},
        {"CompletionWriteTime",
         "Requester: DMA write of the completion record over PCIe (250 ns).",
         &NicTransport::m_completionWriteTime},
        {"CompletionBusTime",
         "Requester: the completion's on-chip bus crossing (30 ns).",
         &NicTransport::m_completionBusTime},
        {"CqPollTime",
         "Requester: software polling the completion queue (PCIe 70 ns, UB 5 ns).",
         &NicTransport::m_cqPollTime},
        {"LibraryPollTime",
         "Requester: the interface library's poll (30 ns).",
         &NicTransport::m_libraryPollTime},
    };
    for (const Stage& stage : stages)
    {
        tid.AddAttribute(stage.name,
                         std::string(stage.help) +
                             " A host path stage: docs/models.md#remote-read-stages.",
                         TimeValue(Time(0)),
                         MakeTimeAccessor(stage.member),
                         MakeTimeChecker(Time(0)));
    }
    return tid
        .AddAttribute("PipelineCycles",
                      "Cycles of each NIC pipeline pass (TX and RX, every frame at both ends; "
                      "PCIe NIC 9, UB asynchronous 25, UB Load 8): the NIC sets its ports' "
                      "RxLatency to two passes, the sender's TX and its own RX pipeline.",
                      UintegerValue(0),
                      MakeUintegerAccessor(&NicTransport::m_pipelineCycles),
                      MakeUintegerChecker<uint32_t>())
        .AddAttribute("PipelineClock",
                      "Clock of the NIC pipelines (322 MHz), e.g. 322MHz, 1GHz.",
                      FrequencyValue(Frequency(322000000)),
                      MakeFrequencyAccessor(&NicTransport::m_pipelineClock),
                      MakeFrequencyChecker());
}

HostPathStages
NicTransport::GetHostPath() const
{
    HostPathStages s;
    s.post = m_postTime;
    s.descriptorBuild = m_descriptorBuildTime;
    s.doorbell = m_doorbellTime;
    s.descriptorFetch = m_descriptorFetchTime;
    s.submitBus = m_submitBusTime;
    s.sequence = m_sequenceTime;
    s.pipeline = m_pipelineClock.Cycles(m_pipelineCycles);
    s.targetDmaRead = m_targetDmaReadTime;
    s.targetBus = m_targetBusTime;
    s.dram = m_dramTime;
    s.payloadWrite = m_payloadWriteTime;
    s.completionWrite = m_completionWriteTime;
    s.completionBus = m_completionBusTime;
    s.cqPoll = m_cqPollTime;
    s.libraryPoll = m_libraryPollTime;
    return s;
}

void
NicTransport::Install(Ptr<FabricHost> host)
{
    m_hostPath = GetHostPath();
    m_launcher.Configure(m_requestInterval,
                         m_maxInflightRequests,
                         MakeCallback(&NicTransport::Launch, this));
    m_launcher.ConfigureCompletionPolling(m_completionPollInterval, m_completionPollBatch);
    m_host = host;
    m_flows = host->GetFlowTable();
    m_hostIndex = host->GetHostIndex();
    for (uint32_t i = 0; i < host->GetNPorts(); ++i)
    {
        Port p;
        p.device = host->GetPort(i);
        if (m_hostPath.pipeline.IsStrictlyPositive())
        {
            // A frame from another NIC crosses that NIC's TX pipeline and this one's RX
            // pipeline (every NIC of the transport has this placement): both are applied once
            // the frame has arrived, so the port serializes at line rate, switches buffer what
            // the cables deliver and a PFC pause (MAC control) acts at once.
            p.device->SetAttribute("RxLatency", TimeValue(2 * m_hostPath.pipeline));
        }
        m_ports.push_back(std::move(p));
    }
    host->SetClient(this);
}

void
NicTransport::DoDispose()
{
    for (Port& p : m_ports)
    {
        p.device = nullptr;
    }
    m_launcher.Cancel();
    m_host = nullptr;
    m_flows = nullptr;
    HostTransport::DoDispose();
}

void
NicTransport::StartFlowAt(uint32_t flowId)
{
    FlowRecord& f = m_flows->Get(flowId);
    f.reliable = true;
    Time at = f.start - FabricNow();
    at = at.IsNegative() ? Time(0) : at;
    if (m_hostPath.Any())
    {
        // Software posts it at its start; it reaches the NIC's request pipeline once the
        // submission stages are over.
        f.stagesTraced = true;
        Simulator::Schedule(at + m_hostPath.Submit(), &NicTransport::Submitted, this, flowId);
        return;
    }
    Simulator::Schedule(at, &NicTransport::Post, this, flowId);
}

void
NicTransport::Submitted(uint32_t flowId)
{
    m_flows->Get(flowId).submitted = FabricNow();
    Post(flowId);
}

void
NicTransport::QueueRequest(uint32_t flowId)
{
    m_launcher.Enqueue(flowId);
    m_launcher.TryLaunch();
}

void
NicTransport::CompleteRequest(uint32_t flowId)
{
    if (m_hostPath.Any())
    {
        FlowRecord& f = m_flows->Get(flowId);
        f.answered = FabricNow();
        Time stages = m_hostPath.Completion(DataToRequester(f.verb));
        if (stages.IsStrictlyPositive())
        {
            Simulator::Schedule(stages, &NicTransport::ReportCompletion, this, flowId);
            return;
        }
    }
    ReportCompletion(flowId);
}

void
NicTransport::ReportCompletion(uint32_t flowId)
{
    m_flows->Completed(flowId);
    FreeRequestSlot();
}

void
NicTransport::FreeRequestSlot()
{
    m_launcher.Release();
    ReleaseHeldRequests();
    m_launcher.TryLaunch();
}

bool
NicTransport::ServesNewSenderFirst() const
{
    return false;
}

void
NicTransport::ActivateSender(uint32_t port, uint32_t sender)
{
    std::vector<uint32_t>& senders = m_ports[port].senders;
    if (std::find(senders.begin(), senders.end(), sender) == senders.end())
    {
        senders.push_back(sender);
    }
    m_host->ServePort(port);
}

bool
NicTransport::OfferFrame(uint32_t portIndex, Time now, Time* wake)
{
    Port& port = m_ports[portIndex];
    const FabricNetDevice& dev = *port.device;
    size_t n = port.senders.size();
    for (size_t k = 0; k < n; ++k)
    {
        size_t slot = (port.next + k) % port.senders.size();
        // Where the rotation resumes if this sender sends: just after it. Wrapped now, a sender
        // added meanwhile (appended) waits a whole turn; wrapped at the next offer
        // (ServesNewSenderFirst), it is served before this one's next frame.
        size_t following = slot + 1;
        if (following == port.senders.size() && !ServesNewSenderFirst())
        {
            following = 0;
        }
        Turn turn = OfferTurn(port.senders[slot], dev, now, wake);
        if (turn == Turn::IDLE)
        {
            port.senders.erase(port.senders.begin() + slot);
            if (port.senders.empty())
            {
                return false;
            }
            --k;
            --n;
            continue;
        }
        if (turn == Turn::SENT)
        {
            port.next = following;
            return true;
        }
    }
    return false;
}

void
NicTransport::LoseFirstTransmission(uint32_t flowId, uint32_t index)
{
    m_loseOnce.emplace(flowId, index);
}

bool
NicTransport::LoseScriptedPacket(uint32_t flowId, uint32_t index, uint32_t payload)
{
    if (m_loseOnce.erase({flowId, index}) == 0)
    {
        return false;
    }
    m_flows->Dropped(flowId, payload); // lost on the way, as the study asked
    return true;
}

void
NicTransport::LoseFrame(FabricNetDevice* port, const QueuedFrame& item)
{
    m_flows->Dropped(item.flowId, item.payloadBytes);
}

void
NicTransport::EnqueueFrame(uint32_t port,
                           const Ptr<Packet>& frame,
                           uint8_t priority,
                           uint32_t flowId,
                           uint32_t payload,
                           bool unscheduled)
{
    QueuedFrame item;
    item.frame = frame;
    item.bytes = frame->GetSize();
    item.payloadBytes = payload;
    item.flowId = flowId;
    item.unscheduled = unscheduled;
    item.priority = priority;
    m_ports[port].device->Enqueue(std::move(item));
}

uint32_t
NicTransport::PayloadOf(const FlowRecord& f, uint32_t index) const
{
    uint64_t offset = uint64_t(index) * m_mtu;
    return static_cast<uint32_t>(std::min<uint64_t>(m_mtu, f.bytes - offset));
}

std::string
NicTransport::PortBlockedReason(uint32_t port, uint8_t priority) const
{
    return m_ports[port].device->BlockedReason(priority);
}

void
NicTransport::SetPathHops(PathHopsFunction pathHops)
{
    m_pathHops = std::move(pathHops);
}

uint32_t
NicTransport::PathHopsTo(uint32_t host) const
{
    return m_pathHops ? m_pathHops(host) : 1;
}

} // namespace ns3
