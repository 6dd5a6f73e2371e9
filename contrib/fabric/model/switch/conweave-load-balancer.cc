#include "conweave-load-balancer.h"

#include "ecmp-load-balancer.h"
#include "fabric-switch.h"
#include "link/fabric-channel.h"
#include "sim/fabric-now.h"
#include "sim/fabric-plugin.h"
#include "wire/ethernet-ipv4-udp.h"

#include "ns3/boolean.h"
#include "ns3/log.h"
#include "ns3/mac48-address.h"
#include "ns3/node.h"
#include "ns3/simulator.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <sstream>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("ConWeaveLoadBalancer");
NS_OBJECT_ENSURE_REGISTERED(ConWeaveTag);
NS_OBJECT_ENSURE_REGISTERED(ConWeaveLoadBalancer);
// Not per packet from the hosts' side: the destination ToR puts a flow's frames back in order,
// so go-back-N RoCE works over it (ConWeave's own runs: run.py --pfc 1 --irn 0).
FABRIC_PLUGIN(FabricPlugin(PluginKind::LoadBalancer,
                           "conweave",
                           &ConWeaveLoadBalancer::GetTypeId,
                           "ConWeave: source ToR reroutes a flow on RTT timeout, destination ToR "
                           "puts it back in order")
                  .Section("conweave"));

TypeId
ConWeaveTag::GetTypeId()
{
    static TypeId tid = TypeId("ns3::ConWeaveTag")
                            .SetParent<Tag>()
                            .SetGroupName("Fabric")
                            .AddConstructor<ConWeaveTag>();
    return tid;
}

TypeId
ConWeaveTag::GetInstanceTypeId() const
{
    return GetTypeId();
}

uint32_t
ConWeaveTag::GetSerializedSize() const
{
    return 8 + 1 + 1 + 1 + 4 + 8 + 8;
}

void
ConWeaveTag::Serialize(TagBuffer i) const
{
    i.WriteU64(path);
    i.WriteU8(hop);
    i.WriteU8(phase);
    i.WriteU8(flag);
    i.WriteU32(epoch);
    i.WriteU64(static_cast<uint64_t>(txTime));
    i.WriteU64(static_cast<uint64_t>(tailTime));
}

void
ConWeaveTag::Deserialize(TagBuffer i)
{
    path = i.ReadU64();
    hop = i.ReadU8();
    phase = i.ReadU8();
    flag = i.ReadU8();
    epoch = i.ReadU32();
    txTime = static_cast<int64_t>(i.ReadU64());
    tailTime = static_cast<int64_t>(i.ReadU64());
}

void
ConWeaveTag::Print(std::ostream& os) const
{
    os << "path=" << ConWeaveLoadBalancer::PathText(path) << " hop=" << unsigned(hop)
       << " epoch=" << epoch << " phase=" << unsigned(phase) << " flag=" << unsigned(flag)
       << " tx=" << txTime << " tail=" << tailTime;
}

