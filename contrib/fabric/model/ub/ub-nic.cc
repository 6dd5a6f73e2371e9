#include "ub-nic.h"

#include "sim/fabric-now.h"
#include "ub-header-view.h"
#include "wire/icrc-trailer.h"

#include "ns3/enum.h"
#include "ns3/log.h"
#include "ns3/object-factory.h"
#include "ns3/simulator.h"
#include "ns3/type-id.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <tuple>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("UbNic");
NS_OBJECT_ENSURE_REGISTERED(UbNic);

TypeId
UbNic::GetTypeId()
{
    static TypeId tid =
        AddNicAttributes(TypeId("ns3::UbNic")
                             .SetParent<NicTransport>()
                             .SetGroupName("Fabric")
                             .AddConstructor<UbNic>(),
                         {PicoSeconds(6200), // a 322 MHz request pipeline
                          TypeId::LookupByName("ns3::CaqmCongestionControl"),
                          UbCongestionControl::GetTypeId(),
                          "ns3::CaqmCongestionControl, ns3::NsccCongestionControl, "
                          "ns3::DctcpCongestionControl or ns3::UbFixedWindow"})
            .AddAttribute("Sharing",
                          "Which requests share a transport channel: shared (every Jetty of "
                          "the host toward a target), private (one per Jetty and target), "
                          "groups (Jetty mod Groups, per target).",
                          EnumValue(SHARED_PER_TARGET),
                          MakeEnumAccessor(&UbNic::m_sharing),
                          MakeEnumChecker(SHARED_PER_TARGET,
                                          "shared",
                                          PRIVATE_PER_RELATION,
                                          "private",
                                          GROUPS,
                                          "groups"))
            .AddAttribute("Groups",
                          "Number of isolated channel groups per target (Sharing = groups).",
                          UintegerValue(2),
                          MakeUintegerAccessor(&UbNic::m_groups),
                          MakeUintegerChecker<uint32_t>(1))
            .AddAttribute("GroupBinding",
                          "Sharing = groups: jetty (each Jetty bound to one channel of its "
                          "target's group, Jetty mod Groups) or request (each Jetty bound to "
                          "every channel of the group; its requests to a target take them in "
                          "turn, by posting order: per-request channel and path choice).",
                          EnumValue(BIND_JETTY),
                          MakeEnumAccessor(&UbNic::m_groupBinding),
                          MakeEnumChecker(BIND_JETTY, "jetty", BIND_REQUEST, "request"))
            .AddAttribute("SackBits",
                          "Bits of the selective-ACK bitmap each ACK carries (multiple of 8).",
                          UintegerValue(256),
                          MakeUintegerAccessor(&UbNic::m_sackBits),
                          MakeUintegerChecker<uint32_t>(8, 1024))
            .AddAttribute("OutOfOrderWindow",
                          "PSNs beyond the cumulative point a receiver tracks; the sender never "
                          "runs further ahead.",
                          UintegerValue(2048),
                          MakeUintegerAccessor(&UbNic::m_outOfOrderWindow),
                          MakeUintegerChecker<uint32_t>(1))
            .AddAttribute("Rto",
                          "RtoMode fixed: an unacknowledged packet this old is resent "
                          "(ns-3-UB's 100 us).",
                          TimeValue(MicroSeconds(100)),
                          MakeTimeAccessor(&UbNic::m_rto),
                          MakeTimeChecker(NanoSeconds(1)))
            .AddAttribute("ReorderWindow",
                          "A packet is deemed lost when one sent this much later has been "
                          "acknowledged (0 = only the timeout resends).",
                          TimeValue(MicroSeconds(10)),
                          MakeTimeAccessor(&UbNic::m_reorderWindow),
                          MakeTimeChecker(Time(0)))
            .AddAttribute("ReorderBufferSize",
                          "Bytes of out-of-order data the NIC can hold (0B = unlimited).",
                          QueueSizeValue(QueueSize("0B")),
                          MakeQueueSizeAccessor(&UbNic::m_reorderBufferSize),
                          MakeQueueSizeChecker())
            .AddAttribute("LoadBalancer",
                          "Entropy policy: ns3::UbFixedEntropy (ECMP), ns3::UbObliviousSpray, "
                          "ns3::UbAdaptiveSpray.",
                          TypeIdValue(TypeId::LookupByName("ns3::UbFixedEntropy")),
                          MakeTypeIdAccessor(&UbNic::m_lbType),
                          MakeTypeIdChecker())
            .AddAttribute("ContextCacheSize",
                          "On-chip cache for Jetty and channel contexts (0B = all fit).",
                          QueueSizeValue(QueueSize("0B")),
                          MakeQueueSizeAccessor(&UbNic::m_contextCacheSize),
                          MakeQueueSizeChecker())
            .AddAttribute("ContextMissPenalty",
                          "Added to a request per context re-read from host memory (~1000 ns "
                          "for a PCIe NIC, ~200 ns on-chip).",
                          TimeValue(NanoSeconds(1000)),
                          MakeTimeAccessor(&UbNic::m_contextMissPenalty),
                          MakeTimeChecker(Time(0)))
            .AddAttribute("CacheLineSize",
                          "Bytes of one load or store operation: a load, store flow is split "
                          "into lines of this size (the last one may be shorter).",
                          QueueSizeValue(QueueSize("64B")),
                          MakeQueueSizeAccessor(&UbNic::m_cacheLine),
                          MakeQueueSizeChecker())
            .AddAttribute("MemoryLatency",
                          "Time the responder's memory takes per operation (READ, load, store, "
                          "atomic) before its response may leave; accesses overlap.",
                          TimeValue(Time(0)),
                          MakeTimeAccessor(&UbNic::m_memoryLatency),
                          MakeTimeChecker(Time(0)))
            .AddAttribute("MaxOutstandingOps",
                          "Load, store and atomic operations a NIC may have awaiting their "
                          "response (0 = unlimited).",
                          UintegerValue(64),
                          MakeUintegerAccessor(&UbNic::m_maxOutstandingOps),
                          MakeUintegerChecker<uint32_t>())
            .AddTraceSource("ReorderBuffer",
                            "A request's out-of-order data held: flow, packets, bytes.",
                            MakeTraceSourceAccessor(&UbNic::m_reorderTrace),
                            "ns3::UbNic::ReorderTracedCallback")
            .AddTraceSource("CcWindow",
                            "A transport channel's congestion window changed: channel, "
                            "destination host, old and new window (bytes).",
                            MakeTraceSourceAccessor(&UbNic::m_ccWindowTrace),
                            "ns3::UbNic::CcWindowTracedCallback");
    return tid;
}

