// workload: the traffic, expanded into flows (or handed to the collective engine).

#include "config/config-collective.h"
#include "config/config-job.h"
#include "config/config-sections.h"
#include "config/flow-size-cdf.h"
#include "config/poisson-workload.h"
#include "config/units.h"

#include <algorithm>
#include <random>

namespace ns3
{

namespace
{

// Bytes per flow when workload.bytes_per_flow is not given, by workload type.
constexpr uint64_t kPermutationFlowBytes = 2 * 1024 * 1024;
constexpr uint64_t kAllToAllFlowBytes = 256 * 1024;

/// A flow's start: the workload's, plus a uniform random delay up to start_jitter.
class Starts
{
  public:
    Starts(Time start, Time jitter, uint64_t seed)
        : m_start(start),
          m_jitter(jitter),
          m_rng(seed)
    {
    }

    Time Next()
    {
        if (m_jitter.IsZero())
        {
            return m_start;
        }
        std::uniform_int_distribution<int64_t> d(0, m_jitter.GetPicoSeconds());
        return m_start + PicoSeconds(d(m_rng));
    }

    std::mt19937_64& Rng()
    {
        return m_rng;
    }

  private:
    Time m_start;
    Time m_jitter;
    std::mt19937_64 m_rng; ///< also draws the permutation, so one seed fixes the whole workload
};

/// A flow from \p src to \p dst of \p bytes with the workload's rate, priority, ECN and verb.
FlowSpec
FlowOf(const FlowSpec& shape, uint32_t src, uint32_t dst, uint64_t bytes, Time start)
{
    FlowSpec fs = shape;
    fs.src = src;
    fs.dst = dst;
    fs.bytes = bytes;
    fs.start = start;
    return fs;
}

/// What every generated flow shares: rate, priority, ECN, verb and start.
FlowSpec
ReadShape(YamlFields& work, const ScenarioBuild& b)
{
    FlowSpec shape;
    shape.priority = static_cast<uint8_t>(ValueOf(work, "priority").count);
    shape.ecn = ValueOf(work, "ecn").flag;
    std::string rate = work.String("rate", FindKey(work.KeyPath("rate")).fallback);
    shape.rate = rate == "line" ? DataRate(0ULL) : ValueOf(work, "rate").rate;
    ParseRdmaVerb(ValueOf(work, "verb").text, &shape.verb);
    CheckVerbTransport(work, "verb", shape.verb, b.cfg.transport);
    shape.start = ValueOf(work, "start").time;
    shape.uno = ReadUbService(work, "service", false, shape, b.cfg.transport);
    return shape;
}

void
AddIncast(YamlFields& work, const FlowSpec& shape, Starts& starts, ScenarioBuild& b)
{
    uint32_t nHosts = static_cast<uint32_t>(b.cfg.topology.Hosts().size());
    uint32_t receiver = HostIndex(work, "receiver", ValueOf(work, "receiver").text, b.cfg.topology);
    uint64_t bytes = ValueOf(work, "bytes_per_sender").count;
    uint64_t senders = ValueOf(work, "senders").count;
    if (senders == 0)
    {
        throw work.Error("senders", "an incast needs at least one sender");
    }
    if (senders >= nHosts)
    {
        throw work.Error("senders",
                         "need 1.." + std::to_string(nHosts - 1) + " senders (the topology has " +
                             std::to_string(nHosts) + " hosts, one of them the receiver)");
    }
    for (uint32_t h = 0, n = 0; h < nHosts && n < senders; ++h)
    {
        if (h != receiver)
        {
            b.cfg.flows.push_back(FlowOf(shape, h, receiver, bytes, starts.Next()));
            ++n;
        }
    }
}

uint64_t
FlowBytes(YamlFields& work, uint64_t fallback)
{
    return work.Has("bytes_per_flow") ? ValueOf(work, "bytes_per_flow").count : fallback;
}

/// A random derangement: every host sends to one other host and receives from one.
void
AddPermutation(YamlFields& work, const FlowSpec& shape, Starts& starts, ScenarioBuild& b)
{
    uint32_t nHosts = static_cast<uint32_t>(b.cfg.topology.Hosts().size());
    uint64_t bytes = FlowBytes(work, kPermutationFlowBytes);
    std::vector<uint32_t> perm(nHosts);
    for (uint32_t i = 0; i < nHosts; ++i)
    {
        perm[i] = i;
    }
    auto hasFixedPoint = [&] {
        for (uint32_t i = 0; i < nHosts; ++i)
        {
            if (perm[i] == i)
            {
                return true;
            }
        }
        return false;
    };
    do
    {
        std::shuffle(perm.begin(), perm.end(), starts.Rng());
    } while (nHosts > 1 && hasFixedPoint());
    for (uint32_t i = 0; i < nHosts; ++i)
    {
        b.cfg.flows.push_back(FlowOf(shape, i, perm[i], bytes, starts.Next()));
    }
}

void
AddAllToAll(YamlFields& work, const FlowSpec& shape, Starts& starts, ScenarioBuild& b)
{
    uint32_t nHosts = static_cast<uint32_t>(b.cfg.topology.Hosts().size());
    uint64_t bytes = FlowBytes(work, kAllToAllFlowBytes);
    for (uint32_t s = 0; s < nHosts; ++s)
    {
        for (uint32_t d = 0; d < nHosts; ++d)
        {
            if (s != d)
            {
                b.cfg.flows.push_back(FlowOf(shape, s, d, bytes, starts.Next()));
            }
        }
    }
}

/// workload: {type: hpcc, file: flow.txt} over a topology: {hpcc: ...}.
void
AddHpccFlows(YamlFields& work, const FlowSpec& shape, ScenarioBuild& b)
{
    if (!b.hpcc)
    {
        throw work.Error("type", "an hpcc flow file needs topology: {hpcc: topology.txt}");
    }
    std::string file = ValueOf(work, "file").text;
    std::string found = ResolvePath(b.cfg.file, b.sourceRoot, file);
    if (found.empty())
    {
        throw work.Error("file", "flow file '" + file + "' not found");
    }
    for (FlowSpec fs : ReadHpccFlows(found, *b.hpcc, HpccCountsFromGlobal()))
    {
        fs.rate = shape.rate;
        fs.ecn = shape.ecn;
        fs.verb = shape.verb;
        fs.uno = shape.uno;
        fs.serviceKey = shape.serviceKey;
        fs.serviceLine = shape.serviceLine;
        b.cfg.flows.push_back(fs);
    }
}

/// The CDF named by workload.cdf: a shipped one by name, else a file in HPCC's format.
FlowSizeCdf
ReadCdf(YamlFields& work, const ScenarioBuild& b)
{
    std::string cdf = ValueOf(work, "cdf").text;
    const auto& shipped = ShippedCdfNames();
    bool named = std::find(shipped.begin(), shipped.end(), cdf) != shipped.end();
    std::string found = ResolvePath(b.cfg.file, b.sourceRoot, named ? ShippedCdfPath(cdf) : cdf);
    if (found.empty())
    {
        throw work.Error("cdf",
                         named ? "shipped CDF '" + ShippedCdfPath(cdf) + "' not found"
                               : "CDF file '" + cdf +
                                     "' not found (or one of websearch, hadoop, alistorage, "
                                     "googlerpc)");
    }
    return FlowSizeCdf::Read(found);
}

/// workload.hosts: "all", or a list of hosts (indices or names); at least two.
std::vector<uint32_t>
ReadWorkloadHosts(YamlFields& work, const ScenarioBuild& b)
{
    uint32_t nHosts = static_cast<uint32_t>(b.cfg.topology.Hosts().size());
    std::vector<uint32_t> hosts;
    YAML::Node node = work.Has("hosts") ? work.Node("hosts") : YAML::Node("all");
    if (node.IsScalar() && node.Scalar() == "all")
    {
        for (uint32_t h = 0; h < nHosts; ++h)
        {
            hosts.push_back(h);
        }
    }
    else if (node.IsSequence())
    {
        for (const YAML::Node& item : node)
        {
            uint32_t h = HostIndex(work, "hosts", item.Scalar(), b.cfg.topology);
            if (std::find(hosts.begin(), hosts.end(), h) != hosts.end())
            {
                throw work.Error("hosts", "host '" + item.Scalar() + "' is listed twice");
            }
            hosts.push_back(h);
        }
    }
    else
    {
        throw work.Error("hosts", "expected all or a list of hosts");
    }
    if (hosts.size() < 2)
    {
        throw work.Error("hosts", "a Poisson workload needs at least two hosts");
    }
    return hosts;
}

/// The rate of host \p host's (first) link: what its offered load is a fraction of.
DataRate
HostLinkRate(const TopologySpec& topo, uint32_t host)
{
    uint32_t node = topo.Hosts()[host];
    for (const TopologyLink& l : topo.links)
    {
        if (l.a == node || l.b == node)
        {
            return l.rate;
        }
    }
    return DataRate(0ULL);
}

/// workload: {type: poisson, cdf, load, duration, hosts}: flow-size workload at a given load.
void
AddPoisson(YamlFields& work, const FlowSpec& shape, ScenarioBuild& b)
{
    PoissonLoad w;
    w.hosts = ReadWorkloadHosts(work, b);
    for (uint32_t h : w.hosts)
    {
        DataRate rate = HostLinkRate(b.cfg.topology, h);
        if (rate.GetBitRate() == 0)
        {
            throw work.Error("hosts", "host " + std::to_string(h) + " has no link");
        }
        w.linkRates.push_back(rate);
    }
    w.load = ValueOf(work, "load").number;
    w.start = shape.start;
    w.duration = ValueOf(work, "duration").time;
    FlowSizeCdf cdf = ReadCdf(work, b);
    // Its own stream, so adding incasts (type mix) leaves the Poisson flows as they were.
    std::mt19937_64 rng(b.cfg.seed ^ 0x9e3779b97f4a7c15ULL);
    for (const FlowSpec& fs : GeneratePoissonFlows(w, cdf, shape, rng))
    {
        b.cfg.flows.push_back(fs);
    }
}

/// type mix: the Poisson background plus an incast every incast_interval within the duration.
void
AddMix(YamlFields& work, const FlowSpec& shape, ScenarioBuild& b)
{
    AddPoisson(work, shape, b);
    Time interval = ValueOf(work, "incast_interval").time;
    Time end = shape.start + ValueOf(work, "duration").time;
    Time jitter = ValueOf(work, "start_jitter").time;
    uint64_t k = 0;
    for (Time t = shape.start; t < end; t += interval, ++k)
    {
        Starts starts(t, jitter, b.cfg.seed + k);
        AddIncast(work, shape, starts, b);
    }
    // The generated flows in start order, as a flow file would list them.
    std::stable_sort(b.cfg.flows.begin(),
                     b.cfg.flows.end(),
                     [](const FlowSpec& x, const FlowSpec& y) { return x.start < y.start; });
}

/// lose: [{flow: 0, packet: 5}, ...] — first transmissions lost (retransmission studies).
void
ReadLosses(YamlFields& work, ScenarioBuild& b)
{
    YAML::Node list = work.Node("lose");
    if (!list.IsSequence())
    {
        throw work.Error("lose", "expected a list of {flow, packet}");
    }
    for (size_t i = 0; i < list.size(); ++i)
    {
        YamlFields l(list[i], work.File(), work.KeyPath("lose") + "[" + std::to_string(i) + "]");
        PacketLoss loss;
        uint64_t flow = l.Uint("flow");
        uint64_t packet = l.Uint("packet");
        if (flow >= b.cfg.flows.size())
        {
            throw l.Error("flow", "no flow " + std::to_string(flow));
        }
        if (packet > UINT32_MAX)
        {
            throw l.Error("packet", "must be 0..4294967295 (a packet index of its flow)");
        }
        loss.flow = static_cast<uint32_t>(flow);
        loss.packet = static_cast<uint32_t>(packet);
        l.RejectUnknownKeys();
        b.cfg.losses.push_back(loss);
    }
    if (b.cfg.transport != "roce" && b.cfg.transport != "ub")
    {
        throw work.Error("lose", "packet losses are recovered only with transport: roce or ub");
    }
}

/// Jettys per host: each host's flows are posted by its Jettys in turn.
void
AssignJettys(YamlFields& work, ScenarioBuild& b)
{
    uint64_t jettys = work.Uint("jettys");
    if (b.cfg.transport != "ub" || jettys == 0 || jettys > 0xFFFF)
    {
        throw work.Error("jettys", "needs transport: ub and a count in 1..65535");
    }
    std::vector<uint32_t> posted(b.cfg.topology.Hosts().size(), 0);
    for (FlowSpec& fs : b.cfg.flows)
    {
        fs.endpoint = static_cast<uint16_t>(posted[fs.src]++ % jettys);
    }
}

void
ReadWorkload(YamlFields& root, const ScenarioKey& key, ScenarioBuild& b)
{
    YamlFields work = root.Child(key.Name());
    std::string type = ValueOf(work, "type").text;
    ValueOf(work, "senders"); // read for every type: it sizes a star with hosts: auto
    FlowSpec shape = ReadShape(work, b);
    if (shape.uno && (type == "job" || type == "collective"))
    {
        throw work.Error("service",
                         "service: uno is for flow workloads: a " + type +
                             "'s transfers must all arrive");
    }
    Starts starts(shape.start, ValueOf(work, "start_jitter").time, b.cfg.seed);
    if (type == "incast")
    {
        AddIncast(work, shape, starts, b);
    }
    else if (type == "permutation")
    {
        AddPermutation(work, shape, starts, b);
    }
    else if (type == "all-to-all")
    {
        AddAllToAll(work, shape, starts, b);
    }
    else if (type == "poisson")
    {
        AddPoisson(work, shape, b);
    }
    else if (type == "mix")
    {
        AddMix(work, shape, b);
    }
    else if (type == "hpcc")
    {
        AddHpccFlows(work, shape, b);
    }
    else if (type == "flows")
    {
        ReadFlowList(work, shape, b);
    }
    else if (type == "job")
    {
        b.cfg.jobs = ParseJobs(work, b.cfg.topology, b.cfg.transport); // model/job
    }
    else
    {
        // Collectives (model/collective): the engine creates the transfers at run time.
        YamlFields collective = root.Child("collective");
        b.cfg.collective =
            ParseCollective(collective, b.cfg.topology, b.cfg.transport, b.cfg.attributes);
    }
    if (work.Has("lose"))
    {
        ReadLosses(work, b);
    }
    if (work.Has("jettys"))
    {
        AssignJettys(work, b);
    }
    work.RejectUnknownKeys();
}

const char* const kWorkloadTypes[] =
    {"incast", "permutation", "all-to-all", "poisson", "mix", "flows", "hpcc", "collective", "job"};

std::string
CheckWorkloadType(const KeyValue& v)
{
    if (std::find(std::begin(kWorkloadTypes), std::end(kWorkloadTypes), v.text) !=
        std::end(kWorkloadTypes))
    {
        return "";
    }
    return "unknown workload '" + v.text +
           "' (incast, permutation, all-to-all, flows, hpcc, collective, job)";
}

} // namespace

ScenarioKeys
WorkloadKeys()
{
    ScenarioKeys rows = {
        ScenarioKey("workload", KeyKind::Mapping, "the traffic").Reader(ReadWorkload),
        ScenarioKey("workload.type",
                    KeyKind::Text,
                    "incast: senders into one receiver; permutation: every host to one other; "
                    "all-to-all; poisson: flow sizes from a CDF at a given load; mix: poisson "
                    "plus periodic incasts; flows: the list in workload.flows; hpcc: an HPCC "
                    "flow.txt; collective: the collective section; job: the jobs in workload.jobs")
            .Unit("incast|permutation|all-to-all|poisson|mix|flows|hpcc|collective|job")
            .Default("incast")
            .Check(CheckWorkloadType),
        ScenarioKey("workload.senders", KeyKind::Count, "incast: number of senders")
            .Default("8")
            // hosts: auto makes a star of senders + 1 hosts, counted in 32 bits.
            .Check(AtMost(UINT32_MAX - 1, "too many senders (at most 4294967294)")),
        ScenarioKey("workload.receiver", KeyKind::Text, "incast: the receiving host")
            .Unit("host index or name")
            .Default("0"),
        ScenarioKey("workload.bytes_per_sender", KeyKind::Bytes, "incast: bytes per sender")
            .Default("2MiB")
            .Check(Positive("must be positive")),
        ScenarioKey("workload.bytes_per_flow",
                    KeyKind::Bytes,
                    "permutation, all-to-all: bytes per flow")
            .Rule([] {
                return BytesText(kPermutationFlowBytes) + " (permutation), " +
                       BytesText(kAllToAllFlowBytes) + " (all-to-all)";
            })
            .Check(Positive("must be positive")),
        ScenarioKey("workload.cdf",
                    KeyKind::Text,
                    "poisson, mix: flow-size CDF, shipped (contrib/fabric/workloads/) or a file "
                    "in HPCC traffic_gen format (size_bytes cdf_percent per line)")
            .Unit("websearch|hadoop|alistorage|googlerpc|file")
            .Default("websearch"),
        ScenarioKey("workload.load",
                    KeyKind::Number,
                    "poisson, mix: offered load per host, as a fraction of its link rate")
            .Unit("fraction in (0, 1]")
            .Default("0.5")
            .Check([](const KeyValue& v) {
                return v.number > 0 && v.number <= 1 ? std::string() : "load must be in (0, 1]";
            }),
        ScenarioKey("workload.duration",
                    KeyKind::Duration,
                    "poisson, mix: flows arrive in [start, start + duration)")
            .Default("10ms")
            .Check(Positive("must be positive")),
        ScenarioKey("workload.hosts",
                    KeyKind::Text,
                    "poisson, mix: the hosts that send and receive (destinations uniform "
                    "among the others)")
            .Unit("all|[host, ...]")
            .Default("all"),
        ScenarioKey("workload.incast_interval",
                    KeyKind::Duration,
                    "mix: an incast (senders, receiver, bytes_per_sender) starts every interval")
            .Default("1ms")
            .Check(Positive("must be positive")),
        ScenarioKey("workload.file",
                    KeyKind::Text,
                    "hpcc: the flow.txt of the HPCC / ConWeave simulators (src dst pg [dport] "
                    "size start_s), over topology: {hpcc: FILE}")
            .Unit("file"),
        ScenarioKey("workload.flows",
                    KeyKind::List,
                    "flows: the list of flows, each a mapping of the keys below"),
    };
    ScenarioKeys items = FlowKeys();
    rows.insert(rows.end(), items.begin(), items.end());
    ScenarioKeys shared = {
        ScenarioKey("workload.rate", KeyKind::Rate, "sender rate")
            .Unit("rate|line")
            .Default("line"),
        ScenarioKey("workload.start", KeyKind::Duration, "start time").Default("0ns"),
        ScenarioKey("workload.start_jitter",
                    KeyKind::Duration,
                    "uniform random extra start delay per generated flow")
            .Default("0ns"),
        ScenarioKey("workload.priority", KeyKind::Count, "traffic class")
            .Unit("0..7")
            .Default("3")
            .Check(PriorityCheck()),
        ScenarioKey("workload.ecn", KeyKind::Flag, "ECN-capable transport").Default("true"),
        ScenarioKey("workload.verb",
                    KeyKind::Choice,
                    "RDMA/URMA operation (read: src reads from dst, transport roce or ub; "
                    "load, store, atomic: cache-line memory operations, transport ub)")
            .Choices({"write", "send", "read", "load", "store", "atomic"})
            .Default("write"),
        ScenarioKey("workload.service",
                    KeyKind::Choice,
                    "UB transport service mode of every flow (a flow's `service` overrides): "
                    "reliable, or uno (unreliable, no order: writes and sends, order none)")
            .Choices({"reliable", "uno", "UNO"})
            .Default("reliable"),
        ScenarioKey("workload.lose",
                    KeyKind::List,
                    "[{flow, packet}]: lose that packet's first transmission (transport roce or "
                    "ub)"),
        ScenarioKey("workload.lose[].flow", KeyKind::Count, "index of the flow"),
        ScenarioKey("workload.lose[].packet", KeyKind::Count, "index of the packet in its message"),
        ScenarioKey("workload.jettys",
                    KeyKind::Count,
                    "UB: Jettys per host; a host's flows are posted by Jetty 0, 1, ... in turn"),
    };
    rows.insert(rows.end(), shared.begin(), shared.end());
    return rows;
}

} // namespace ns3
