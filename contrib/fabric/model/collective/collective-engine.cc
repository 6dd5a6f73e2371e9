#include "collective-engine.h"

#include "trace/csv-writer.h"

#include "ns3/log.h"
#include "ns3/queue-size.h"
#include "ns3/simulator.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <stdexcept>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("CollectiveEngine");
NS_OBJECT_ENSURE_REGISTERED(CollectiveEngine);
NS_OBJECT_ENSURE_REGISTERED(CollectiveSharpService);

TypeId
CollectiveSharpService::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::CollectiveSharpService").SetParent<Object>().SetGroupName("Fabric");
    return tid;
}

TypeId
CollectiveEngine::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::CollectiveEngine")
            .SetParent<Object>()
            .SetGroupName("Fabric")
            .AddConstructor<CollectiveEngine>()
            .AddAttribute("LaunchCost",
                          "Per-round launch cost added before every transfer starts "
                          "(0.83 us per ring round, from nccl-tests on 16 ranks).",
                          TimeValue(NanoSeconds(830)),
                          MakeTimeAccessor(&CollectiveEngine::m_launchCost),
                          MakeTimeChecker(Time(0)))
            .AddAttribute("RequestSize",
                          "A transfer between servers is carried as requests of this many "
                          "bytes, each taking one of its NIC's request slots "
                          "(MaxInflightRequests; docs/models.md#job-timelines); 0B: each "
                          "transfer is one message. Transfers within a server stay one message.",
                          QueueSizeValue(QueueSize("0B")),
                          MakeQueueSizeAccessor(&CollectiveEngine::m_requestSize),
                          MakeQueueSizeChecker())
            .AddAttribute("UpdateTime",
                          "Optimizer update after a rank's collective has finished (step "
                          "timeline).",
                          TimeValue(Time(0)),
                          MakeTimeAccessor(&CollectiveEngine::m_updateTime),
                          MakeTimeChecker(Time(0)))
            .AddAttribute("Priority",
                          "Traffic class of the collective's flows.",
                          UintegerValue(3),
                          MakeUintegerAccessor(&CollectiveEngine::m_priority),
                          MakeUintegerChecker<uint8_t>(0, 7))
            .AddAttribute("ValueElements",
                          "float32 values carried per rank to check the reduction (0: off).",
                          UintegerValue(1024),
                          MakeUintegerAccessor(&CollectiveEngine::m_elements),
                          MakeUintegerChecker<uint32_t>(0, 1u << 24))
            .AddAttribute("PortsPerNic",
                          "NIC ports an inter-server transfer is divided over, part j bound to "
                          "port j of the NICs it crosses, data and ACKs (a multi-port NIC, "
                          "docs/models.md#shared-interface); 0: one flow, its port chosen by the "
                          "NIC's hash.",
                          UintegerValue(0),
                          MakeUintegerAccessor(&CollectiveEngine::m_portsPerNic),
                          MakeUintegerChecker<uint32_t>(0, 64));
    return tid;
}

CollectiveEngine::CollectiveEngine() = default;

void
CollectiveEngine::DoDispose()
{
    m_table = nullptr;
    m_nics.clear();
    m_sharp = nullptr;
    m_onComplete = Callback<void>();
    m_announce = AnnounceCallback();
    m_early.clear();
    Object::DoDispose();
}

void
CollectiveEngine::Configure(Ptr<FlowTable> table,
                            std::vector<Ptr<HostTransport>> nics,
                            std::vector<uint32_t> hostOfRank,
                            uint64_t seed)
{
    m_table = table;
    m_nics = std::move(nics);
    m_hostOfRank = std::move(hostOfRank);
    m_seed = seed;
}

void
CollectiveEngine::SetPlan(const CollectivePlan& plan)
{
    m_plan = plan;
    m_plan.SplitOverNicPorts(m_portsPerNic);
}

void
CollectiveEngine::SetReadiness(std::vector<Time> ready)
{
    m_ready = std::move(ready);
}

std::pair<uint32_t, uint32_t>
CollectiveEngine::Elements(const CollectiveTransfer& t) const
{
    uint64_t M = m_plan.Job().messageBytes;
    auto at = [&](uint64_t b) {
        return static_cast<uint32_t>((static_cast<unsigned __int128>(b) * m_elements) / M);
    };
    return {at(t.byteBegin), at(t.byteEnd)};
}

void
CollectiveEngine::Start()
{
    Prepare();
    Begin(Simulator::Now());
}

