#include "rdma-nic.h"

#include "sim/fabric-now.h"
#include "wire/aeth-header.h"
#include "wire/bth-header.h"
#include "wire/cnp-padding-header.h"
#include "wire/icrc-trailer.h"
#include "wire/int-header.h"
#include "wire/reth-header.h"
#include "wire/roce-frame-header.h"
#include "wire/roce-header-view.h"

#include "ns3/abort.h"
#include "ns3/boolean.h"
#include "ns3/enum.h"
#include "ns3/log.h"
#include "ns3/queue-size.h"
#include "ns3/simulator.h"
#include "ns3/type-id.h"
#include "ns3/uinteger.h"

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("RdmaNic");
NS_OBJECT_ENSURE_REGISTERED(RdmaNic);

namespace
{
/// The INT stack of a RoCE frame whose BTH says it has one (RoceHasInt); false when the frame
/// is too short or the stack is not of the layout wire/int-header.h describes.
bool
ReadIntStack(const Packet& frame, const FrameInfo& info, IntStack* stack)
{
    uint8_t front[RoceFrameHeader::kSize + 32 + kIntHeaderBytes];
    uint32_t offset = RoceIntOffset(info);
    uint32_t count = offset + kIntHeaderBytes;
    return count <= sizeof(front) && frame.CopyData(front, count) == count &&
           stack->Read(front + offset);
}
} // namespace

TypeId
RdmaNic::GetTypeId()
{
    static TypeId tid =
        AddNicAttributes(TypeId("ns3::RdmaNic")
                             .SetParent<NicTransport>()
                             .SetGroupName("Fabric")
                             .AddConstructor<RdmaNic>(),
                         {PicoSeconds(18600), // RoCE RC (docs/models.md#concurrency-limits)
                          NoCongestionControl::GetTypeId(),
                          RoceCongestionControl::GetTypeId(),
                          "ns3::NoCongestionControl, ns3::DcqcnCongestionControl or "
                          "ns3::DctcpCongestionControl"})
            .AddAttribute("Recovery",
                          "Loss recovery: go-back-N (commodity RoCE NICs) or selective repeat "
                          "(IRN-style).",
                          EnumValue(GO_BACK_N),
                          MakeEnumAccessor(&RdmaNic::m_recovery),
                          MakeEnumChecker(GO_BACK_N, "gbn", SELECTIVE_REPEAT, "sr"))
            .AddAttribute("CnpInterval",
                          "DCQCN notification point: at most one CNP per QP per interval "
                          "(DCQCN paper: 50 us).",
                          TimeValue(MicroSeconds(50)),
                          MakeTimeAccessor(&RdmaNic::m_cnpInterval),
                          MakeTimeChecker(Time(0)))
            .AddAttribute("CnpPriority",
                          "Priority CNPs are sent at (high, ahead of data).",
                          UintegerValue(7),
                          MakeUintegerAccessor(&RdmaNic::m_cnpPriority),
                          MakeUintegerChecker<uint8_t>(0, 7))
            .AddAttribute("RtoLow",
                          "RtoMode fixed: retransmission timeout while few packets are "
                          "outstanding (IRN: 100 us).",
                          TimeValue(MicroSeconds(100)),
                          MakeTimeAccessor(&RdmaNic::m_rtoLow),
                          MakeTimeChecker(NanoSeconds(1)))
            .AddAttribute("RtoHigh",
                          "RtoMode fixed: retransmission timeout otherwise (IRN: 320 us; "
                          "RoCE NICs: ms).",
                          TimeValue(MicroSeconds(320)),
                          MakeTimeAccessor(&RdmaNic::m_rtoHigh),
                          MakeTimeChecker(NanoSeconds(1)))
            .AddAttribute("RtoLowThreshold",
                          "RtoMode fixed: at most this many outstanding packets use RtoLow.",
                          UintegerValue(3),
                          MakeUintegerAccessor(&RdmaNic::m_rtoLowThreshold),
                          MakeUintegerChecker<uint32_t>())
            .AddAttribute("ServeNewQpFirst",
                          "The order of the NIC's round-robin when a QP starts while another's "
                          "frame is on the wire. false: the new QP joins the rotation after the "
                          "others and waits a whole turn. true: it is served before the sending "
                          "QP's next frame, as the HPCC-family simulators' NIC does "
                          "(alibaba-edu/High-Precision-Congestion-Control simulation/src/"
                          "point-to-point/model/qbb-net-device.cc, RdmaEgressQueue::"
                          "GetNextQindex: (m_rrlast + 1) modulo the current number of QPs); "
                          "burst experiments, where a host starts a long and a short flow "
                          "together, depend on it.",
                          BooleanValue(false),
                          MakeBooleanAccessor(&RdmaNic::m_serveNewQpFirst),
                          MakeBooleanChecker())
            .AddAttribute("Window",
                          "Selective repeat: bytes a QP may send beyond its first "
                          "unacknowledged packet (0B = one bandwidth-delay product: line rate "
                          "x BaseRtt).",
                          QueueSizeValue(QueueSize("0B")),
                          MakeQueueSizeAccessor(&RdmaNic::m_window),
                          MakeQueueSizeChecker())
            .AddAttribute("BaseRtt",
                          "Round-trip time the bandwidth-delay product window is sized for; "
                          "also the base RTT of the first BDP (line rate x BaseRtt) whose "
                          "packets are unscheduled for ABM (QueuedFrame::unscheduled; the "
                          "reference's per-QP m_baseRtt, inet-tub/ns3-datacenter simulator/"
                          "ns-3.39/src/point-to-point/model/rdma-hw.cc:575).",
                          TimeValue(MicroSeconds(10)),
                          MakeTimeAccessor(&RdmaNic::m_baseRtt),
                          MakeTimeChecker(NanoSeconds(1)))
            .AddAttribute(
                "RateWindow",
                "The HPCC simulator's NIC window for every congestion control (HAS_WIN, "
                "GLOBAL_T): a QP sends a new packet only while its unacknowledged payload is "
                "below the base bandwidth-delay product 2 x path delay + one payload's "
                "serialization per hop, times the bottleneck rate (alibaba-edu/"
                "High-Precision-Congestion-Control simulation/scratch/third.cc:905-930, "
                "rdma-queue-pair.cc:120-123, qbb-net-device.cc:106). global: the largest over "
                "every pair of hosts (GLOBAL_T 1, third.cc:138); pair: the QP's own pair "
                "(GLOBAL_T 0); off: none (HAS_WIN 0). The congestion control's own window, if "
                "smaller, still binds. Default off keeps earlier runs unchanged (the reference's "
                "third.cc:61-62 default is HAS_WIN 1, GLOBAL_T 1).",
                EnumValue(RATE_WINDOW_OFF),
                MakeEnumAccessor(&RdmaNic::m_rateWindow),
                MakeEnumChecker(RATE_WINDOW_OFF,
                                "off",
                                RATE_WINDOW_GLOBAL,
                                "global",
                                RATE_WINDOW_PAIR,
                                "pair"))
            .AddAttribute("RateWindowScaled",
                          "RateWindow scales with the QP's rate (VAR_WIN): window x current "
                          "rate / line rate, integer bytes, at least 1 (alibaba-edu/"
                          "High-Precision-Congestion-Control simulation/src/point-to-point/"
                          "model/rdma-queue-pair.cc:125-137). Default false as the reference's "
                          "(third.cc:64).",
                          BooleanValue(false),
                          MakeBooleanAccessor(&RdmaNic::m_rateWindowScaled),
                          MakeBooleanChecker())
            .AddAttribute("ReceiveSlots",
                          "Receive buffers posted for SENDs (0 = unlimited); a SEND holds one "
                          "until its completion has been processed.",
                          UintegerValue(0),
                          MakeUintegerAccessor(&RdmaNic::m_receiveSlots),
                          MakeUintegerChecker<uint32_t>())
            .AddAttribute("CompletionProcessingTime",
                          "Host time to process one receive completion (one at a time).",
                          TimeValue(Time(0)),
                          MakeTimeAccessor(&RdmaNic::m_completionTime),
                          MakeTimeChecker(Time(0)))
            .AddAttribute("RnrDelay",
                          "How long a sender waits after an RNR NAK before retrying.",
                          TimeValue(MicroSeconds(10)),
                          MakeTimeAccessor(&RdmaNic::m_rnrDelay),
                          MakeTimeChecker(Time(0)))
            .AddAttribute("EcnEcho",
                          "Receivers set the BTH BECN bit of the ACK or NAK that covers a "
                          "CE-marked packet (ECN-Echo for window algorithms such as DCTCP). "
                          "false: RoCEv2 as specified, ECN is reported by CNPs only.",
                          BooleanValue(false),
                          MakeBooleanAccessor(&RdmaNic::m_ecnEcho),
                          MakeBooleanChecker())
            .AddAttribute("OrderedMessages",
                          "Messages from this NIC to one destination and priority share one RC "
                          "queue pair: each starts after the previous one's last packet has "
                          "been sent and completes only after it (RC's strict order, so a loss "
                          "in one message delays the completion of the next: head-of-line "
                          "blocking). false: every message has its own queue pair.",
                          BooleanValue(false),
                          MakeBooleanAccessor(&RdmaNic::m_orderedMessages),
                          MakeBooleanChecker())
            .AddAttribute("ContextCacheSize",
                          "On-chip cache of RC queue-pair contexts, 512 B each, one per "
                          "connection (destination, priority); 0B = every context fits. 256 KiB "
                          "holds 512 (Datacenter networks, chapter 7, §7.4.2).",
                          QueueSizeValue(QueueSize("0B")),
                          MakeQueueSizeAccessor(&RdmaNic::m_contextCacheSize),
                          MakeQueueSizeChecker())
            .AddAttribute("ContextMissPenalty",
                          "Added before a message starts when its QP context must be re-read "
                          "from host memory (~1000 ns over PCIe).",
                          TimeValue(NanoSeconds(1000)),
                          MakeTimeAccessor(&RdmaNic::m_contextMissPenalty),
                          MakeTimeChecker(Time(0)))
            .AddTraceSource("CcRate",
                            "The rate a QP's congestion control lets it send at changed: flow "
                            "id, old rate, new rate (read as the QP sends).",
                            MakeTraceSourceAccessor(&RdmaNic::m_ccRateTrace),
                            "ns3::RdmaNic::CcRateTracedCallback");
    return tid;
}