UbNic::UbNic() = default;

void
UbNic::DoDispose()
{
    for (TxChannel& ch : m_tx)
    {
        ch.rto.Cancel();
        ch.cc = nullptr;
        ch.lb = nullptr;
    }
    NicTransport::DoDispose();
}

void
UbNic::Install(Ptr<FabricHost> host)
{
    NicTransport::Install(host);
    m_cache.SetCapacity(m_contextCacheSize.GetValue());
    if (m_cacheLine.GetValue() == 0)
    {
        NS_FATAL_ERROR("UbNic: CacheLineSize must be at least 1 byte");
    }
}

int64_t
UbNic::AssignStreams(int64_t stream)
{
    m_stream = stream;
    return 0;
}

void
UbNic::InjectCnp(uint32_t flowId)
{
    auto it = m_messages.find(flowId);
    if (it == m_messages.end() || it->second.done || m_tx[it->second.channel].unreliable)
    {
        return;
    }
    m_flows->Get(flowId).cnpsReceived++;
    CcFeedback fb;
    fb.congestedCount = 1;
    fb.ecnEcho = true;
    TellCc(m_tx[it->second.channel], fb);
}

uint64_t
UbNic::GetPeakStateBytes() const
{
    // Contexts are kept for the whole run: Jettys that posted, channels sent and received on.
    return uint64_t(m_jettys.size()) * kJettyContextBytes +
           uint64_t(m_tx.size() + m_rx.size()) * kChannelContextBytes;
}

// ---------------------------------------------------------------------------------------------
// Requests

void
UbNic::AssignPostingOrder(FlowTable& table)
{
    std::vector<uint32_t> order(table.GetN());
    for (uint32_t i = 0; i < order.size(); ++i)
    {
        order[i] = i;
    }
    std::stable_sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) {
        return table.Get(a).start < table.Get(b).start;
    });
    std::map<std::tuple<uint32_t, uint32_t, uint32_t>, uint32_t> count; // src, Jetty, target
    for (uint32_t id : order)
    {
        FlowRecord& f = table.Get(id);
        if (f.postSeq == UINT32_MAX)
        {
            f.postSeq = count[{f.src, f.endpoint, f.dst}]++;
        }
    }
}

void
UbNic::Post(uint32_t flowId)
{
    FlowRecord& f = m_flows->Get(flowId);
    uint32_t& posted = m_postCount[{f.endpoint, f.dst}];
    if (f.postSeq == UINT32_MAX)
    {
        f.postSeq = posted++;
    }
    else
    {
        posted = std::max(posted, f.postSeq + 1); // assigned ahead (AssignPostingOrder)
    }
    if (Fenced(f))
    {
        m_fenced.push_back(flowId);
        return;
    }
    QueueRequest(flowId);
}

bool
UbNic::Fenced(const FlowRecord& f) const
{
    if (PerOperation(f))
    {
        // Load/store/atomic flows wait for their ordered predecessors here, at the initiator
        // (ROI): were they to wait at the target instead, their operations would hold the
        // NIC's outstanding-operation slots that the predecessors need (a deadlock).
        return OrderedAfterUnfinished(f);
    }
    if (f.order != uint8_t(UbOrder::AFTER))
    {
        return false;
    }
    return std::any_of(f.after.begin(), f.after.end(), [&](uint32_t p) {
        const FlowRecord& pred = m_flows->Get(p);
        return pred.dst != f.dst && !pred.finished;
    });
}

bool
UbNic::OrderedAfterUnfinished(const FlowRecord& f) const
{
    if (f.order == uint8_t(UbOrder::AFTER))
    {
        return std::any_of(f.after.begin(), f.after.end(), [&](uint32_t p) {
            return !m_flows->Get(p).finished;
        });
    }
    if (f.order != uint8_t(UbOrder::STRICT) && f.order != uint8_t(UbOrder::RELAXED))
    {
        return false;
    }
    bool relaxed = f.order == uint8_t(UbOrder::RELAXED);
    for (const FlowRecord& g : m_flows->All())
    {
        // UNO requests are ordered after nothing and nothing is ordered after them.
        if (g.src == f.src && g.dst == f.dst && g.endpoint == f.endpoint && g.postSeq < f.postSeq &&
            (!relaxed || g.order == uint8_t(UbOrder::STRICT)) && !g.uno && !g.finished)
        {
            return true;
        }
    }
    return false;
}

uint32_t
UbNic::ChannelFor(const FlowRecord& f)
{
    uint32_t group = 0;
    if (m_sharing == PRIVATE_PER_RELATION)
    {
        group = f.endpoint;
    }
    else if (m_sharing == GROUPS)
    {
        // postSeq: the request's place among its Jetty's requests to this target, the same on
        // every rank (AssignPostingOrder).
        uint32_t turn = f.postSeq == UINT32_MAX ? 0 : f.postSeq;
        group = (m_groupBinding == BIND_REQUEST ? turn : f.endpoint) % m_groups;
    }
    if (f.uno)
    {
        group = UINT32_MAX; // UNO: one unreliable channel per (target, priority), never shared
    }
    auto key = std::make_tuple(group, f.dst, f.priority);
    auto it = m_channelOf.find(key);
    if (it != m_channelOf.end())
    {
        return it->second;
    }
    uint32_t id = static_cast<uint32_t>(m_tx.size());
    m_channelOf.emplace(key, id);
    TxChannel ch;
    ch.id = id;
    ch.dst = f.dst;
    ch.priority = f.priority;
    ch.ecnCapable = f.ecnCapable;
    ch.port = m_host->EgressPortFor(f.dst, f.entropy);
    ch.unreliable = f.uno;
    ch.rtoEstimate = NewRtoEstimator();
    if (!ch.unreliable) // UNO has no congestion control: it sends at the port's pace
    {
        ch.cc = CreateCongestionControl<UbCongestionControl>();
        CcSender sender;
        sender.lineRate = m_ports[ch.port].device->GetDataRate();
        sender.mtu = m_mtu;
        sender.packetBytes = m_mtu + kUbFrameOverhead; // the window counts frames
        sender.packetMustFit = true;                   // NextPsn: the whole frame fits
        ch.cc->Start(sender);
    }
    ObjectFactory lbFactory;
    lbFactory.SetTypeId(m_lbType);
    ch.lb = lbFactory.Create<UbLoadBalancer>();
    ch.lb->Start(f.entropy);
    if (m_stream >= 0)
    {
        ch.lb->AssignStreams(m_stream + id);
    }
    m_tx.push_back(std::move(ch));
    return id;
}

