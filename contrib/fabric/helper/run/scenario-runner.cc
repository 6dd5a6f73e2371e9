#include "run/scenario-runner.h"

#include "build/construction-defaults.h"
#include "build/fabric-builder.h"
#include "build/link-faults.h"
#include "build/path-hops.h"
#include "build/scoped-attribute-defaults.h"
#include "config/attribute-values.h"
#include "config/config-error.h"
#include "distributed/partitioned-run.h"
#include "distributed/rank-exchange.h"
#include "distributed/rank-merge.h"
#include "host/host-transport.h"
#include "host/nic-transport.h"
#include "record/conweave-recorder.h"
#include "record/deadlock-detector.h"
#include "record/flow-slowdown.h"
#include "record/ideal-fct.h"
#include "record/run-recorder.h"
#include "record/run-totals.h"
#include "record/ub-recorder.h"
#include "roce/rdma-nic.h"
#include "run/base-bdp.h"
#include "run/collective-setup.h"
#include "run/fabric-version.h"
#include "run/job-setup.h"
#include "switch/switch-stages.h"
#include "trace/csv-writer.h"
#include "ub/ub-nic.h"

#include "ns3/boolean.h"
#include "ns3/object-factory.h"
#include "ns3/rng-seed-manager.h"
#include "ns3/simulator.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
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

namespace
{

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
    SetConstructionDefaults(factory);
    // Every NIC asks the same table how many switches a path crosses (Swift's hop scaling).
    auto pathHops = std::make_shared<PathHops>(net.Spec());
    std::shared_ptr<BaseBdp> baseBdp; // made when a NIC has a RateWindow
    for (uint32_t h = 0; h < net.GetNHosts(); ++h)
    {
        if (!net.IsHostLocal(h))
        {
            nics.push_back(nullptr);
            continue;
        }
        Ptr<HostTransport> nic = factory.Create<HostTransport>();
        nic->Install(net.GetHost(h));
        if (auto nicTransport = DynamicCast<NicTransport>(nic))
        {
            nicTransport->SetPathHops(
                [pathHops, h](uint32_t dst) { return pathHops->Between(h, dst); });
        }
        auto rdma = DynamicCast<RdmaNic>(nic);
        if (rdma && rdma->GetRateWindowMode() != RdmaNic::RATE_WINDOW_OFF)
        {
            // RateWindow: the HPCC simulator's pairBdp / maxBdp, one table for every NIC.
            if (!baseBdp)
            {
                UintegerValue mtu;
                rdma->GetAttribute("Mtu", mtu);
                baseBdp = std::make_shared<BaseBdp>(net.Spec(), mtu.Get());
            }
            rdma->SetBaseBdp([baseBdp, h](uint32_t dst) {
                return dst == RdmaNic::kAllHosts ? baseBdp->MaxBdp() : baseBdp->Bdp(h, dst);
            });
        }
        net.GetNode(net.NodeOfHost(h))->AggregateObject(nic);
        nics.push_back(nic);
    }
    return nics;
}

void
WriteFlows(const FabricNetwork& net,
           const ConservationReport& cons,
           const RunTotals& totals,
           const std::vector<Time>& ideal,
           const std::string& path)
{
    CsvWriter out(path,
                  "flow_id,src,dst,priority,bytes,start_ns,finish_ns,fct_ns,sent_bytes,"
                  "delivered_bytes,dropped_bytes,in_flight_bytes,ecn_marked_frames,"
                  "retransmitted_bytes,discarded_bytes,cnps,launch_ns,executed_ns,stuck_reason,"
                  "ideal_fct_ns,slowdown,spurious_bytes");
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
        row << ',' << reason << ',' << ideal[i].GetNanoSeconds() << ',';
        if (f.finished && ideal[i].IsStrictlyPositive())
        {
            char text[32];
            std::snprintf(text, sizeof(text), "%.4f", Slowdown(f, ideal[i]));
            row << text;
        }
        // Appended last, so parsers of the earlier columns keep working: retransmitted bytes
        // whose original the receiver already had (docs/models.md#retransmission-timeout).
        row << ',' << f.spuriousBytes << '\n';
    }
    out.Commit();
}