RdmaNic::RdmaNic() = default;

void
RdmaNic::DoDispose()
{
    for (auto& [id, qp] : m_senders)
    {
        qp.rto.Cancel();
        if (qp.cc && !qp.conn)
        {
            qp.cc->Stop();
        }
    }
    // OrderedMessages: a connection's QP is torn down with the NIC.
    for (auto& [key, conn] : m_connectionQps)
    {
        conn.cc->Stop();
    }
    NicTransport::DoDispose();
}

void
RdmaNic::SetBaseBdp(BaseBdpFunction baseBdp)
{
    m_baseBdp = std::move(baseBdp);
}

uint64_t
RdmaNic::GetRateWindow(uint32_t flowId) const
{
    auto it = m_senders.find(flowId);
    return it == m_senders.end() || !it->second.cc ? 0 : RateWindowOf(it->second);
}

uint64_t
RdmaNic::GetEffectiveWindow(uint32_t flowId) const
{
    auto it = m_senders.find(flowId);
    if (it == m_senders.end() || !it->second.cc)
    {
        return 0;
    }
    uint64_t window = EffectiveWindow(it->second);
    return window == UINT64_MAX ? 0 : window;
}

uint64_t
RdmaNic::GetInflightBytes(uint32_t flowId) const
{
    auto it = m_senders.find(flowId);
    return it == m_senders.end() || it->second.done ? 0 : InflightBytes(it->second);
}

uint32_t
RdmaNic::InitialPsn(uint32_t qp)
{
    // Spread starting PSNs over the 24-bit space; every 16th QP starts just below the wrap.
    uint32_t h = qp * 2654435761u;
    return (qp % 16 == 15) ? 0xFFFFFF - (qp % 64) : (h >> 8) & 0xFFFFFF;
}

void
RdmaNic::InjectCnp(uint32_t flowId)
{
    auto it = m_senders.find(flowId);
    if (it != m_senders.end() && !it->second.done && it->second.cc)
    {
        m_flows->Get(flowId).cnpsReceived++;
        it->second.cc->OnCnp();
    }
}

uint32_t
RdmaNic::PortToward(uint32_t dstHost, uint16_t entropy) const
{
    return m_host->EgressPortFor(dstHost, entropy);
}

void
RdmaNic::Post(uint32_t flowId)
{
    const FlowRecord& f = m_flows->Get(flowId);
    if (m_orderedMessages && f.verb != RdmaVerb::READ)
    {
        std::deque<uint32_t>& conn = m_connections[{f.dst, f.priority}];
        conn.push_back(flowId);
        m_connectionOf[flowId] = {f.dst, f.priority};
        if (conn.size() > 1 && !m_allSent.count(conn[conn.size() - 2]))
        {
            return; // starts when the previous message's last packet has been sent
        }
    }
    QueueRequest(flowId);
}

void
RdmaNic::LastPacketSent(uint32_t flowId)
{
    auto it = m_connectionOf.find(flowId);
    if (it == m_connectionOf.end())
    {
        return;
    }
    m_allSent.insert(flowId);
    const std::deque<uint32_t>& conn = m_connections[it->second];
    auto pos = std::find(conn.begin(), conn.end(), flowId);
    if (pos != conn.end() && pos + 1 != conn.end())
    {
        m_launcher.Enqueue(*(pos + 1));
        // Not from inside the port's service: the next message launches as an event of its own.
        Simulator::ScheduleNow(&RequestLauncher::TryLaunch, &m_launcher);
    }
}