TypeId
ConWeaveLoadBalancer::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::ConWeaveLoadBalancer")
            .SetParent<SwitchLoadBalancer>()
            .SetGroupName("Fabric")
            .AddConstructor<ConWeaveLoadBalancer>()
            .AddAttribute("TxExpiryTime",
                          "A flow idle this long at its source ToR starts a new epoch, on a "
                          "newly drawn path (CONWEAVE_TX_EXPIRY_TIME; conweave-project/"
                          "conweave-ns3 run.py:267, 2-tier leaf-spine: 300 us).",
                          TimeValue(MicroSeconds(300)),
                          MakeTimeAccessor(&ConWeaveLoadBalancer::m_txExpiryTime),
                          MakeTimeChecker(Time(0)))
            .AddAttribute("ReplyTimeoutExtra",
                          "The RTT_REPLY deadline past the base RTT: without a reply by then, "
                          "the flow's next frame is the TAIL and the later ones take a new path "
                          "(CONWEAVE_REPLY_TIMEOUT_EXTRA; conweave-project/conweave-ns3 "
                          "run.py:261: 4 us).",
                          TimeValue(MicroSeconds(4)),
                          MakeTimeAccessor(&ConWeaveLoadBalancer::m_replyTimeoutExtra),
                          MakeTimeChecker(Time(0)))
            .AddAttribute("PathPauseTime",
                          "A NOTIFY (an ECN-marked frame reached the destination ToR) keeps its "
                          "path from being chosen for this long (CONWEAVE_PATH_PAUSE_TIME; "
                          "conweave-project/conweave-ns3 run.py:262: 16 us).",
                          TimeValue(MicroSeconds(16)),
                          MakeTimeAccessor(&ConWeaveLoadBalancer::m_pathPauseTime),
                          MakeTimeChecker(Time(0)))
            .AddAttribute("ExtraVoqFlushTime",
                          "Margin added to the destination ToR's estimate of the TAIL's "
                          "arrival before a reorder queue is released without it "
                          "(CONWEAVE_EXTRA_VOQ_FLUSH_TIME; conweave-project/conweave-ns3 "
                          "run.py:265, 2-tier leaf-spine: 16 us).",
                          TimeValue(MicroSeconds(16)),
                          MakeTimeAccessor(&ConWeaveLoadBalancer::m_extraVoqFlushTime),
                          MakeTimeChecker(Time(0)))
            .AddAttribute("DefaultVoqWaitingTime",
                          "The TAIL's lead assumed when no phase-0 frame of the epoch reached "
                          "the destination ToR (CONWEAVE_DEFAULT_VOQ_WAITING_TIME; "
                          "conweave-project/conweave-ns3 run.py:266, 2-tier leaf-spine: "
                          "200 us).",
                          TimeValue(MicroSeconds(200)),
                          MakeTimeAccessor(&ConWeaveLoadBalancer::m_defaultVoqWaitingTime),
                          MakeTimeChecker(Time(0)))
            .AddAttribute("BaseRtt",
                          "Base RTT between the source and destination ToR; 0 = twice the "
                          "cables' delay along the path, as conweave-project/conweave-ns3 "
                          "scratch/network-load-balance.cc:1572, 1604, 1640 set it "
                          "(one_hop_delay x 4, 6, 8 for 2, 3, 4 links).",
                          TimeValue(Time(0)),
                          MakeTimeAccessor(&ConWeaveLoadBalancer::m_baseRtt),
                          MakeTimeChecker(Time(0)))
            .AddAttribute("AgingTime",
                          "Per-flow state idle this long is forgotten (conweave-project/"
                          "conweave-ns3 conweave-routing.cc:183: 2 ms).",
                          TimeValue(MilliSeconds(2)),
                          MakeTimeAccessor(&ConWeaveLoadBalancer::m_agingTime),
                          MakeTimeChecker(NanoSeconds(1)))
            .AddAttribute("MaxReorderQueues",
                          "Reorder queues a destination ToR has (flows it can reorder at "
                          "once); an out-of-order frame that finds none free is passed on as "
                          "it is. 0 = unbounded, as the reference's VOQ map "
                          "(conweave-project/conweave-ns3 conweave-routing.h:376).",
                          UintegerValue(0),
                          MakeUintegerAccessor(&ConWeaveLoadBalancer::m_maxReorderQueues),
                          MakeUintegerChecker<uint32_t>())
            .AddAttribute("HoldInBuffer",
                          "Whether a frame waiting in a reorder queue stays charged to the "
                          "shared buffer (and so to PFC at the port it came in by) until it "
                          "leaves, as a switch's buffer holds it (true), or leaves the buffer's "
                          "accounting while it waits and after (false), as the reference keeps "
                          "its VOQ outside its MMU (conweave-project/conweave-ns3 "
                          "switch-node.cc:198-214, conweave-routing.cc:931-934). true can let "
                          "PFC pause a new path behind frames waiting for the old one's TAIL; "
                          "false can put more bytes in a port's queue than the buffer holds.",
                          BooleanValue(true),
                          MakeBooleanAccessor(&ConWeaveLoadBalancer::m_holdInBuffer),
                          MakeBooleanChecker())
            .AddAttribute("ControlPriority",
                          "Priority of RTT_REPLY, CLEAR and NOTIFY frames (the reference sends "
                          "them as ACKs, at the highest priority: conweave-project/"
                          "conweave-ns3 switch-node.cc:228-232 with AckHighPrio 1, "
                          "network-load-balance.cc:1445).",
                          UintegerValue(7),
                          MakeUintegerAccessor(&ConWeaveLoadBalancer::m_controlPriority),
                          MakeUintegerChecker<uint8_t>(0, kFabricPriorities - 1))
            .AddTraceSource("Reroute",
                            "A source ToR moved a flow to a new path: flow id, old path, new "
                            "path, reason (0 no RTT_REPLY in time, 1 epoch expiry).",
                            MakeTraceSourceAccessor(&ConWeaveLoadBalancer::m_rerouteTrace),
                            "ns3::ConWeaveLoadBalancer::RerouteTracedCallback")
            .AddTraceSource("ReorderQueue",
                            "A reorder queue's occupancy changed: queue, flow id, frames, "
                            "bytes.",
                            MakeTraceSourceAccessor(&ConWeaveLoadBalancer::m_queueTrace),
                            "ns3::ConWeaveLoadBalancer::ReorderQueueTracedCallback")
            .AddTraceSource("Flush",
                            "A reorder queue was released: queue, flow id, frames, by the TAIL "
                            "(true) or by its timer (false).",
                            MakeTraceSourceAccessor(&ConWeaveLoadBalancer::m_flushTrace),
                            "ns3::ConWeaveLoadBalancer::FlushTracedCallback")
            .AddTraceSource("Control",
                            "A control frame reached its flow's source ToR: type (1 RTT_REPLY, "
                            "2 CLEAR, 3 NOTIFY), flow id, epoch, path (NOTIFY: the marked "
                            "frame's).",
                            MakeTraceSourceAccessor(&ConWeaveLoadBalancer::m_controlTrace),
                            "ns3::ConWeaveLoadBalancer::ControlTracedCallback");
    return tid;
}

