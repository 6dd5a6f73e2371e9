// workload.flows: an explicit list of flows (workload.type flows).

#include "config/config-sections.h"

namespace ns3
{

namespace
{

/// rate_schedule: [{at: 20us, rate: 45GB/s}, ...] — times after the flow's start.
void
ReadRateSchedule(YamlFields& f, FlowSpec& fs)
{
    YAML::Node sched = f.Node("rate_schedule");
    if (!sched.IsSequence())
    {
        throw f.Error("rate_schedule", "expected a list of {at, rate}");
    }
    for (size_t j = 0; j < sched.size(); ++j)
    {
        std::string item = f.KeyPath("rate_schedule") + "[" + std::to_string(j) + "]";
        YamlFields e(sched[j], f.File(), item);
        Time at = e.Duration("at");
        if (!fs.rateSchedule.empty() && at < fs.rateSchedule.back().first)
        {
            throw e.Error("at", "rate changes must be in time order");
        }
        fs.rateSchedule.emplace_back(at, e.Rate("rate"));
        e.RejectUnknownKeys();
    }
}

/// One entry of the list; \p defaults carries the workload's start, priority, ECN and verb.
FlowSpec
ReadFlow(YamlFields& f, const FlowSpec& defaults, const ScenarioBuild& b)
{
    const std::string& transport = b.cfg.transport;
    FlowSpec fs;
    fs.src = ReadHost(f, "src", b.cfg.topology);
    fs.dst = ReadHost(f, "dst", b.cfg.topology);
    if (fs.src == fs.dst)
    {
        throw f.Error("dst", "a flow needs different source and destination");
    }
    fs.bytes = ValueOf(f, "bytes").count;
    fs.start = f.Duration("start", defaults.start);
    std::string rate = f.String("rate", FindKey(f.KeyPath("rate")).fallback);
    fs.rate = rate == "line" ? DataRate(0ULL) : f.Rate("rate");
    fs.priority = ReadPriority(f, "priority", defaults.priority);
    fs.ecn = f.Bool("ecn", defaults.ecn);
    if (f.Has("rate_schedule"))
    {
        ReadRateSchedule(f, fs);
    }
    fs.period = ValueOf(f, "period").time;
    fs.onTime = f.Duration("on_time", fs.period);
    if (fs.period.IsStrictlyPositive() && (fs.onTime.IsZero() || fs.onTime > fs.period))
    {
        throw f.Error("on_time", "must be within (0, period]");
    }
    if (transport == "roce" && (fs.period.IsStrictlyPositive() || !fs.rateSchedule.empty()))
    {
        throw f.Error("period", "periodic and scripted-rate flows are raw flows (transport: raw)");
    }
    fs.verb = defaults.verb;
    if (f.Has("verb") && !ParseRdmaVerb(f.String("verb"), &fs.verb))
    {
        throw f.Error("verb", "expected write, send, read, load, store or atomic");
    }
    CheckVerbTransport(f, "verb", fs.verb, transport);
    for (const char* key : {"endpoint", "order", "after"})
    {
        if (f.Has(key) && transport != "ub")
        {
            throw f.Error(key, "Jettys and request ordering need transport: ub");
        }
    }
    ParseUbRequestFields(f, b.cfg.flows, fs);
    if (f.Has("service") && transport != "ub")
    {
        throw f.Error("service", "the service mode is for transport: ub");
    }
    fs.serviceKey = defaults.serviceKey; // UNO by workload.service unless its own key says
    fs.serviceLine = defaults.serviceLine;
    fs.uno = ReadUbService(f, "service", defaults.uno, fs, transport);
    f.RejectUnknownKeys();
    return fs;
}

} // namespace

void
ReadFlowList(YamlFields& work, const FlowSpec& defaults, ScenarioBuild& b)
{
    YAML::Node list = work.Node("flows");
    if (!list.IsSequence())
    {
        throw work.Error("flows", "expected a list of flows");
    }
    for (size_t i = 0; i < list.size(); ++i)
    {
        YamlFields f(list[i], work.File(), work.KeyPath("flows") + "[" + std::to_string(i) + "]");
        b.cfg.flows.push_back(ReadFlow(f, defaults, b));
    }
}

ScenarioKeys
FlowKeys()
{
    const std::string item = "workload.flows[].";
    return {
        ScenarioKey(item + "src", KeyKind::Text, "sending host").Unit("host index or name"),
        ScenarioKey(item + "dst", KeyKind::Text, "receiving host").Unit("host index or name"),
        ScenarioKey(item + "bytes", KeyKind::Bytes, "size of the flow (RoCE, UB: the message)")
            .Check(Positive("must be positive")),
        ScenarioKey(item + "start", KeyKind::Duration, "start time").Rule("workload.start"),
        ScenarioKey(item + "rate", KeyKind::Rate, "sender rate").Unit("rate|line").Default("line"),
        ScenarioKey(item + "priority", KeyKind::Count, "traffic class")
            .Unit("0..7")
            .Rule("workload.priority"),
        ScenarioKey(item + "ecn", KeyKind::Flag, "ECN-capable transport").Rule("workload.ecn"),
        ScenarioKey(item + "verb",
                    KeyKind::Choice,
                    "RDMA/URMA operation (read: src reads from dst; UB: load, store, atomic "
                    "split the bytes into cache-line / 8-byte memory operations)")
            .Choices({"write", "send", "read", "load", "store", "atomic"})
            .Rule("workload.verb"),
        ScenarioKey(item + "rate_schedule",
                    KeyKind::List,
                    "raw flows: [{at, rate}], rate changes at times after the flow's start"),
        ScenarioKey(item + "period",
                    KeyKind::Duration,
                    "raw flows: send in bursts, one every period (0: continuously)")
            .Default("0ns"),
        ScenarioKey(item + "on_time", KeyKind::Duration, "raw flows: burst length within a period")
            .Rule("period"),
        ScenarioKey(item + "endpoint", KeyKind::Count, "UB: the Jetty that posts the flow")
            .Default("0"),
        ScenarioKey(item + "order",
                    KeyKind::Choice,
                    "UB: none (NO); after: the flows in `after` execute first; strict (SO): every "
                    "earlier flow of its Jetty to the same target does; relaxed (RO): every "
                    "earlier strict one does")
            .Choices({"none", "after", "strict", "relaxed", "NO", "SO", "RO"})
            .Rule("after when `after` is given, otherwise none"),
        ScenarioKey(item + "after",
                    KeyKind::List,
                    "UB: indices of earlier flows (same source) that must execute first"),
        ScenarioKey(item + "service",
                    KeyKind::Choice,
                    "UB transport service mode: reliable (ACKs, resends, window) or uno "
                    "(unreliable, no order: no ACK, no resend; a lost packet leaves the flow "
                    "unfinished)")
            .Choices({"reliable", "uno", "UNO"})
            .Rule("workload.service"),
    };
}

} // namespace ns3
