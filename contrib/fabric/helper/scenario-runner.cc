#include "scenario-runner.h"

#include "attribute-values.h"
#include "collective-setup.h"
#include "config-error.h"
#include "deadlock-detector.h"
#include "fabric-builder.h"
#include "fabric-version.h"
#include "run-recorder.h"
#include "ub-recorder.h"

#include "host/host-transport.h"
#include "trace/csv-writer.h"

#include "ns3/config.h"
#include "ns3/object-factory.h"
#include "ns3/rng-seed-manager.h"
#include "ns3/simulator.h"
#include "ns3/string.h"

#include <algorithm>
#include <chrono>
#include <sys/resource.h>

namespace ns3
{

nlohmann::json
YamlToJson(const YAML::Node& node)
{
    switch (node.Type())
    {
    case YAML::NodeType::Map: {
        nlohmann::json j = nlohmann::json::object();
        for (const auto& kv : node)
        {
            j[kv.first.Scalar()] = YamlToJson(kv.second);
        }
        return j;
    }
    case YAML::NodeType::Sequence: {
        nlohmann::json j = nlohmann::json::array();
        for (const auto& item : node)
        {
            j.push_back(YamlToJson(item));
        }
        return j;
    }
    case YAML::NodeType::Scalar:
        return node.Scalar();
    default:
        return nullptr;
    }
}

namespace
{

/// UDP source port of flow \p id for run seed \p seed: 49152 + a 14-bit hash of both.
uint16_t
FlowEntropy(uint32_t id, uint64_t seed)
{
    uint64_t h = (uint64_t(id) << 32) ^ seed;
    h ^= h >> 33;
    h *= 0xff51afd7ed558ccdULL;
    h ^= h >> 33;
    h *= 0xc4ceb9fe1a85ec53ULL;
    h ^= h >> 33;
    return static_cast<uint16_t>(49152 + h % 16384);
}

void
ApplyAttributes(const ScenarioConfig& cfg)
{
    for (const auto& [name, value] : cfg.attributes)
    {
        std::string normalized;
        std::string error;
        if (!NormalizeAttributeValue(name, value, &normalized, &error) ||
            !Config::SetDefaultFailSafe(name, StringValue(normalized)))
        {
            throw ConfigError(cfg.file, 0, name, error.empty() ? "cannot set '" + value + "'" : error);
        }
    }
}

/// Why a flow did not finish by the end of the run (empty when it did).
std::string
StuckReason(const FabricNetwork& net, const std::vector<Ptr<HostTransport>>& nics, const FlowRecord& f,
            bool deadlock)
{
    if (f.finished)
    {
        return "";
    }
    if (deadlock)
    {
        return "PFC deadlock";
    }
    if (!nics.empty())
    {
        uint32_t sender = f.verb == RdmaVerb::READ ? f.dst : f.src;
        return nics[sender]->StuckReason(f.id);
    }
    Ptr<FabricHost> host = net.GetHost(f.src);
    std::string blocked =
        host->GetPort(host->EgressPortFor(f.dst, f.entropy))->BlockedReason(f.priority);
    if (!blocked.empty())
    {
        return blocked;
    }
    return "stop_time reached with " + std::to_string(f.bytes - f.deliveredBytes - f.droppedBytes) +
           " bytes outstanding";
}

/// One transport per host, by scenario name: none for raw flows.
std::vector<Ptr<HostTransport>>
InstallTransports(FabricNetwork& net, const std::string& transport)
{
    std::vector<Ptr<HostTransport>> nics;
    if (transport == "raw")
    {
        return nics;
    }
    ObjectFactory factory(transport == "ub" ? "ns3::UbNic" : "ns3::RdmaNic");
    for (uint32_t h = 0; h < net.GetNHosts(); ++h)
    {
        Ptr<HostTransport> nic = factory.Create<HostTransport>();
        nic->Install(net.GetHost(h));
        net.GetNode(net.NodeOfHost(h))->AggregateObject(nic);
        nics.push_back(nic);
    }
    return nics;
}

void
WriteFlows(const FabricNetwork& net,
           const ConservationReport& cons,
           const std::vector<Ptr<HostTransport>>& nics,
           bool deadlock,
           const std::string& path)
{
    CsvWriter out(path,
                  "flow_id,src,dst,priority,bytes,start_ns,finish_ns,fct_ns,sent_bytes,"
                  "delivered_bytes,dropped_bytes,in_flight_bytes,ecn_marked_frames,"
                  "retransmitted_bytes,discarded_bytes,cnps,launch_ns,executed_ns,stuck_reason");
    Ptr<FlowTable> table = net.GetFlowTable();
    for (uint32_t i = 0; i < table->GetN(); ++i)
    {
        const FlowRecord& f = table->Get(i);
        auto& row = out.Row();
        row << i << ',' << net.NodeName(net.NodeOfHost(f.src)) << ','
            << net.NodeName(net.NodeOfHost(f.dst)) << ',' << unsigned(f.priority) << ','
            << f.bytes << ',' << f.start.GetNanoSeconds() << ',';
        if (f.finished)
        {
            row << f.finish.GetNanoSeconds() << ',' << (f.finish - f.start).GetNanoSeconds();
        }
        else
        {
            row << ',';
        }
        row << ',' << f.sentBytes << ',' << f.deliveredBytes << ',' << f.droppedBytes << ','
            << cons.flows[i].inFlight << ',' << f.ecnMarkedFrames << ',' << f.retransmittedBytes
            << ',' << f.discardedBytes << ',' << f.cnpsReceived << ',';
        if (f.reliable && f.sentBytes > 0)
        {
            row << f.launch.GetNanoSeconds();
        }
        row << ',';
        if (f.executed.IsStrictlyPositive())
        {
            row << f.executed.GetNanoSeconds(); // UB: when the target executed the request
        }
        // Free text last; commas would split the column.
        std::string reason = StuckReason(net, nics, f, deadlock);
        std::replace(reason.begin(), reason.end(), ',', ';');
        row << ',' << reason << '\n';
    }
    out.Commit();
}

void
WriteLinks(const FabricNetwork& net, const std::string& path)
{
    CsvWriter out(path, "node,port,peer,peer_port,rate_bps,tx_bytes,rx_bytes,tx_frames");
    const TopologySpec& spec = net.Spec();
    for (uint32_t n = 0; n < spec.nodes.size(); ++n)
    {
        for (uint32_t p = 0; p < net.GetNPorts(n); ++p)
        {
            Ptr<FabricNetDevice> dev = net.GetDevice(n, p);
            PortRef peer = net.PeerOf(n, p);
            out.Row() << net.NodeName(n) << ',' << p << ',' << net.NodeName(peer.node) << ','
                      << peer.port << ',' << dev->GetDataRate().GetBitRate() << ','
                      << dev->GetTxBytes() << ',' << dev->GetRxBytes() << ','
                      << dev->GetTxFrames() << '\n';
        }
    }
    out.Commit();
}

} // namespace

RunOutcome
ScenarioRunner::Run(const ScenarioConfig& cfg, const std::string& outDir)
{
    auto wallStart = std::chrono::steady_clock::now();
    ApplyAttributes(cfg);
    RngSeedManager::SetSeed(static_cast<uint32_t>(cfg.seed == 0 ? 1 : cfg.seed));
    RngSeedManager::SetRun(1);
    // A binary heap of events beats the default std::map scheduler by about a quarter of the
    // loop time here (bench/PROFILE.md); order is (time, insertion) either way, so results are
    // unchanged.
    ObjectFactory scheduler("ns3::PriorityQueueScheduler");
    Simulator::SetScheduler(scheduler);

    FabricNetwork net;
    try
    {
        net = FabricNetwork::Build(cfg.topology, cfg.hashSalt, 0);
    }
    catch (const std::invalid_argument& e)
    {
        throw ConfigError(cfg.file, 0, "switch.buffer", e.what());
    }
    Ptr<FlowTable> table = net.GetFlowTable();
    std::vector<Ptr<HostTransport>> nics = InstallTransports(net, cfg.transport);
    for (const FlowSpec& fs : cfg.flows)
    {
        FlowRecord rec;
        rec.src = fs.src;
        rec.dst = fs.dst;
        rec.priority = fs.priority;
        rec.bytes = fs.bytes;
        rec.start = fs.start;
        rec.rate = fs.rate;
        rec.ecnCapable = fs.ecn;
        // Entropy: a per-flow UDP source port in the dynamic range, as RoCE NICs derive from
        // the QP number; it is what ECMP hashes. Mixed with the seed so that every seed draws
        // an independent set of paths (seed sweeps are ECMP collision studies).
        uint32_t id = table->GetN();
        rec.entropy = FlowEntropy(id, cfg.seed);
        rec.verb = fs.verb;
        rec.endpoint = fs.endpoint;
        rec.order = fs.order;
        rec.after = fs.after;
        rec.rateSchedule = fs.rateSchedule;
        rec.period = fs.period;
        rec.onTime = fs.onTime;
        table->Add(rec);
        if (nics.empty())
        {
            net.GetHost(fs.src)->StartFlowAt(id);
        }
        else
        {
            nics[fs.src]->StartFlowAt(id);
        }
    }
    for (const PacketLoss& loss : cfg.losses)
    {
        const FlowRecord& f = table->Get(loss.flow);
        uint32_t sink = f.verb == RdmaVerb::READ ? f.src : f.dst; // where the data arrives
        nics[sink]->LoseFirstTransmission(loss.flow, loss.packet);
    }
    for (const LinkEvent& ev : cfg.linkEvents)
    {
        Simulator::Schedule(ev.at, &FabricNetwork::SetLinkUp, &net, ev.link, ev.up);
    }
    for (const auto& [at, flow] : cfg.cnpEvents)
    {
        Simulator::Schedule(at, &HostTransport::InjectCnp, nics[cfg.flows[flow].src], flow);
    }
    for (const StormEvent& ev : cfg.stormEvents)
    {
        Ptr<FabricHost> host = net.GetHost(ev.host);
        for (uint32_t p = 0; p < host->GetNPorts(); ++p)
        {
            Ptr<FabricNetDevice> nic = host->GetPort(p);
            if (ev.stop)
            {
                Simulator::Schedule(ev.at, &FabricNetDevice::StopPfcStorm, nic);
            }
            else
            {
                Simulator::Schedule(ev.at, &FabricNetDevice::StartPfcStorm, nic, ev.priority);
            }
        }
    }
    // Collectives: the engine adds its transfers as flows and posts them as they become eligible.
    Ptr<CollectiveEngine> collective = SetupCollective(cfg.collective, net, nics, cfg.seed);
    table->SetAllFinishedCallback(MakeCallback(static_cast<void (*)()>(&Simulator::Stop)));
    double buildSeconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - wallStart).count();