ConWeaveLoadBalancer::ConWeaveLoadBalancer()
{
}

void
ConWeaveLoadBalancer::DoDispose()
{
    for (auto& [key, q] : m_queues)
    {
        q.flush.Cancel();
    }
    m_queues.clear();
    m_switch = nullptr;
    m_random.Dispose();
    SwitchLoadBalancer::DoDispose();
}

void
ConWeaveLoadBalancer::Install(const FabricSwitch& sw)
{
    // Held frames go back through the switch (EnqueueHeld): the switch hands itself over as
    // const, but is not a const object.
    m_switch = const_cast<FabricSwitch*>(&sw);
    m_towardHost.assign(sw.GetNPorts(), false);
    for (uint32_t i = 0; i < sw.GetNPorts(); ++i)
    {
        m_towardHost[i] = sw.IsPortTowardHost(i);
    }
}

bool
ConWeaveLoadBalancer::SeesFrames() const
{
    return true;
}

int64_t
ConWeaveLoadBalancer::GetStreamCount() const
{
    return 1;
}

int64_t
ConWeaveLoadBalancer::AssignStreams(int64_t stream)
{
    m_random.SetStream(stream);
    return 1;
}

std::string
ConWeaveLoadBalancer::PathText(uint64_t path)
{
    std::ostringstream os;
    for (uint32_t hop = 0; hop < kMaxHops; ++hop)
    {
        uint16_t slot = static_cast<uint16_t>(path >> (16 * hop));
        if (slot == 0)
        {
            break;
        }
        os << (hop ? "-" : "") << (slot - 1);
    }
    return os.str();
}

uint16_t
ConWeaveLoadBalancer::Ecmp(const FrameInfo& info, const std::vector<uint16_t>& group) const
{
    return group.size() == 1 ? group[0]
                             : group[FabricFlowHash(info, m_switch->GetHashSalt()) % group.size()];
}

uint16_t
ConWeaveLoadBalancer::SelectPort(const FrameInfo& info, const std::vector<uint16_t>& group)
{
    return Ecmp(info, group);
}

bool
ConWeaveLoadBalancer::IsLocalHost(uint32_t host) const
{
    const std::vector<uint16_t>& group = m_switch->GetRouteGroup(host);
    return group.size() == 1 && m_towardHost[group[0]];
}