void
UbNic::Launch(uint32_t flowId)
{
    FlowRecord& f = m_flows->Get(flowId);
    f.launch = FabricNow();
    uint32_t channel = ChannelFor(f);
    f.cc = m_tx[channel].cc; // cc.csv samples the channel's state for each flow it carries
    TxMessage& m = m_messages[flowId];
    m.channel = channel;
    bool memory = IsUbMemoryVerb(f.verb);
    m.kind = memory ? MessageKind::REQUEST : MessageKind::WRITE;
    m.packets = memory ? RequestPackets(f) : PacketsOf(f);
    m_jettys.insert(f.endpoint);
    m_tx[channel].openMessages++;
    // The request needs its Jetty's and its channel's contexts on chip.
    uint32_t misses = 0;
    if (m_contextCacheSize.GetValue() > 0) // 0: no cache modeled, contexts always at hand
    {
        misses += m_cache.Touch(f.endpoint, kJettyContextBytes) ? 0 : 1;
        misses += m_cache.Touch((1ull << 32) | channel, kChannelContextBytes) ? 0 : 1;
    }
    if (m.packets == 0)
    {
        m.answered = true; // nothing to ask for
        Complete(flowId);
        return;
    }
    if (misses > 0 && m_contextMissPenalty.IsStrictlyPositive())
    {
        Simulator::Schedule(m_contextMissPenalty * int64_t(misses), &UbNic::Activate, this, flowId);
        return;
    }
    Activate(flowId);
}

void
UbNic::Activate(uint32_t flowId)
{
    TxChannel& ch = m_tx[m_messages[flowId].channel];
    ch.active.push_back(flowId);
    ActivateSender(ch.port, ch.id);
}

// ---------------------------------------------------------------------------------------------
// Sending

int64_t
UbNic::NextPsn(TxChannel& ch)
{
    if (ch.unreliable)
    {
        return ch.active.empty() ? -1 : int64_t(ch.nextPsn); // no window, nothing to resend
    }
    while (!ch.resend.empty())
    {
        uint32_t psn = ch.resend.front();
        uint32_t i = psn - ch.una;
        if (i < ch.packets.size() && ch.packets[i].lost && !ch.packets[i].acked)
        {
            return ch.packets[i].frameBytes + ch.inflight <= ch.cc->GetWindow() ? int64_t(psn) : -1;
        }
        ch.resend.pop_front(); // acknowledged meanwhile
    }
    while (!ch.active.empty() && WaitsForOpSlot(ch.active.front()))
    {
        m_opsBlocked.push_back(ch.active.front()); // back in turn when a response frees a slot
        ch.active.pop_front();
    }
    if (ch.active.empty() || ch.nextPsn - ch.una >= m_outOfOrderWindow)
    {
        return -1;
    }
    uint64_t frameBytes = m_mtu + kUbFrameOverhead;
    if (ch.inflight + frameBytes > ch.cc->GetWindow() && ch.inflight > 0)
    {
        return -1;
    }
    return ch.nextPsn;
}

bool
UbNic::WindowBlockedAfterSend(TxChannel& ch) const
{
    uint64_t frameBytes = m_mtu + kUbFrameOverhead;
    return ch.inflight + frameBytes > ch.cc->GetWindow() ||
           ch.nextPsn - ch.una >= m_outOfOrderWindow;
}

NicTransport::Turn
UbNic::OfferTurn(uint32_t channel, const FabricNetDevice& dev, Time now, Time* wake)
{
    TxChannel& ch = m_tx[channel];
    int64_t psn = NextPsn(ch);
    if (psn < 0)
    {
        return Turn::IDLE; // nothing until an ACK or a timeout
    }
    if (FabricHost::IsPaused(dev, ch.priority, wake) || dev.GetQueueBytes(ch.priority) > 0)
    {
        return Turn::WAIT; // the host wakes the port when the pause ends, the port when idle
    }
    if (ch.unreliable)
    {
        SendUnreliable(ch);
        return Turn::SENT;
    }
    SendData(ch, static_cast<uint32_t>(psn));
    return Turn::SENT;
}

void
UbNic::SendData(TxChannel& ch, uint32_t psn)
{
    bool resend = psn != ch.nextPsn;
    if (!resend)
    {
        // A new packet: the next one of the request whose turn it is.
        uint32_t flowId = ch.active.front();
        ch.active.pop_front();
        TxMessage& m = m_messages[flowId];
        const FlowRecord& rec = m_flows->Get(flowId);
        TxPacket p;
        p.flow = flowId;
        if (m.kind == MessageKind::RESPONSE)
        {
            // Responses leave in the order the responder released them.
            p.index = m.ready.front();
            m.ready.pop_front();
            m.nextIndex++;
            m.queued = !m.ready.empty();
            if (m.queued)
            {
                ch.active.push_back(flowId);
            }
        }
        else
        {
            p.index = m.nextIndex++;
            if (m.nextIndex < m.packets)
            {
                ch.active.push_back(flowId);
            }
            else
            {
                m.lastPsn = psn;
            }
            if (m.kind == MessageKind::REQUEST && PerOperation(rec))
            {
                ++m_opsOutstanding; // until its response arrives
            }
        }
        p.payload = m.kind == MessageKind::WRITE ? PayloadOf(rec, p.index)
                                                 : DataBytesOf(m.kind, rec, p.index);
        p.frameBytes = WireBytesOf(m.kind, rec, p.payload) + kUbFrameOverhead;
        ch.packets.push_back(p);
        ch.nextPsn++;
    }
    TxPacket& p = ch.packets[psn - ch.una];
    FlowRecord& f = m_flows->Get(p.flow);
    const TxMessage& m = m_messages[p.flow];
    // Every operation of a load/store/atomic flow is a message of its own.
    bool last = p.index + 1 == m.packets || PerOperation(f);
    uint8_t flags = static_cast<uint8_t>((last ? UbFrameHeader::kFlagLast : 0) |
                                         (p.everSent ? UbFrameHeader::kFlagResend : 0));
    uint16_t cci = ch.cc->OnSend(p.frameBytes).Encode();
    if (p.everSent)
    {
        f.retransmittedBytes += p.payload;
        ++m_resentPackets;
        p.resent = true;
    }
    f.sentBytes += p.payload;
    p.everSent = true;
    p.lost = false;
    p.sent = FabricNow();
    ch.inflight += p.frameBytes;
    if (m_ackInterval > 1 && !last && WindowBlockedAfterSend(ch))
    {
        // UB's ACK request: a receiver coalescing N packets must not wait for packets the
        // window keeps from being sent (docs/models.md#ub-ack-frequency). With AckInterval 1
        // every packet is ACKed anyway and the flag stays clear, as before.
        flags |= UbFrameHeader::kFlagAckRequest;
    }
    if (resend)
    {
        ch.resend.pop_front();
    }
    if (!ch.rto.IsRunning())
    {
        ArmRto(ch);
    }
    EnqueueData(ch, p.flow, p.index, psn, p.payload, flags, cci);
}