/// requests.csv: the host path stage boundaries of every request whose NIC has a host path
/// (docs/models.md#remote-read-stages), in picoseconds; written only when there is one.
void
WriteRequestStages(const FabricNetwork& net, const std::string& path)
{
    Ptr<FlowTable> table = net.GetFlowTable();
    bool any = false;
    for (const FlowRecord& f : table->All())
    {
        any |= f.stagesTraced;
    }
    if (!any)
    {
        return;
    }
    static const char* const kVerbs[] = {"send", "write", "read", "load", "store", "atomic"};
    CsvWriter out(path,
                  "flow_id,src,dst,verb,bytes,post_ps,submitted_ps,launch_ps,executed_ps,"
                  "answered_ps,finish_ps,latency_ps");
    for (uint32_t i = 0; i < table->GetN(); ++i)
    {
        const FlowRecord& f = table->Get(i);
        if (!f.stagesTraced)
        {
            continue;
        }
        auto& row = out.Row();
        row << i << ',' << net.NodeName(net.NodeOfHost(f.src)) << ','
            << net.NodeName(net.NodeOfHost(f.dst)) << ',' << kVerbs[static_cast<int>(f.verb)] << ','
            << f.bytes << ',' << f.start.GetPicoSeconds() << ',';
        // Empty where the request has not got that far.
        auto at = [&row](bool reached, Time t) {
            if (reached)
            {
                row << t.GetPicoSeconds();
            }
            row << ',';
        };
        at(f.submitted.IsStrictlyPositive() || f.launch.IsStrictlyPositive(), f.submitted);
        at(f.sentBytes > 0 || f.finished || f.launch.IsStrictlyPositive(), f.launch);
        at(f.executed.IsStrictlyPositive(), f.executed);
        at(f.answered.IsStrictlyPositive(), f.answered);
        at(f.finished, f.finish);
        if (f.finished)
        {
            row << (f.finish - f.start).GetPicoSeconds();
        }
        row << '\n';
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

void
CheckDistributable(const ScenarioConfig& cfg, const PartitionPlan* plan)
{
    if (plan && cfg.transport == "raw")
    {
        throw ConfigError(cfg.file,
                          0,
                          "transport",
                          "a distributed run needs a transport (roce or ub): a raw flow "
                          "ends when its bytes are delivered or dropped anywhere in the "
                          "fabric, which no single rank sees");
    }
    for (size_t i = 0; plan && i < cfg.flows.size(); ++i)
    {
        if (cfg.flows[i].uno)
        {
            // A UNO flow finishes where its last packet arrives, on the target's rank only.
            throw ConfigError(cfg.file,
                              cfg.flows[i].serviceLine,
                              cfg.flows[i].serviceKey,
                              "service: uno runs in one process: a UNO flow finishes at its "
                              "target, which the sender's rank does not see");
        }
    }
}

void
SeedAndScheduler(const ScenarioConfig& cfg)
{
    RngSeedManager::SetSeed(static_cast<uint32_t>(cfg.seed == 0 ? 1 : cfg.seed));
    RngSeedManager::SetRun(1);
    // The timing wheel (simulator.scheduler, default) beats ns-3's binary heap, which beats
    // its default std::map (bench/PROFILE.md); all pop events in (time, insertion) order, so
    // results do not depend on the choice.
    ObjectFactory scheduler(cfg.scheduler);
    Simulator::SetScheduler(scheduler);
}

/// One run from the fabric to the results; ScenarioRunner::Run calls the steps in order.
class ScenarioRun
{
  public:
    ScenarioRun(const ScenarioConfig& cfg, const std::string& outDir, const PartitionPlan* plan)
        : m_cfg(cfg),
          m_outDir(outDir),
          m_plan(plan)
    {
    }

    /// The nodes, devices and channels (this rank's part of them), and the NICs.
    void BuildFabric();
    /// Every flow of the workload into the flow table; this rank's hosts start theirs.
    void PostFlows();
    /// Scripted losses, link failures, CNPs and PFC storms.
    void ScheduleEvents();
    /// The collective engine, and what ends the run when every flow is done.
    void SetUpCompletion();
    /// Traces and the deadlock detector.
    void StartRecording(double buildSeconds);
    void Simulate();
    /// The results: written on rank 0 (or a single process); a rank other than 0 writes its
    /// part for rank 0 and returns an empty summary.
    RunOutcome Finish();

  private:
    bool AnySwitchHasPfc() const;
    /// When the scenario's scripted events happen: link changes, CNPs, PFC storms.
    std::vector<Time> ScriptedEventTimes() const;
    /// Rank 0 merges every rank's part; false on the other ranks (nothing more to do).
    bool MergeRankResults(nlohmann::json& summary);
    void Summarize(const ConservationReport& cons, RunOutcome& outcome) const;

    const ScenarioConfig& m_cfg;
    std::string m_outDir;
    const PartitionPlan* m_plan;
    FabricNetwork m_net;
    std::unique_ptr<PartitionedRun> m_parts;
    std::vector<Ptr<HostTransport>> m_nics;
    Ptr<CollectiveEngine> m_collective;
    Ptr<JobRunner> m_jobs;
    std::string m_traceDir;
    TraceConfig m_trace;
    /// Before the samplers: their tickers unregister from it when they go.
    std::unique_ptr<FabricIdleness> m_idleness;
    std::unique_ptr<RunRecorder> m_recorder;
    std::unique_ptr<UbRecorder> m_ubRecorder;
    std::unique_ptr<ConWeaveRecorder> m_conweaveRecorder; ///< switch.lb: conweave
    std::unique_ptr<DeadlockDetector> m_deadlock;
    std::unique_ptr<LinkFaults> m_linkFaults;
    double m_buildSeconds = 0;
    double m_runSeconds = 0;
    Time m_simEnd;
    RunTotals m_totals;
};

void
ScenarioRun::BuildFabric()
{
    try
    {
        m_net = m_plan ? FabricNetwork::Build(m_cfg.topology,
                                              m_cfg.hashSalt,
                                              0,
                                              m_plan->partition.rankOfNode,
                                              m_plan->rank)
                       : FabricNetwork::Build(m_cfg.topology, m_cfg.hashSalt, 0);
    }
    catch (const SwitchStageError& e)
    {
        throw ConfigError(m_cfg.file, 0, "", e.what()); // the message names the attribute
    }
    catch (const std::invalid_argument& e)
    {
        throw ConfigError(m_cfg.file, 0, "switch.buffer", e.what());
    }
    if (m_plan)
    {
        m_parts = std::make_unique<PartitionedRun>(&m_net, *m_plan);
        m_parts->ConnectCuts();
    }
    m_nics = InstallTransports(m_net, m_cfg.transport);
}

void
ScenarioRun::PostFlows()
{
    Ptr<FlowTable> table = m_net.GetFlowTable();
    for (const FlowSpec& fs : m_cfg.flows)
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
        rec.entropy = FlowEntropy(id, m_cfg.seed);
        rec.verb = fs.verb;
        rec.endpoint = fs.endpoint;
        rec.order = fs.order;
        rec.after = fs.after;
        rec.uno = fs.uno;
        rec.rateSchedule = fs.rateSchedule;
        rec.period = fs.period;
        rec.onTime = fs.onTime;
        // Known before the flow is posted, so that every rank's copy of the record agrees (a
        // receiver must not end a reliable flow on delivery).
        rec.reliable = !m_nics.empty();
        table->Add(rec);
        if (!m_net.IsHostLocal(fs.src))
        {
            continue; // posted by the rank that simulates its host
        }
        if (m_nics.empty())
        {
            m_net.GetHost(fs.src)->StartFlowAt(id);
        }
        else
        {
            m_nics[fs.src]->StartFlowAt(id);
        }
    }
    if (m_cfg.transport == "ub")
    {
        // Strict ordering at a target needs the initiator's posting order on every rank.
        UbNic::AssignPostingOrder(*table);
    }
}

void
ScenarioRun::ScheduleEvents()
{
    for (const PacketLoss& loss : m_cfg.losses)
    {
        const FlowRecord& f = m_net.GetFlowTable()->Get(loss.flow);
        uint32_t sink = DataToRequester(f.verb) ? f.src : f.dst; // where the data arrives
        if (m_net.IsHostLocal(sink))
        {
            m_nics[sink]->LoseFirstTransmission(loss.flow, loss.packet);
        }
    }
    m_linkFaults = std::make_unique<LinkFaults>(m_net);
    for (const LinkEvent& ev : m_cfg.linkEvents)
    {
        Simulator::Schedule(ev.at, &LinkFaults::Apply, m_linkFaults.get(), ev);
    }
    for (const auto& [at, flow] : m_cfg.cnpEvents)
    {
        uint32_t src = m_cfg.flows[flow].src;
        if (m_net.IsHostLocal(src))
        {
            Simulator::Schedule(at, &HostTransport::InjectCnp, m_nics[src], flow);
        }
    }
    for (const StormEvent& ev : m_cfg.stormEvents)
    {
        if (!m_net.IsHostLocal(ev.host))
        {
            continue;
        }
        Ptr<FabricHost> host = m_net.GetHost(ev.host);
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
}

void
ScenarioRun::SetUpCompletion()
{
    // Samplers sleep through idle time (unless told to tick throughout). Collectives and job
    // phases announce their launches to wake them; other ranks' wires would wake the fabric
    // unseen, so distributed runs tick throughout.
    m_idleness = std::make_unique<FabricIdleness>(&m_net,
                                                  ScriptedEventTimes(),
                                                  !m_plan && m_cfg.trace.sleepWhenIdle);
    auto announce = MakeCallback(&FabricIdleness::Announce, m_idleness.get());
    // Collectives: the engine adds its transfers as flows and posts them as they become eligible.
    m_collective =
        SetupCollective(m_cfg.collective, m_net, m_nics, m_cfg.seed, m_parts.get(), announce);
    // Jobs: the flow table is empty between communication phases, so the runner, not the
    // table, says when the run is over.
    m_jobs = SetupJobs(m_cfg.jobs, m_net, m_nics, m_cfg.seed, m_parts.get(), announce);
    // A SHARP member waiting for results retransmits on a timer, with no frame anywhere.
    if (Ptr<CollectiveEngine> collective = m_collective)
    {
        m_idleness->AddBusyCheck([collective]() { return collective->SharpInFlight(); });
    }
    if (Ptr<JobRunner> jobs = m_jobs)
    {
        m_idleness->AddBusyCheck([jobs]() { return jobs->SharpInFlight(); });
    }
    if (m_parts)
    {
        m_parts->InstallFinishRule();
    }
    else if (!m_jobs)
    {
        m_net.GetFlowTable()->SetAllFinishedCallback(
            MakeCallback(static_cast<void (*)()>(&Simulator::Stop)));
    }
}

std::vector<Time>
ScenarioRun::ScriptedEventTimes() const
{
    std::vector<Time> times;
    for (const LinkEvent& ev : m_cfg.linkEvents)
    {
        times.push_back(ev.at);
    }
    for (const auto& ev : m_cfg.cnpEvents)
    {
        times.push_back(ev.first);
    }
    for (const StormEvent& ev : m_cfg.stormEvents)
    {
        times.push_back(ev.at);
    }
    return times;
}

bool
ScenarioRun::AnySwitchHasPfc() const
{
    // Every rank must agree (a distributed run samples for the detector on all of them), also
    // one that simulates no switch: switches take their PFC setting from the attribute's
    // default, which then answers for the others.
    bool anyPfc = false;
    bool anySwitch = false;
    bool anyLocalSwitch = false;
    for (uint32_t n = 0; n < m_cfg.topology.nodes.size(); ++n)
    {
        anySwitch = anySwitch || m_cfg.topology.nodes[n].isSwitch;
        if (Ptr<FabricSwitch> sw = m_net.GetSwitch(n))
        {
            anyLocalSwitch = true;
            anyPfc = anyPfc || sw->GetMmu()->PfcEnabled();
        }
    }
    if (anySwitch && !anyLocalSwitch)
    {
        TypeId::AttributeInformation pfc = AttributeDefault("ns3::SharedBufferMmu::PfcEnabled");
        anyPfc = DynamicCast<const BooleanValue>(pfc.initialValue)->Get();
    }
    return anyPfc;
}

void
ScenarioRun::StartRecording(double buildSeconds)
{
    m_buildSeconds = buildSeconds;
    // A rank writes its share of the traces into rank-<r>/; rank 0 merges them at the end.
    m_traceDir = m_outDir;
    m_trace = m_cfg.trace;
    if (m_plan)
    {
        m_traceDir = RankDirectory(m_outDir, m_plan->rank);
        std::filesystem::create_directories(m_traceDir);
        m_trace.gzipAbove = UINT64_MAX; // compressed after merging
    }
    m_recorder = std::make_unique<RunRecorder>(&m_net, m_trace, m_traceDir);
    m_recorder->SetIdleness(m_idleness.get());
    m_recorder->Start();
    m_ubRecorder = std::make_unique<UbRecorder>(m_nics, m_traceDir);
    m_ubRecorder->Start();
    m_conweaveRecorder = std::make_unique<ConWeaveRecorder>(&m_net, m_traceDir);
    m_conweaveRecorder->Start();
    m_deadlock = std::make_unique<DeadlockDetector>(&m_net,
                                                    m_cfg.deadlockCheckInterval,
                                                    m_cfg.deadlockTimeout);
    m_deadlock->SetIdleness(m_idleness.get());
    if (!AnySwitchHasPfc())
    {
        return;
    }
    if (m_parts)
    {
        m_parts->ConnectDeadlockDetector(m_deadlock.get()); // cycles may cross ranks
    }
    else
    {
        m_deadlock->Start();
    }
}

void
ScenarioRun::Simulate()
{
    auto runStart = std::chrono::steady_clock::now();
    Simulator::Stop(m_cfg.stopTime);
    Simulator::Run();
    m_runSeconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - runStart).count();
    m_simEnd = Simulator::Now();
    m_recorder->Finish();
    m_ubRecorder->Finish(m_trace.gzipAbove);
    m_conweaveRecorder->Finish(m_trace.gzipAbove);

    m_totals = CollectTotals(m_net, m_nics, *m_deadlock, Simulator::GetEventCount());
    if (m_collective)
    {
        m_totals.collective = CollectiveNetworkCounters(*m_collective, m_net);
    }
    nlohmann::json ub;
    m_ubRecorder->Summarize(ub);
    if (ub.contains("ub"))
    {
        m_totals.ub = ub["ub"];
    }
}

bool
ScenarioRun::MergeRankResults(nlohmann::json& summary)
{
    FlowTable& table = *m_net.GetFlowTable();
    nlohmann::json rankInfo = {{"rank", m_plan->rank},
                               {"wall_s", m_runSeconds},
                               {"build_s", m_buildSeconds},
                               {"events", m_totals.events},
                               {"packet_hops", m_totals.packetHops},
                               {"peak_rss_kb", m_totals.peakRssKb},
                               {"sync_wait_s", RankExchange::SyncWaitSeconds()},
                               {"syncs", RankExchange::SyncCount()},
                               {"notices_sent", m_parts->GetNoticesSent()},
                               {"sim_time_ps", m_simEnd.GetPicoSeconds()}};
    WriteRankPartial(m_traceDir, rankInfo, TotalsToJson(m_totals), table);
    RankExchange::Barrier();
    if (m_plan->rank != 0)
    {
        return false; // rank 0 writes the merged results
    }
    RankMerge merged = MergeRanks(m_outDir, m_plan->size, m_cfg.trace.gzipAbove, table);
    m_totals = merged.totals;
    m_runSeconds = merged.wallSeconds;
    m_simEnd = merged.simEnd;
    summary["distributed"] =
        DescribeDistributedRun(m_cfg.topology, *m_plan, merged, m_parts->GetDrainDelay());
    summary["distributed"]["notice_delay_ps"] = m_parts->GetMaxNoticeDelay().GetPicoSeconds();
    return true;
}

RunOutcome
ScenarioRun::Finish()
{
    RunOutcome outcome;
    if (m_plan && !MergeRankResults(outcome.summary))
    {
        return outcome;
    }
    outcome.conservation = BalanceFlows(*m_net.GetFlowTable(), m_totals.inFlight);
    std::vector<Time> ideal = IdealFcts(m_cfg.topology, m_cfg.transport, *m_net.GetFlowTable());
    WriteFlows(m_net, outcome.conservation, m_totals, ideal, m_outDir + "/flows.csv");
    WriteLinks(m_totals, m_outDir + "/links.csv");
    if (!m_plan)
    {
        WriteRequestStages(m_net, m_outDir + "/requests.csv"); // the stage times stay per rank
    }
    if (!m_cfg.linkEvents.empty())
    {
        m_linkFaults->WriteCsv(m_outDir + "/link-events.csv");
    }
    Summarize(outcome.conservation, outcome);
    outcome.summary["slowdown"] = SlowdownSummary(*m_net.GetFlowTable(), ideal);
    if (m_collective)
    {
        std::string wrong = FinishCollective(*m_collective,
                                             m_cfg.collective,
                                             m_totals.collective,
                                             m_plan != nullptr,
                                             m_outDir,
                                             outcome.summary);
        if (!wrong.empty() && outcome.exitCode == EXIT_OK)
        {
            outcome.exitCode = EXIT_CONSERVATION_FAILED;
            outcome.message = "collective result is not the exact sum: " + wrong;
        }
    }
    if (m_jobs)
    {
        std::string wrong = FinishJobs(*m_jobs, m_outDir, outcome.summary);
        if (!wrong.empty() && outcome.exitCode == EXIT_OK)
        {
            outcome.exitCode = EXIT_CONSERVATION_FAILED;
            outcome.message = wrong;
        }
    }
    WriteFileAtomically(m_outDir + "/summary.json", outcome.summary.dump(2) + "\n");
    return outcome;
}

void
ScenarioRun::Summarize(const ConservationReport& cons, RunOutcome& outcome) const
{
    const RunTotals& totals = m_totals;
    nlohmann::json& s = outcome.summary;
    nlohmann::json maxQueues = nlohmann::json::array();
    nlohmann::json bottleneck = nullptr;
    uint64_t worst = 0;
    const TopologySpec& spec = m_cfg.topology;
    for (const auto& [n, p, q] : totals.maxQueues)
    {
        maxQueues.push_back({{"node", spec.nodes[n].name}, {"port", p}, {"bytes", q}});
        if (q > worst)
        {
            worst = q;
            bottleneck = {{"node", spec.nodes[n].name}, {"port", p}, {"bytes", q}};
        }
    }
    Ptr<FlowTable> table = m_net.GetFlowTable();
    uint32_t finished = 0;
    Time lastFinish(0);
    uint64_t retransmitted = 0;
    uint64_t spurious = 0;
    uint32_t spuriousFlows = 0;
    for (const FlowRecord& f : table->All())
    {
        if (f.finished)
        {
            ++finished;
            lastFinish = std::max(lastFinish, f.finish);
        }
        retransmitted += f.retransmittedBytes;
        spurious += f.spuriousBytes;
        spuriousFlows += f.spuriousBytes > 0;
    }

    s["scenario"] = m_cfg.name;
    s["scenario_file"] = m_cfg.file;
    s["version"] = FabricVersion();
    s["git_revision"] = FabricGitRevision();
    s["seed"] = m_cfg.seed;
    s["parameters"] = YamlToJson(m_cfg.document);
    s["sim_time_ns"] = m_simEnd.GetNanoSeconds();
    s["last_finish_ns"] = lastFinish.GetNanoSeconds();
    s["wall_s"] = m_runSeconds;
    s["build_s"] = m_buildSeconds;
    s["events"] = totals.events;
    s["packet_hops"] = totals.packetHops;
    s["events_per_s"] = m_runSeconds > 0 ? totals.events / m_runSeconds : 0.0;
    s["packet_hops_per_s"] = m_runSeconds > 0 ? totals.packetHops / m_runSeconds : 0.0;
    s["peak_rss_kb"] = totals.peakRssKb;
    s["flows_total"] = table->GetN();
    s["flows_finished"] = finished;
    s["transport"] = m_cfg.transport;
    if (!m_cfg.warnings.empty())
    {
        s["warnings"] = m_cfg.warnings; // what fabric-run printed as warnings when it loaded
    }
    s["counters"] = {{"sent_bytes", cons.total.sent},
                     {"retransmitted_bytes", retransmitted},
                     {"spurious_retransmitted_bytes", spurious},
                     {"spurious_retransmission_flows", spuriousFlows},
                     {"discarded_bytes", cons.total.discarded},
                     {"delivered_bytes", cons.total.delivered},
                     {"dropped_bytes", cons.total.dropped},
                     {"in_flight_bytes", cons.total.inFlight},
                     {"headroom_violation_bytes", totals.violations},
                     {"ecn_marked_frames", totals.ecnMarked},
                     {"pfc_frames_sent", totals.pauses},
                     {"pfc_watchdog_triggers", totals.watchdogTriggers}};
    bool anyErrorEvent = std::any_of(m_cfg.linkEvents.begin(),
                                     m_cfg.linkEvents.end(),
                                     [](const LinkEvent& ev) { return ev.errorRate.has_value(); });
    if (totals.linkErrorFrames > 0 || anyErrorEvent)
    {
        // Frames lost on working cables (link.loss_rate, events error_rate): also in
        // dropped_bytes, reason 6 of the Drop trace where a switch received them.
        s["counters"]["link_error_frames"] = totals.linkErrorFrames;
    }
    if (totals.cbfc)
    {
        // Credit-based flow control: credit frames cost wire time and bytes like any frame.
        s["counters"]["credit_frames_sent"] = totals.creditFrames;
        s["counters"]["credit_bytes_sent"] = totals.creditBytes;
        s["counters"]["credit_stalls"] = totals.creditStalls;
    }
    if (m_cfg.transport == "roce")
    {
        // What reordering or loss cost a RoCE run: data packets sent again (their bytes are
        // retransmitted_bytes) and the NAKs receivers sent (go-back-N: one per gap).
        s["counters"]["retransmitted_packets"] = totals.roceRetransmittedPackets;
        s["counters"]["naks_sent"] = totals.roceNaksSent;
    }
    if (totals.trimEnabled)
    {
        // Packet trimming: payloads cut (also in dropped_bytes, reason 5 of the Drop trace).
        s["counters"]["trimmed_frames"] = totals.trimmedFrames;
        s["counters"]["trimmed_bytes"] = totals.trimmedBytes;
    }
    s["conservation_ok"] = cons.Ok();
    s["transport_state_ok"] = totals.transportProblems.empty();
    s["transport_state_bytes_max_per_nic"] = totals.transportStateBytes;
    if (totals.ub.is_object())
    {
        s["ub"] = totals.ub;
    }
    if (m_conweaveRecorder)
    {
        m_conweaveRecorder->Summarize(s); // this rank's switches
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
}

} // namespace

RunOutcome
ScenarioRunner::Run(const ScenarioConfig& cfg,
                    const std::string& outDir,
                    const PartitionPlan* plan,
                    RunTeardown teardown)
{
    auto wallStart = std::chrono::steady_clock::now();
    CheckDistributable(cfg, plan);
    // LoadScenario takes absent keys' defaults from the attributes as they are: a run must
    // leave them as it found them, or a scenario loaded next would inherit its settings.
    auto defaults = std::make_unique<ScopedAttributeDefaults>(cfg.file, cfg.attributes);
    SeedAndScheduler(cfg);
    auto run = std::make_unique<ScenarioRun>(cfg, outDir, plan);

    // A scenario refused half-built (a switch stage that cannot serve a port, a buffer too
    // small for its headroom) must not leave its nodes and events to the next run of the
    // process: the next scenario would find the refused one's switches.
    struct DestroyOnThrow
    {
        bool armed = true;

        ~DestroyOnThrow()
        {
            if (armed)
            {
                Simulator::Destroy();
            }
        }
    } cleanup;

    run->BuildFabric();
    run->PostFlows();
    run->ScheduleEvents();
    run->SetUpCompletion();
    run->StartRecording(
        std::chrono::duration<double>(std::chrono::steady_clock::now() - wallStart).count());
    run->Simulate();
    RunOutcome outcome = run->Finish();
    cleanup.armed = false;
    if (teardown == RunTeardown::ProcessExit)
    {
        // Disposing of every node, device and pending event, then freeing them, and putting
        // the attribute defaults back are a millisecond of work (bench/PROFILE.md, round 7)
        // that the process's exit makes moot.
        run.release();
        defaults.release();
        return outcome;
    }
    Simulator::Destroy();
    return outcome;
}

} // namespace ns3