void
RdmaNic::Launch(uint32_t flowId)
{
    FlowRecord& f = m_flows->Get(flowId);
    f.launch = FabricNow();
    if (f.verb == RdmaVerb::READ)
    {
        SendReadRequest(flowId, 0);
        return;
    }
    SenderQp& qp = m_senders[flowId];
    qp.flow = flowId;
    qp.port = PortToward(DataSink(f), f.entropy);
    qp.packets = MessagePackets(f);
    qp.startPsn = InitialPsn(flowId);
    qp.nextSend = FabricNow();
    qp.launched = true;
    qp.rtoEstimate = NewRtoEstimator();
    auto connection = m_connectionOf.find(flowId);
    if (connection != m_connectionOf.end())
    {
        // OrderedMessages: the connection's QP carries on with the state the previous message
        // left (rate, window, pacing); its first message creates it.
        ConnectionQp& conn = m_connectionQps[connection->second];
        if (!conn.cc)
        {
            conn.cc = StartCongestionControl(qp.port, DataSink(f));
        }
        qp.conn = &conn;
        qp.cc = conn.cc;
    }
    else
    {
        qp.cc = StartCongestionControl(qp.port, DataSink(f));
    }
    if (m_rateWindow != RATE_WINDOW_OFF)
    {
        // third.cc:138: every QP gets maxBdp (GLOBAL_T 1) or its pair's pairBdp (GLOBAL_T 0).
        NS_ABORT_MSG_UNLESS(m_baseBdp,
                            "RdmaNic::RateWindow needs the topology's base BDPs (SetBaseBdp)");
        qp.rateWindowBase = m_baseBdp(m_rateWindow == RATE_WINDOW_GLOBAL ? kAllHosts : DataSink(f));
    }
    qp.unscheduled = UnscheduledPackets(qp.port);
    qp.usesInt = qp.cc->UsesInt();
    qp.pacedRate = qp.cc->GetRate();
    f.cc = qp.cc;
    if (qp.packets == 0)
    {
        if (m_orderedMessages)
        {
            LastPacketSent(flowId);
        }
        Complete(qp);
        return;
    }
    // The message needs its connection's QP context on chip (0B: no cache modelled); a miss
    // holds its first packet back by the re-read (the port wakes for it, as for pacing).
    if (m_contextCacheSize.GetValue() > 0)
    {
        m_cache.SetCapacity(m_contextCacheSize.GetValue());
        if (!m_cache.Touch((uint64_t(DataSink(f)) << 8) | f.priority, kQpContextBytes))
        {
            qp.nextSend += m_contextMissPenalty;
        }
    }
    ActivateSender(qp.port, qp.flow);
}

int64_t
RdmaNic::NextPacket(SenderQp& qp)
{
    if (qp.done)
    {
        return -1;
    }
    if (m_recovery == SELECTIVE_REPEAT)
    {
        while (!qp.resend.empty())
        {
            uint64_t i = qp.resend.front();
            if (i >= qp.una && !Sacked(qp, i))
            {
                return static_cast<int64_t>(i);
            }
            qp.resend.pop_front(); // acknowledged meanwhile
        }
        uint64_t window = m_window.GetValue();
        if (window == 0)
        {
            window = static_cast<uint64_t>(m_ports[qp.port].device->GetDataRate().GetBitRate() *
                                           m_baseRtt.GetSeconds() / 8);
        }
        uint64_t windowPackets = std::max<uint64_t>(1, window / m_mtu);
        uint64_t i = qp.nextIndex;
        while (i < qp.packets && Sacked(qp, i))
        {
            ++i;
        }
        qp.nextIndex = i;
        if (i < qp.packets && i < qp.una + windowPackets && WindowOpen(qp) &&
            (qp.responder || i < qp.una + kMaxOutstandingPackets))
        {
            return static_cast<int64_t>(i);
        }
        return -1;
    }
    // Fewer than 2^23 packets outstanding, so every PSN names one packet (a READ responder
    // hears no ACKs: its requester reads the PSNs).
    return qp.nextIndex < qp.packets && WindowOpen(qp) &&
                   (qp.responder || qp.nextIndex < qp.una + kMaxOutstandingPackets)
               ? static_cast<int64_t>(qp.nextIndex)
               : -1;
}

uint64_t
RdmaNic::PayloadBetween(const SenderQp& qp, uint64_t from, uint64_t to) const
{
    if (to <= from)
    {
        return 0;
    }
    uint64_t bytes = m_flows->Get(qp.flow).bytes;
    return std::min<uint64_t>(to * m_mtu, bytes) - from * m_mtu;
}

uint64_t
RdmaNic::InflightBytes(const SenderQp& qp) const
{
    if (!qp.conn)
    {
        return PayloadBetween(qp, qp.una, std::max(qp.nextIndex, qp.una));
    }
    // The connection's launched messages, oldest first (later ones have not started).
    uint64_t bytes = 0;
    for (uint32_t id : m_connections.at(m_connectionOf.at(qp.flow)))
    {
        auto it = m_senders.find(id);
        if (it == m_senders.end() || !it->second.launched)
        {
            break;
        }
        const SenderQp& m = it->second;
        if (!m.done)
        {
            bytes += PayloadBetween(m, m.una, std::max(m.nextIndex, m.una));
        }
    }
    return bytes;
}

void
RdmaNic::SlotsFor(SenderQp& qp, uint64_t index, bool selective)
{
    uint64_t size = qp.sentAt.size();
    if (index - qp.una < size)
    {
        return;
    }
    uint64_t grown = std::max<uint64_t>(size, 16);
    while (index - qp.una >= grown)
    {
        grown *= 2;
    }
    std::vector<Time> sentAt(grown);
    std::vector<uint8_t> sacked(selective ? grown : 0, 0);
    for (uint64_t i = qp.una; i < qp.highestSent; ++i)
    {
        sentAt[i & (grown - 1)] = qp.sentAt[i & (size - 1)];
        if (selective)
        {
            sacked[i & (grown - 1)] = qp.sacked[i & (size - 1)];
        }
    }
    qp.sentAt.swap(sentAt);
    qp.sacked.swap(sacked);
}

void
RdmaNic::MarkReceived(ReceiverQp& rq, uint64_t i)
{
    uint64_t size = rq.received.size();
    if (i - rq.expected >= size)
    {
        uint64_t grown = std::max<uint64_t>(size, 16);
        while (i - rq.expected >= grown)
        {
            grown *= 2;
        }
        std::vector<uint8_t> received(grown, 0);
        for (uint64_t slot = 0; slot < size; ++slot)
        {
            if (rq.received[slot])
            {
                // The packet in this slot is the one of [expected, expected + size) it holds.
                uint64_t packet = rq.expected + ((slot - rq.expected) & (size - 1));
                received[packet & (grown - 1)] = 1;
            }
        }
        rq.received.swap(received);
        size = grown;
    }
    rq.received[i & (size - 1)] = 1;
}

uint64_t
RdmaNic::ReceiverIndex(const ReceiverQp& rq, uint32_t psn)
{
    int64_t index = IndexNear(psn, rq.startPsn, rq.expected);
    return index < 0 ? UINT64_MAX : static_cast<uint64_t>(index);
}

uint64_t
RdmaNic::SenderStateBytes(uint32_t flowId) const
{
    auto it = m_senders.find(flowId);
    if (it == m_senders.end())
    {
        return 0;
    }
    const SenderQp& qp = it->second;
    return qp.sentAt.capacity() * sizeof(Time) + qp.sacked.capacity() +
           qp.resend.size() * sizeof(uint64_t);
}

uint64_t
RdmaNic::ReceiverStateBytes(uint32_t flowId) const
{
    auto it = m_receivers.find(flowId);
    return it == m_receivers.end() ? 0 : it->second.received.capacity();
}

