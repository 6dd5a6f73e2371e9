#include "job-runner.h"

#include "collective/collective-algorithm.h"
#include "trace/csv-writer.h"

#include "ns3/log.h"
#include "ns3/object-factory.h"
#include "ns3/queue-size.h"
#include "ns3/simulator.h"
#include "ns3/string.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <map>
#include <set>
#include <stdexcept>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("JobRunner");
NS_OBJECT_ENSURE_REGISTERED(JobRunner);

TypeId
JobRunner::GetTypeId()
{
    static TypeId tid = TypeId("ns3::JobRunner")
                            .SetParent<Object>()
                            .SetGroupName("Fabric")
                            .AddConstructor<JobRunner>();
    return tid;
}

JobRunner::JobRunner() = default;

void
JobRunner::DoDispose()
{
    m_table = nullptr;
    m_nics.clear();
    for (Instance& inst : m_instances)
    {
        inst.engine = nullptr;
    }
    m_onDone = Callback<void>();
    Object::DoDispose();
}

void
JobRunner::Configure(Ptr<FlowTable> table, std::vector<Ptr<HostTransport>> nics, uint64_t seed)
{
    m_table = table;
    m_nics = std::move(nics);
    m_seed = seed;
}

void
JobRunner::AddJob(const JobSpec& job)
{
    m_jobs.push_back(job);
}

uint32_t
JobRunner::RecordOf(uint32_t job, uint32_t step, uint32_t phase, uint32_t rank) const
{
    const JobSpec& j = m_jobs[job];
    const uint32_t P = static_cast<uint32_t>(j.phases.size());
    return m_firstRecord[job] + (step * P + phase) * j.Ranks() + rank;
}

namespace
{

/// An all-to-all's transfers: every sender to every other receiver, all in round 0 (nothing
/// orders them), so they share the NICs and links they cross; the plan's first \p n ranks are
/// the phase's members in group order (JobPhaseSpec::Members).
void
AddAllToAll(const JobPhaseSpec& ph, uint32_t n, CollectivePlan& plan)
{
    const std::vector<uint32_t> positions = ph.Members(n);
    auto indexOf = [&positions](uint32_t position) {
        return static_cast<uint32_t>(
            std::lower_bound(positions.begin(), positions.end(), position) - positions.begin());
    };
    auto orAll = [&positions](const std::vector<uint32_t>& v) { return v.empty() ? positions : v; };
    for (uint32_t s : orAll(ph.senders))
    {
        for (uint32_t d : orAll(ph.receivers))
        {
            if (s == d)
            {
                continue;
            }
            CollectiveTransfer t;
            t.src = indexOf(s);
            t.dst = indexOf(d);
            t.byteBegin = 0;
            t.byteEnd = ph.bytes;
            t.op = CollectiveOp::COPY;
            t.phase = ph.name;
            plan.Add(t);
        }
    }
}

/// The job's failed NICs among \p ranks, renumbered to positions in \p ranks. A failed rank
/// of the group needs its helpers in the group too (they relay inside this plan).
std::vector<NicFailure>
GroupNicFailures(const JobSpec& job, const std::vector<uint32_t>& ranks)
{
    auto position = [&ranks](uint32_t rank) {
        auto it = std::find(ranks.begin(), ranks.end(), rank);
        return it == ranks.end() ? -1 : static_cast<int64_t>(it - ranks.begin());
    };
    std::vector<NicFailure> out;
    for (const NicFailure& f : job.nicFailures)
    {
        int64_t at = position(f.rank);
        if (at < 0)
        {
            continue;
        }
        NicFailure g = f;
        g.rank = static_cast<uint32_t>(at);
        for (uint32_t& h : g.helpers)
        {
            int64_t hp = position(h);
            if (hp < 0)
            {
                throw std::invalid_argument("rank " + std::to_string(f.rank) +
                                            "'s NIC has failed and its helper " +
                                            std::to_string(h) + " is not in the group");
            }
            h = static_cast<uint32_t>(hp);
        }
        out.push_back(std::move(g));
    }
    return out;
}

} // namespace

