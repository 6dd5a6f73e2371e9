#include "scenario-runner.h"

#include "attribute-values.h"
#include "collective-setup.h"
#include "config-error.h"
#include "deadlock-detector.h"
#include "fabric-builder.h"
#include "fabric-version.h"
#include "host/host-transport.h"
#include "partitioned-run.h"
#include "rank-exchange.h"
#include "rank-merge.h"
#include "run-recorder.h"
#include "run-totals.h"
#include "trace/csv-writer.h"
#include "ub-recorder.h"
#include "ub/ub-nic.h"

#include "ns3/config.h"
#include "ns3/object-factory.h"
#include "ns3/rng-seed-manager.h"
#include "ns3/simulator.h"
#include "ns3/string.h"

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <memory>
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

namespace
{

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
            throw ConfigError(cfg.file,
                              0,
                              name,
                              error.empty() ? "cannot set '" + value + "'" : error);
        }
    }
}

/// One transport per host, by scenario name: none for raw flows; null for the hosts another
/// rank simulates.
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
        if (!net.IsHostLocal(h))
        {
            nics.push_back(nullptr);
            continue;
        }
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
           const RunTotals& totals,
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
            << net.NodeName(net.NodeOfHost(f.dst)) << ',' << unsigned(f.priority) << ',' << f.bytes
            << ',' << f.start.GetNanoSeconds() << ',';
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
        std::string reason = f.finished ? "" : totals.stuck[i];
        std::replace(reason.begin(), reason.end(), ',', ';');
        row << ',' << reason << '\n';
    }
    out.Commit();
}

void
WriteLinks(const RunTotals& totals, const std::string& path)
{
    CsvWriter out(path, "node,port,peer,peer_port,rate_bps,tx_bytes,rx_bytes,tx_frames");
    for (const auto& [key, row] : totals.linkRows)
    {
        out.Row() << row;
    }
    out.Commit();
}

} // namespace