Ptr<FabricCongestionControl>
RdmaNic::StartCongestionControl(uint32_t port, uint32_t dataSink) const
{
    Ptr<FabricCongestionControl> cc = CreateCongestionControl<RoceCongestionControl>();
    CcSender sender;
    sender.lineRate = m_ports[port].device->GetDataRate();
    sender.mtu = m_mtu;
    sender.pathHops = PathHopsTo(dataSink);
    sender.packetBytes = m_mtu;   // the window counts payload
    sender.packetMustFit = false; // WindowOpen: while the outstanding payload is below it
    sender.paced = true;
    cc->Start(sender);
    return cc;
}

bool
RdmaNic::WindowOpen(const SenderQp& qp) const
{
    // HPCC's rule (and a TCP's): a new packet may leave while the bytes from the first
    // unacknowledged one to the next new one are below the window; at least one is always
    // allowed, so a window under one MTU still makes progress. A READ responder hears no ACKs
    // (READ responses are acknowledged only implicitly, by the requester's next request), so
    // its una never moves: a window would stop it for good, and it is paced by the rate alone.
    uint64_t window = EffectiveWindow(qp);
    // OrderedMessages: the window covers the connection's QP, all its messages' flight.
    if (qp.conn)
    {
        return window == 0 || InflightBytes(qp) < window;
    }
    return window == 0 || qp.responder || qp.nextIndex <= qp.una ||
           PayloadBetween(qp, qp.una, qp.nextIndex) < window;
}

uint64_t
RdmaNic::RateWindowOf(const SenderQp& qp) const
{
    if (qp.rateWindowBase == 0 || qp.responder)
    {
        return 0; // RateWindow off (HAS_WIN 0), or a READ responder (it hears no ACKs)
    }
    if (!m_rateWindowScaled)
    {
        return qp.rateWindowBase;
    }
    // rdma-queue-pair.cc:129-132 (VAR_WIN): m_win x m_rate / m_max_rate in integer bytes, at
    // least 1; m_max_rate is the NIC's line rate (rdma-hw.cc:241).
    uint64_t line = m_ports[qp.port].device->GetDataRate().GetBitRate();
    uint64_t w = static_cast<uint64_t>(static_cast<unsigned __int128>(qp.rateWindowBase) *
                                       qp.cc->GetRate().GetBitRate() / line);
    return std::max<uint64_t>(w, 1);
}

uint64_t
RdmaNic::EffectiveWindow(const SenderQp& qp) const
{
    // The congestion control's window (0 or UINT64_MAX: none) and the rate window (0: none):
    // the smaller binds. The reference has only the latter, checked for every cc mode before
    // a QP may send (qbb-net-device.cc:106); ns3-fabric's window algorithms keep their own.
    uint64_t window = qp.cc->GetWindow();
    uint64_t rate = RateWindowOf(qp);
    if (rate != 0 && (window == 0 || rate < window))
    {
        window = rate;
    }
    return window;
}

bool
RdmaNic::ServesNewSenderFirst() const
{
    return m_serveNewQpFirst;
}

NicTransport::Turn
RdmaNic::OfferTurn(uint32_t flowId, const FabricNetDevice& dev, Time now, Time* wake)
{
    SenderQp& qp = m_senders[flowId];
    int64_t index = NextPacket(qp);
    if (index < 0)
    {
        return Turn::IDLE; // nothing to send until an ACK, NAK or timeout
    }
    uint8_t prio = m_flows->Get(flowId).priority;
    if (FabricHost::IsPaused(dev, prio, wake))
    {
        return Turn::WAIT;
    }
    // OrderedMessages: the connection's QP paces all its messages.
    Time ready = qp.conn ? std::max(qp.nextSend, qp.conn->nextSend) : qp.nextSend;
    if (ready > now)
    {
        *wake = std::min(*wake, ready);
        return Turn::WAIT;
    }
    if (dev.GetQueueBytes(prio) > 0)
    {
        return Turn::WAIT; // its ACKs or CNPs go first; the port calls us when idle again
    }
    SendData(qp, static_cast<uint64_t>(index));
    return Turn::SENT;
}

uint64_t
RdmaNic::UnscheduledPackets(uint32_t port) const
{
    // ABM's unscheduled packets (inet-tub/ns3-datacenter simulator/ns-3.39/src/point-to-point/
    // model/rdma-hw.cc:567-583): a packet is unscheduled when the bytes of the message before
    // it are at most the base BDP, line rate x base RTT / 8 (the QP's m_baseRtt: the RoCE NIC's
    // BaseRtt here). Packet i starts at i x Mtu, and for a whole number x, x <= bdp exactly
    // when x <= floor(bdp): the first floor(bdp) / Mtu + 1 packets. floor(bdp) in integers,
    // where the reference's double (rate x rtt_ns x 1e-9 / 8) may land just below a whole BDP.
    unsigned __int128 bits =
        static_cast<unsigned __int128>(m_ports[port].device->GetDataRate().GetBitRate()) *
        static_cast<uint64_t>(m_baseRtt.GetPicoSeconds());
    return static_cast<uint64_t>(bits / 8000000000000ULL) / m_mtu + 1;
}