void
UbNic::EnqueueData(const TxChannel& ch,
                   uint32_t flowId,
                   uint32_t index,
                   uint32_t psn,
                   uint32_t payload,
                   uint8_t flags,
                   uint16_t cci)
{
    Ptr<FabricNetDevice> dev = m_ports[ch.port].device;
    const FlowRecord& f = m_flows->Get(flowId);
    MessageKind kind = m_messages[flowId].kind;
    uint32_t wire = WireBytesOf(kind, f, payload);
    UbFrameHeader h;
    h.srcMac = dev->GetMacAddress();
    h.dstMac = dev->GetPeer()->GetMacAddress();
    h.srcIp = HostIpv4(m_hostIndex).Get();
    h.dstIp = HostIpv4(ch.dst).Get();
    h.tos = static_cast<uint8_t>((ch.priority << 5) | (ch.ecnCapable ? 0x2 : 0x0));
    h.entropy = ch.lb->NextEntropy();
    h.payloadBytes = static_cast<uint16_t>(wire + kIcrcBytes);
    h.opcode = OpcodeOf(kind, f);
    h.flags = flags;
    h.SetOrder(static_cast<UbOrder>(m_flows->Get(flowId).order));
    h.cci = cci;
    h.message = flowId;
    h.psn = psn;
    h.channel = ch.id;
    h.word = index;
    Ptr<Packet> frame = ZeroPayloadWithIcrc(wire);
    frame->AddHeader(h);
    EnqueueFrame(ch.port, frame, ch.priority, flowId, payload);
}

// ---------------------------------------------------------------------------------------------
// Receiving

void
UbNic::TellCc(TxChannel& ch, const CcFeedback& fb)
{
    if (m_ccWindowTrace.IsEmpty())
    {
        ch.cc->Acknowledge(fb); // nobody listens: spare reading the window twice per ACK
        return;
    }
    uint64_t before = ch.cc->GetWindow();
    ch.cc->Acknowledge(fb);
    TraceWindow(ch, before);
}

void
UbNic::TraceWindow(const TxChannel& ch, uint64_t before)
{
    uint64_t after = ch.cc->GetWindow();
    if (after != before)
    {
        NS_LOG_LOGIC("channel " << ch.id << " window " << before << " -> " << after);
        m_ccWindowTrace(ch.id, ch.dst, before, after);
    }
}

void
UbNic::ReceiveFrame(FabricNetDevice* device, WireFrame& received)
{
    if (!received.hasInfo)
    {
        return;
    }
    const FrameInfo& info = received.info; // parsed once, where the frame was first queued
    if (!IsUbFrame(info) || HostIndexOfIp(info.dstIp) != m_hostIndex)
    {
        return;
    }
    // The frame ends here: decode a copy of its headers (one memcpy) rather than removing
    // them from the packet (Buffer::Iterator reads byte by byte).
    Ptr<Packet> frame = received.frame.Get();
    uint8_t b[512];
    uint32_t n = frame->CopyData(b, std::min<uint32_t>(frame->GetSize(), sizeof b));
    UbFrameHeader h;
    UbAckHeader ack;
    uint32_t ackBytes = 0;
    if (n >= UbFrameHeader::kSize)
    {
        h.Decode(b);
        if (h.opcode == UbOpcode::ACK)
        {
            ackBytes = ack.Decode(b + UbFrameHeader::kSize, n - UbFrameHeader::kSize);
        }
    }
    if (n < UbFrameHeader::kSize || (h.opcode == UbOpcode::ACK && ackBytes == 0))
    {
        // Not in the copy (never for the frames UbNic builds): read them from the packet.
        frame->RemoveHeader(h);
        if (h.opcode == UbOpcode::ACK)
        {
            frame->RemoveHeader(ack);
        }
    }
    if (UbOpcode::UbCarriesPsn(h.opcode) && m_flows->Contains(h.message))
    {
        if (h.flags & UbFrameHeader::kFlagUnreliable)
        {
            ReceiveUnreliable(info, h); // UNO: no ACK, not even a trimmed packet's NACK
            return;
        }
        if (info.trimmed)
        {
            ReceiveTrimmed(info, h);
            return;
        }
        if (h.opcode == UbOpcode::RESPONSE)
        {
            ReceiveResponse(info, h);
            return;
        }
        ReceiveData(info, h);
    }
    else if (h.opcode == UbOpcode::ACK && h.channel < m_tx.size())
    {
        ReceiveAck(h, ack);
    }
}

UbNic::RxChannel&
UbNic::RxChannelOf(const FrameInfo& info, const UbFrameHeader& h)
{
    uint32_t src = HostIndexOfIp(info.srcIp);
    auto [it, fresh] = m_rx.try_emplace(RxKey(src, h.channel));
    RxChannel& rc = it->second;
    if (fresh)
    {
        rc.src = src;
        rc.channel = h.channel;
        // A trimmed header travels at the trim priority: ACKs go at the data's own, which the
        // first untrimmed packet tells (until then, the trimmed header's).
        rc.priority = info.priority;
        rc.port = m_host->EgressPortFor(src, h.entropy);
    }
    return rc;
}