namespace
{
/// Appends to \p out every path from \p sw to the switch host \p host hangs off: the ports of
/// the hops so far are in \p path (slot = port + 1), the cables' delay so far in \p delay.
/// False when a path cannot be followed (a peer simulated elsewhere, too many hops).
bool
EnumeratePaths(const FabricSwitch& sw,
               uint32_t host,
               uint64_t path,
               uint32_t hop,
               Time delay,
               std::vector<uint64_t>& out,
               Time& longest)
{
    const std::vector<uint16_t>& group = sw.GetRouteGroup(host);
    if (group.empty())
    {
        return false;
    }
    if (group.size() == 1 && sw.IsPortTowardHost(group[0]))
    {
        out.push_back(path);
        longest = std::max(longest, delay);
        return hop > 0;
    }
    if (hop >= ConWeaveLoadBalancer::kMaxHops)
    {
        return false;
    }
    for (uint16_t port : group)
    {
        Ptr<FabricNetDevice> dev = sw.GetPort(port);
        Ptr<FabricNetDevice> peer = dev->GetPeer();
        Ptr<FabricSwitch> next = peer ? peer->GetNode()->GetObject<FabricSwitch>() : nullptr;
        if (!next)
        {
            return false;
        }
        Ptr<FabricChannel> channel = DynamicCast<FabricChannel>(dev->GetChannel());
        Time d = delay + (channel ? channel->GetDelay() : Time(0));
        if (!EnumeratePaths(*next,
                            host,
                            path | (uint64_t(port) + 1) << (16 * hop),
                            hop + 1,
                            d,
                            out,
                            longest))
        {
            return false;
        }
    }
    return true;
}
} // namespace

const ConWeaveLoadBalancer::LeafPaths&
ConWeaveLoadBalancer::PathsToLeafOf(uint32_t host)
{
    uint32_t leaf = m_switch->GetLeafOfHost(host);
    auto it = m_leafPaths.find(leaf);
    if (it != m_leafPaths.end())
    {
        return it->second;
    }
    LeafPaths& lp = m_leafPaths[leaf];
    Time longest;
    if (!EnumeratePaths(*m_switch, host, 0, 0, Time(0), lp.paths, longest))
    {
        lp.paths.clear(); // flows to that leaf take ECMP
    }
    // Twice the one-way delay of the cables: scratch/network-load-balance.cc:1572 (4 one-hop
    // delays for the 2 cables between two leaves of a leaf-spine).
    lp.baseRtt = m_baseRtt.IsStrictlyPositive() ? m_baseRtt : 2 * longest;
    return lp;
}

const std::vector<uint64_t>&
ConWeaveLoadBalancer::GetPaths(uint32_t host)
{
    return PathsToLeafOf(host).paths;
}

Time
ConWeaveLoadBalancer::GetBaseRtt(uint32_t host)
{
    return PathsToLeafOf(host).baseRtt;
}

bool
ConWeaveLoadBalancer::IsPathPaused(uint64_t path) const
{
    auto it = m_pausedUntil.find(path);
    return it != m_pausedUntil.end() && it->second > FabricNow();
}

uint64_t
ConWeaveLoadBalancer::GetFlowPath(uint32_t flowId, uint32_t srcHost) const
{
    auto it = m_tx.find(FlowKey(flowId, HostIp(srcHost)));
    return it == m_tx.end() ? 0 : it->second.path;
}

uint32_t
ConWeaveLoadBalancer::ForwardFrame(uint32_t inPort,
                                   WireFrame& frame,
                                   const std::vector<uint16_t>& group)
{
    const FrameInfo& info = frame.info;
    bool toLocalHost = group.size() == 1 && m_towardHost[group[0]];
    if (info.protocol == 17 && info.dstPort == kConWeaveControlUdpPort)
    {
        if (toLocalHost)
        {
            ReceiveControl(frame); // this is the source ToR of its flow
            return kFrameTaken;
        }
        return Ecmp(info, group); // control frames take ECMP (conweave-routing.cc:425-430)
    }
    if (toLocalHost)
    {
        return group[0]; // the destination ToR's work is done on admission (HoldFrame)
    }
    if (frame.flowId == kNoFlow)
    {
        return Ecmp(info, group); // acknowledgements and the like (conweave-routing.cc:388-393)
    }
    if (inPort < m_towardHost.size() && m_towardHost[inPort])
    {
        return SourceToR(frame, group);
    }
    // Transit: the port of the next hop of the path the frame carries
    // (conweave-routing.cc:1034-1055); without one, ECMP.
    ConWeaveTag tag;
    if (!frame.frame->PeekPacketTag(tag) || tag.hop + 1u >= kMaxHops)
    {
        return Ecmp(info, group);
    }
    uint32_t hop = tag.hop + 1u;
    uint16_t slot = static_cast<uint16_t>(tag.path >> (16 * hop));
    uint16_t port = static_cast<uint16_t>(slot - 1);
    if (slot == 0 || std::find(group.begin(), group.end(), port) == group.end())
    {
        return Ecmp(info, group); // the path does not lead through this switch's routes
    }
    tag.hop = static_cast<uint8_t>(hop);
    frame.frame->ReplacePacketTag(tag);
    return port;
}