std::vector<uint32_t>
JobPlanRanks(const JobSpec& job, uint32_t phase, const std::vector<uint32_t>& members)
{
    std::vector<uint32_t> all = members;
    if (job.phases[phase].kind == JobPhaseKind::COLLECTIVE)
    {
        return all;
    }
    for (const NicFailure& f : job.nicFailures)
    {
        if (std::find(members.begin(), members.end(), f.rank) == members.end())
        {
            continue;
        }
        for (uint32_t h : f.helpers)
        {
            if (std::find(all.begin(), all.end(), h) == all.end())
            {
                all.push_back(h);
            }
        }
    }
    return all;
}

CollectivePlan
JobPlanOf(const JobSpec& job, uint32_t phase, const std::vector<uint32_t>& members)
{
    const JobPhaseSpec& ph = job.phases[phase];
    const std::vector<uint32_t> ranks = JobPlanRanks(job, phase, members);
    CollectiveJob cj;
    cj.ranks = static_cast<uint32_t>(ranks.size());
    cj.messageBytes = ph.bytes;
    // The group's servers and GPU indices, numbered within the group (what the algorithms
    // need to tell NVLink from the NIC).
    std::map<uint32_t, uint32_t> serverIndex;
    std::map<uint32_t, uint32_t> perServer;
    cj.gpusPerServer = 1;
    for (uint32_t r : ranks)
    {
        uint32_t server = job.serverOfRank[r];
        if (!serverIndex.count(server))
        {
            uint32_t idx = static_cast<uint32_t>(serverIndex.size());
            serverIndex[server] = idx;
        }
        cj.serverOfRank.push_back(serverIndex[server]);
        cj.localOfRank.push_back(perServer[server]++);
        cj.gpusPerServer = std::max(cj.gpusPerServer, perServer[server]);
    }
    CollectivePlan plan(cj);
    if (ph.kind == JobPhaseKind::P2P)
    {
        CollectiveTransfer t;
        t.src = 0;
        t.dst = 1;
        t.byteBegin = 0;
        t.byteEnd = ph.bytes;
        t.op = CollectiveOp::COPY;
        t.phase = ph.name;
        plan.Add(t);
    }
    else if (ph.kind == JobPhaseKind::ALL_TO_ALL)
    {
        AddAllToAll(ph, static_cast<uint32_t>(members.size()), plan);
    }
    else
    {
        ObjectFactory factory(ph.algorithm);
        if (ph.algorithm == "ns3::RingAllReduce")
        {
            factory.Set("Order", StringValue(ph.ringOrder));
        }
        factory.Create<CollectiveAlgorithm>()->Build(plan);
    }
    plan.ApplyNicFailures(GroupNicFailures(job, ranks));
    return plan;
}