void
RdmaNic::SendData(SenderQp& qp, uint64_t index)
{
    FlowRecord& f = m_flows->Get(qp.flow);
    Ptr<FabricNetDevice> dev = m_ports[qp.port].device;
    uint32_t payload = PacketPayload(f, index);
    bool first = index == 0;
    bool last = index + 1 == qp.packets;
    bool write = f.verb == RdmaVerb::WRITE;
    RoceFrameSpec spec;
    spec.srcMac = dev->GetMacAddress();
    spec.dstMac = dev->GetPeer()->GetMacAddress();
    spec.srcHost = m_hostIndex;
    spec.dstHost = DataSink(f);
    spec.srcPort = f.entropy;
    spec.priority = f.priority;
    spec.ecnCapable = f.ecnCapable;
    if (qp.responder)
    {
        spec.opcode = first ? (last ? RoceOpcode::RDMA_READ_RESPONSE_ONLY
                                    : RoceOpcode::RDMA_READ_RESPONSE_FIRST)
                            : (last ? RoceOpcode::RDMA_READ_RESPONSE_LAST
                                    : RoceOpcode::RDMA_READ_RESPONSE_MIDDLE);
    }
    else if (write)
    {
        spec.opcode = first ? (last ? RoceOpcode::RDMA_WRITE_ONLY : RoceOpcode::RDMA_WRITE_FIRST)
                            : (last ? RoceOpcode::RDMA_WRITE_LAST : RoceOpcode::RDMA_WRITE_MIDDLE);
    }
    else
    {
        spec.opcode = first ? (last ? RoceOpcode::SEND_ONLY : RoceOpcode::SEND_FIRST)
                            : (last ? RoceOpcode::SEND_LAST : RoceOpcode::SEND_MIDDLE);
    }
    spec.destQp = qp.flow;
    spec.psn = PsnOf(qp.startPsn, index);
    // Ask for an ACK at once on the last packet, every AckInterval packets, and on
    // retransmissions (they fill holes: the sender needs to hear what is complete).
    spec.ackRequest = last || ((index + 1) % m_ackInterval == 0) || index < qp.highestSent;
    spec.payloadBytes = payload;
    Ptr<Packet> inner;
    if (qp.usesInt || RoceOpcodeHasAeth(spec.opcode) || RoceOpcodeHasReth(spec.opcode))
    {
        inner = ZeroPayloadWithIcrc(payload);
    }
    if (qp.usesInt)
    {
        // Every hop slot reserved here: the frame keeps its size through the fabric.
        inner->AddHeader(IntHeader());
        spec.hasInt = true;
    }
    if (RoceOpcodeHasAeth(spec.opcode))
    {
        AethHeader aeth;
        aeth.SetSyndrome(AethHeader::MakeAckSyndrome());
        aeth.SetMsn(1);
        inner->AddHeader(aeth);
    }
    else if (RoceOpcodeHasReth(spec.opcode))
    {
        RethHeader reth;
        reth.SetVirtualAddress(0x10000000ull * (qp.flow + 1));
        reth.SetRemoteKey(qp.flow);
        reth.SetDmaLength(static_cast<uint32_t>(f.bytes));
        inner->AddHeader(reth);
    }
    Ptr<Packet> frame = BuildRoceFrame(spec, inner);

    if (index < qp.highestSent)
    {
        f.retransmittedBytes += payload;
        ++m_retransmittedPackets;
    }
    if (index + 1 == qp.packets && qp.highestSent < qp.packets && m_orderedMessages)
    {
        LastPacketSent(qp.flow);
    }
    if (!qp.responder) // a READ responder hears no ACKs: no RTT samples, no flight to track
    {
        bool selective = m_recovery == SELECTIVE_REPEAT;
        if (index >= qp.highestSent)
        {
            SlotsFor(qp, index, selective);
            if (selective)
            {
                qp.sacked[index & (qp.sacked.size() - 1)] = 0; // a new packet: not reported yet
            }
        }
        qp.sentAt[index & (qp.sentAt.size() - 1)] = FabricNow();
    }
    qp.highestSent = std::max(qp.highestSent, index + 1);
    if (m_recovery == SELECTIVE_REPEAT && !qp.resend.empty() && qp.resend.front() == index)
    {
        qp.resend.pop_front();
    }
    else if (index == qp.nextIndex)
    {
        qp.nextIndex = index + 1;
    }
    f.sentBytes += payload;
    uint32_t bytes = frame->GetSize();
    qp.cc->OnBytesSent(bytes);
    DataRate rate = qp.cc->GetRate();
    if (rate != qp.pacedRate)
    {
        NS_LOG_LOGIC("flow " << qp.flow << " paces at " << rate);
        m_ccRateTrace(qp.flow, qp.pacedRate, rate);
        qp.pacedRate = rate;
    }
    if (rate < dev->GetDataRate())
    {
        qp.nextSend = FabricNow() + BitsAtRate(uint64_t(bytes) * 8, rate, false);
        if (qp.conn)
        {
            qp.conn->nextSend = qp.nextSend;
        }
    }
    if (!qp.rtoArmed && !qp.responder)
    {
        ArmRto(qp);
    }
    EnqueueFrame(qp.port, frame, f.priority, qp.flow, payload, index < qp.unscheduled);
}

void
RdmaNic::SendControl(uint32_t port,
                     uint32_t dstHost,
                     uint32_t qpn,
                     uint8_t opcode,
                     uint32_t psn,
                     uint8_t syndrome,
                     uint32_t msn,
                     uint8_t priority,
                     bool becn,
                     const IntStack* echo)
{
    Ptr<FabricNetDevice> dev = m_ports[port].device;
    Ptr<Packet> inner = ZeroPayloadWithIcrc(0);
    if (opcode == RoceOpcode::CNP)
    {
        inner->AddHeader(CnpPaddingHeader());
    }
    else if (opcode == RoceOpcode::RDMA_READ_REQUEST)
    {
        RethHeader reth;
        reth.SetVirtualAddress(0x10000000ull * (qpn + 1));
        reth.SetRemoteKey(qpn);
        reth.SetDmaLength(msn); // for a request, the bytes asked for
        inner->AddHeader(reth);
    }
    else
    {
        if ((syndrome & 0xE0) == 0x60)
        {
            ++m_naksSent; // a NAK: syndrome bits 6:5 = 11, as ReceiveAck reads it
        }
        if (echo)
        {
            inner->AddHeader(IntHeader(*echo));
        }
        AethHeader aeth;
        aeth.SetSyndrome(syndrome);
        aeth.SetMsn(msn);
        inner->AddHeader(aeth);
    }
    RoceFrameSpec spec;
    spec.srcMac = dev->GetMacAddress();
    spec.dstMac = dev->GetPeer()->GetMacAddress();
    spec.srcHost = m_hostIndex;
    spec.dstHost = dstHost;
    spec.srcPort = static_cast<uint16_t>(49152 + qpn % 16384);
    spec.priority = priority;
    spec.ecnCapable = false;
    spec.opcode = opcode;
    spec.destQp = qpn;
    spec.psn = psn & 0xFFFFFF;
    spec.becn = becn;
    spec.hasInt = echo && opcode == RoceOpcode::ACKNOWLEDGE;
    EnqueueFrame(port, BuildRoceFrame(spec, inner), priority);
}

void
RdmaNic::ReceiveFrame(FabricNetDevice* device, WireFrame& received)
{
    if (!received.hasInfo)
    {
        return;
    }
    const FrameInfo& info = received.info; // parsed once, where the frame was first queued
    if (!IsRoceFrame(info) || HostIndexOfIp(info.dstIp) != m_hostIndex ||
        !m_flows->Contains(info.connection))
    {
        return;
    }
    if (IsRoceDataOpcode(info.opcode))
    {
        if (info.trimmed)
        {
            ReceiveTrimmed(info);
            return;
        }
        if (RoceHasInt(info))
        {
            ReceiverQp& rq = m_receivers[info.connection];
            rq.hasInt = ReadIntStack(*received.frame.Peek(), info, &rq.intEcho);
        }
        ReceiveData(info);
    }
    else if (info.opcode == RoceOpcode::ACKNOWLEDGE)
    {
        // The AETH came with the parsed headers (aux32, wire/roce-header-view.h); the INT
        // echo, when there is one, is read from the packet.
        IntStack telemetry;
        bool hasTelemetry =
            RoceHasInt(info) && ReadIntStack(*received.frame.Peek(), info, &telemetry);
        ReceiveAck(info,
                   static_cast<uint8_t>(info.aux32 >> 24),
                   info.aux32 & 0xFFFFFF,
                   hasTelemetry ? &telemetry : nullptr);
    }
    else if (info.opcode == RoceOpcode::CNP)
    {
        ReceiveCnp(info);
    }
    else if (info.opcode == RoceOpcode::RDMA_READ_REQUEST)
    {
        ReceiveReadRequest(info);
    }
}

void
RdmaNic::SendReadRequest(uint32_t flowId, uint64_t index)
{
    const FlowRecord& f = m_flows->Get(flowId);
    uint64_t remaining = f.bytes - std::min<uint64_t>(f.bytes, index * m_mtu);
    SendControl(PortToward(f.dst, f.entropy),
                f.dst,
                flowId,
                RoceOpcode::RDMA_READ_REQUEST,
                PsnOf(InitialPsn(flowId), index),
                0,
                static_cast<uint32_t>(remaining),
                f.priority);
    ReceiverQp& rq = m_receivers[flowId];
    rq.readTimeout.Cancel();
    rq.readTimeout = Simulator::Schedule(ReadRto(rq), &RdmaNic::ReadTimeout, this, flowId);
}