    RunRecorder recorder(&net, cfg.trace, outDir);
    recorder.Start();
    UbRecorder ubRecorder(nics, outDir);
    ubRecorder.Start();
    DeadlockDetector deadlock(&net, cfg.deadlockCheckInterval, cfg.deadlockTimeout);
    bool anyPfc = false;
    for (uint32_t n = 0; n < cfg.topology.nodes.size(); ++n)
    {
        if (net.GetSwitch(n) && net.GetSwitch(n)->GetMmu()->PfcEnabled())
        {
            anyPfc = true;
        }
    }
    if (anyPfc)
    {
        deadlock.Start();
    }

    auto runStart = std::chrono::steady_clock::now();
    Simulator::Stop(cfg.stopTime);
    Simulator::Run();
    double runSeconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - runStart).count();
    Time simEnd = Simulator::Now();
    uint64_t events = Simulator::GetEventCount();
    recorder.Finish();
    ubRecorder.Finish(cfg.trace.gzipAbove);

    RunOutcome outcome;
    outcome.conservation = CheckConservation(net);
    const ConservationReport& cons = outcome.conservation;
    WriteFlows(net, cons, nics, deadlock.Detected(), outDir + "/flows.csv");
    std::string transportProblems;
    uint64_t transportStateBytes = 0;
    for (const Ptr<HostTransport>& nic : nics)
    {
        transportProblems += nic->AuditTransportState(*table);
        transportStateBytes = std::max(transportStateBytes, nic->GetPeakStateBytes());
    }
    WriteLinks(net, outDir + "/links.csv");

    // Counters across the fabric.
    uint64_t packetHops = 0;
    uint64_t pauses = 0;
    uint64_t violations = 0;
    uint64_t watchdogTriggers = 0;
    uint64_t ecnMarked = 0;
    nlohmann::json maxQueues = nlohmann::json::array();
    nlohmann::json bottleneck = nullptr;
    uint64_t worst = 0;
    const TopologySpec& spec = cfg.topology;
    for (uint32_t n = 0; n < spec.nodes.size(); ++n)
    {
        for (uint32_t p = 0; p < net.GetNPorts(n); ++p)
        {
            packetHops += net.GetDevice(n, p)->GetTxFrames();
            pauses += net.GetDevice(n, p)->GetPfcFramesSent();
        }
        Ptr<FabricSwitch> sw = net.GetSwitch(n);
        if (!sw)
        {
            continue;
        }
        violations += sw->GetHeadroomViolationBytes();
        watchdogTriggers += sw->GetWatchdogTriggers();
        ecnMarked += sw->GetEcnMarkedFrames();
        for (uint32_t p = 0; p < sw->GetNPorts(); ++p)
        {
            uint64_t q = sw->GetMaxQueueBytes(p);
            if (q > 0)
            {
                maxQueues.push_back({{"node", spec.nodes[n].name}, {"port", p}, {"bytes", q}});
            }
            if (q > worst)
            {
                worst = q;
                bottleneck = {{"node", spec.nodes[n].name}, {"port", p}, {"bytes", q}};
            }
        }
    }
    uint32_t finished = 0;
    Time lastFinish(0);
    for (const FlowRecord& f : table->All())
    {
        if (f.finished)
        {
            ++finished;
            lastFinish = std::max(lastFinish, f.finish);
        }
    }
    struct rusage usage;
    getrusage(RUSAGE_SELF, &usage);

    nlohmann::json& s = outcome.summary;
    s["scenario"] = cfg.name;
    s["scenario_file"] = cfg.file;
    s["version"] = FabricVersion();
    s["git_revision"] = FabricGitRevision();
    s["seed"] = cfg.seed;
    s["parameters"] = YamlToJson(cfg.document);
    s["sim_time_ns"] = simEnd.GetNanoSeconds();
    s["last_finish_ns"] = lastFinish.GetNanoSeconds();
    s["wall_s"] = runSeconds;
    s["build_s"] = buildSeconds;
    s["events"] = events;
    s["packet_hops"] = packetHops;
    s["events_per_s"] = runSeconds > 0 ? events / runSeconds : 0.0;
    s["packet_hops_per_s"] = runSeconds > 0 ? packetHops / runSeconds : 0.0;
    s["peak_rss_kb"] = usage.ru_maxrss;
    s["flows_total"] = table->GetN();
    s["flows_finished"] = finished;
    uint64_t retransmitted = 0;
    for (const FlowRecord& f : table->All())
    {
        retransmitted += f.retransmittedBytes;
    }
    s["transport"] = cfg.transport;
    s["counters"] = {{"sent_bytes", cons.total.sent},
                     {"retransmitted_bytes", retransmitted},
                     {"discarded_bytes", cons.total.discarded},
                     {"delivered_bytes", cons.total.delivered},
                     {"dropped_bytes", cons.total.dropped},
                     {"in_flight_bytes", cons.total.inFlight},
                     {"headroom_violation_bytes", violations},
                     {"ecn_marked_frames", ecnMarked},
                     {"pfc_frames_sent", pauses},
                     {"pfc_watchdog_triggers", watchdogTriggers}};
    s["conservation_ok"] = cons.Ok();
    s["transport_state_ok"] = transportProblems.empty();
    s["transport_state_bytes_max_per_nic"] = transportStateBytes;
    ubRecorder.Summarize(s);
    if (!transportProblems.empty())
    {
        s["transport_state_problems"] = transportProblems;
    }
    s["unbalanced_flows"] = cons.unbalancedFlows;
    s["max_queue_bytes"] = maxQueues;
    s["bottleneck"] = bottleneck;
    s["deadlock"] = {{"detected", deadlock.Detected()}};
    if (deadlock.Detected())
    {
        nlohmann::json cycle = nlohmann::json::array();
        for (const auto& q : deadlock.Cycle())
        {
            cycle.push_back({{"node", spec.nodes[q.node].name}, {"port", q.port},
                             {"priority", q.priority}});
        }
        s["deadlock"]["cycle"] = cycle;
        s["deadlock"]["time_ns"] = deadlock.DetectedAt().GetNanoSeconds();
        outcome.exitCode = EXIT_DEADLOCK;
        outcome.message = "PFC deadlock at " + std::to_string(deadlock.DetectedAt().GetMicroSeconds()) +
                          " us: cycle of paused queues " + deadlock.Describe();
    }
    else if (!cons.Ok() || !transportProblems.empty())
    {
        outcome.exitCode = EXIT_CONSERVATION_FAILED;
        outcome.message = !cons.Ok() ? "conservation violated: " +
                                           std::to_string(cons.unbalancedFlows) +
                                           " flows where sent != delivered + dropped + in flight"
                                     : "queue-pair state inconsistent: " + transportProblems;
    }
    if (collective)
    {
        std::string wrong = FinishCollective(*collective, cfg.collective, net, outDir, s);
        if (!wrong.empty() && outcome.exitCode == EXIT_OK)
        {
            outcome.exitCode = EXIT_CONSERVATION_FAILED;
            outcome.message = "collective result is not the exact sum: " + wrong;
        }
    }
    WriteFileAtomically(outDir + "/summary.json", s.dump(2) + "\n");
    Simulator::Destroy();
    return outcome;
}

} // namespace ns3