RunOutcome
ScenarioRunner::Run(const ScenarioConfig& cfg, const std::string& outDir, const PartitionPlan* plan)
{
    auto wallStart = std::chrono::steady_clock::now();
    if (plan)
    {
        if (cfg.transport == "raw")
        {
            throw ConfigError(cfg.file,
                              0,
                              "transport",
                              "a distributed run needs a transport (roce or ub): a raw flow "
                              "ends when its bytes are delivered or dropped anywhere in the "
                              "fabric, which no single rank sees");
        }
    }
    ApplyAttributes(cfg);
    RngSeedManager::SetSeed(static_cast<uint32_t>(cfg.seed == 0 ? 1 : cfg.seed));
    RngSeedManager::SetRun(1);
    // The timing wheel (simulator.scheduler, default) beats ns-3's binary heap, which beats
    // its default std::map (bench/PROFILE.md); all pop events in (time, insertion) order, so
    // results do not depend on the choice.
    ObjectFactory scheduler(cfg.scheduler);
    Simulator::SetScheduler(scheduler);

    FabricNetwork net;
    try
    {
        net = plan ? FabricNetwork::Build(cfg.topology,
                                          cfg.hashSalt,
                                          0,
                                          plan->partition.rankOfNode,
                                          plan->rank)
                   : FabricNetwork::Build(cfg.topology, cfg.hashSalt, 0);
    }
    catch (const std::invalid_argument& e)
    {
        throw ConfigError(cfg.file, 0, "switch.buffer", e.what());
    }
    std::unique_ptr<PartitionedRun> parts;
    if (plan)
    {
        parts = std::make_unique<PartitionedRun>(&net, *plan);
        parts->ConnectCuts();
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
        // Known before the flow is posted, so that every rank's copy of the record agrees (a
        // receiver must not end a reliable flow on delivery).
        rec.reliable = !nics.empty();
        table->Add(rec);
        if (!net.IsHostLocal(fs.src))
        {
            continue; // posted by the rank that simulates its host
        }
        if (nics.empty())
        {
            net.GetHost(fs.src)->StartFlowAt(id);
        }
        else
        {
            nics[fs.src]->StartFlowAt(id);
        }
    }
    if (cfg.transport == "ub")
    {
        // Strict ordering at a target needs the initiator's posting order on every rank.
        UbNic::AssignPostingOrder(*table);
    }
    for (const PacketLoss& loss : cfg.losses)
    {
        const FlowRecord& f = table->Get(loss.flow);
        uint32_t sink = f.verb == RdmaVerb::READ ? f.src : f.dst; // where the data arrives
        if (net.IsHostLocal(sink))
        {
            nics[sink]->LoseFirstTransmission(loss.flow, loss.packet);
        }
    }
    for (const LinkEvent& ev : cfg.linkEvents)
    {
        Simulator::Schedule(ev.at, &FabricNetwork::SetLinkUp, &net, ev.link, ev.up);
    }
    for (const auto& [at, flow] : cfg.cnpEvents)
    {
        if (net.IsHostLocal(cfg.flows[flow].src))
        {
            Simulator::Schedule(at, &HostTransport::InjectCnp, nics[cfg.flows[flow].src], flow);
        }
    }
    for (const StormEvent& ev : cfg.stormEvents)
    {
        if (!net.IsHostLocal(ev.host))
        {
            continue;
        }
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
    Ptr<CollectiveEngine> collective =
        SetupCollective(cfg.collective, net, nics, cfg.seed, parts.get());
    if (parts)
    {
        parts->InstallFinishRule();
    }
    else
    {
        table->SetAllFinishedCallback(MakeCallback(static_cast<void (*)()>(&Simulator::Stop)));
    }
    double buildSeconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - wallStart).count();

    // A rank writes its share of the traces into rank-<r>/; rank 0 merges them at the end.
    std::string traceDir = outDir;
    TraceConfig traceConfig = cfg.trace;
    if (plan)
    {
        traceDir = RankDirectory(outDir, plan->rank);
        std::filesystem::create_directories(traceDir);
        traceConfig.gzipAbove = UINT64_MAX; // compressed after merging
    }
    RunRecorder recorder(&net, traceConfig, traceDir);
    recorder.Start();
    UbRecorder ubRecorder(nics, traceDir);
    ubRecorder.Start();
    DeadlockDetector deadlock(&net, cfg.deadlockCheckInterval, cfg.deadlockTimeout);
    // Every rank must agree (a distributed run samples for the detector on all of them), also
    // one that simulates no switch: switches take their PFC setting from the attribute
    // defaults, so a switch built only to read them answers for the others.
    bool anyPfc = false;
    bool anySwitch = false;
    bool anyLocalSwitch = false;
    for (uint32_t n = 0; n < cfg.topology.nodes.size(); ++n)
    {
        anySwitch = anySwitch || cfg.topology.nodes[n].isSwitch;
        if (Ptr<FabricSwitch> sw = net.GetSwitch(n))
        {
            anyLocalSwitch = true;
            anyPfc = anyPfc || sw->GetMmu()->PfcEnabled();
        }
    }
    if (anySwitch && !anyLocalSwitch)
    {
        anyPfc = CreateObject<FabricSwitch>()->GetMmu()->PfcEnabled();
    }
    if (anyPfc && parts)
    {
        parts->ConnectDeadlockDetector(&deadlock); // cycles may cross ranks
    }
    else if (anyPfc)
    {
        deadlock.Start();
    }

    auto runStart = std::chrono::steady_clock::now();
    Simulator::Stop(cfg.stopTime);
    Simulator::Run();
    double runSeconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - runStart).count();
    Time simEnd = Simulator::Now();
    recorder.Finish();
    ubRecorder.Finish(traceConfig.gzipAbove);

    RunTotals totals = CollectTotals(net, nics, deadlock, Simulator::GetEventCount());
    if (collective)
    {
        totals.collective = CollectiveNetworkCounters(*collective, net);
    }
    {
        nlohmann::json ub;
        ubRecorder.Summarize(ub);
        if (ub.contains("ub"))
        {
            totals.ub = ub["ub"];
        }
    }
    RunOutcome outcome;
    nlohmann::json& s = outcome.summary;
    if (plan)
    {
        double syncWait = RankExchange::SyncWaitSeconds();
        nlohmann::json rankInfo = {{"rank", plan->rank},
                                   {"wall_s", runSeconds},
                                   {"build_s", buildSeconds},
                                   {"events", totals.events},
                                   {"packet_hops", totals.packetHops},
                                   {"peak_rss_kb", totals.peakRssKb},
                                   {"sync_wait_s", syncWait},
                                   {"syncs", RankExchange::SyncCount()},
                                   {"notices_sent", parts->GetNoticesSent()},
                                   {"sim_time_ps", simEnd.GetPicoSeconds()}};
        WriteRankPartial(traceDir, rankInfo, TotalsToJson(totals), *table);
        RankExchange::Barrier();
        if (plan->rank != 0)
        {
            Simulator::Destroy();
            return outcome; // rank 0 writes the merged results
        }
        RankMerge merged = MergeRanks(outDir, plan->size, cfg.trace.gzipAbove, *table);
        totals = merged.totals;
        runSeconds = merged.wallSeconds;
        simEnd = merged.simEnd;
        s["distributed"] =
            DescribeDistributedRun(cfg.topology, *plan, merged, parts->GetDrainDelay());
        s["distributed"]["notice_delay_ps"] = parts->GetMaxNoticeDelay().GetPicoSeconds();
    }
    outcome.conservation = BalanceFlows(*table, totals.inFlight);
    const ConservationReport& cons = outcome.conservation;
    WriteFlows(net, cons, totals, outDir + "/flows.csv");
    WriteLinks(totals, outDir + "/links.csv");

    nlohmann::json maxQueues = nlohmann::json::array();
    nlohmann::json bottleneck = nullptr;
    uint64_t worst = 0;
    const TopologySpec& spec = cfg.topology;
    for (const auto& [n, p, q] : totals.maxQueues)
    {
        maxQueues.push_back({{"node", spec.nodes[n].name}, {"port", p}, {"bytes", q}});
        if (q > worst)
        {
            worst = q;
            bottleneck = {{"node", spec.nodes[n].name}, {"port", p}, {"bytes", q}};
        }
    }
    uint32_t finished = 0;
    Time lastFinish(0);
    uint64_t retransmitted = 0;
    for (const FlowRecord& f : table->All())
    {
        if (f.finished)
        {
            ++finished;
            lastFinish = std::max(lastFinish, f.finish);
        }
        retransmitted += f.retransmittedBytes;
    }

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
    s["events"] = totals.events;
    s["packet_hops"] = totals.packetHops;
    s["events_per_s"] = runSeconds > 0 ? totals.events / runSeconds : 0.0;
    s["packet_hops_per_s"] = runSeconds > 0 ? totals.packetHops / runSeconds : 0.0;
    s["peak_rss_kb"] = totals.peakRssKb;
    s["flows_total"] = table->GetN();
    s["flows_finished"] = finished;
    s["transport"] = cfg.transport;
    s["counters"] = {{"sent_bytes", cons.total.sent},
                     {"retransmitted_bytes", retransmitted},
                     {"discarded_bytes", cons.total.discarded},
                     {"delivered_bytes", cons.total.delivered},
                     {"dropped_bytes", cons.total.dropped},
                     {"in_flight_bytes", cons.total.inFlight},
                     {"headroom_violation_bytes", totals.violations},
                     {"ecn_marked_frames", totals.ecnMarked},
                     {"pfc_frames_sent", totals.pauses},
                     {"pfc_watchdog_triggers", totals.watchdogTriggers}};
    s["conservation_ok"] = cons.Ok();
    s["transport_state_ok"] = totals.transportProblems.empty();
    s["transport_state_bytes_max_per_nic"] = totals.transportStateBytes;
    if (totals.ub.is_object())
    {
        s["ub"] = totals.ub;
    }
    if (!totals.transportProblems.empty())
    {
        s["transport_state_problems"] = totals.transportProblems;
    }
    s["unbalanced_flows"] = cons.unbalancedFlows;
    s["max_queue_bytes"] = maxQueues;
    s["bottleneck"] = bottleneck;
    s["deadlock"] = {{"detected", totals.deadlock}};
    if (totals.deadlock)
    {
        Time at = PicoSeconds(totals.deadlockAtPs);
        s["deadlock"]["cycle"] = totals.deadlockCycle;
        s["deadlock"]["time_ns"] = at.GetNanoSeconds();
        outcome.exitCode = EXIT_DEADLOCK;
        outcome.message = "PFC deadlock at " + std::to_string(at.GetMicroSeconds()) +
                          " us: cycle of paused queues " + totals.deadlockText;
    }
    else if (!cons.Ok() || !totals.transportProblems.empty())
    {
        outcome.exitCode = EXIT_CONSERVATION_FAILED;
        outcome.message = !cons.Ok()
                              ? "conservation violated: " + std::to_string(cons.unbalancedFlows) +
                                    " flows where sent != delivered + dropped + in flight"
                              : "queue-pair state inconsistent: " + totals.transportProblems;
    }
    if (collective)
    {
        std::string wrong = FinishCollective(*collective,
                                             cfg.collective,
                                             totals.collective,
                                             plan != nullptr,
                                             outDir,
                                             s);
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