uint32_t
ConWeaveLoadBalancer::SourceToR(WireFrame& frame, const std::vector<uint16_t>& group)
{
    // conweave-routing.cc:444-641, in its order.
    const FrameInfo& info = frame.info;
    const LeafPaths& lp = PathsToLeafOf(HostIndexOfIp(info.dstIp));
    if (lp.paths.empty())
    {
        return Ecmp(info, group);
    }
    Time now = FabricNow();
    Age(now);
    auto [it, isNew] = m_tx.try_emplace(FlowKey(frame.flowId, info.srcIp));
    TxState& tx = it->second;
    // Expiry or a settled epoch: a new epoch, which asks for an RTT_REPLY.
    bool expired = isNew || tx.active + m_txExpiryTime < now;
    bool settled = false;
    if (expired)
    {
        tx.stabilized = false;
    }
    else if (tx.stabilized)
    {
        settled = true;
        tx.stabilized = false;
    }
    tx.active = now;
    bool timeout = false;
    if (expired || settled)
    {
        tx.replyDeadline = now + lp.baseRtt + m_replyTimeoutExtra;
    }
    else if (tx.replyDeadline < now)
    {
        tx.replyDeadline = Time::Max();
        timeout = true; // this frame is the TAIL of the old path
    }
    ConWeaveTag tag;
    if (expired || settled)
    {
        ++tx.epoch;
        tx.phase = 0;
        tag.phase = 0;
    }
    else if (timeout)
    {
        tx.phase = 1;
        tag.phase = 0;
    }
    else
    {
        tag.phase = tx.phase;
    }
    tag.epoch = tx.epoch;
    uint64_t oldPath = tx.path;
    if (expired || timeout)
    {
        // Two paths drawn at random: the first that no NOTIFY paused, else none
        // (conweave-routing.cc:526-566; the reference draws on every frame, this only where
        // the draw is used).
        uint32_t n = static_cast<uint32_t>(lp.paths.size());
        uint64_t first = lp.paths[m_random.GetInteger(0, n - 1)];
        uint64_t second = lp.paths[m_random.GetInteger(0, n - 1)];
        bool found = true;
        uint64_t good = first;
        if (IsPathPaused(first))
        {
            found = !IsPathPaused(second);
            good = found ? second : first;
        }
        if (isNew)
        {
            tx.path = good;
        }
        else if (found)
        {
            uint8_t reason = timeout ? REROUTE_REPLY_TIMEOUT : REROUTE_EPOCH_EXPIRY;
            ++m_reroutes;
            NS_LOG_INFO("flow " << frame.flowId << " path " << PathText(tx.path) << " -> "
                                << PathText(good) << " reason " << unsigned(reason));
            m_rerouteTrace(frame.flowId, tx.path, good, reason);
            tx.path = good;
        }
    }
    tag.path = timeout ? oldPath : tx.path; // the TAIL takes the old path, later frames the new
    if (expired || settled)
    {
        tx.tailTime = Time(0);
    }
    else if (timeout)
    {
        tx.tailTime = now;
    }
    tag.tailTime = tx.tailTime.GetTimeStep();
    tag.txTime = now.GetTimeStep();
    tag.hop = 0;
    tag.flag = (expired || settled) ? ConWeaveTag::RTT_REQUEST
               : timeout            ? ConWeaveTag::TAIL
                                    : ConWeaveTag::DATA;
    frame.frame->ReplacePacketTag(tag); // adds it (a frame from a host carries none)
    uint16_t port = PortOfHop(tag.path, 0);
    return std::find(group.begin(), group.end(), port) != group.end() ? port : Ecmp(info, group);
}

