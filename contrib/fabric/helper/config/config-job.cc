// workload: {type: job}: jobs whose steps run compute, collectives and transfers (model/job).

#include "config/config-job.h"

#include "config/attribute-values.h"
#include "config/config-collective.h"
#include "config/config-sections.h"
#include "job/job-runner.h"

#include "ns3/queue-size.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <map>
#include <set>
#include <stdexcept>

namespace ns3
{

namespace
{

/// Algorithm names of the job phases (those of collective.algorithm that need no SHARP tree).
const std::map<std::string, std::pair<std::string, std::string>> kAlgorithms = {
    {"ring", {"ns3::RingAllReduce", "flat"}},
    {"interleaved-ring", {"ns3::RingAllReduce", "interleaved"}},
    {"hierarchical", {"ns3::HierarchicalAllReduce", "flat"}},
    {"direct", {"ns3::DirectAllReduce", "flat"}},
};

std::vector<uint64_t>
Integers(YamlFields& f, const std::string& key)
{
    std::vector<uint64_t> out;
    for (const std::string& s : f.StringList(key))
    {
        if (s.empty() || !std::all_of(s.begin(), s.end(), ::isdigit))
        {
            throw f.Error(key, "expected non-negative integers, got '" + s + "'");
        }
        try
        {
            out.push_back(std::stoull(s));
        }
        catch (const std::out_of_range&)
        {
            throw f.Error(key, "'" + s + "' is larger than 2^64 - 1");
        }
    }
    return out;
}

void
ReadPlacement(YamlFields& j, const TopologySpec& topology, JobSpec& job)
{
    std::vector<uint32_t> hosts = topology.Hosts();
    if (j.Has("hosts"))
    {
        for (uint64_t h : Integers(j, "hosts"))
        {
            if (h >= hosts.size())
            {
                throw j.Error("hosts",
                              "host " + std::to_string(h) + " out of range (" +
                                  std::to_string(hosts.size()) + " hosts)");
            }
            job.hostOfRank.push_back(static_cast<uint32_t>(h));
        }
    }
    else
    {
        uint64_t first = j.Uint("first_host", 0);
        uint64_t ranks = j.Uint("ranks", hosts.size() - std::min<uint64_t>(first, hosts.size()));
        if (first + ranks > hosts.size())
        {
            throw j.Error("ranks",
                          std::to_string(ranks) + " ranks from host " + std::to_string(first) +
                              " but only " + std::to_string(hosts.size()) + " hosts");
        }
        for (uint64_t r = 0; r < ranks; ++r)
        {
            job.hostOfRank.push_back(static_cast<uint32_t>(first + r));
        }
    }
    std::set<uint32_t> seen;
    for (uint32_t h : job.hostOfRank)
    {
        if (!seen.insert(h).second)
        {
            throw j.Error(j.Has("hosts") ? "hosts" : "ranks",
                          "host " + std::to_string(h) + " holds two ranks");
        }
    }
    if (job.hostOfRank.empty())
    {
        throw j.Error(j.Has("hosts") ? "hosts" : "ranks", "a job needs at least one rank");
    }
    // A host's topology group is its server (the rail generator's GPUs).
    std::map<int64_t, uint32_t> serverIndex;
    std::map<int64_t, uint32_t> perServer;
    for (uint32_t h : job.hostOfRank)
    {
        const TopologyNode& n = topology.nodes[hosts[h]];
        int64_t key = n.group >= 0 ? n.group : -1 - int64_t(h);
        if (!serverIndex.count(key))
        {
            uint32_t idx = static_cast<uint32_t>(serverIndex.size());
            serverIndex[key] = idx;
        }
        job.serverOfRank.push_back(serverIndex[key]);
        job.localOfRank.push_back(perServer[key]++);
        job.gpusPerServer = std::max(job.gpusPerServer, perServer[key]);
    }
}

void
ReadLayout(YamlFields& j, JobSpec& job)
{
    const uint32_t n = job.Ranks();
    YamlFields layout = j.Child("layout");
    job.tp = static_cast<uint32_t>(layout.Uint("tp", 1));
    job.ep = static_cast<uint32_t>(layout.Uint("ep", 1));
    job.pp = static_cast<uint32_t>(layout.Uint("pp", 1));
    uint64_t others = uint64_t(job.tp) * job.ep * job.pp;
    if (others == 0 || n % others != 0)
    {
        throw j.Error("layout",
                      "tp x ep x pp = " + std::to_string(others) + " does not divide the " +
                          std::to_string(n) + " ranks");
    }
    job.dp = static_cast<uint32_t>(layout.Uint("dp", n / others));
    if (others * job.dp != n)
    {
        throw j.Error("layout",
                      "tp x ep x dp x pp = " + std::to_string(others * job.dp) +
                          " but the job has " + std::to_string(n) + " ranks");
    }
    layout.RejectUnknownKeys("unknown parallel dimension (tp, ep, dp, pp)");
}

void
ReadSkew(YamlFields& j, JobSpec& job)
{
    job.skew.assign(job.Ranks(), Time(0));
    if (!j.Has("skew"))
    {
        return;
    }
    YAML::Node list = j.Node("skew");
    if (!list.IsSequence())
    {
        throw j.Error("skew", "expected a list of {rank, at}");
    }
    for (size_t i = 0; i < list.size(); ++i)
    {
        YamlFields e(list[i], j.File(), j.KeyPath("skew") + "[" + std::to_string(i) + "]");
        uint64_t r = e.Uint("rank");
        if (r >= job.Ranks())
        {
            throw e.Error("rank",
                          "rank " + std::to_string(r) + " out of range (the job has " +
                              std::to_string(job.Ranks()) + " ranks)");
        }
        Time at = e.Duration("at");
        if (at < Time(0))
        {
            throw e.Error("at", "must not be negative");
        }
        if (e.Has("step"))
        {
            uint64_t s = e.Uint("step");
            if (s >= job.steps)
            {
                throw e.Error("step",
                              "step " + std::to_string(s) + " out of range (the job runs " +
                                  std::to_string(job.steps) + " steps)");
            }
            job.stepSkew[{static_cast<uint32_t>(r), static_cast<uint32_t>(s)}] += at;
        }
        else
        {
            job.skew[r] = at;
        }
        e.RejectUnknownKeys();
    }
}

/// nic_failures: [{rank, helpers}]: ranks whose NIC has failed, relayed over NVLink through
/// the NICs of other GPUs of their server, the bytes split evenly.
void
ReadNicFailures(YamlFields& j, JobSpec& job)
{
    if (!j.Has("nic_failures"))
    {
        return;
    }
    YAML::Node list = j.Node("nic_failures");
    if (!list.IsSequence())
    {
        throw j.Error("nic_failures", "expected a list of {rank, helpers}");
    }
    std::set<uint64_t> failed;
    for (size_t i = 0; i < list.size(); ++i)
    {
        YamlFields e(list[i], j.File(), j.KeyPath("nic_failures") + "[" + std::to_string(i) + "]");
        NicFailure f;
        uint64_t r = e.Uint("rank");
        if (r >= job.Ranks() || !failed.insert(r).second)
        {
            throw e.Error("rank",
                          "expected a rank of the job (0.." + std::to_string(job.Ranks() - 1) +
                              ") named once, got " + std::to_string(r));
        }
        f.rank = static_cast<uint32_t>(r);
        std::set<uint64_t> seen;
        for (uint64_t h : Integers(e, "helpers"))
        {
            if (h >= job.Ranks() || h == r || job.serverOfRank[h] != job.serverOfRank[r] ||
                !seen.insert(h).second)
            {
                throw e.Error("helpers",
                              "rank " + std::to_string(h) + " is not another GPU of rank " +
                                  std::to_string(r) + "'s server (named once)");
            }
            f.helpers.push_back(static_cast<uint32_t>(h));
        }
        if (f.helpers.empty())
        {
            throw e.Error("helpers", "name at least one rank whose NIC relays");
        }
        f.shares.assign(f.helpers.size(), 1.0 / f.helpers.size());
        e.RejectUnknownKeys();
        job.nicFailures.push_back(f);
    }
    for (const NicFailure& f : job.nicFailures)
    {
        for (uint32_t h : f.helpers)
        {
            if (failed.count(h))
            {
                throw j.Error("nic_failures",
                              "rank " + std::to_string(h) + " relays for rank " +
                                  std::to_string(f.rank) + " but its own NIC has failed");
            }
        }
    }
}

/// nic_relays: [{rank, helpers, shares, chunks}]: healthy ranks that spread their inter-server
/// bytes over their own NIC (the rank itself among the helpers) and neighbours' NICs reached
/// over NVLink (FuseLink-style, "Datacenter networks", chapter 7, §7.2.4); on the receiving end
/// the rank's bytes arrive through those NICs and cross NVLink to it. Appended to the job's
/// relays (JobSpec::nicFailures).
void
ReadNicRelays(YamlFields& j, JobSpec& job)
{
    if (!j.Has("nic_relays"))
    {
        return;
    }
    YAML::Node list = j.Node("nic_relays");
    if (!list.IsSequence())
    {
        throw j.Error("nic_relays", "expected a list of {rank, helpers, shares, chunks}");
    }
    std::set<uint32_t> named;
    for (const NicFailure& f : job.nicFailures)
    {
        named.insert(f.rank);
    }
    std::set<uint32_t> failed = named;
    std::vector<NicFailure> relays;
    for (size_t i = 0; i < list.size(); ++i)
    {
        YamlFields e(list[i], j.File(), j.KeyPath("nic_relays") + "[" + std::to_string(i) + "]");
        NicFailure f;
        uint64_t r = e.Uint("rank");
        if (r >= job.Ranks() || !named.insert(static_cast<uint32_t>(r)).second)
        {
            throw e.Error("rank",
                          "expected a rank of the job (0.." + std::to_string(job.Ranks() - 1) +
                              ") named once among nic_failures and nic_relays, got " +
                              std::to_string(r));
        }
        f.rank = static_cast<uint32_t>(r);
        std::set<uint64_t> seen;
        for (uint64_t h : Integers(e, "helpers"))
        {
            if (h >= job.Ranks() || job.serverOfRank[h] != job.serverOfRank[r] ||
                !seen.insert(h).second || failed.count(static_cast<uint32_t>(h)))
            {
                throw e.Error("helpers",
                              "rank " + std::to_string(h) + " is not a GPU of rank " +
                                  std::to_string(r) +
                                  "'s server with a working NIC (itself included, named once)");
            }
            f.helpers.push_back(static_cast<uint32_t>(h));
        }
        if (f.helpers.size() < 2)
        {
            throw e.Error("helpers", "name at least two NICs (the rank itself for its own)");
        }
        f.shares = ParseHelperShares(e, f.helpers.size());
        uint64_t chunks = e.Uint("chunks", 1);
        if (chunks == 0 || chunks > 4096)
        {
            throw e.Error("chunks", "expected 1..4096 pieces per relayed share");
        }
        f.chunks = static_cast<uint32_t>(chunks);
        e.RejectUnknownKeys();
        relays.push_back(f);
    }
    job.nicFailures.insert(job.nicFailures.end(), relays.begin(), relays.end());
}

/// The phases named in \p f's `after`, by index; a `buckets` name stands for all its phases.
std::vector<uint32_t>
ReadAfter(YamlFields& f, const std::map<std::string, std::vector<uint32_t>>& named)
{
    std::vector<uint32_t> after;
    if (!f.Has("after"))
    {
        return after;
    }
    for (const std::string& name : f.StringList("after"))
    {
        auto it = named.find(name);
        if (it == named.end())
        {
            throw f.Error("after", "no earlier phase named '" + name + "'");
        }
        after.insert(after.end(), it->second.begin(), it->second.end());
    }
    return after;
}

/// group, algorithm, bytes and launch cost of a communication phase.
void
ReadCommunication(YamlFields& f, const JobSpec& job, JobPhaseSpec& ph, const std::string& bytesKey)
{
    ph.group = f.String("group", "all");
    if (ph.group != "all" && ph.group != "tp" && ph.group != "ep" && ph.group != "dp" &&
        ph.group != "pp")
    {
        throw f.Error("group", "expected tp, ep, dp, pp or all, got '" + ph.group + "'");
    }
    ph.bytes = f.Bytes(bytesKey);
    if (ph.bytes == 0)
    {
        throw f.Error(bytesKey, "must be positive");
    }
    ph.launchCost = f.Duration("launch_cost",
                               AttributeDefaultAs<TimeValue>("ns3::CollectiveEngine::LaunchCost"));
    if (ph.launchCost < Time(0))
    {
        throw f.Error("launch_cost", "must not be negative");
    }
    ph.requestSize = f.Bytes(
        "request_size",
        AttributeDefaultAs<QueueSizeValue>("ns3::CollectiveEngine::RequestSize").GetValue());
    if (ph.requestSize > UINT32_MAX)
    {
        throw f.Error("request_size", "must be below 4 GiB");
    }
    (void)job;
}

void
ReadAlgorithm(YamlFields& f, JobPhaseSpec& ph)
{
    std::string name = f.String("algorithm", "ring");
    auto it = kAlgorithms.find(name);
    if (it == kAlgorithms.end())
    {
        throw f.Error("algorithm",
                      "unknown algorithm '" + name +
                          "' (ring, interleaved-ring, hierarchical, "
                          "direct)");
    }
    ph.algorithm = it->second.first;
    ph.ringOrder = it->second.second;
}

/// Every group of the phase can run it: the algorithm builds, a transfer has two ranks, an
/// all-to-all's positions exist and move something.
void
CheckGroups(YamlFields& f, const JobSpec& job, uint32_t phase)
{
    const JobPhaseSpec& ph = job.phases[phase];
    for (const std::vector<uint32_t>& group : job.Groups(ph.group))
    {
        const uint32_t size = static_cast<uint32_t>(group.size());
        if (ph.kind == JobPhaseKind::P2P && (ph.from >= size || ph.to >= size || ph.from == ph.to))
        {
            throw f.Error("to",
                          "from and to must be two positions of the " + ph.group + " group (size " +
                              std::to_string(size) + ")");
        }
        if (ph.kind == JobPhaseKind::ALL_TO_ALL)
        {
            for (const char* key : {"senders", "receivers"})
            {
                const auto& v = std::string(key) == "senders" ? ph.senders : ph.receivers;
                for (uint32_t position : v)
                {
                    if (position >= size)
                    {
                        throw f.Error(key,
                                      "position " + std::to_string(position) +
                                          " out of range (the " + ph.group + " group has " +
                                          std::to_string(size) + " ranks)");
                    }
                }
            }
            if (size > 1 && ph.senders.size() == 1 && ph.receivers == ph.senders)
            {
                throw f.Error("receivers", "the only sender is the only receiver");
            }
        }
        std::vector<uint32_t> ranks;
        for (uint32_t position : ph.Members(size))
        {
            ranks.push_back(group[position]);
        }
        if (ranks.size() < 2)
        {
            continue;
        }
        try
        {
            JobPlanOf(job, phase, ranks);
        }
        catch (const std::invalid_argument& e)
        {
            throw f.Error(ph.kind == JobPhaseKind::COLLECTIVE ? "algorithm" : "group", e.what());
        }
    }
}

/// An all-to-all's `senders` or `receivers`: distinct group positions (absent: every one).
std::vector<uint32_t>
ReadPositions(YamlFields& f, const std::string& key)
{
    std::vector<uint32_t> out;
    if (!f.Has(key))
    {
        return out;
    }
    std::set<uint64_t> seen;
    for (uint64_t v : Integers(f, key))
    {
        if (v > UINT32_MAX || !seen.insert(v).second)
        {
            throw f.Error(key, "positions must be distinct group positions");
        }
        out.push_back(static_cast<uint32_t>(v));
    }
    if (out.empty())
    {
        throw f.Error(key, "expected at least one position (leave the key out for all)");
    }
    std::sort(out.begin(), out.end());
    return out;
}

void
ReadPhases(YamlFields& j, JobSpec& job)
{
    YAML::Node list = j.Node("phases");
    if (!list.IsSequence() || list.size() == 0)
    {
        throw j.Error("phases", "expected a list of phases");
    }
    std::map<std::string, std::vector<uint32_t>> named;
    for (size_t i = 0; i < list.size(); ++i)
    {
        YamlFields f(list[i], j.File(), j.KeyPath("phases") + "[" + std::to_string(i) + "]");
        std::string name = f.String("name");
        if (name.empty() || named.count(name))
        {
            throw f.Error("name", "phase names must be given and unique ('" + name + "')");
        }
        std::string type = f.String("type");
        std::vector<uint32_t> after = ReadAfter(f, named);
        const uint32_t first = static_cast<uint32_t>(job.phases.size());
        if (type == "compute" || type == "update")
        {
            JobPhaseSpec ph;
            ph.name = name;
            ph.kind = type == "compute" ? JobPhaseKind::COMPUTE : JobPhaseKind::UPDATE;
            ph.duration = f.Duration("duration");
            if (ph.duration < Time(0))
            {
                throw f.Error("duration", "must not be negative");
            }
            ph.after = after;
            if (f.Has("stages"))
            {
                for (uint64_t st : Integers(f, "stages"))
                {
                    if (st >= job.pp)
                    {
                        throw f.Error("stages",
                                      "stage " + std::to_string(st) +
                                          " out of range (pp = " + std::to_string(job.pp) + ")");
                    }
                    ph.stages.push_back(static_cast<uint32_t>(st));
                }
            }
            job.phases.push_back(ph);
        }
        else if (type == "collective" || type == "p2p")
        {
            JobPhaseSpec ph;
            ph.name = name;
            ph.kind = type == "collective" ? JobPhaseKind::COLLECTIVE : JobPhaseKind::P2P;
            ReadCommunication(f, job, ph, "bytes");
            if (ph.kind == JobPhaseKind::COLLECTIVE)
            {
                ReadAlgorithm(f, ph);
            }
            else
            {
                ph.from = static_cast<uint32_t>(f.Uint("from", 0));
                ph.to = static_cast<uint32_t>(f.Uint("to", 1));
            }
            ph.after = after;
            job.phases.push_back(ph);
            CheckGroups(f, job, first);
        }
        else if (type == "all_to_all")
        {
            JobPhaseSpec ph;
            ph.name = name;
            ph.kind = JobPhaseKind::ALL_TO_ALL;
            ReadCommunication(f, job, ph, "bytes");
            ph.senders = ReadPositions(f, "senders");
            ph.receivers = ReadPositions(f, "receivers");
            ph.after = after;
            job.phases.push_back(ph);
            CheckGroups(f, job, first);
        }
        else if (type == "buckets")
        {
            uint64_t count = f.Uint("count");
            if (count == 0 || count > 1024)
            {
                throw f.Error("count", "expected 1..1024 buckets");
            }
            JobPhaseSpec comm;
            comm.kind = JobPhaseKind::COLLECTIVE;
            ReadCommunication(f, job, comm, "bytes");
            ReadAlgorithm(f, comm);
            Time compute = f.Duration("compute");
            if (compute < Time(0))
            {
                throw f.Error("compute", "must not be negative");
            }
            for (uint32_t k = 0; k < count; ++k)
            {
                JobPhaseSpec c;
                c.name = name + ".c" + std::to_string(k);
                c.kind = JobPhaseKind::COMPUTE;
                c.duration = compute;
                // Bucket k+1's compute follows bucket k's on the compute stream.
                c.after = k == 0 ? after : std::vector<uint32_t>{first + 2 * (k - 1)};
                job.phases.push_back(c);
                JobPhaseSpec ar = comm;
                ar.name = name + ".ar" + std::to_string(k);
                ar.after = {first + 2 * k};
                job.phases.push_back(ar);
                CheckGroups(f, job, first + 2 * k + 1);
            }
        }
        else
        {
            throw f.Error("type",
                          "unknown phase type '" + type +
                              "' (compute, update, collective, p2p, all_to_all, buckets)");
        }
        std::vector<uint32_t>& mine = named[name];
        for (uint32_t p = first; p < job.phases.size(); ++p)
        {
            mine.push_back(p);
        }
        f.RejectUnknownKeys();
    }
}

} // namespace

std::vector<JobSpec>
ParseJobs(YamlFields& work, const TopologySpec& topology, const std::string& transport)
{
    if (transport != "roce")
    {
        throw work.Error("type",
                         "a job's communication runs over reliable transfers: set "
                         "transport: roce");
    }
    YAML::Node list = work.Node("jobs");
    if (!list.IsSequence() || list.size() == 0)
    {
        throw work.Error("jobs", "expected a list of jobs");
    }
    std::vector<JobSpec> jobs;
    std::set<std::string> names;
    for (size_t i = 0; i < list.size(); ++i)
    {
        YamlFields j(list[i], work.File(), work.KeyPath("jobs") + "[" + std::to_string(i) + "]");
        JobSpec job;
        job.name = j.String("name", "job" + std::to_string(i));
        if (!names.insert(job.name).second)
        {
            throw j.Error("name", "two jobs named '" + job.name + "'");
        }
        ReadPlacement(j, topology, job);
        ReadLayout(j, job);
        job.steps = static_cast<uint32_t>(j.Uint("steps", 1));
        if (job.steps == 0)
        {
            throw j.Error("steps", "a job runs at least one step");
        }
        job.start = j.Duration("start", Time(0));
        ReadSkew(j, job);
        ReadNicFailures(j, job);
        ReadNicRelays(j, job);
        job.portsPerNic = static_cast<uint32_t>(
            j.Uint("ports_per_nic",
                   AttributeDefaultAs<UintegerValue>("ns3::CollectiveEngine::PortsPerNic")));
        if (job.portsPerNic > 64)
        {
            throw j.Error("ports_per_nic", "at most 64");
        }
        ReadPhases(j, job);
        j.RejectUnknownKeys();
        jobs.push_back(std::move(job));
    }
    return jobs;
}

ScenarioKeys
JobKeys()
{
    const std::string j = "workload.jobs[].";
    const std::string p = j + "phases[].";
    return {
        ScenarioKey("workload.jobs",
                    KeyKind::List,
                    "type job: the jobs, each a mapping of the keys below (transport: roce)"),
        ScenarioKey(j + "name", KeyKind::Text, "the job's name in job.csv and summary.json")
            .Rule("job<index>"),
        ScenarioKey(j + "hosts", KeyKind::List, "the host of each rank"),
        ScenarioKey(j + "ranks", KeyKind::Count, "ranks on consecutive hosts, instead of hosts")
            .Rule("every host from first_host"),
        ScenarioKey(j + "first_host", KeyKind::Count, "the host of rank 0 (with ranks)")
            .Default("0"),
        ScenarioKey(j + "layout",
                    KeyKind::Mapping,
                    "{tp, ep, dp, pp}: parallel sizes, rank = t + TP*(e + EP*(d + DP*p))")
            .Rule("dp = ranks / (tp*ep*pp), the others 1"),
        ScenarioKey(j + "steps", KeyKind::Count, "steps to run").Default("1"),
        ScenarioKey(j + "start", KeyKind::Duration, "when step 0 may begin").Default("0ns"),
        ScenarioKey(j + "skew",
                    KeyKind::List,
                    "[{rank, at, step}]: a rank begins each of its steps (or one) this much later"),
        ScenarioKey(j + "skew[].rank", KeyKind::Count, "the rank"),
        ScenarioKey(j + "skew[].at", KeyKind::Duration, "its delay"),
        ScenarioKey(j + "skew[].step",
                    KeyKind::Count,
                    "only this step is delayed (a late communication among many)")
            .Rule("every step"),
        ScenarioKey(j + "nic_failures",
                    KeyKind::List,
                    "[{rank, helpers}]: ranks whose NIC has failed; their inter-server bytes go "
                    "over NVLink to the helpers' NICs, split evenly"),
        ScenarioKey(j + "nic_failures[].rank", KeyKind::Count, "the rank whose NIC failed"),
        ScenarioKey(j + "nic_failures[].helpers",
                    KeyKind::List,
                    "other ranks of its server that relay (they take part in every phase it does)"),
        ScenarioKey(j + "nic_relays",
                    KeyKind::List,
                    "[{rank, helpers, shares, chunks}]: healthy ranks spreading their "
                    "inter-server bytes over their own NIC (the rank among the helpers) and "
                    "neighbours' NICs over NVLink"),
        ScenarioKey(j + "nic_relays[].rank", KeyKind::Count, "the rank"),
        ScenarioKey(j + "nic_relays[].helpers",
                    KeyKind::List,
                    "ranks of its server whose NICs carry its bytes (itself: its own NIC)"),
        ScenarioKey(j + "nic_relays[].shares", KeyKind::List, "fraction of the bytes per helper")
            .Rule("even"),
        ScenarioKey(j + "nic_relays[].chunks",
                    KeyKind::Count,
                    "pieces a relayed share moves in, pipelined over NVLink and the NIC")
            .Default("1"),
        ScenarioKey(j + "ports_per_nic",
                    KeyKind::Count,
                    "NIC ports each inter-server transfer is divided over, part j bound to port j "
                    "(0: one flow, hashed to a port)")
            .Rule("ns3::CollectiveEngine::PortsPerNic"),
        ScenarioKey(j + "phases", KeyKind::List, "one step: the phases, each a mapping"),
        ScenarioKey(p + "name", KeyKind::Text, "the phase's name (unique in the job)"),
        ScenarioKey(p + "type", KeyKind::Text, "what the phase does")
            .Unit("compute|update|collective|p2p|all_to_all|buckets"),
        ScenarioKey(p + "after",
                    KeyKind::List,
                    "earlier phases that must have ended on the rank (a buckets name: all its "
                    "phases)"),
        ScenarioKey(p + "duration", KeyKind::Duration, "compute, update: how long"),
        ScenarioKey(p + "stages",
                    KeyKind::List,
                    "compute, update: the pipeline stages (pp coordinates) that run it; the "
                    "others pass through")
            .Rule("every stage"),
        ScenarioKey(p + "group",
                    KeyKind::Text,
                    "collective, p2p, all_to_all, buckets: the groups it runs on")
            .Unit("tp|ep|dp|pp|all")
            .Default("all"),
        ScenarioKey(p + "algorithm", KeyKind::Text, "collective, buckets: the AllReduce")
            .Unit("ring|interleaved-ring|hierarchical|direct")
            .Default("ring"),
        ScenarioKey(p + "bytes",
                    KeyKind::Bytes,
                    "collective: gradient per rank; p2p: the message; all_to_all: per (sender, "
                    "receiver); buckets: per bucket"),
        ScenarioKey(p + "launch_cost", KeyKind::Duration, "per round of the communication")
            .Rule("ns3::CollectiveEngine::LaunchCost"),
        ScenarioKey(p + "request_size",
                    KeyKind::Bytes,
                    "a transfer between servers goes as requests of this size, one NIC request "
                    "slot each (0B = one message)")
            .Rule("ns3::CollectiveEngine::RequestSize"),
        ScenarioKey(p + "from", KeyKind::Count, "p2p: the sender's position in its group")
            .Default("0"),
        ScenarioKey(p + "to", KeyKind::Count, "p2p: the receiver's position in its group")
            .Default("1"),
        ScenarioKey(p + "senders",
                    KeyKind::List,
                    "all_to_all: the group positions that send (dispatch: the token holders)")
            .Rule("every position"),
        ScenarioKey(p + "receivers",
                    KeyKind::List,
                    "all_to_all: the group positions that receive (dispatch: the experts)")
            .Rule("every position"),
        ScenarioKey(p + "count", KeyKind::Count, "buckets: how many"),
        ScenarioKey(p + "compute", KeyKind::Duration, "buckets: compute before each bucket"),
    };
}

} // namespace ns3
