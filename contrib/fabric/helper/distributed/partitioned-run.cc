#include "distributed/partitioned-run.h"

#include "config/config-error.h"
#include "distributed/rank-exchange.h"

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

    TypeId GetInstanceTypeId() const override
    {
        return GetTypeId();
    }

    uint32_t GetSerializedSize() const override
    {
        return 9;
    }

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

namespace
{

/// A control message's body: plain values in this machine's layout (every rank runs the same
/// binary on the same kind of machine), written and read back in the same order.
class BodyWriter
{
  public:
    template <typename T>
    BodyWriter& Put(const T& value)
    {
        const auto* bytes = reinterpret_cast<const uint8_t*>(&value);
        m_bytes.insert(m_bytes.end(), bytes, bytes + sizeof(T));
        return *this;
    }

    BodyWriter& Put(const PausedQueue& q)
    {
        return Put(q.node).Put(q.port).Put(q.priority);
    }

    BodyWriter& Put(const std::vector<float>& values)
    {
        Put(static_cast<uint32_t>(values.size()));
        const auto* bytes = reinterpret_cast<const uint8_t*>(values.data());
        m_bytes.insert(m_bytes.end(), bytes, bytes + sizeof(float) * values.size());
        return *this;
    }

    const std::vector<uint8_t>& Bytes() const
    {
        return m_bytes;
    }

  private:
    std::vector<uint8_t> m_bytes;
};

class BodyReader
{
  public:
    explicit BodyReader(const Ptr<Packet>& message)
        : m_bytes(message->GetSize())
    {
        message->CopyData(m_bytes.data(), static_cast<uint32_t>(m_bytes.size()));
    }

    template <typename T>
    T Get()
    {
        T value;
        std::memcpy(&value, m_bytes.data() + m_at, sizeof(T));
        m_at += sizeof(T);
        return value;
    }

    PausedQueue GetQueue()
    {
        PausedQueue q;
        q.node = Get<uint32_t>();
        q.port = Get<uint32_t>();
        q.priority = Get<uint8_t>();
        return q;
    }

    std::vector<float> GetFloats()
    {
        std::vector<float> values(Get<uint32_t>());
        std::memcpy(values.data(), m_bytes.data() + m_at, sizeof(float) * values.size());
        m_at += sizeof(float) * values.size();
        return values;
    }

    bool AtEnd() const
    {
        return m_at >= m_bytes.size();
    }