void
UbNic::ReceiveTrimmed(const FrameInfo& info, const UbFrameHeader& h)
{
    ++m_trimmedReceived;
    RxChannel& rc = RxChannelOf(info, h);
    uint32_t offset = h.psn - rc.cumulative;
    bool duplicate = offset >= 0x80000000u ||
                     (offset > 0 && offset - 1 < rc.beyond.size() && rc.beyond[offset - 1]);
    if (!duplicate)
    {
        SendAck(rc, UbAckHeader::kNoMessage, h.psn);
    }
}

void
UbNic::ReceiveData(const FrameInfo& info, const UbFrameHeader& h)
{
    uint32_t flowId = h.message;
    FlowRecord& f = m_flows->Get(flowId);
    uint32_t payload = UbFlowPayloadBytes(info);
    uint64_t key = RxKey(HostIndexOfIp(info.srcIp), h.channel);
    RxChannel& rc = RxChannelOf(info, h);
    if (LoseScripted(flowId, h.word, payload))
    {
        return;
    }
    // A change of the congestion mark is ACKed at once, whatever AckInterval says (the DCTCP
    // receiver's rule for delayed ACKs, RFC 8257 §3.2; htsim's UEC sink ACKs every marked
    // packet): the sender's controller sees a mark, or its end, without waiting for N packets.
    // With AckInterval 1 every packet is ACKed anyway, so the rule changes nothing there.
    bool markChanged = false;
    bool congested = NoteCongestion(rc, info, h, &markChanged);
    uint32_t offset = h.psn - rc.cumulative;
    bool duplicate = offset >= 0x80000000u ||
                     (offset > 0 && offset - 1 < rc.beyond.size() && rc.beyond[offset - 1]);
    auto mit = m_rxMessages.find(flowId);
    if (duplicate)
    {
        m_flows->Discarded(flowId, payload);
        f.spuriousBytes += payload; // its original was delivered
        // The requester may have missed the ACK that said it executed: say it again.
        SendAck(rc, m_executed.count(flowId) ? flowId : UbAckHeader::kNoMessage);
        return;
    }
    if (offset >= m_outOfOrderWindow)
    {
        m_flows->Discarded(flowId, payload); // beyond what this receiver tracks
        return;
    }
    if (mit == m_rxMessages.end())
    {
        RxMessage m;
        m.packets = IsUbMemoryVerb(f.verb) ? RequestPackets(f) : PacketsOf(f);
        m.got.assign(m.packets, 0);
        m.rxChannel = key;
        if (f.order == uint8_t(UbOrder::AFTER))
        {
            // Predecessors sent here; those sent elsewhere were waited for at the initiator.
            for (uint32_t p : f.after)
            {
                if (m_flows->Get(p).dst == f.dst)
                {
                    m.waitFor.push_back(p);
                }
            }
        }
        else if (f.order == uint8_t(UbOrder::STRICT) || f.order == uint8_t(UbOrder::RELAXED))
        {
            // Every request its Jetty posted to this target before it (what the channel's
            // message sequence numbers tell a real responder); relaxed (RO): only the strict
            // (SO) ones among them.
            bool relaxed = f.order == uint8_t(UbOrder::RELAXED);
            for (uint32_t id = 0; id < m_flows->GetN(); ++id)
            {
                const FlowRecord& g = m_flows->Get(id);
                if (g.src == f.src && g.dst == f.dst && g.endpoint == f.endpoint &&
                    g.postSeq < f.postSeq && (!relaxed || g.order == uint8_t(UbOrder::STRICT)) &&
                    !g.uno)
                {
                    m.waitFor.push_back(id);
                }
            }
        }
        if (PerOperation(f))
        {
            m.op.assign(m.packets, OP_ABSENT);
        }
        mit = m_rxMessages.emplace(flowId, std::move(m)).first;
    }
    if (PerOperation(f))
    {
        ReceiveOperation(rc, key, h, payload, congested);
        return;
    }
    RxMessage& m = mit->second;
    bool inOrder = h.word == m.nextInOrder;
    if (h.word >= m.packets || m.got[h.word])
    {
        m_flows->Discarded(flowId, payload);
        return;
    }
    if (!inOrder && m_reorderBufferSize.GetValue() > 0 &&
        m_reorderBytes + payload > m_reorderBufferSize.GetValue())
    {
        m_flows->Discarded(flowId, payload); // no room to hold it: the sender resends
        return;
    }
    bool hadGap = !rc.beyond.empty();
    AcceptPsn(rc, offset);
    if (payload > 0) // a READ request carries no data
    {
        m_flows->Delivered(flowId, payload, congested);
    }
    m.got[h.word] = 1;
    if (inOrder)
    {
        uint32_t before = m.heldPackets;
        m.nextInOrder++;
        while (m.nextInOrder < m.packets && m.got[m.nextInOrder])
        {
            m.nextInOrder++;
            m.heldPackets--;
            uint32_t bytes = PayloadOf(f, m.nextInOrder - 1);
            m.heldBytes -= bytes;
            m_reorderBytes -= bytes;
            m_reorderPackets--;
        }
        if (m.heldPackets != before)
        {
            TraceReorder(flowId, m);
        }
    }
    else
    {
        m.heldPackets++;
        m.heldBytes += payload;
        m_reorderBytes += payload;
        m_reorderPackets++;
        m_peakReorderBytes = std::max(m_peakReorderBytes, m_reorderBytes);
        m_peakReorderPackets = std::max(m_peakReorderPackets, m_reorderPackets);
        TraceReorder(flowId, m);
    }
    // A gap opening or closing is ACKed at once: the sender's loss detection learns of the
    // arrival beyond the gap, and of its repair, without waiting for N packets. While one
    // stays open, packets coalesce like any others.
    bool gapChanged = hadGap != !rc.beyond.empty();
    rc.sinceAck++;
    uint32_t executed = UbAckHeader::kNoMessage;
    if (m.nextInOrder == m.packets && !m.complete)
    {
        m.complete = true;
        TryExecute(flowId);
        if (m.executed)
        {
            executed = flowId;
        }
    }
    if (rc.sinceAck >= m_ackInterval || gapChanged || markChanged ||
        (h.flags & UbFrameHeader::kFlagAckRequest) || executed != UbAckHeader::kNoMessage ||
        (h.flags & UbFrameHeader::kFlagLast))
    {
        SendAck(rc, executed);
    }
}