void
JobRunner::Start()
{
    m_records.clear();
    m_instances.clear();
    m_firstRecord.clear();
    for (uint32_t j = 0; j < m_jobs.size(); ++j)
    {
        const JobSpec& job = m_jobs[j];
        const uint32_t P = static_cast<uint32_t>(job.phases.size());
        const uint32_t R = job.Ranks();
        m_firstRecord.push_back(static_cast<uint32_t>(m_records.size()));
        for (uint32_t s = 0; s < job.steps; ++s)
        {
            for (uint32_t i = 0; i < P; ++i)
            {
                for (uint32_t r = 0; r < R; ++r)
                {
                    Record rec;
                    rec.job = j;
                    rec.step = s;
                    rec.phase = i;
                    rec.rank = r;
                    m_records.push_back(rec);
                }
            }
        }
        // Dependencies: `after`, the stream's previous phase, and for a step's first phases
        // the rank's whole previous step.
        for (uint32_t i = 0; i < P; ++i)
        {
            const JobPhaseSpec& ph = job.phases[i];
            int32_t streamPrev = -1;
            for (int32_t k = static_cast<int32_t>(i) - 1; k >= 0; --k)
            {
                if (IsCommunication(job.phases[k].kind) == IsCommunication(ph.kind))
                {
                    streamPrev = k;
                    break;
                }
            }
            const bool first = ph.after.empty() && streamPrev < 0;
            for (uint32_t s = 0; s < job.steps; ++s)
            {
                for (uint32_t r = 0; r < R; ++r)
                {
                    std::set<uint32_t> deps;
                    for (uint32_t a : ph.after)
                    {
                        deps.insert(RecordOf(j, s, a, r));
                    }
                    if (streamPrev >= 0)
                    {
                        deps.insert(RecordOf(j, s, static_cast<uint32_t>(streamPrev), r));
                    }
                    if (first && s > 0)
                    {
                        for (uint32_t k = 0; k < P; ++k)
                        {
                            deps.insert(RecordOf(j, s - 1, k, r));
                        }
                    }
                    uint32_t id = RecordOf(j, s, i, r);
                    m_records[id].skewed = first;
                    m_records[id].pending = static_cast<uint32_t>(deps.size());
                    for (uint32_t d : deps)
                    {
                        m_records[d].dependents.push_back(id);
                    }
                }
            }
            if (!IsCommunication(ph.kind))
            {
                continue;
            }
            for (const std::vector<uint32_t>& group : job.Groups(ph.group))
            {
                std::vector<uint32_t> members;
                for (uint32_t position : ph.Members(static_cast<uint32_t>(group.size())))
                {
                    members.push_back(group.at(position));
                }
                if (members.size() < 2)
                {
                    continue; // a group of one has nothing to exchange: it passes through
                }
                for (uint32_t s = 0; s < job.steps; ++s)
                {
                    Instance inst;
                    inst.job = j;
                    inst.step = s;
                    inst.phase = i;
                    for (uint32_t r : members)
                    {
                        uint32_t id = RecordOf(j, s, i, r);
                        m_records[id].instance = static_cast<int32_t>(m_instances.size());
                        inst.members.push_back(id);
                    }
                    inst.notReady = static_cast<uint32_t>(inst.members.size());
                    m_instances.push_back(inst);
                }
            }
        }
    }
    m_completed = 0;
    if (m_distributed)
    {
        // Every instance's flows now, in instance order: the same ids on every process.
        for (uint32_t i = 0; i < m_instances.size(); ++i)
        {
            Instance& inst = m_instances[i];
            inst.engine = MakeEngine(inst);
            std::vector<bool> local;
            for (uint32_t h = 0; h < inst.engine->Plan().Job().ranks; ++h)
            {
                local.push_back(m_localHosts.at(inst.engine->HostOfRank(h)));
            }
            inst.engine->SetLocalRanks(local);
            inst.engine->SetAnnounceCallback(m_announce.Bind(i));
            inst.engine->Prepare();
        }
    }
    for (uint32_t id = 0; id < m_records.size(); ++id)
    {
        const Record& rec = m_records[id];
        if (rec.pending == 0)
        {
            const JobSpec& job = m_jobs[rec.job];
            Time at = std::max(job.start + job.SkewOf(rec.rank, rec.step), Simulator::Now());
            Simulator::Schedule(at - Simulator::Now(), &JobRunner::Ready, this, id, at);
        }
    }
}

void
JobRunner::SetDistributed(std::vector<bool> localHosts, AnnounceCallback announce)
{
    m_distributed = true;
    m_localHosts = std::move(localHosts);
    m_announce = announce;
}

void
JobRunner::ApplyRemoteCompletion(uint32_t instance,
                                 uint32_t transfer,
                                 Time start,
                                 Time end,
                                 std::vector<float> payload)
{
    Instance& inst = m_instances.at(instance);
    if (inst.start < Time(0))
    {
        m_early[instance].push_back(RemoteCompletion{transfer, start, end, std::move(payload)});
        return;
    }
    inst.engine->ApplyRemoteCompletion(transfer, start, end, std::move(payload));
}

Time
JobRunner::EndTime() const
{
    Time end(0);
    for (const Record& rec : m_records)
    {
        end = std::max(end, rec.end);
    }
    return end;
}

void
JobRunner::Ready(uint32_t id, Time at)
{
    Record& rec = m_records[id];
    rec.ready = at; // now, or earlier where a remote end was learnt late (distributed runs)
    const JobPhaseSpec& ph = m_jobs[rec.job].phases[rec.phase];
    if (!IsCommunication(ph.kind))
    {
        rec.start = rec.ready;
        const JobSpec& job = m_jobs[rec.job];
        if (!ph.stages.empty() &&
            std::find(ph.stages.begin(), ph.stages.end(), job.StageOf(rec.rank)) == ph.stages.end())
        {
            Complete(id, rec.ready); // another stage's work
            return;
        }
        Time end = rec.ready + ph.duration;
        Simulator::Schedule(std::max(end - Simulator::Now(), Time(0)),
                            &JobRunner::Complete,
                            this,
                            id,
                            end);
        return;
    }
    if (rec.instance < 0)
    {
        rec.start = rec.ready;
        Complete(id, rec.ready);
        return;
    }
    Instance& inst = m_instances[rec.instance];
    // The member ready last bounds the start; learnt in any order across processes, so there
    // the latest ready time decides, and among equal ones the higher record.
    if (!m_distributed || inst.lastReady < 0 || at > m_records[inst.lastReady].ready ||
        (at == m_records[inst.lastReady].ready && int64_t(id) > inst.lastReady))
    {
        inst.lastReady = id;
    }
    if (--inst.notReady == 0)
    {
        StartInstance(static_cast<uint32_t>(rec.instance));
    }
}

