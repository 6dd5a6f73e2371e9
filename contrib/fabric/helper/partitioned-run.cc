#include "partitioned-run.h"

#include "config-error.h"
#include "rank-exchange.h"

#include "ns3/header.h"
#include "ns3/node.h"
#include "ns3/simulator.h"

#include <algorithm>
#include <cstring>
#include <iostream>
#include <ostream>

namespace ns3
{

/**
 * What a cut cable adds in front of a frame: message type, flow id and payload bytes. A header
 * (not bytes prepended with AddAtEnd) so that the frame's zero-filled payload stays virtual and
 * the MPI message holds only the frame's headers.
 */
class CutHeader : public Header
{
  public:
    static TypeId GetTypeId()
    {
        static TypeId tid = TypeId("ns3::FabricCutHeader")
                                .SetParent<Header>()
                                .SetGroupName("Fabric")
                                .AddConstructor<CutHeader>();
        return tid;
    }
    TypeId GetInstanceTypeId() const override { return GetTypeId(); }
    uint32_t GetSerializedSize() const override { return 9; }
    void Serialize(Buffer::Iterator i) const override
    {
        i.WriteU8(type);
        i.WriteHtonU32(flowId);
        i.WriteHtonU32(payload);
    }
    uint32_t Deserialize(Buffer::Iterator i) override
    {
        type = i.ReadU8();
        flowId = i.ReadNtohU32();
        payload = i.ReadNtohU32();
        return 9;
    }
    void Print(std::ostream& os) const override
    {
        os << "cut type=" << unsigned(type) << " flow=" << flowId << " payload=" << payload;
    }