void
UbNic::AcceptPsn(RxChannel& rc, uint32_t offset)
{
    // Record the PSN, advance the cumulative point.
    if (offset == 0)
    {
        rc.cumulative++;
        while (!rc.beyond.empty() && rc.beyond.front())
        {
            rc.beyond.pop_front();
            rc.cumulative++;
        }
        if (!rc.beyond.empty())
        {
            rc.beyond.pop_front(); // the slot of the new cumulative PSN (not received)
        }
    }
    else
    {
        if (rc.beyond.size() < offset)
        {
            rc.beyond.resize(offset, 0);
        }
        rc.beyond[offset - 1] = 1;
    }
}

bool
UbNic::NoteCongestion(RxChannel& rc,
                      const FrameInfo& info,
                      const UbFrameHeader& h,
                      bool* markChanged)
{
    UbCci cci = UbCci::Decode(h.cci);
    bool congested = info.ecn == 3 || cci.congested;
    rc.lastEntropy = h.entropy;
    *markChanged = congested != rc.lastCongested;
    rc.lastCongested = congested;
    if (cci.enabled)
    {
        if (cci.congested)
        {
            ++rc.congested;
        }
        else if (cci.increase)
        {
            rc.increase = true;
            rc.hintSum += cci.hint;
        }
    }
    return congested;
}

void
UbNic::TraceReorder(uint32_t flowId, const RxMessage& m)
{
    m_reorderTrace(flowId, m.heldPackets, m.heldBytes);
}

bool
UbNic::WaitForPredecessors(uint32_t flowId, const RxMessage& m)
{
    for (uint32_t pred : m.waitFor)
    {
        if (!m_executed.count(pred))
        {
            if (std::find(m_waiting.begin(), m_waiting.end(), flowId) == m_waiting.end())
            {
                m_waiting.push_back(flowId); // Execute of a predecessor looks at it again
            }
            return true;
        }
    }
    return false;
}

void
UbNic::TryExecute(uint32_t flowId)
{
    if (PerOperation(m_flows->Get(flowId)))
    {
        CommitOperations(flowId);
        return;
    }
    RxMessage& m = m_rxMessages[flowId];
    if (WaitForPredecessors(flowId, m))
    {
        return;
    }
    Execute(flowId);
}

void
UbNic::Execute(uint32_t flowId)
{
    RxMessage& m = m_rxMessages[flowId];
    m.executed = true;
    m_executed.insert(flowId);
    const FlowRecord& f = m_flows->Get(flowId);
    m_flows->Get(flowId).executed = FabricNow();
    m_waiting.erase(std::remove(m_waiting.begin(), m_waiting.end(), flowId), m_waiting.end());
    if (f.verb == RdmaVerb::READ)
    {
        // The memory is read (the host path's bus or DMA read and DRAM access, then
        // MemoryLatency), then the data goes back as responses.
        Simulator::Schedule(TargetMemoryLatency() + m_memoryLatency,
                            &UbNic::ReleaseReadResponse,
                            this,
                            flowId);
    }
    // Requests that waited for this one may go now; each tells its requester by an ACK.
    std::vector<uint32_t> waiting = m_waiting;
    for (uint32_t other : waiting)
    {
        const RxMessage& o = m_rxMessages[other];
        bool ready = std::all_of(o.waitFor.begin(), o.waitFor.end(), [this](uint32_t p) {
            return m_executed.count(p) > 0;
        });
        if (ready && !o.executed && PerOperation(m_flows->Get(other)))
        {
            m_waiting.erase(std::remove(m_waiting.begin(), m_waiting.end(), other),
                            m_waiting.end());
            CommitOperations(other); // each response tells its requester
        }
        else if (ready && !o.executed)
        {
            Execute(other);
            SendAck(m_rx[o.rxChannel], other);
        }
    }
}

void
UbNic::SendAck(RxChannel& rc, uint32_t executed)
{
    SendAck(rc, executed, UbAckHeader::kNoMessage);
}

void
UbNic::SendAck(RxChannel& rc, uint32_t executed, uint32_t trimmedPsn)
{
    rc.sinceAck = 0;
    Ptr<FabricNetDevice> dev = m_ports[rc.port].device;
    UbAckHeader ack;
    ack.executedMessage = executed;
    ack.congestedCount = static_cast<uint8_t>(std::min<uint32_t>(rc.congested, 255));
    ack.increase = rc.increase;
    ack.hintSum = static_cast<uint16_t>(std::min<uint32_t>(rc.hintSum, 0xFFFF));
    // SackBitmap::Encode's bitmap, built from the arrivals beyond the cumulative point only
    // (bit i: PSN cumulative + 1 + i), instead of asking about each of the SackBits PSNs.
    ack.bitmap.assign(m_sackBits / 8, 0);
    uint32_t known = static_cast<uint32_t>(std::min<size_t>(m_sackBits / 8 * 8, rc.beyond.size()));
    for (uint32_t i = 0; i < known; ++i)
    {
        if (rc.beyond[i])
        {
            ack.bitmap[i / 8] |= static_cast<uint8_t>(0x80 >> (i % 8));
        }
    }
    rc.congested = 0;
    rc.increase = false;
    rc.hintSum = 0;
    UbFrameHeader h;
    h.srcMac = dev->GetMacAddress();
    h.dstMac = dev->GetPeer()->GetMacAddress();
    h.srcIp = HostIpv4(m_hostIndex).Get();
    h.dstIp = HostIpv4(rc.src).Get();
    h.tos = static_cast<uint8_t>(rc.priority << 5);
    h.entropy = rc.lastEntropy;
    h.payloadBytes = static_cast<uint16_t>(ack.GetSerializedSize() + kIcrcBytes);
    h.opcode = UbOpcode::ACK;
    h.psn = rc.cumulative;
    h.channel = rc.channel;
    h.word = (uint32_t(rc.lastEntropy) << 16) | (rc.lastCongested ? 1 : 0);
    if (trimmedPsn != UbAckHeader::kNoMessage)
    {
        h.flags |= UbFrameHeader::kFlagTrimmedNack;
        h.message = trimmedPsn;
    }
    Ptr<Packet> frame = ZeroPayloadWithIcrc(0);
    frame->AddHeader(ack);
    frame->AddHeader(h);
    EnqueueFrame(rc.port, frame, rc.priority);
}