void
JobRunner::Complete(uint32_t id, Time end)
{
    Record& rec = m_records[id];
    rec.end = end;
    ++m_completed;
    for (uint32_t d : rec.dependents)
    {
        Record& dep = m_records[d];
        // In one process dependencies end in time order, so the last to end is the last one
        // seen; across processes they are learnt in any order: the latest end decides, and
        // among equal ends the higher record.
        if (!m_distributed || end > dep.bindingEnd ||
            (end == dep.bindingEnd && int64_t(id) > dep.binding))
        {
            dep.binding = id;
            dep.bindingEnd = end;
        }
        if (--dep.pending == 0)
        {
            Time delay = dep.skewed ? m_jobs[dep.job].SkewOf(dep.rank, dep.step) : Time(0);
            Time at = dep.bindingEnd + delay;
            Simulator::Schedule(std::max(at - Simulator::Now(), Time(0)),
                                &JobRunner::Ready,
                                this,
                                d,
                                at);
        }
    }
    if (IsComplete() && !m_onDone.IsNull())
    {
        Simulator::ScheduleNow(m_onDone);
    }
}

Ptr<CollectiveEngine>
JobRunner::MakeEngine(const Instance& inst) const
{
    const JobSpec& job = m_jobs[inst.job];
    const JobPhaseSpec& ph = job.phases[inst.phase];
    std::vector<uint32_t> ranks;
    for (uint32_t id : inst.members)
    {
        ranks.push_back(m_records[id].rank);
    }
    std::vector<uint32_t> hosts;
    for (uint32_t r : JobPlanRanks(job, inst.phase, ranks))
    {
        hosts.push_back(job.hostOfRank[r]); // the members, then relaying helpers
    }
    Ptr<CollectiveEngine> engine = CreateObject<CollectiveEngine>();
    engine->SetAttribute("LaunchCost", TimeValue(ph.launchCost));
    engine->SetAttribute(
        "RequestSize",
        QueueSizeValue(QueueSize(QueueSizeUnit::BYTES, static_cast<uint32_t>(ph.requestSize))));
    engine->SetAttribute("PortsPerNic", UintegerValue(job.portsPerNic));
    engine->Configure(m_table, m_nics, hosts, m_seed);
    engine->SetPortBinder(m_portBinder);
    engine->SetLaunchScheduledCallback(m_launchScheduled);
    engine->SetPlan(JobPlanOf(job, inst.phase, ranks));
    engine->SetCheckValues(ph.kind == JobPhaseKind::COLLECTIVE);
    return engine;
}

bool
JobRunner::SharpInFlight() const
{
    for (const Instance& inst : m_instances)
    {
        if (inst.engine && inst.engine->SharpInFlight())
        {
            return true;
        }
    }
    return false;
}

void
JobRunner::StartInstance(uint32_t i)
{
    Instance& inst = m_instances[i];
    inst.start = m_records[inst.lastReady].ready; // now in one process
    if (!m_distributed)
    {
        // Distributed runs prepared every instance's engine at Start(), for the flow ids.
        inst.engine = MakeEngine(inst);
        inst.engine->Prepare();
    }
    inst.engine->SetCompleteCallback(MakeCallback(&JobRunner::EngineComplete, this).Bind(i));
    inst.engine->Begin(inst.start);
    auto early = m_early.find(i);
    if (early != m_early.end())
    {
        std::vector<RemoteCompletion> pending = std::move(early->second);
        m_early.erase(early);
        for (RemoteCompletion& c : pending)
        {
            inst.engine->ApplyRemoteCompletion(c.transfer, c.start, c.end, std::move(c.payload));
        }
    }
}

void
JobRunner::EngineComplete(uint32_t i)
{
    // Called from inside the flow table's listeners: continue once they have all run.
    Simulator::ScheduleNow(&JobRunner::InstanceDone, this, i);
}