Time
RdmaNic::ReadRto(const ReceiverQp& rq) const
{
    if (m_rtoMode == RTO_FIXED)
    {
        return m_rtoHigh;
    }
    // The requester times the responses (no RTT samples: a response answers a request that
    // may be repeated): the floor, doubled per expiry without a response (RFC 6298 §5.5).
    Time rto = RtoFloor();
    for (uint32_t i = 0; i < rq.readBackoffs && rto < m_maxRto; ++i)
    {
        rto = std::min(rto + rto, m_maxRto);
    }
    return rto;
}

void
RdmaNic::ReadTimeout(uint32_t flowId)
{
    ReceiverQp& rq = m_receivers[flowId];
    if (rq.packets > 0 && rq.expected >= rq.packets)
    {
        return;
    }
    rq.nakSent = false;
    ++rq.readBackoffs;
    SendReadRequest(flowId, rq.expected);
}

void
RdmaNic::ReceiveReadRequest(const FrameInfo& info)
{
    const FlowRecord& f = m_flows->Get(info.connection);
    SenderQp& qp = m_senders[info.connection];
    if (!qp.launched)
    {
        qp.flow = info.connection;
        qp.responder = true;
        qp.port = PortToward(f.src, f.entropy);
        qp.packets = MessagePackets(f);
        qp.startPsn = InitialPsn(info.connection);
        qp.nextSend = FabricNow();
        qp.launched = true;
        qp.cc = StartCongestionControl(qp.port, f.src);
        qp.unscheduled = UnscheduledPackets(qp.port);
        qp.usesInt = qp.cc->UsesInt();
        qp.pacedRate = qp.cc->GetRate();
        m_flows->Get(info.connection).cc = qp.cc;
    }
    // A repeated request restarts the responses from the PSN it names (go-back-N): the
    // requester's next expected packet, at most the responses in flight behind the newest.
    int64_t named = IndexNear(info.sequence, qp.startPsn, qp.highestSent);
    uint64_t index = named < 0 ? UINT64_MAX : static_cast<uint64_t>(named);
    if (index < qp.packets)
    {
        qp.nextIndex = index;
        Time memory = TargetMemoryLatency();
        if (memory.IsStrictlyPositive())
        {
            // The host path's DMA read of the data (and the DRAM access) before the first
            // response leaves (the port wakes for it, as for pacing).
            qp.nextSend = std::max(qp.nextSend, FabricNow() + memory);
        }
        ActivateSender(qp.port, qp.flow);
    }
}

void
RdmaNic::AckInOrder(uint32_t port, uint32_t dstHost, uint32_t qpn, ReceiverQp& rq, uint8_t priority)
{
    SendControl(port,
                dstHost,
                qpn,
                RoceOpcode::ACKNOWLEDGE,
                PsnOf(rq.startPsn, rq.expected - 1),
                AethHeader::MakeAckSyndrome(),
                0,
                priority,
                rq.ceSinceAck,
                EchoOf(rq));
    rq.ceSinceAck = false;
}

void
RdmaNic::ReceiveData(const FrameInfo& info)
{
    const FlowRecord& f = m_flows->Get(info.connection);
    uint32_t payload = RoceFlowPayloadBytes(info);
    ReceiverQp& rq = m_receivers[info.connection];
    if (rq.packets == 0)
    {
        rq.packets = MessagePackets(f);
        rq.startPsn = InitialPsn(info.connection);
    }
    uint64_t index = ReceiverIndex(rq, info.sequence); // UINT64_MAX: not of this message
    if (index <= UINT32_MAX && LoseScripted(info.connection, static_cast<uint32_t>(index), payload))
    {
        return;
    }
    const uint32_t peer = DataSource(f);
    const bool read = f.verb == RdmaVerb::READ;
    uint32_t port = PortToward(peer, f.entropy);
    uint8_t ackPrio = f.priority;
    if (m_receiveSlots > 0 && f.verb == RdmaVerb::SEND && !rq.holdsSlot && rq.expected < rq.packets)
    {
        // A SEND needs a posted receive buffer before any of it can be accepted.
        if (index != rq.expected || m_slotsInUse >= m_receiveSlots)
        {
            m_flows->Discarded(info.connection, payload);
            if (!rq.rnrSent && index == rq.expected)
            {
                rq.rnrSent = true;
                ++m_rnrNaks;
                SendControl(port,
                            peer,
                            info.connection,
                            RoceOpcode::ACKNOWLEDGE,
                            info.sequence,
                            AethHeader::MakeRnrNakSyndrome(0x0E),
                            0,
                            ackPrio);
            }
            return;
        }
        rq.holdsSlot = true;
        rq.rnrSent = false;
        ++m_slotsInUse;
        m_maxSlotsInUse = std::max(m_maxSlotsInUse, m_slotsInUse);
    }
    // DCQCN notification point: one CNP per QP per CnpInterval for CE-marked packets
    // (OrderedMessages: per connection, the QP its messages share).
    if (info.ecn == 3)
    {
        Time now = FabricNow();
        bool shared = m_orderedMessages && !read;
        auto sharedCnp =
            shared ? m_connectionLastCnp.find({peer, f.priority}) : m_connectionLastCnp.end();
        bool due = shared ? sharedCnp == m_connectionLastCnp.end() ||
                                now - sharedCnp->second >= m_cnpInterval
                          : !rq.cnpSent || now - rq.lastCnp >= m_cnpInterval;
        if (due)
        {
            if (shared)
            {
                m_connectionLastCnp[{peer, f.priority}] = now;
            }
            rq.cnpSent = true;
            rq.lastCnp = now;
            SendControl(port,
                        peer,
                        info.connection,
                        RoceOpcode::CNP,
                        info.sequence,
                        0,
                        0,
                        m_cnpPriority);
        }
    }
    bool marked = info.ecn == 3;
    rq.ceSinceAck |= marked && m_ecnEcho;
    if (index >= rq.packets)
    {
        m_flows->Discarded(info.connection, payload); // beyond the message: a stale duplicate
        return;
    }
    if (index == rq.expected)
    {
        m_flows->Delivered(info.connection, payload, marked);
        ++rq.expected;
        if (m_recovery == SELECTIVE_REPEAT)
        {
            while (rq.expected < rq.packets && Received(rq, rq.expected))
            {
                rq.received[rq.expected & (rq.received.size() - 1)] = 0;
                ++rq.expected;
            }
            if (rq.expected == rq.packets)
            {
                std::vector<uint8_t>().swap(rq.received); // complete: nothing more to hold
            }
        }
        rq.nakSent = false;
        if (rq.holdsSlot && rq.expected == rq.packets)
        {
            // The message is complete: the host processes completions one at a time; the
            // buffer is free once it has.
            Time now = FabricNow();
            m_processorFreeAt = std::max(m_processorFreeAt, now) + m_completionTime;
            ++m_completionsQueued;
            Simulator::Schedule(m_processorFreeAt - now, &RdmaNic::CompletionProcessed, this);
        }
        if (read)
        {
            // READ responses are their own acknowledgement: the requester completes.
            rq.readTimeout.Cancel();
            if (rq.expected == rq.packets)
            {
                FinishMessage(info.connection);
            }
            else
            {
                rq.readBackoffs = 0; // a response arrived
                rq.readTimeout =
                    Simulator::Schedule(ReadRto(rq), &RdmaNic::ReadTimeout, this, info.connection);
            }
            return;
        }
        ++rq.unacked;
        if (rq.unacked >= m_ackInterval || RoceAckRequested(info) || rq.expected == rq.packets)
        {
            rq.unacked = 0;
            AckInOrder(port, peer, info.connection, rq, ackPrio);
        }
        return;
    }
    uint32_t expectedPsn = PsnOf(rq.startPsn, rq.expected);
    if (read)
    {
        m_flows->Discarded(info.connection, payload);
        if (index < rq.expected)
        {
            m_flows->Get(info.connection).spuriousBytes += payload; // already received
        }
        if (index > rq.expected && !rq.nakSent)
        {
            rq.nakSent = true; // one re-request per gap
            SendReadRequest(info.connection, rq.expected);
        }
        return;
    }
    if (index > rq.expected)
    {
        if (m_recovery == SELECTIVE_REPEAT)
        {
            if (!Received(rq, index))
            {
                MarkReceived(rq, index);
                m_flows->Delivered(info.connection, payload, marked);
            }
            else
            {
                m_flows->Discarded(info.connection, payload);
                m_flows->Get(info.connection).spuriousBytes += payload; // already received
            }
            // IRN-style NAK: cumulative point in the PSN, the out-of-order PSN in the MSN.
            SendControl(port,
                        peer,
                        info.connection,
                        RoceOpcode::ACKNOWLEDGE,
                        expectedPsn,
                        AethHeader::MakeNakSyndrome(AethHeader::NAK_PSN_SEQUENCE_ERROR),
                        info.sequence,
                        ackPrio,
                        rq.ceSinceAck,
                        EchoOf(rq));
            rq.ceSinceAck = false;
            return;
        }
        m_flows->Discarded(info.connection, payload);
        if (!rq.nakSent)
        {
            rq.nakSent = true; // one NAK per gap
            SendControl(port,
                        peer,
                        info.connection,
                        RoceOpcode::ACKNOWLEDGE,
                        expectedPsn,
                        AethHeader::MakeNakSyndrome(AethHeader::NAK_PSN_SEQUENCE_ERROR),
                        0,
                        ackPrio);
        }
        return;
    }
    // Duplicate of something already accepted: discard, and re-ACK so a sender that lost our
    // ACK can move on. Its original was delivered: a spurious retransmission.
    m_flows->Discarded(info.connection, payload);
    m_flows->Get(info.connection).spuriousBytes += payload;
    AckInOrder(port, peer, info.connection, rq, ackPrio);
}