// ---------------------------------------------------------------------------------------------
// Acknowledgements and recovery

void
UbNic::MarkAcked(TxChannel& ch, TxPacket& p)
{
    if (p.acked || !p.everSent)
    {
        return;
    }
    p.acked = true;
    if (!p.lost)
    {
        ch.inflight -= p.frameBytes;
    }
    p.lost = false;
    TxMessage& m = m_messages[p.flow];
    if (++m.acked == m.packets)
    {
        m.allAckedAt = FabricNow();
        if (m.kind == MessageKind::RESPONSE)
        {
            FinishResponse(m);
        }
    }
}

void
UbNic::DeclareLost(TxChannel& ch, uint32_t psn)
{
    TxPacket& p = ch.packets[psn - ch.una];
    if (p.acked || p.lost || !p.everSent)
    {
        return;
    }
    p.lost = true;
    ch.inflight -= p.frameBytes;
    ch.resend.push_back(psn);
    uint64_t before = ch.cc->GetWindow();
    ch.cc->OnLoss(p.frameBytes);
    TraceWindow(ch, before);
}

void
UbNic::ReceiveAck(const UbFrameHeader& h, const UbAckHeader& ack)
{
    TxChannel& ch = m_tx[h.channel];
    uint32_t cumulative = h.psn;
    Time newestSent(-1);
    Time newestSentOnce(-1); ///< of packets sent once: the RTT sample Karn's rule allows
    uint64_t ackedBytes = 0;
    auto ackOne = [&](uint32_t psn) {
        uint32_t i = psn - ch.una;
        if (i < ch.packets.size())
        {
            TxPacket& p = ch.packets[i];
            if (!p.acked && p.everSent)
            {
                newestSent = std::max(newestSent, p.sent);
                if (!p.resent)
                {
                    newestSentOnce = std::max(newestSentOnce, p.sent);
                }
                ackedBytes += p.frameBytes;
                MarkAcked(ch, p);
            }
        }
    };
    // Cumulative part (PSN arithmetic modulo 2^32).
    if (cumulative - ch.una <= ch.packets.size())
    {
        for (uint32_t psn = ch.una; psn != cumulative; ++psn)
        {
            ackOne(psn);
        }
    }
    // Selective part, in PSN order; whole bytes without a bit set are skipped.
    for (uint32_t byte = 0; byte < ack.bitmap.size(); ++byte)
    {
        uint8_t bits = ack.bitmap[byte];
        for (uint32_t b = 0; bits != 0 && b < 8; ++b)
        {
            if (bits & (0x80 >> b))
            {
                ackOne(cumulative + 1 + byte * 8 + b);
            }
        }
    }
    while (!ch.packets.empty() && ch.packets.front().acked)
    {
        ch.packets.pop_front();
        ch.una++;
    }
    if (m_rtoMode == RTO_ADAPTIVE && newestSentOnce.IsPositive())
    {
        ch.rtoEstimate.Sample(FabricNow() - newestSentOnce);
    }
    if ((h.flags & UbFrameHeader::kFlagTrimmedNack) && h.message - ch.una < ch.packets.size())
    {
        DeclareLost(ch, h.message); // arrived trimmed: resend it now
    }
    // Time-based loss detection: anything sent ReorderWindow before a packet that has now
    // arrived is lost (reordering across paths is shorter than that; losses are not).
    if (m_reorderWindow.IsStrictlyPositive() && newestSent.IsPositive())
    {
        // Packets sent once were sent in PSN order, and a resent packet was last sent after
        // its first transmission: past the first packet sent once that is still too recent,
        // every later packet is at least as recent, so the scan stops there.
        Time threshold = newestSent - m_reorderWindow;
        for (uint32_t i = 0; i < ch.packets.size(); ++i)
        {
            const TxPacket& p = ch.packets[i];
            if (p.sent <= threshold)
            {
                DeclareLost(ch, ch.una + i);
            }
            else if (!p.resent)
            {
                break;
            }
        }
    }
    ch.lb->OnFeedback(static_cast<uint16_t>(h.word >> 16), (h.word & 1) != 0);
    CcFeedback fb;
    fb.congestedCount = ack.congestedCount;
    fb.increase = ack.increase;
    fb.hintSum = ack.hintSum;
    fb.rtt = newestSent.IsPositive() ? FabricNow() - newestSent : Time(0);
    fb.ecnEcho = (h.word & 1) != 0;
    fb.ackedBytes = ackedBytes;
    fb.inflightBytes = ch.inflight;
    if (newestSent.IsPositive() || fb.congestedCount > 0)
    {
        // ACKs that cover no new packet (duplicates, execution notices) answer no request.
        TellCc(ch, fb);
    }
    if (ack.executedMessage != UbAckHeader::kNoMessage)
    {
        Complete(ack.executedMessage);
    }
    if (ch.packets.empty() && ch.openMessages == 0 && ch.rto.IsRunning())
    {
        // Nothing left to time: take the event out of the scheduler (a cancelled one would
        // still be dequeued at its time, up to the RTO floor later).
        Simulator::Remove(ch.rto);
    }
    ActivateSender(ch.port, ch.id);
}

void
UbNic::ArmRto(TxChannel& ch)
{
    // Due when the oldest outstanding packet (or a fully acknowledged request still waiting
    // for its execution notice) is Rto old.
    Time oldest = Time::Max();
    for (const TxPacket& p : ch.packets)
    {
        if (p.everSent && !p.acked && !p.lost)
        {
            oldest = std::min(oldest, p.sent);
        }
    }
    if (oldest == Time::Max() && ch.openMessages == 0)
    {
        return;
    }
    if (oldest == Time::Max())
    {
        oldest = FabricNow();
    }
    Time due = std::max(oldest + ChannelRto(ch), FabricNow() + NanoSeconds(1));
    ch.rto = Simulator::Schedule(due - FabricNow(), &UbNic::RtoExpired, this, ch.id);
}