void
JobRunner::InstanceDone(uint32_t i)
{
    Instance& inst = m_instances[i];
    inst.end = inst.engine->CompletionTime();
    if (inst.engine->ValuesChecked())
    {
        inst.valueError = inst.engine->CheckValues();
    }
    for (uint32_t id : inst.members)
    {
        m_records[id].start = inst.start;
        Complete(id, inst.end);
    }
}

std::vector<uint32_t>
JobRunner::CriticalPath(uint32_t job, uint32_t step) const
{
    std::vector<uint32_t> path;
    const JobSpec& j = m_jobs[job];
    int64_t cur = -1;
    Time last(-1);
    for (uint32_t i = 0; i < j.phases.size(); ++i)
    {
        for (uint32_t r = 0; r < j.Ranks(); ++r)
        {
            uint32_t id = RecordOf(job, step, i, r);
            if (m_records[id].end > last)
            {
                last = m_records[id].end;
                cur = id;
            }
        }
    }
    while (cur >= 0 && m_records[cur].step == step)
    {
        const Record& rec = m_records[cur];
        if (rec.instance >= 0)
        {
            cur = m_instances[rec.instance].lastReady; // the member the others waited for
        }
        path.push_back(static_cast<uint32_t>(cur));
        cur = m_records[cur].binding;
    }
    std::reverse(path.begin(), path.end());
    return path;
}

Time
JobRunner::StepEnd(uint32_t job, uint32_t step) const
{
    Time end(0);
    const JobSpec& j = m_jobs[job];
    for (uint32_t i = 0; i < j.phases.size(); ++i)
    {
        for (uint32_t r = 0; r < j.Ranks(); ++r)
        {
            end = std::max(end, m_records[RecordOf(job, step, i, r)].end);
        }
    }
    return end;
}

Time
JobRunner::StepBegin(uint32_t job, uint32_t step) const
{
    return step == 0 ? m_jobs[job].start : StepEnd(job, step - 1);
}

namespace
{

/// Total length of a union of intervals.
Time
UnionLength(std::vector<std::pair<Time, Time>> v)
{
    std::sort(v.begin(), v.end());
    Time total(0);
    Time reach(-1);
    for (const auto& [a, b] : v)
    {
        Time from = std::max(a, reach);
        if (b > from)
        {
            total += b - from;
        }
        reach = std::max(reach, b);
    }
    return total;
}

} // namespace

Time
JobRunner::ExposedCommunication(uint32_t job, uint32_t step, uint32_t rank) const
{
    // |comm \ compute| = |comm U compute| - |compute|.
    std::vector<std::pair<Time, Time>> compute;
    std::vector<std::pair<Time, Time>> both;
    const JobSpec& j = m_jobs[job];
    for (uint32_t i = 0; i < j.phases.size(); ++i)
    {
        const Record& rec = m_records[RecordOf(job, step, i, rank)];
        if (rec.end < Time(0))
        {
            continue;
        }
        if (IsCommunication(j.phases[i].kind))
        {
            if (rec.instance >= 0)
            {
                both.emplace_back(rec.ready, rec.end);
            }
        }
        else
        {
            compute.emplace_back(rec.start, rec.end);
            both.emplace_back(rec.start, rec.end);
        }
    }
    return UnionLength(both) - UnionLength(compute);
}

void
JobRunner::WriteCsv(const std::string& path) const
{
    CsvWriter out(path, "job,step,phase,kind,rank,host,bytes,ready_ns,start_ns,end_ns,waiting_ns");
    for (const Record& rec : m_records)
    {
        const JobSpec& job = m_jobs[rec.job];
        const JobPhaseSpec& ph = job.phases[rec.phase];
        auto& row = out.Row();
        row << job.name << ',' << rec.step << ',' << ph.name << ',' << JobPhaseKindName(ph.kind)
            << ',' << rec.rank << ',' << job.hostOfRank[rec.rank] << ','
            << (rec.instance >= 0 ? ph.bytes : 0) << ',';
        if (rec.end >= Time(0))
        {
            // Waiting from the printed times, so that the row adds up whatever the rounding.
            int64_t ready = rec.ready.GetNanoSeconds();
            int64_t start = rec.start.GetNanoSeconds();
            row << ready << ',' << start << ',' << rec.end.GetNanoSeconds() << ',' << start - ready;
        }
        else
        {
            row << ",,,";
        }
        row << '\n';
    }
    out.Commit();
}

} // namespace ns3