void
CollectiveEngine::Prepare()
{
    const CollectiveJob& job = m_plan.Job();
    if (m_hostOfRank.size() != job.ranks)
    {
        throw std::invalid_argument("CollectiveEngine: one host per rank needed");
    }
    if (m_nics.size() < 1)
    {
        throw std::invalid_argument("CollectiveEngine: collectives need a reliable transport");
    }
    if (m_requestSize.GetUnit() != QueueSizeUnit::BYTES)
    {
        throw std::invalid_argument("CollectiveEngine: RequestSize must be in bytes (B, KiB, "
                                    "...), not packets");
    }
    m_ready.resize(job.ranks, Time(0));
    m_values.assign(job.ranks, std::vector<float>(m_elements));
    for (uint32_t r = 0; r < job.ranks; ++r)
    {
        for (uint32_t e = 0; e < m_elements; ++e)
        {
            m_values[r][e] = InitialValue(r, e);
        }
    }
    const auto& transfers = m_plan.Transfers();
    m_state.assign(transfers.size(), TransferState());
    m_dependents = m_plan.Dependents();
    m_firstFlow = m_table->GetN();
    m_transferOfFlow.clear();
    for (const CollectiveTransfer& t : transfers)
    {
        if (m_known.empty() || m_known[t.id])
        {
            uint32_t known = 0;
            for (uint32_t d : t.deps)
            {
                known += m_known.empty() || m_known[d] ? 1 : 0;
            }
            m_state[t.id].pending = known;
        }
        else
        {
            m_state[t.id].pending = static_cast<uint32_t>(t.deps.size()) + 1; // never here
        }
        if (!t.OnNetwork() || t.sharp)
        {
            continue; // no flow
        }
        if (t.src == t.dst || m_hostOfRank[t.src] == m_hostOfRank[t.dst])
        {
            throw std::invalid_argument("CollectiveEngine: transfer " + std::to_string(t.id) +
                                        " has the same source and destination host");
        }
        const uint32_t requests = RequestsOf(t);
        m_state[t.id].requests = requests;
        for (uint32_t q = 0; q < requests; ++q)
        {
            FlowRecord rec;
            rec.src = m_hostOfRank[t.src];
            rec.dst = m_hostOfRank[t.dst];
            rec.priority = m_priority;
            rec.bytes = requests == 1 ? t.Bytes()
                                      : std::min<uint64_t>(GetRequestSize(),
                                                           t.Bytes() - q * GetRequestSize());
            rec.start = Time::Max(); // posted when eligible
            rec.verb = RdmaVerb::WRITE;
            // Set before posting so that every rank's copy agrees: the receiver must not end
            // the flow on delivery (the sender's last ACK does).
            rec.reliable = true;
            uint64_t h = (uint64_t(m_table->GetN()) << 32) ^ (m_seed * 0x9E3779B97F4A7C15ULL);
            h ^= h >> 33;
            h *= 0xff51afd7ed558ccdULL;
            h ^= h >> 33;
            rec.entropy = static_cast<uint16_t>(49152 + h % 16384);
            uint32_t flow = m_table->Add(rec);
            if (q == 0)
            {
                m_state[t.id].flow = flow;
            }
            m_transferOfFlow.push_back(t.id);
            if (t.nicPort >= 0)
            {
                if (m_portBinder.IsNull())
                {
                    throw std::invalid_argument(
                        "CollectiveEngine: PortsPerNic needs a port binder");
                }
                m_portBinder(flow, rec.src, rec.dst, t.nicPort);
            }
        }
    }
    m_table->AddFlowFinishedCallback(MakeCallback(&CollectiveEngine::FlowFinished, this));
}

void
CollectiveEngine::Begin(Time start)
{
    const auto& transfers = m_plan.Transfers();
    const CollectiveJob& job = m_plan.Job();
    m_completed = 0;
    m_startTime = start;
    if (m_local.empty())
    {
        m_local.assign(job.ranks, true);
    }
    for (const CollectiveTransfer& t : transfers)
    {
        if (m_state[t.id].pending == 0)
        {
            Eligible(t.id);
        }
    }
}