void
UbNic::RtoExpired(uint32_t channel)
{
    TxChannel& ch = m_tx[channel];
    Time now = FabricNow();
    const Time rto = ChannelRto(ch);
    bool any = false;
    bool probed = false;
    for (uint32_t i = 0; i < ch.packets.size(); ++i)
    {
        const TxPacket& p = ch.packets[i];
        if (p.everSent && !p.acked && !p.lost && p.sent + rto <= now)
        {
            DeclareLost(ch, ch.una + i);
            any = true;
        }
    }
    // Requests fully acknowledged whose execution notice is overdue: resend their last packet
    // (a duplicate the responder discards), which makes it repeat the notice once executed.
    for (auto& [flowId, m] : m_messages)
    {
        // (Memory requests are answered by responses, which their responder resends itself.)
        if (m.channel == channel && !m.done && m.acked == m.packets && m.packets > 0 &&
            m.kind == MessageKind::WRITE && m.allAckedAt + rto <= now)
        {
            m.allAckedAt = now;
            SendProbe(ch, flowId);
            probed = true;
        }
    }
    if ((any || probed) && m_rtoMode == RTO_ADAPTIVE)
    {
        ch.rtoEstimate.Backoff(); // RFC 6298 §5.5
    }
    ArmRto(ch);
    if (any)
    {
        ActivateSender(ch.port, ch.id);
    }
}

void
UbNic::SendProbe(TxChannel& ch, uint32_t flowId)
{
    const TxMessage& m = m_messages[flowId];
    FlowRecord& f = m_flows->Get(flowId);
    uint32_t index = m.packets - 1;
    uint32_t payload = PayloadOf(f, index);
    f.sentBytes += payload;
    f.retransmittedBytes += payload;
    ++m_resentPackets;
    EnqueueData(ch,
                flowId,
                index,
                m.lastPsn,
                payload,
                UbFrameHeader::kFlagLast | UbFrameHeader::kFlagResend,
                0);
}

void
UbNic::Complete(uint32_t flowId)
{
    auto it = m_messages.find(flowId);
    if (it == m_messages.end() || it->second.done ||
        (it->second.kind == MessageKind::REQUEST && !it->second.answered))
    {
        return; // a memory request completes when its responses are in, not on its ACK
    }
    it->second.done = true;
    m_tx[it->second.channel].openMessages--;
    CompleteRequest(flowId);
}

void
UbNic::ReleaseHeldRequests()
{
    // Requests fenced behind the one completed (or another that has finished) may go now.
    std::vector<uint32_t> fenced;
    fenced.swap(m_fenced);
    for (uint32_t id : fenced)
    {
        if (Fenced(m_flows->Get(id)))
        {
            m_fenced.push_back(id);
        }
        else
        {
            m_launcher.Enqueue(id);
        }
    }
}

// ---------------------------------------------------------------------------------------------
// End-of-run reports

std::string
UbNic::AuditTransportState(const FlowTable& flows) const
{
    std::string problems;
    for (const auto& [flowId, m] : m_messages)
    {
        // A responder's answer may still await its last ACKs when its requester completes.
        if (flows.Get(flowId).finished && !m.done && m.kind != MessageKind::RESPONSE)
        {
            problems += "flow " + std::to_string(flowId) + " finished but its request is open; ";
        }
    }
    for (const auto& [flowId, m] : m_rxMessages)
    {
        if (flows.Get(flowId).finished && (!m.executed || m.heldPackets != 0))
        {
            problems += "flow " + std::to_string(flowId) +
                        " finished but its target has not executed it in order; ";
        }
    }
    return problems;
}

std::string
UbNic::StuckReason(uint32_t flowId) const
{
    auto it = m_messages.find(flowId);
    const FlowRecord& f = m_flows->Get(flowId);
    if (it == m_messages.end() && f.verb == RdmaVerb::READ && f.dst == m_hostIndex)
    {
        // Asked of the responder (it drives a READ's data): it has not answered yet.
        return m_rxMessages.count(flowId) ? "READ request here, waiting to execute (ordering)"
                                          : "READ request not received";
    }
    if (it == m_messages.end() &&
        std::find(m_fenced.begin(), m_fenced.end(), flowId) != m_fenced.end())
    {
        return "waiting at the initiator for its ordered predecessors";
    }
    if (it == m_messages.end())
    {
        return "request not launched (request slots or interval)";
    }
    const TxMessage& m = it->second;
    if (m.kind == MessageKind::REQUEST && m.acked == m.packets)
    {
        auto r = m_rxResponses.find(flowId);
        uint32_t received = r == m_rxResponses.end() ? 0 : r->second.received;
        return "request acknowledged; " + std::to_string(received) + " of " +
               std::to_string(ResponsePackets(f)) + " responses received";
    }
    const TxChannel& ch = m_tx[m.channel];
    if (ch.unreliable && m.done)
    {
        // Every packet has left; the target finishes the flow when all have arrived.
        uint64_t missing = f.bytes - f.deliveredBytes;
        return f.droppedBytes > 0
                   ? "unreliable (UNO) flow: " + std::to_string(f.droppedBytes) +
                         " B lost in the fabric and never resent (no ACK, no retransmission)"
                   : "unreliable (UNO) flow: all packets sent, " + std::to_string(missing) +
                         " B not arrived yet";
    }
    std::string blocked = PortBlockedReason(ch.port, ch.priority);
    if (!blocked.empty())
    {
        return blocked;
    }
    if (ch.unreliable)
    {
        return "unreliable (UNO) channel " + std::to_string(ch.id) + ": " +
               std::to_string(m.nextIndex) + " of " + std::to_string(m.packets) + " packets sent";
    }
    if (m.acked == m.packets)
    {
        return "all packets acknowledged; waiting for the target to execute it (ordering)";
    }
    return "channel " + std::to_string(ch.id) + ": " + std::to_string(m.packets - m.acked) +
           " packets unacknowledged, window " + std::to_string(ch.cc->GetWindow()) +
           " B, in flight " + std::to_string(ch.inflight) + " B";
}

} // namespace ns3