    uint8_t type = 0;
    uint32_t flowId = 0;
    uint32_t payload = 0;
};

NS_OBJECT_ENSURE_REGISTERED(CutHeader);

PartitionedRun::PartitionedRun(FabricNetwork* net, const PartitionPlan& plan)
    : m_net(net),
      m_plan(plan)
{
    Time maxDelay(0);
    for (const TopologyLink& l : net->Spec().links)
    {
        maxDelay = std::max(maxDelay, l.delay);
    }
    m_drain = maxDelay + PicoSeconds(1);
    m_noticeTarget.assign(plan.size, {UINT32_MAX, UINT32_MAX});

    // Announcements go straight to every rank. The granted time window lets any message through
    // one lookahead later; the null-message engine only accepts messages from a rank it shares
    // a cable with, and no sooner than that cable's delay.
    const uint32_t K = plan.size;
    std::vector<std::vector<Time>> direct(K, std::vector<Time>(K, Time::Max()));
    for (uint32_t li : plan.partition.cutLinks)
    {
        const TopologyLink& l = net->Spec().links[li];
        uint32_t ra = plan.partition.rankOfNode[l.a];
        uint32_t rb = plan.partition.rankOfNode[l.b];
        direct[ra][rb] = direct[rb][ra] = std::min(direct[ra][rb], l.delay);
    }
    m_noticeDelay.assign(K, Time(0));
    m_maxNoticeDelay = Time(0);
    for (uint32_t a = 0; a < K; ++a)
    {
        for (uint32_t b = 0; b < K; ++b)
        {
            if (a == b)
            {
                continue;
            }
            if (plan.sync == "null-message" && direct[a][b] == Time::Max())
            {
                throw ConfigError("command line", 0, "--mpi-sync",
                                  "ranks " + std::to_string(a) + " and " + std::to_string(b) +
                                      " share no cable: the null-message engine takes messages "
                                      "only from a neighbouring rank, and completions are "
                                      "announced to every rank (use --mpi-sync granted-time or "
                                      "another cut)");
            }
            Time d = plan.sync == "null-message" ? direct[a][b] : plan.partition.lookahead;
            m_maxNoticeDelay = std::max(m_maxNoticeDelay, d);
            if (a == plan.rank)
            {
                m_noticeDelay[b] = d;
            }
        }
    }
}

void
PartitionedRun::ConnectCuts()
{
    const std::vector<uint32_t>& rankOf = m_plan.partition.rankOfNode;
    for (uint32_t li : m_plan.partition.cutLinks)
    {
        auto [a, b] = m_net->LinkEnds(li);
        for (const PortRef& end : {a, b})
        {
            uint32_t r = rankOf[end.node];
            if (m_noticeTarget[r].first == UINT32_MAX)
            {
                m_noticeTarget[r] = {m_net->GetNode(end.node)->GetId(), end.port};
            }
            if (r != m_plan.rank)
            {
                continue;
            }
            Ptr<FabricNetDevice> dev = m_net->GetDevice(end.node, end.port);
            dev->GetFabricChannel()->SetRemotePeer(
                dev,
                MakeCallback(&PartitionedRun::SendFrame, this));
            RankExchange::AttachReceiver(dev,
                                         MakeCallback(&PartitionedRun::Receive, this).Bind(dev));
        }
    }
    // Every rank now has a notice target: PartitionTopology rejects a rank without a cut cable.
}

void
PartitionedRun::SendFrame(Ptr<Packet> frame,
                          Time rxTime,
                          uint32_t node,
                          uint32_t device,
                          uint32_t flowId,
                          uint32_t payload)
{
    CutHeader h;
    h.type = FRAME;
    h.flowId = flowId;
    h.payload = payload;
    Ptr<Packet> message = frame->Copy(); // copy-on-write: the header goes in front of a view
    message->AddHeader(h);
    RankExchange::SendPacket(message, rxTime, node, device);
}

void
PartitionedRun::Receive(Ptr<FabricNetDevice> device, Ptr<Packet> message)
{
    CutHeader h;
    message->RemoveHeader(h);
    if (h.type == FINISH_NOTICE)
    {
        int64_t atPs = 0;
        message->CopyData(reinterpret_cast<uint8_t*>(&atPs), 8);
        CountFinish(PicoSeconds(atPs));
        return;
    }
    if (h.type == RUN_STOP)
    {
        int64_t stopPs = 0;
        message->CopyData(reinterpret_cast<uint8_t*>(&stopPs), 8);
        Simulator::Stop(PicoSeconds(stopPs) - Simulator::Now());
        return;
    }
    if (h.type == COLLECTIVE_NOTICE)
    {
        ReceiveTransfer(message, h.flowId);
        return;
    }
    if (h.type == DEADLOCK_SAMPLE)
    {
        ReceiveDeadlockSample(message);
        return;
    }
    if (h.type == DEADLOCK_STOP)
    {
        // Stop instant, the instant of the sample, then the cycle: 9 bytes per queue.
        std::vector<uint8_t> body(message->GetSize());
        message->CopyData(body.data(), static_cast<uint32_t>(body.size()));
        int64_t times[2];
        std::memcpy(times, body.data(), 16);
        std::vector<PausedQueue> cycle((body.size() - 16) / 9);
        for (size_t i = 0; i < cycle.size(); ++i)
        {
            const uint8_t* in = body.data() + 16 + 9 * i;
            std::memcpy(&cycle[i].node, in, 4);
            std::memcpy(&cycle[i].port, in + 4, 4);
            cycle[i].priority = in[8];
        }
        m_deadlock->SetDetected(PicoSeconds(times[1]), std::move(cycle));
        Simulator::Stop(PicoSeconds(times[0]) - Simulator::Now());
        return;
    }
    device->ReceiveFromRemote(message, h.flowId, h.payload);
}

void
PartitionedRun::InstallFinishRule()
{
    m_net->GetFlowTable()->AddFlowFinishedCallback(
        MakeCallback(&PartitionedRun::FlowFinished, this));
}

void
PartitionedRun::FlowFinished(uint32_t flowId)
{
    AnnounceFinish(flowId);
}

void
PartitionedRun::AnnounceFinish(uint32_t id)
{
    if (m_plan.rank == 0)
    {
        CountFinish(Simulator::Now());
        return;
    }
    int64_t atPs = Simulator::Now().GetPicoSeconds();
    std::vector<uint8_t> body(8);
    std::memcpy(body.data(), &atPs, 8);
    SendNotice(0, FINISH_NOTICE, id, body, m_noticeDelay[0]);
}

void
PartitionedRun::CountFinish(Time at)
{
    m_lastFinish = std::max(m_lastFinish, at);
    if (++m_finishedSeen != m_net->GetFlowTable()->GetN() + m_finishExpected)
    {
        return;
    }
    // Rank 0 has heard of every completion, at most one notice delay after the last one: the
    // stop instant it sends reaches every rank, another notice delay later, before it passes.
    Time stopAt = m_lastFinish + m_drain + m_drain;
    int64_t stopPs = stopAt.GetPicoSeconds();
    std::vector<uint8_t> body(8);
    std::memcpy(body.data(), &stopPs, 8);
    for (uint32_t r = 1; r < m_plan.size; ++r)
    {
        SendNotice(r, RUN_STOP, 0, body, m_noticeDelay[r]);
    }
    Simulator::Stop(stopAt - Simulator::Now());
}

void
PartitionedRun::ConnectCollective(Ptr<CollectiveEngine> engine)
{
    m_collective = engine;
    const CollectivePlan& plan = engine->Plan();
    const CollectiveJob& job = plan.Job();
    std::vector<bool> local(job.ranks);
    uint64_t largest = 0;
    m_finishExpected = 0;
    for (uint32_t r = 0; r < job.ranks; ++r)
    {
        local[r] = m_net->IsHostLocal(engine->HostOfRank(r));
    }
    for (const CollectiveTransfer& t : plan.Transfers())
    {
        // SHARP reductions are no flows: their completions are counted on top of the flows'.
        m_finishExpected += t.sharp ? 1 : 0;
        largest = std::max(largest, t.Bytes());
    }
    // What this rank will learn: transfers it launches or is told of, and those it completes
    // by itself (JOINs, empty ranges) from inputs it knows.
    const std::vector<CollectiveTransfer>& transfers = plan.Transfers();
    m_transferDependents = plan.Dependents();
    std::vector<bool> known(transfers.size());
    for (const CollectiveTransfer& t : transfers) // inputs come first in a plan
    {
        if (t.OnNetwork())
        {
            known[t.id] = local[t.src] || AnnouncementMask(t.id)[m_plan.rank];
            continue;
        }
        bool all = true;
        for (uint32_t d : t.deps)
        {
            all = all && known[d];
        }
        known[t.id] = all;
    }
    engine->SetKnownTransfers(known);
    engine->SetLocalRanks(local);
    engine->SetAnnounceCallback(MakeCallback(&PartitionedRun::AnnounceTransfer, this));
    // An announcement carries the transfer's values; it must fit one MPI message of the engine
    // (16 KiB, tools/build-ns3-source) with room for the frame and packet metadata.
    const uint64_t elements =
        job.messageBytes ? largest * engine->GetValueElements() / job.messageBytes + 1 : 0;
    constexpr uint64_t kMaxNoticeValues = 3072;
    if (m_plan.size > 1 && elements > kMaxNoticeValues)
    {
        throw ConfigError("collective", 0, "collective.value_elements",
                          "a transfer would carry " + std::to_string(elements) +
                              " values across ranks, more than the " +
                              std::to_string(kMaxNoticeValues) +
                              " one MPI message holds: lower value_elements");
    }
    if (m_plan.size > 1 && m_plan.rank == 0 && engine->GetLaunchCost() < m_maxNoticeDelay)
    {
        std::cerr << "warning: collective launch_cost " << engine->GetLaunchCost().GetNanoSeconds()
                  << " ns is shorter than the " << m_maxNoticeDelay.GetNanoSeconds()
                  << " ns a completion takes to reach another rank: transfers that wait for "
                     "another rank start late (summary.json collective.late_launches)\n";
    }
}

void
PartitionedRun::AnnounceTransfer(uint32_t id,
                                 Time start,
                                 Time end,
                                 const std::vector<float>& payload)
{
    if (m_collective->Plan().Transfers()[id].sharp)
    {
        AnnounceFinish(id);
    }
    // Body: start and end (ps), the value count, the values (one machine type on every rank).
    const uint32_t n = static_cast<uint32_t>(payload.size());
    std::vector<uint8_t> body(20 + 4 * size_t(n));
    int64_t times[2] = {start.GetPicoSeconds(), end.GetPicoSeconds()};
    std::memcpy(body.data(), times, 16);
    std::memcpy(body.data() + 16, &n, 4);
    if (n > 0)
    {
        std::memcpy(body.data() + 20, payload.data(), 4 * size_t(n));
    }
    for (uint32_t r : AnnouncementRanks(id))
    {
        SendNotice(r, COLLECTIVE_NOTICE, id, body, m_noticeDelay[r]);
    }
}

std::vector<bool>
PartitionedRun::AnnouncementMask(uint32_t id) const
{
    // Rank 0 writes collective.csv and checks the values; the destination's rank holds the
    // values the transfer changes; a dependent's source rank launches it once its inputs are
    // in. A JOIN completes wherever its inputs are known, so its dependents count as the
    // transfer's own.
    const std::vector<CollectiveTransfer>& transfers = m_collective->Plan().Transfers();
    std::vector<bool> wanted(m_plan.size, false);
    auto rankOfRank = [&](uint32_t collectiveRank) {
        return m_plan.partition.rankOfNode[m_net->NodeOfHost(
            m_collective->HostOfRank(collectiveRank))];
    };
    wanted[0] = true;
    wanted[rankOfRank(transfers[id].dst)] = true;
    std::vector<uint32_t> pending = m_transferDependents[id];
    while (!pending.empty())
    {
        uint32_t d = pending.back();
        pending.pop_back();
        if (transfers[d].join)
        {
            const std::vector<uint32_t>& next = m_transferDependents[d];
            pending.insert(pending.end(), next.begin(), next.end());
            continue;
        }
        wanted[rankOfRank(transfers[d].src)] = true;
    }
    return wanted;
}

std::vector<uint32_t>
PartitionedRun::AnnouncementRanks(uint32_t id) const
{
    std::vector<bool> wanted = AnnouncementMask(id);
    std::vector<uint32_t> ranks;
    for (uint32_t r = 0; r < m_plan.size; ++r)
    {
        if (wanted[r] && r != m_plan.rank)
        {
            ranks.push_back(r);
        }
    }
    return ranks;
}

void
PartitionedRun::SendNotice(uint32_t to,
                           uint8_t type,
                           uint32_t id,
                           const std::vector<uint8_t>& body,
                           Time delay)
{
    ++m_noticesSent;
    CutHeader h;
    h.type = type;
    h.flowId = id;
    Ptr<Packet> notice = body.empty()
                             ? Create<Packet>()
                             : Create<Packet>(body.data(), static_cast<uint32_t>(body.size()));
    notice->AddHeader(h);
    auto [node, port] = m_noticeTarget[to];
    RankExchange::SendPacket(notice, Simulator::Now() + delay, node, port);
}

void
PartitionedRun::ConnectDeadlockDetector(DeadlockDetector* detector)
{
    m_deadlock = detector;
    Simulator::Schedule(detector->GetInterval(), &PartitionedRun::SampleDeadlock, this);
}

void
PartitionedRun::SampleDeadlock()
{
    Time now = Simulator::Now();
    std::vector<QueueSample> sample = m_deadlock->SampleLocal();
    if (m_plan.rank == 0)
    {
        auto& mine = m_deadlockSamples[now.GetPicoSeconds()];
        mine.insert(mine.end(), sample.begin(), sample.end());
        Simulator::Schedule(m_drain, &PartitionedRun::EvaluateDeadlock, this, now);
    }
    else
    {
        // In chunks that fit one MPI message: instant (ps), count, then 17 bytes per queue.
        constexpr size_t kPerMessage = 700;
        constexpr size_t kEntry = 4 + 4 + 1 + 8;
        for (size_t first = 0; first < sample.size(); first += kPerMessage)
        {
            uint32_t n = static_cast<uint32_t>(std::min(kPerMessage, sample.size() - first));
            std::vector<uint8_t> body(12 + kEntry * n);
            int64_t at = now.GetPicoSeconds();
            std::memcpy(body.data(), &at, 8);
            std::memcpy(body.data() + 8, &n, 4);
            uint8_t* out = body.data() + 12;
            for (uint32_t i = 0; i < n; ++i, out += kEntry)
            {
                const QueueSample& q = sample[first + i];
                std::memcpy(out, &q.node, 4);
                std::memcpy(out + 4, &q.port, 4);
                out[8] = q.priority;
                std::memcpy(out + 9, &q.txBytes, 8);
            }
            SendNotice(0, DEADLOCK_SAMPLE, 0, body, m_noticeDelay[0]);
        }
    }
    Simulator::Schedule(m_deadlock->GetInterval(), &PartitionedRun::SampleDeadlock, this);
}

void
PartitionedRun::ReceiveDeadlockSample(Ptr<Packet> message)
{
    std::vector<uint8_t> body(message->GetSize());
    message->CopyData(body.data(), static_cast<uint32_t>(body.size()));
    int64_t at = 0;
    uint32_t n = 0;
    std::memcpy(&at, body.data(), 8);
    std::memcpy(&n, body.data() + 8, 4);
    auto& samples = m_deadlockSamples[at];
    const uint8_t* in = body.data() + 12;
    for (uint32_t i = 0; i < n; ++i, in += 17)
    {
        QueueSample q;
        std::memcpy(&q.node, in, 4);
        std::memcpy(&q.port, in + 4, 4);
        q.priority = in[8];
        std::memcpy(&q.txBytes, in + 9, 8);
        samples.push_back(q);
    }
}

void
PartitionedRun::EvaluateDeadlock(Time at)
{
    if (m_deadlock->Detected())
    {
        return; // the run is stopping
    }
    auto it = m_deadlockSamples.find(at.GetPicoSeconds());
    std::vector<QueueSample> sample;
    if (it != m_deadlockSamples.end())
    {
        sample = std::move(it->second);
        m_deadlockSamples.erase(it);
    }
    if (!m_deadlock->Evaluate(std::move(sample), at))
    {
        return;
    }
    // Declared as of `at`; every rank stops at at + 2 drain (this notice arrives before).
    Time stopAt = at + m_drain + m_drain;
    const std::vector<PausedQueue>& cycle = m_deadlock->Cycle();
    int64_t times[2] = {stopAt.GetPicoSeconds(), at.GetPicoSeconds()};
    std::vector<uint8_t> body(16 + 9 * cycle.size());
    std::memcpy(body.data(), times, 16);
    for (size_t i = 0; i < cycle.size(); ++i)
    {
        uint8_t* out = body.data() + 16 + 9 * i;
        std::memcpy(out, &cycle[i].node, 4);
        std::memcpy(out + 4, &cycle[i].port, 4);
        out[8] = cycle[i].priority;
    }
    for (uint32_t r = 1; r < m_plan.size; ++r)
    {
        SendNotice(r, DEADLOCK_STOP, 0, body, m_noticeDelay[r]);
    }
    Simulator::Stop(stopAt - Simulator::Now());
}

void
PartitionedRun::ReceiveTransfer(Ptr<Packet> message, uint32_t id)
{
    std::vector<uint8_t> body(message->GetSize());
    message->CopyData(body.data(), static_cast<uint32_t>(body.size()));
    int64_t times[2];
    uint32_t n = 0;
    std::memcpy(times, body.data(), 16);
    std::memcpy(&n, body.data() + 16, 4);
    std::vector<float> values(n);
    if (n > 0)
    {
        std::memcpy(values.data(), body.data() + 20, 4 * size_t(n));
    }
    m_collective->ApplyRemoteCompletion(id, PicoSeconds(times[0]), PicoSeconds(times[1]),
                                        std::move(values));
}

} // namespace ns3