bool
ConWeaveLoadBalancer::HoldFrame(QueuedFrame& item, uint32_t outPort)
{
    // A data frame leaving the fabric to a host of this switch, from another switch.
    if (item.flowId == kNoFlow || !m_towardHost[outPort] || item.inPort == kNoIngressPort ||
        m_towardHost[item.inPort])
    {
        return false;
    }
    ConWeaveTag tag;
    if (!item.frame->PeekPacketTag(tag))
    {
        return false;
    }
    return DestinationToR(item, outPort, tag);
}

bool
ConWeaveLoadBalancer::DestinationToR(QueuedFrame& item, uint32_t outPort, ConWeaveTag& tag)
{
    // conweave-routing.cc:646-941, in its order.
    Time now = FabricNow();
    Age(now);
    uint64_t key = FlowKey(item.flowId, item.info.srcIp);
    RxState& rx = m_rx[key];
    rx.active = now;

    enum
    {
        CURRENT,
        NEXT,
        PREVIOUS
    } match = CURRENT;

    if (rx.epoch < tag.epoch)
    {
        rx.epoch = tag.epoch;
        match = NEXT;
    }
    else if (rx.epoch > tag.epoch)
    {
        match = PREVIOUS;
    }
    if (match == PREVIOUS)
    {
        return false; // an earlier epoch's frame: passed on at once
    }
    if (tag.phase == 0)
    {
        rx.phase0Tx = TimeStep(tag.txTime);
        rx.phase0Rx = now;
    }
    bool outOfOrder = false;
    if (match == NEXT)
    {
        rx.phase = tag.flag == ConWeaveTag::TAIL ? 1 : 0;
        outOfOrder = tag.phase > rx.phase;
        rx.phase0Seen = tag.phase == 0;
    }
    else
    {
        if (tag.flag == ConWeaveTag::TAIL)
        {
            if (!rx.reordering)
            {
                rx.phase = 1; // otherwise when the queue is released
            }
        }
        else if (rx.phase < tag.phase)
        {
            outOfOrder = true;
        }
        if (tag.phase == 0)
        {
            rx.phase0Seen = true;
        }
    }
    if (tag.flag == ConWeaveTag::TAIL || tag.phase == 1)
    {
        rx.tailTime = TimeStep(tag.tailTime);
    }
    // When the TAIL should arrive: its lead over the phase-0 frames at the source, or the
    // default without a phase-0 frame of this epoch (conweave-routing.cc:773-825).
    Time lead = m_defaultVoqWaitingTime;
    if (rx.phase0Seen)
    {
        lead = rx.tailTime > rx.phase0Tx ? rx.tailTime - rx.phase0Tx : Time(0);
    }
    Time flushAt;
    if (tag.phase == 1)
    {
        flushAt = (rx.phase0Seen ? rx.phase0Rx : now) + lead + m_extraVoqFlushTime;
    }
    else
    {
        flushAt =
            tag.flag == ConWeaveTag::TAIL ? now + NanoSeconds(1) : now + lead + m_extraVoqFlushTime;
    }
    flushAt = std::max(flushAt, now);
    bool hold = false;
    auto q = m_queues.find(key);
    if (tag.phase == 0)
    {
        if (rx.reordering && q != m_queues.end())
        {
            ScheduleFlush(q->second, flushAt, tag.flag == ConWeaveTag::TAIL);
        }
    }
    else if (outOfOrder)
    {
        hold = true;
        if (!rx.reordering)
        {
            if (m_maxReorderQueues > 0 && m_queues.size() >= m_maxReorderQueues)
            {
                ++m_queueUnavailable; // no queue free: the frame goes on out of order
                hold = false;
            }
            else
            {
                rx.reordering = true;
                ReorderQueue& nq = m_queues[key];
                auto free = std::find(m_queueIndexUsed.begin(), m_queueIndexUsed.end(), false);
                nq.index = static_cast<uint32_t>(free - m_queueIndexUsed.begin());
                if (free == m_queueIndexUsed.end())
                {
                    m_queueIndexUsed.push_back(true);
                }
                else
                {
                    *free = true;
                }
                nq.flowId = item.flowId;
                nq.key = key;
                ScheduleFlush(nq, flushAt, false);
                m_maxQueuesInUse =
                    std::max(m_maxQueuesInUse, static_cast<uint32_t>(m_queues.size()));
                q = m_queues.find(key);
            }
        }
    }
    if (item.info.ecn == 3)
    {
        SendControl(NOTIFY, item.info, item.flowId, tag);
    }
    if (tag.flag == ConWeaveTag::RTT_REQUEST)
    {
        SendControl(RTT_REPLY, item.info, item.flowId, tag);
    }
    else if (tag.flag == ConWeaveTag::TAIL)
    {
        SendControl(CLEAR, item.info, item.flowId, tag);
    }
    if (!hold || q == m_queues.end())
    {
        return false;
    }
    ReorderQueue& rq = q->second;
    if (!m_holdInBuffer)
    {
        m_switch->UnchargeHeld(item, outPort);
    }
    rq.bytes += item.bytes;
    rq.frames.push_back(HeldFrame{std::move(item), outPort});
    ++m_heldFrames;
    uint32_t frames = static_cast<uint32_t>(rq.frames.size());
    m_maxQueueFrames = std::max(m_maxQueueFrames, frames);
    m_maxQueueBytes = std::max(m_maxQueueBytes, rq.bytes);
    m_queueTrace(rq.index, rq.flowId, frames, rq.bytes);
    return true;
}