void
CollectiveEngine::Eligible(uint32_t id)
{
    const CollectiveTransfer& t = m_plan.Transfers()[id];
    TransferState& s = m_state[id];
    // Which input arrived last decides the start (the critical path goes through it). The
    // start follows from the inputs' end times, not from when this process learnt of them.
    Time latest(-1);
    for (uint32_t d : t.deps)
    {
        if (m_state[d].end > latest)
        {
            latest = m_state[d].end;
            s.binding = d;
        }
    }
    if (t.join)
    {
        Complete(id, std::max(latest, m_startTime), false);
        return;
    }
    for (uint32_t r : {t.src, t.dst})
    {
        if (m_ready[r] > latest)
        {
            latest = m_ready[r];
            s.binding = -1 - int64_t(r);
        }
    }
    Time at = std::max(latest, m_startTime) + m_launchCost;
    auto early = m_early.find(id);
    if (early != m_early.end())
    {
        RemoteCompletion c = std::move(early->second);
        m_early.erase(early);
        ApplyRemoteCompletion(id, c.start, c.end, std::move(c.payload));
        return;
    }
    const bool nothing = !t.OnNetwork(); // an empty range: every process completes it itself
    if (!m_local[t.src] && !nothing)
    {
        return; // launched where its source is simulated; its announcement completes it here
    }
    Time now = Simulator::Now();
    if (at < now)
    {
        // Only in a distributed run, when an input's announcement took longer than LaunchCost.
        if (nothing)
        {
            s.start = at;
            Complete(id, at, false);
            return;
        }
        ++m_lateLaunches;
        m_lateLaunchTime += now - at;
        at = now;
    }
    if (!m_launchScheduled.IsNull())
    {
        m_launchScheduled(at);
    }
    Simulator::Schedule(at - now, &CollectiveEngine::Launch, this, id);
}

void
CollectiveEngine::ApplyRemoteCompletion(uint32_t id,
                                        Time start,
                                        Time end,
                                        std::vector<float> payload)
{
    TransferState& s = m_state[id];
    if (s.pending > 0)
    {
        m_early[id] = RemoteCompletion{start, end, std::move(payload)};
        return;
    }
    s.start = start;
    s.payload = std::move(payload);
    Complete(id, end, false);
}

void
CollectiveEngine::Launch(uint32_t id)
{
    const CollectiveTransfer& t = m_plan.Transfers()[id];
    TransferState& s = m_state[id];
    s.start = Simulator::Now();
    if (m_elements > 0)
    {
        auto [b, e] = Elements(t);
        if (t.stashFrom >= 0)
        {
            s.payload = m_state[t.stashFrom].payload;
        }
        else
        {
            s.payload.assign(m_values[t.src].begin() + b, m_values[t.src].begin() + e);
        }
    }
    if (t.sharp)
    {
        if (!m_sharp)
        {
            throw std::runtime_error("CollectiveEngine: an in-network transfer needs SHARP "
                                     "aggregation (collective.sharp)");
        }
        ++m_sharpInFlight;
        m_sharp->Send(t.sharpGroup,
                      t.step,
                      t.src,
                      t.Bytes(),
                      s.payload,
                      MakeCallback(&CollectiveEngine::SharpDone, this).Bind(id),
                      MakeCallback(&CollectiveEngine::SharpFailed, this).Bind(id));
        return;
    }
    if (s.flow < 0)
    {
        Complete(id, Simulator::Now(), false); // nothing to move
        return;
    }
    // Every request is posted now; the NIC's launcher takes them through its slots in order.
    s.unfinished = s.requests;
    for (uint32_t q = 0; q < s.requests; ++q)
    {
        const uint32_t flow = static_cast<uint32_t>(s.flow) + q;
        FlowRecord& f = m_table->Get(flow);
        f.start = Simulator::Now();
        m_nics[f.src]->StartFlowAt(flow);
    }
}

uint32_t
CollectiveEngine::RequestsOf(const CollectiveTransfer& t) const
{
    const uint64_t m = GetRequestSize();
    const std::vector<uint32_t>& server = m_plan.Job().serverOfRank;
    const bool betweenServers =
        t.src < server.size() && t.dst < server.size() && server[t.src] != server[t.dst];
    if (m == 0 || !betweenServers || t.Bytes() <= m)
    {
        return 1;
    }
    const uint64_t n = (t.Bytes() + m - 1) / m;
    if (n > UINT32_MAX)
    {
        throw std::invalid_argument("CollectiveEngine: transfer " + std::to_string(t.id) +
                                    " would need more than 2^32 requests of " + std::to_string(m) +
                                    " B");
    }
    return static_cast<uint32_t>(n);
}

void
CollectiveEngine::SharpDone(uint32_t id, const std::vector<float>& values)
{
    --m_sharpInFlight;
    m_state[id].payload = values;
    Complete(id, Simulator::Now(), true);
}

void
CollectiveEngine::SharpFailed(uint32_t id, const std::string& reason)
{
    --m_sharpInFlight; // given up: no more retransmissions
    // The first failure names the cause; the transfer stays incomplete, so does the collective.
    if (m_failure.empty())
    {
        m_failure = "transfer " + std::to_string(id) + ": " + reason;
    }
}

