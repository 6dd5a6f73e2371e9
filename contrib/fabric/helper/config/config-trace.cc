// trace: what the run records besides flows.csv, links.csv and summary.json.

#include "config/config-sections.h"
#include "config/units.h"

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace ns3
{

namespace
{

/// Every name of a node list must be a node of the topology. With an HPCC-family topology.txt,
/// a node may also be given by its id in that file, as those simulators' trace.txt names them
/// (0 -> h0, 16 -> sw16).
std::vector<std::string>
ReadNodes(YamlFields& trace, const ScenarioKey& key, const ScenarioBuild& b)
{
    const TopologySpec& topo = b.cfg.topology;
    std::vector<std::string> nodes = trace.StringList(key.Name());
    for (std::string& n : nodes)
    {
        if (topo.Find(n))
        {
            continue;
        }
        bool id = !n.empty() && std::all_of(n.begin(), n.end(), [](char c) {
            return std::isdigit(static_cast<unsigned char>(c)) != 0;
        });
        if (b.hpcc && id)
        {
            const std::vector<uint32_t>& index = b.hpcc->nodeIndexOfNodeId;
            unsigned long nodeId = n.size() <= 9 ? std::stoul(n) : index.size();
            if (nodeId < index.size())
            {
                n = topo.nodes[index[nodeId]].name;
                continue;
            }
            throw trace.Error(key.Name(),
                              "node " + n + " is not in " + topo.source + " (node ids 0.." +
                                  std::to_string(index.size() - 1) + ")");
        }
        throw trace.Error(key.Name(), "unknown node '" + n + "'");
    }
    return nodes;
}

void
ReadQueueInterval(YamlFields& trace, const ScenarioKey& key, ScenarioBuild& b)
{
    b.cfg.trace.queueInterval = ValueOf(trace, key).time;
}

void
ReadRateInterval(YamlFields& trace, const ScenarioKey& key, ScenarioBuild& b)
{
    b.cfg.trace.rateInterval = ValueOf(trace, key).time;
}

void
ReadQueueMode(YamlFields& trace, const ScenarioKey& key, ScenarioBuild& b)
{
    b.cfg.trace.queueOnChange = ValueOf(trace, key).text == "change";
}

void
ReadQueueNodes(YamlFields& trace, const ScenarioKey& key, ScenarioBuild& b)
{
    if (trace.Has(key.Name()))
    {
        b.cfg.trace.queueNodes = ReadNodes(trace, key, b);
    }
}

void
ReadQueuePorts(YamlFields& trace, const ScenarioKey& key, ScenarioBuild& b)
{
    if (!trace.Has(key.Name()))
    {
        return;
    }
    for (const std::string& p : trace.StringList(key.Name()))
    {
        auto port = ParseCount(p);
        if (!port || *port > UINT32_MAX)
        {
            throw trace.Error(key.Name(), "expected port numbers, got '" + p + "'");
        }
        b.cfg.trace.queuePorts.push_back(static_cast<uint32_t>(*port));
    }
}

void
ReadQueuePriorities(YamlFields& trace, const ScenarioKey& key, ScenarioBuild& b)
{
    b.cfg.trace.queuePriorities = 0xFF;
    if (!trace.Has(key.Name()))
    {
        return;
    }
    b.cfg.trace.queuePriorities = 0;
    for (const std::string& p : trace.StringList(key.Name()))
    {
        if (p.size() != 1 || p[0] < '0' || p[0] > '7')
        {
            throw trace.Error(key.Name(), "priorities are 0..7, got '" + p + "'");
        }
        b.cfg.trace.queuePriorities |= static_cast<uint8_t>(1u << (p[0] - '0'));
    }
}

void
ReadGzipAbove(YamlFields& trace, const ScenarioKey& key, ScenarioBuild& b)
{
    bool never = trace.String(key.Name(), key.fallback) == "never";
    b.cfg.trace.gzipAbove = never ? UINT64_MAX : ValueOf(trace, key).count;
}

void
ReadPcap(YamlFields& trace, const ScenarioKey& key, ScenarioBuild& b)
{
    b.cfg.trace.pcap = ValueOf(trace, key).flag;
}

void
ReadPcapSnapLen(YamlFields& trace, const ScenarioKey& key, ScenarioBuild& b)
{
    uint64_t bytes = ValueOf(trace, key).count;
    if (bytes < 64 || bytes > 65535)
    {
        throw trace.Error(key.Name(), "must be 64B..65535B");
    }
    b.cfg.trace.pcapSnapLen = static_cast<uint32_t>(bytes);
}

void
ReadSleepWhenIdle(YamlFields& trace, const ScenarioKey& key, ScenarioBuild& b)
{
    b.cfg.trace.sleepWhenIdle = ValueOf(trace, key).flag;
}

void
ReadPcapNodes(YamlFields& trace, const ScenarioKey& key, ScenarioBuild& b)
{
    if (trace.Has(key.Name()))
    {
        b.cfg.trace.pcapNodes = ReadNodes(trace, key, b);
    }
}

/// trace.html is for tools/plot, which reads it back from summary.json's echo of the scenario
/// ("parameters"); the simulator only checks that it is a flag.
void
CheckHtml(YamlFields& trace, const ScenarioKey& key, ScenarioBuild&)
{
    ValueOf(trace, key);
}

/// trace.hpcc.fct, .pfc, .qlen: a file under the run directory.
void
ReadHpccFile(YamlFields& hpcc, const ScenarioKey& key, ScenarioBuild& b)
{
    if (!hpcc.Has(key.Name()))
    {
        return;
    }
    std::string file = hpcc.String(key.Name());
    if (std::filesystem::path(file).is_absolute())
    {
        throw hpcc.Error(key.Name(),
                         "'" + file + "' is absolute; give a path under the run directory (--out)");
    }
    TraceConfig::Hpcc& h = b.cfg.trace.hpcc;
    (key.Name() == "fct" ? h.fct : key.Name() == "pfc" ? h.pfc : h.qlen) = file;
}

void
ReadHpccFormat(YamlFields& hpcc, const ScenarioKey& key, ScenarioBuild& b)
{
    b.cfg.trace.hpcc.conweave = ValueOf(hpcc, key).text == "conweave";
}

void
ReadHpccTime(YamlFields& hpcc, const ScenarioKey& key, ScenarioBuild& b)
{
    TraceConfig::Hpcc& h = b.cfg.trace.hpcc;
    Time t = ValueOf(hpcc, key).time;
    const std::string& name = key.Name();
    (name == "qlen_start"      ? h.qlenStart
     : name == "qlen_end"      ? h.qlenEnd
     : name == "qlen_interval" ? h.qlenInterval
                               : h.qlenDump) = t;
}

/// The dport column of the HPCC flow.txt that workload type hpcc reads (already checked by
/// ReadHpccFlows), one per flow; empty for a ConWeave flow.txt (no such column) or when the
/// workload has other flows too.
std::vector<uint16_t>
HpccFlowDports(const ScenarioBuild& b)
{
    const YAML::Node work = b.cfg.document["workload"];
    if (!work || !work.IsMap() || !work["type"] || work["type"].Scalar() != "hpcc" || !work["file"])
    {
        return {};
    }
    std::ifstream in(ResolvePath(b.cfg.file, b.sourceRoot, work["file"].Scalar()));
    std::vector<uint16_t> dports;
    std::string line;
    long count = -1;
    while (std::getline(in, line) && (count < 0 || long(dports.size()) < count))
    {
        std::istringstream fields(line);
        std::vector<std::string> columns;
        for (std::string c; fields >> c;)
        {
            columns.push_back(c);
        }
        if (columns.empty())
        {
            continue;
        }
        if (count < 0)
        {
            count = std::stol(columns[0]);
            continue;
        }
        if (columns.size() != 6)
        {
            return {};
        }
        // src dst pg dport size start_time; the reference keeps 16 bits of it (RdmaQueuePair).
        dports.push_back(static_cast<uint16_t>(std::stoul(columns[3])));
    }
    if (dports.size() != b.cfg.flows.size())
    {
        return {};
    }
    return dports;
}

/// trace.hpcc: its keys, then what the writers need from the keys read before trace.
void
ReadHpcc(YamlFields& trace, const ScenarioKey& key, ScenarioBuild& b)
{
    ReadSection(trace, key, b);
    TraceConfig::Hpcc& h = b.cfg.trace.hpcc;
    if (!h.Any())
    {
        return;
    }
    h.payloadBytes = b.cfg.payloadMtu;
    h.stopTime = b.cfg.stopTime;
    if (b.hpcc)
    {
        const std::vector<uint32_t>& index = b.hpcc->nodeIndexOfNodeId;
        h.nodeIds.assign(b.cfg.topology.nodes.size(), 0);
        for (uint32_t id = 0; id < index.size(); ++id)
        {
            h.nodeIds[index[id]] = id;
        }
        h.dports = HpccFlowDports(b);
    }
}

} // namespace

ScenarioKeys
TraceKeys()
{
    return {
        ScenarioKey("trace", KeyKind::Mapping, "time-series traces").Reader(ReadSection),
        ScenarioKey("trace.queue_interval",
                    KeyKind::Duration,
                    "queue-depth sampling interval (queues.csv)")
            .Default("1us")
            .Check(Positive("sampling intervals must be positive"))
            .Reader(ReadQueueInterval),
        ScenarioKey("trace.rate_interval",
                    KeyKind::Duration,
                    "per-flow delivered-rate sampling interval (rates.csv)")
            .Default("10us")
            .Check(Positive("sampling intervals must be positive"))
            .Reader(ReadRateInterval),
        ScenarioKey("trace.queue_nodes", KeyKind::List, "nodes whose egress queues are traced")
            .Unit("list of node names (or topology.txt ids with topology: {hpcc: FILE})")
            .Rule("every switch")
            .Reader(ReadQueueNodes),
        ScenarioKey("trace.queue_mode",
                    KeyKind::Choice,
                    "interval: a row every queue_interval; change: a row per change")
            .Choices({"interval", "change"})
            .Default("interval")
            .Reader(ReadQueueMode),
        ScenarioKey("trace.queue_ports", KeyKind::List, "only these ports of those nodes")
            .Unit("list of port numbers")
            .Rule("every port")
            .Reader(ReadQueuePorts),
        ScenarioKey("trace.queue_priorities", KeyKind::List, "only these priorities")
            .Unit("list of priorities 0..7")
            .Rule("every priority")
            .Reader(ReadQueuePriorities),
        ScenarioKey("trace.gzip_above",
                    KeyKind::Bytes,
                    "traces larger than this are written as .csv.gz")
            .Unit("bytes|never")
            .Default("256MiB")
            .Reader(ReadGzipAbove),
        ScenarioKey("trace.pcap", KeyKind::Flag, "write one pcap per device")
            .Default("false")
            .Reader(ReadPcap),
        ScenarioKey("trace.pcap_snaplen",
                    KeyKind::Bytes,
                    "bytes of each frame kept in the pcaps (the rest is counted, not stored; "
                    "128B keeps every header of a RoCE frame with INT)")
            .Default("65535B")
            .Reader(ReadPcapSnapLen),
        ScenarioKey("trace.sleep_when_idle",
                    KeyKind::Flag,
                    "samplers skip ticks while the fabric is idle (false: tick throughout; "
                    "the files are the same)")
            .Default("true")
            .Reader(ReadSleepWhenIdle),
        ScenarioKey("trace.pcap_nodes", KeyKind::List, "restrict pcaps to these nodes")
            .Unit("list of node names")
            .Rule("every node")
            .Reader(ReadPcapNodes),
        ScenarioKey("trace.html",
                    KeyKind::Flag,
                    "tools/plot writes report.html, the interactive page of the run")
            .Default("true")
            .Reader(CheckHtml),
        ScenarioKey("trace.hpcc",
                    KeyKind::Mapping,
                    "the output files of the HPCC-family simulators, for their analysis scripts "
                    "(node ids: topology.txt's with topology: {hpcc: FILE})")
            .Reader(ReadHpcc),
        ScenarioKey("trace.hpcc.fct",
                    KeyKind::Text,
                    "fct.txt (FCT_OUTPUT_FILE): a line per finished flow")
            .Unit("file under the run directory")
            .Rule("not written")
            .Reader(ReadHpccFile),
        ScenarioKey("trace.hpcc.pfc",
                    KeyKind::Text,
                    "pfc.txt (PFC_OUTPUT_FILE): a line per PFC frame received")
            .Unit("file under the run directory")
            .Rule("not written")
            .Reader(ReadHpccFile),
        ScenarioKey("trace.hpcc.qlen",
                    KeyKind::Text,
                    "qlen.txt (QLEN_MON_FILE): switch egress queue histograms per KB")
            .Unit("file under the run directory")
            .Rule("not written")
            .Reader(ReadHpccFile),
        ScenarioKey("trace.hpcc.format",
                    KeyKind::Choice,
                    "fct.txt columns: hpcc (and ns3-datacenter): hex IPs, sport per pair, "
                    "flow.txt's dport; conweave: node ids, sport per source, dport per "
                    "destination")
            .Choices({"hpcc", "ns3-datacenter", "conweave"})
            .Default("hpcc")
            .Reader(ReadHpccFormat),
        // Defaults: alibaba-edu/High-Precision-Congestion-Control simulation/scratch/third.cc:81-82
        ScenarioKey("trace.hpcc.qlen_start",
                    KeyKind::Duration,
                    "QLEN_MON_START: first qlen.txt sample (HPCC third.cc:82)")
            .Default("2s")
            .Reader(ReadHpccTime),
        ScenarioKey("trace.hpcc.qlen_end",
                    KeyKind::Duration,
                    "QLEN_MON_END: samples continue until one is at or after it (HPCC third.cc:82)")
            .Default("2100ms")
            .Reader(ReadHpccTime),
        ScenarioKey("trace.hpcc.qlen_interval",
                    KeyKind::Duration,
                    "qlen_mon_interval: one sample of every switch port per interval "
                    "(HPCC third.cc:81)")
            .Default("100ns")
            .Check(Positive("sampling intervals must be positive"))
            .Reader(ReadHpccTime),
        ScenarioKey("trace.hpcc.qlen_dump_interval",
                    KeyKind::Duration,
                    "qlen_dump_interval: histograms written at samples whose time is a multiple "
                    "of it (HPCC third.cc:81)")
            .Default("100ms")
            .Check(Positive("dump intervals must be positive"))
            .Reader(ReadHpccTime),
    };
}

} // namespace ns3