void
ConWeaveLoadBalancer::ScheduleFlush(ReorderQueue& q, Time at, bool byTail)
{
    q.flush.Cancel();
    q.byTail = byTail;
    q.flush = Simulator::Schedule(at - FabricNow(), &ConWeaveLoadBalancer::Flush, this, q.key);
}

void
ConWeaveLoadBalancer::Flush(uint64_t key)
{
    auto it = m_queues.find(key);
    if (it == m_queues.end())
    {
        return;
    }
    ReorderQueue q = std::move(it->second);
    m_queues.erase(it);
    m_queueIndexUsed[q.index] = false;
    auto rx = m_rx.find(key);
    if (rx != m_rx.end())
    {
        rx->second.reordering = false;
        rx->second.phase = 1;
    }
    ++(q.byTail ? m_flushesByTail : m_flushesByTimeout);
    uint32_t frames = static_cast<uint32_t>(q.frames.size());
    NS_LOG_INFO("flush queue " << q.index << " flow " << q.flowId << " frames " << frames
                               << (q.byTail ? " by TAIL" : " by timeout"));
    m_flushTrace(q.index, q.flowId, frames, q.byTail);
    m_queueTrace(q.index, q.flowId, 0, 0);
    for (HeldFrame& h : q.frames)
    {
        m_switch->EnqueueHeld(std::move(h.item), h.outPort);
    }
}