void
RdmaNic::ReceiveTrimmed(const FrameInfo& info)
{
    // The header of a data packet whose payload a switch cut: ask for it again at once
    // (NDP, Handley et al., SIGCOMM 2017) rather than at the timeout.
    ++m_trimmedReceived;
    auto it = m_receivers.find(info.connection);
    const FlowRecord& f = m_flows->Get(info.connection);
    uint32_t startPsn = it != m_receivers.end() && it->second.packets > 0
                            ? it->second.startPsn
                            : InitialPsn(info.connection);
    uint64_t expected = it != m_receivers.end() ? it->second.expected : 0;
    int64_t index = IndexNear(info.sequence, startPsn, expected);
    if (index < 0 || static_cast<uint64_t>(index) >= MessagePackets(f) ||
        static_cast<uint64_t>(index) < expected)
    {
        return; // a stale duplicate: nothing is missing
    }
    const uint32_t peer = DataSource(f);
    uint32_t port = PortToward(peer, f.entropy);
    if (f.verb == RdmaVerb::READ)
    {
        // The requester asks again from the first packet it lacks.
        ReceiverQp& rq = m_receivers[info.connection];
        if (!rq.nakSent)
        {
            rq.nakSent = true;
            SendReadRequest(info.connection, expected);
        }
        return;
    }
    if (m_recovery == SELECTIVE_REPEAT)
    {
        SendControl(port,
                    peer,
                    info.connection,
                    RoceOpcode::ACKNOWLEDGE,
                    info.sequence,
                    AethHeader::MakeNakSyndrome(AethHeader::NAK_TRIMMED),
                    0,
                    f.priority);
        return;
    }
    // Go-back-N: a gap at the trimmed packet; the usual NAK, once per gap.
    ReceiverQp& rq = m_receivers[info.connection];
    if (!rq.nakSent)
    {
        rq.nakSent = true;
        SendControl(port,
                    peer,
                    info.connection,
                    RoceOpcode::ACKNOWLEDGE,
                    PsnOf(startPsn, expected),
                    AethHeader::MakeNakSyndrome(AethHeader::NAK_PSN_SEQUENCE_ERROR),
                    0,
                    f.priority);
    }
}

void
RdmaNic::ReceiveAck(const FrameInfo& info,
                    uint8_t syndrome,
                    uint32_t msn,
                    const IntStack* telemetry)
{
    auto it = m_senders.find(info.connection);
    if (it == m_senders.end() || it->second.done)
    {
        return;
    }
    SenderQp& qp = it->second;
    if ((syndrome & 0xE0) == 0x20)
    {
        // RNR NAK: the receiver has no buffer for this message; retry it from that PSN later.
        int64_t from = IndexNear(info.sequence, qp.startPsn, qp.una);
        if (from >= 0 && uint64_t(from) < qp.packets && uint64_t(from) >= qp.una)
        {
            NoteRetransmission(qp);
            qp.nextIndex = static_cast<uint64_t>(from);
            qp.nextSend = std::max(qp.nextSend, FabricNow() + m_rnrDelay);
            ActivateSender(qp.port, qp.flow);
        }
        return;
    }
    // The PSN names a packet near the first unacknowledged one (fewer than 2^23 outstanding).
    int64_t named = IndexNear(info.sequence, qp.startPsn, qp.una);
    if (named < 0)
    {
        return; // not a PSN of this message
    }
    uint64_t index = static_cast<uint64_t>(named);
    if (syndrome == AethHeader::MakeNakSyndrome(AethHeader::NAK_TRIMMED))
    {
        // Selective repeat: resend the trimmed packet alone, now (it says nothing of others).
        if (m_recovery == SELECTIVE_REPEAT && index >= qp.una && index < qp.highestSent &&
            !Sacked(qp, index))
        {
            NoteRetransmission(qp);
            qp.resend.push_back(index);
            ActivateSender(qp.port, qp.flow);
        }
        return;
    }
    bool nak = (syndrome & 0xE0) == 0x60;
    // ACK: packets up to and including index are received. NAK: packets before index are.
    uint64_t newUna = nak ? index : index + 1;
    if (newUna > qp.packets || newUna > qp.highestSent)
    {
        return; // not a PSN of this message, or not one sent
    }
    if (newUna > qp.una)
    {
        CcFeedback ack;
        ack.rtt = FabricNow() - qp.sentAt[(newUna - 1) & (qp.sentAt.size() - 1)];
        if (m_rtoMode == RTO_ADAPTIVE && newUna - 1 >= qp.karnBelow)
        {
            qp.rtoEstimate.Sample(ack.rtt); // a packet sent once (Karn's rule)
        }
        ack.ackedBytes = PayloadBetween(qp, qp.una, newUna);
        ack.ecnEcho = RoceBecn(info);
        if (telemetry && qp.usesInt)
        {
            ack.hasTelemetry = true;
            ack.telemetry = *telemetry;
        }
        qp.una = newUna;
        ack.inflightBytes = InflightBytes(qp);
        ack.messageDone = qp.una >= qp.packets;
        qp.cc->Acknowledge(ack);
        qp.rtoArmed = false;
        if (qp.una < qp.packets)
        {
            ArmRto(qp);
        }
    }
    if (qp.una >= qp.packets)
    {
        Complete(qp);
        return;
    }
    if (nak)
    {
        NoteRetransmission(qp);
        if (m_recovery == GO_BACK_N)
        {
            qp.nextIndex = qp.una; // resend everything from the gap
        }
        else
        {
            int64_t named = IndexNear(msn, qp.startPsn, qp.una);
            uint64_t ooo = named < 0 ? UINT64_MAX : static_cast<uint64_t>(named);
            if (ooo < qp.packets)
            {
                if (ooo >= qp.una && ooo < qp.highestSent)
                {
                    qp.sacked[ooo & (qp.sacked.size() - 1)] = 1;
                }
                for (uint64_t j = std::max(qp.una, qp.scannedTo); j < ooo; ++j)
                {
                    if (!Sacked(qp, j) && j < qp.highestSent)
                    {
                        qp.resend.push_back(j);
                    }
                }
                qp.scannedTo = std::max(qp.scannedTo, ooo);
            }
        }
    }
    ActivateSender(qp.port, qp.flow);
}