  private:
    std::vector<uint8_t> m_bytes;
    size_t m_at = 0;
};

} // namespace

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

    // Control messages go straight from rank to rank (completions to rank 0, its stop to every
    // rank, collective announcements to the ranks that need them). The granted time window
    // lets any message through one lookahead later; the null-message engine only accepts
    // messages from a rank it shares a cable with, and no sooner than that cable's delay.
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
                throw ConfigError("command line",
                                  0,
                                  "--mpi-sync",
                                  "ranks " + std::to_string(a) + " and " + std::to_string(b) +
                                      " share no cable: the null-message engine takes messages "
                                      "only from a neighbouring rank, and control messages go "
                                      "directly between ranks (use --mpi-sync granted-time or "
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
            dev->GetFabricChannel()->SetRemotePeer(dev,
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
        CountFinish(PicoSeconds(BodyReader(message).Get<int64_t>()));
        return;
    }
    if (h.type == RUN_STOP)
    {
        Simulator::Stop(PicoSeconds(BodyReader(message).Get<int64_t>()) - Simulator::Now());
        return;
    }
    if (h.type == COLLECTIVE_NOTICE)
    {
        BodyReader body(message);
        Time start = PicoSeconds(body.Get<int64_t>());
        Time end = PicoSeconds(body.Get<int64_t>());
        m_collective->ApplyRemoteCompletion(h.flowId, start, end, body.GetFloats());
        return;
    }
    if (h.type == JOB_NOTICE)
    {
        BodyReader body(message);
        uint32_t transfer = body.Get<uint32_t>();
        Time start = PicoSeconds(body.Get<int64_t>());
        Time end = PicoSeconds(body.Get<int64_t>());
        m_jobs->ApplyRemoteCompletion(h.flowId, transfer, start, end, body.GetFloats());
        return;
    }
    if (h.type == DEADLOCK_SAMPLE)
    {
        ReceiveDeadlockSample(message);
        return;
    }
    if (h.type == DEADLOCK_STOP)
    {
        // Stop instant, the instant of the sample, then the cycle.
        BodyReader body(message);
        Time stopAt = PicoSeconds(body.Get<int64_t>());
        Time at = PicoSeconds(body.Get<int64_t>());
        std::vector<PausedQueue> cycle;
        while (!body.AtEnd())
        {
            cycle.push_back(body.GetQueue());
        }
        m_deadlock->SetDetected(at, std::move(cycle));
        Simulator::Stop(stopAt - Simulator::Now());
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
    BodyWriter body;
    body.Put(Simulator::Now().GetPicoSeconds());
    SendNotice(0, FINISH_NOTICE, id, body.Bytes(), m_noticeDelay[0]);
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
    BodyWriter body;
    body.Put(stopAt.GetPicoSeconds());
    for (uint32_t r = 1; r < m_plan.size; ++r)
    {
        SendNotice(r, RUN_STOP, 0, body.Bytes(), m_noticeDelay[r]);
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
        throw ConfigError("collective",
                          0,
                          "collective.value_elements",
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
PartitionedRun::ConnectJobs(Ptr<JobRunner> runner)
{
    m_jobs = runner;
    std::vector<bool> local;
    for (uint32_t h = 0; h < m_net->GetNHosts(); ++h)
    {
        local.push_back(m_net->IsHostLocal(h));
    }
    runner->SetDistributed(local, MakeCallback(&PartitionedRun::AnnounceJobTransfer, this));
    // A job may end with computation after its last flow: its end counts as one more
    // completion, which rank 0 counts when its replica has every record.
    m_finishExpected = 1;
    runner->SetDoneCallback(MakeCallback(&PartitionedRun::JobsDone, this));
}

void
PartitionedRun::AnnounceJobTransfer(uint32_t instance,
                                    uint32_t transfer,
                                    Time start,
                                    Time end,
                                    const std::vector<float>& payload)
{
    // Every rank: each replica decides its members' readiness and its instances' ends itself.
    BodyWriter body;
    body.Put(transfer).Put(start.GetPicoSeconds()).Put(end.GetPicoSeconds()).Put(payload);
    for (uint32_t r = 0; r < m_plan.size; ++r)
    {
        if (r != m_plan.rank)
        {
            SendNotice(r, JOB_NOTICE, instance, body.Bytes(), m_noticeDelay[r]);
        }
    }
}

void
PartitionedRun::JobsDone()
{
    if (m_plan.rank == 0)
    {
        CountFinish(m_jobs->EndTime());
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
    BodyWriter body;
    body.Put(start.GetPicoSeconds()).Put(end.GetPicoSeconds()).Put(payload);
    for (uint32_t r : AnnouncementRanks(id))
    {
        SendNotice(r, COLLECTIVE_NOTICE, id, body.Bytes(), m_noticeDelay[r]);
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
        return m_plan.partition
            .rankOfNode[m_net->NodeOfHost(m_collective->HostOfRank(collectiveRank))];
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
        // In chunks that fit one MPI message (17 bytes per queue): the instant, then queues.
        constexpr size_t kPerMessage = 700;
        for (size_t first = 0; first < sample.size(); first += kPerMessage)
        {
            BodyWriter body;
            body.Put(now.GetPicoSeconds());
            for (size_t i = first; i < std::min(sample.size(), first + kPerMessage); ++i)
            {
                const QueueSample& q = sample[i];
                body.Put(PausedQueue{q.node, q.port, q.priority}).Put(q.txBytes);
            }
            SendNotice(0, DEADLOCK_SAMPLE, 0, body.Bytes(), m_noticeDelay[0]);
        }
    }
    Simulator::Schedule(m_deadlock->GetInterval(), &PartitionedRun::SampleDeadlock, this);
}

void
PartitionedRun::ReceiveDeadlockSample(Ptr<Packet> message)
{
    BodyReader body(message);
    auto& samples = m_deadlockSamples[body.Get<int64_t>()];
    while (!body.AtEnd())
    {
        PausedQueue q = body.GetQueue();
        samples.push_back(QueueSample{q.node, q.port, q.priority, body.Get<uint64_t>()});
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
    BodyWriter body;
    body.Put(stopAt.GetPicoSeconds()).Put(at.GetPicoSeconds());
    for (const PausedQueue& q : m_deadlock->Cycle())
    {
        body.Put(q);
    }
    for (uint32_t r = 1; r < m_plan.size; ++r)
    {
        SendNotice(r, DEADLOCK_STOP, 0, body.Bytes(), m_noticeDelay[r]);
    }
    Simulator::Stop(stopAt - Simulator::Now());
}

} // namespace ns3