void
ConWeaveLoadBalancer::SendControl(ControlType type,
                                  const FrameInfo& data,
                                  uint32_t flowId,
                                  const ConWeaveTag& t)
{
    // conweave-routing.cc:256-360: from the data's destination to its source, at the ACKs'
    // priority, ECMP-routed.
    uint32_t srcHost = HostIndexOfIp(data.srcIp);
    const std::vector<uint16_t>& group = m_switch->GetRouteGroup(srcHost);
    if (group.empty())
    {
        return;
    }
    FrameInfo info;
    info.frameBytes = kConWeaveControlFrameBytes;
    info.etherType = 0x0800;
    info.protocol = 17;
    info.srcIp = data.dstIp;
    info.dstIp = data.srcIp;
    info.srcPort = data.srcPort;
    info.dstPort = kConWeaveControlUdpPort;
    info.priority = m_controlPriority;
    uint16_t port = Ecmp(info, group);
    Ptr<FabricNetDevice> dev = m_switch->GetPort(port);
    EthernetIpv4Udp outer;
    outer.srcMac = Mac48Address::ConvertFrom(dev->GetAddress());
    Ptr<FabricNetDevice> peer = dev->GetPeer();
    outer.dstMac =
        peer ? Mac48Address::ConvertFrom(peer->GetAddress()) : Mac48Address::GetBroadcast();
    outer.srcIp = info.srcIp;
    outer.dstIp = info.dstIp;
    outer.tos = static_cast<uint8_t>(m_controlPriority << 5);
    outer.srcPort = info.srcPort;
    outer.dstPort = info.dstPort;
    outer.udpPayloadBytes = static_cast<uint16_t>(kConWeaveControlFrameBytes - 42);
    uint8_t b[kConWeaveControlFrameBytes] = {};
    outer.Write(b);
    // The control header: type, phase, 2 bytes zero, epoch, flow id, path (big-endian).
    uint8_t* h = b + 42;
    h[0] = type;
    h[1] = type == CLEAR ? 1 : 0; // the reference's reply phases (conweave-routing.cc:287-292)
    auto put = [](uint8_t* p, uint64_t v, int bytes) {
        for (int i = 0; i < bytes; ++i)
        {
            p[i] = static_cast<uint8_t>(v >> (8 * (bytes - 1 - i)));
        }
    };
    put(h + 4, t.epoch, 4);
    put(h + 8, flowId, 4);
    put(h + 12, t.path, 8);
    QueuedFrame item;
    item.frame = Create<Packet>(b, kConWeaveControlFrameBytes);
    item.bytes = kConWeaveControlFrameBytes;
    item.priority = m_controlPriority;
    item.ingressPriority = m_controlPriority;
    item.hasInfo = true;
    item.info = info;
    ++m_controlSent[type];
    dev->Enqueue(std::move(item));
}

void
ConWeaveLoadBalancer::ReceiveControl(WireFrame& frame)
{
    uint8_t b[kConWeaveControlFrameBytes] = {};
    if (frame.frame->CopyData(b, kConWeaveControlFrameBytes) < 42 + 20)
    {
        return;
    }
    const uint8_t* h = b + 42;
    auto get = [](const uint8_t* p, int bytes) {
        uint64_t v = 0;
        for (int i = 0; i < bytes; ++i)
        {
            v = (v << 8) | p[i];
        }
        return v;
    };
    uint8_t type = h[0];
    uint8_t phase = h[1];
    uint32_t epoch = static_cast<uint32_t>(get(h + 4, 4));
    uint32_t flowId = static_cast<uint32_t>(get(h + 8, 4));
    uint64_t path = get(h + 12, 8);
    if (type < RTT_REPLY || type > NOTIFY)
    {
        return;
    }
    ++m_controlReceived[type];
    m_controlTrace(type, flowId, epoch, path);
    Time now = FabricNow();
    if (type == NOTIFY)
    {
        m_pausedUntil[path] = now + m_pathPauseTime; // conweave-routing.cc:991-1008
        return;
    }
    // conweave-routing.cc:944-989: only a reply of the flow's current epoch and phase counts.
    auto it = m_tx.find(FlowKey(flowId, frame.info.dstIp));
    if (it == m_tx.end())
    {
        return;
    }
    TxState& tx = it->second;
    if (epoch != tx.epoch || phase != tx.phase)
    {
        return;
    }
    if (type == RTT_REPLY && (now >= tx.replyDeadline || tx.replyDeadline == Time::Max()))
    {
        return; // late
    }
    tx.stabilized = true;
    tx.replyDeadline = Time::Max();
}

void
ConWeaveLoadBalancer::Age(Time now)
{
    // The reference sweeps every AgingTime (conweave-routing.cc:1125-1147); swept when a frame
    // passes instead, so that no timer outlives the traffic.
    if (now - m_lastAging < m_agingTime)
    {
        return;
    }
    m_lastAging = now;
    for (auto it = m_tx.begin(); it != m_tx.end();)
    {
        it = now - it->second.active > m_agingTime ? m_tx.erase(it) : std::next(it);
    }
    for (auto it = m_rx.begin(); it != m_rx.end();)
    {
        bool idle = now - it->second.active > m_agingTime && !it->second.reordering;
        it = idle ? m_rx.erase(it) : std::next(it);
    }
    for (auto it = m_pausedUntil.begin(); it != m_pausedUntil.end();)
    {
        it = it->second <= now ? m_pausedUntil.erase(it) : std::next(it);
    }
}

} // namespace ns3