void
CollectiveEngine::FlowFinished(uint32_t flowId)
{
    if (flowId < m_firstFlow || flowId - m_firstFlow >= m_transferOfFlow.size())
    {
        return;
    }
    const uint32_t id = m_transferOfFlow[flowId - m_firstFlow];
    TransferState& s = m_state[id];
    if (s.unfinished > 1)
    {
        --s.unfinished; // its other requests are still on their way
        return;
    }
    s.unfinished = 0;
    Complete(id, Simulator::Now(), true);
}

void
CollectiveEngine::Complete(uint32_t id, Time end, bool announce)
{
    const CollectiveTransfer& t = m_plan.Transfers()[id];
    TransferState& s = m_state[id];
    if (s.done)
    {
        return;
    }
    s.done = true;
    s.end = end;
    if (s.start < Time(0))
    {
        s.start = s.end; // JOIN
    }
    if (announce && !m_announce.IsNull())
    {
        m_announce(id, s.start, s.end, s.payload);
    }
    if (m_elements > 0 && !t.join)
    {
        auto [b, e] = Elements(t);
        std::vector<float>& dst = m_values[t.dst];
        for (uint32_t i = b; i < e; ++i)
        {
            if (t.op == CollectiveOp::REDUCE)
            {
                dst[i] += s.payload[i - b];
            }
            else if (t.op == CollectiveOp::COPY)
            {
                dst[i] = s.payload[i - b];
            }
        }
        if (t.op != CollectiveOp::STASH)
        {
            s.payload.clear();
            s.payload.shrink_to_fit();
        }
    }
    ++m_completed;
    m_completion = std::max(m_completion, s.end);
    for (uint32_t d : m_dependents[id])
    {
        if (--m_state[d].pending == 0)
        {
            Eligible(d);
        }
    }
    // A JOIN completes from inside its last input's Complete(): only the innermost call that
    // finishes the collective reports it.
    if (IsComplete() && !m_completeReported)
    {
        m_completeReported = true;
        if (!m_onComplete.IsNull())
        {
            m_onComplete();
        }
    }
}

std::string
CollectiveEngine::CheckValues() const
{
    if (!IsComplete())
    {
        return "the collective did not complete (" + std::to_string(m_completed) + " of " +
               std::to_string(m_plan.Transfers().size()) + " transfers)" +
               (m_failure.empty() ? "" : "; " + m_failure);
    }
    const uint32_t p = m_plan.Job().ranks;
    for (uint32_t e = 0; e < m_elements; ++e)
    {
        float sum = 0;
        for (uint32_t r = 0; r < p; ++r)
        {
            sum += InitialValue(r, e);
        }
        for (uint32_t r = 0; r < p; ++r)
        {
            if (m_values[r][e] != sum)
            {
                return "rank " + std::to_string(r) + " element " + std::to_string(e) + " is " +
                       std::to_string(m_values[r][e]) + ", expected " + std::to_string(sum);
            }
        }
    }
    return "";
}

std::vector<int64_t>
CollectiveEngine::CriticalPath() const
{
    std::vector<int64_t> path;
    int64_t cur = -1;
    Time last(-1);
    for (size_t i = 0; i < m_state.size(); ++i)
    {
        if (m_state[i].done && m_state[i].end > last)
        {
            last = m_state[i].end;
            cur = static_cast<int64_t>(i);
        }
    }
    while (cur >= 0)
    {
        if (!m_plan.Transfers()[cur].join)
        {
            path.push_back(cur);
        }
        int64_t b = m_state[cur].binding;
        if (b < 0)
        {
            if (b != kNoBinding)
            {
                path.push_back(b); // rank (-1 - b) was ready last: its readiness bound the start
            }
            break;
        }
        cur = b;
    }
    return path;
}

void
CollectiveEngine::WriteCsv(const std::string& path) const
{
    CsvWriter out(path, "transfer,rank,step,phase,peer,bytes,start_ns,end_ns,src_host,dst_host");
    for (const CollectiveTransfer& t : m_plan.Transfers())
    {
        const TransferState& s = m_state[t.id];
        if (t.join)
        {
            continue;
        }
        auto& row = out.Row();
        row << t.id << ',' << t.src << ',' << t.step << ',' << t.phase << ',';
        if (t.sharp)
        {
            row << "switch";
        }
        else
        {
            row << t.dst;
        }
        row << ',' << t.Bytes() << ',';
        if (s.start >= Time(0))
        {
            row << s.start.GetNanoSeconds();
        }
        row << ',';
        if (s.done)
        {
            row << s.end.GetNanoSeconds();
        }
        row << ',' << m_hostOfRank[t.src] << ',' << m_hostOfRank[t.dst] << '\n';
    }
    out.Commit();
}

} // namespace ns3