void
RdmaNic::ReceiveCnp(const FrameInfo& info)
{
    auto it = m_senders.find(info.connection);
    // OrderedMessages: the QP outlives the message, so a CNP that comes after the message is
    // done still reaches the congestion control its connection's next messages use.
    if (it == m_senders.end() || (it->second.done && !it->second.conn))
    {
        return;
    }
    m_flows->Get(info.connection).cnpsReceived++;
    it->second.cc->OnCnp();
}

void
RdmaNic::ArmRto(SenderQp& qp)
{
    Time rto;
    if (m_rtoMode == RTO_ADAPTIVE)
    {
        rto = qp.rtoEstimate.GetRto(); // RFC 6298 §5.1, §5.3: RTO from now
    }
    else
    {
        uint32_t outstanding = qp.highestSent > qp.una ? qp.highestSent - qp.una : 0;
        rto = outstanding <= m_rtoLowThreshold ? m_rtoLow : m_rtoHigh;
    }
    Time now = FabricNow();
    qp.rtoDeadline = now + rto;
    qp.rtoArmed = true;
    if (qp.rtoPending && qp.rtoEventAt <= qp.rtoDeadline)
    {
        return; // the pending event fires first and moves itself to the deadline
    }
    qp.rto.Cancel(); // due after the new deadline (RtoHigh -> RtoLow): bring it forward
    qp.rto = Simulator::Schedule(rto, &RdmaNic::RtoExpired, this, qp.flow);
    qp.rtoEventAt = qp.rtoDeadline;
    qp.rtoPending = true;
}

void
RdmaNic::RtoExpired(uint32_t flowId)
{
    SenderQp& qp = m_senders[flowId];
    qp.rtoPending = false;
    if (qp.done || !qp.rtoArmed)
    {
        return;
    }
    Time now = FabricNow();
    if (now < qp.rtoDeadline)
    {
        // Re-armed by ACKs since this event was scheduled: wait for the current deadline.
        qp.rto = Simulator::Schedule(qp.rtoDeadline - now, &RdmaNic::RtoExpired, this, flowId);
        qp.rtoEventAt = qp.rtoDeadline;
        qp.rtoPending = true;
        return;
    }
    qp.rtoArmed = false;
    NoteRetransmission(qp);
    if (m_rtoMode == RTO_ADAPTIVE)
    {
        qp.rtoEstimate.Backoff(); // RFC 6298 §5.5
    }
    if (m_recovery == GO_BACK_N)
    {
        qp.nextIndex = qp.una;
    }
    else
    {
        // Nothing came back to say what arrived (a whole burst may be gone): resend every
        // outstanding packet the receiver has not reported, as a SACK sender does on timeout.
        qp.resend.clear();
        for (uint64_t j = qp.una; j < qp.highestSent; ++j)
        {
            if (!Sacked(qp, j))
            {
                qp.resend.push_back(j);
            }
        }
        qp.scannedTo = qp.highestSent;
    }
    ArmRto(qp);
    ActivateSender(qp.port, qp.flow);
}

void
RdmaNic::Complete(SenderQp& qp)
{
    qp.done = true;
    qp.rto.Cancel();
    qp.rtoArmed = false;
    qp.rtoPending = false;
    if (!qp.conn)
    {
        qp.cc->Stop(); // the message's own QP is done (OrderedMessages: its connection's QP
                       // carries on)
    }
    // Nothing is in flight any more: the per-packet state goes.
    std::vector<Time>().swap(qp.sentAt);
    std::vector<uint8_t>().swap(qp.sacked);
    std::deque<uint64_t>().swap(qp.resend);
    FinishMessage(qp.flow);
}

void
RdmaNic::FinishMessage(uint32_t flowId)
{
    auto it = m_connectionOf.find(flowId);
    if (it == m_connectionOf.end())
    {
        CompleteRequest(flowId);
        return;
    }
    // RC completes in order: report this message and every later one already done, once the
    // messages before it have completed.
    m_finishedOnConnection.insert(flowId);
    std::deque<uint32_t>& conn = m_connections[it->second];
    while (!conn.empty() && m_finishedOnConnection.count(conn.front()))
    {
        uint32_t done = conn.front();
        conn.pop_front();
        m_finishedOnConnection.erase(done);
        CompleteRequest(done);
    }
}

std::string
RdmaNic::AuditQueuePairs(const FlowTable& flows) const
{
    std::string problems;
    for (const auto& [id, qp] : m_senders)
    {
        const FlowRecord& f = flows.Get(id);
        if (f.finished && !qp.responder && qp.una != qp.packets)
        {
            problems += "qp " + std::to_string(id) + ": finished with " +
                        std::to_string(qp.packets - qp.una) + " packets unacknowledged; ";
        }
        if (qp.una > qp.highestSent || qp.highestSent > qp.packets)
        {
            problems += "qp " + std::to_string(id) + ": acknowledged beyond what was sent; ";
        }
    }
    for (const auto& [id, rq] : m_receivers)
    {
        const FlowRecord& f = flows.Get(id);
        if (f.finished && rq.expected != rq.packets)
        {
            problems += "qp " + std::to_string(id) + ": finished but the receiver expects PSN " +
                        std::to_string(rq.expected) + " of " + std::to_string(rq.packets) + "; ";
        }
    }
    return problems;
}

std::string
RdmaNic::StuckReason(uint32_t flowId) const
{
    if (m_launcher.IsWaiting(flowId))
    {
        return "waiting for a request slot";
    }
    auto it = m_senders.find(flowId);
    if (it == m_senders.end())
    {
        return "not started";
    }
    const SenderQp& qp = it->second;
    std::string blocked = PortBlockedReason(qp.port, m_flows->Get(flowId).priority);
    if (!blocked.empty())
    {
        return blocked;
    }
    return "in progress: " + std::to_string(qp.una) + " of " + std::to_string(qp.packets) +
           " packets acknowledged";
}

void
RdmaNic::CompletionProcessed()
{
    --m_completionsQueued;
    --m_slotsInUse;
}

} // namespace ns3
