#include "collective-setup.h"

#include "config-error.h"

#include "collective/collective-algorithm.h"

#include "ns3/object-factory.h"
#include "ns3/simulator.h"

#include <algorithm>

namespace ns3
{

namespace
{

std::string
AlgorithmType(const std::string& name)
{
    if (name == "ring" || name == "interleaved-ring")
    {
        return "ns3::RingAllReduce";
    }
    if (name == "hierarchical")
    {
        return "ns3::HierarchicalAllReduce";
    }
    if (name == "direct")
    {
        return "ns3::DirectAllReduce";
    }
    return "ns3::SharpAllReduce";
}

void
StopWhenAllDone(Ptr<FlowTable> table)
{
    if (table->GetFinishedCount() == table->GetN())
    {
        Simulator::Stop();
    }
}

} // namespace

CollectivePlan
BuildCollectivePlan(const CollectiveConfig& cfg)
{
    CollectiveJob job;
    job.ranks = static_cast<uint32_t>(cfg.hostOfRank.size());
    job.gpusPerServer = cfg.gpusPerServer;
    job.serverOfRank = cfg.serverOfRank;
    job.localOfRank = cfg.localOfRank;
    job.messageBytes = cfg.messageBytes;
    CollectivePlan plan(job);
    ObjectFactory factory(AlgorithmType(cfg.algorithm));
    Ptr<CollectiveAlgorithm> algorithm = factory.Create<CollectiveAlgorithm>();
    algorithm->Build(plan);
    plan.ApplyNicFailures(cfg.failures);
    return plan;
}

Ptr<CollectiveEngine>
SetupCollective(const CollectiveConfig& cfg,
                FabricNetwork& net,
                const std::vector<Ptr<HostTransport>>& nics,
                uint64_t seed)
{
    if (!cfg.enabled)
    {
        return nullptr;
    }
    CollectivePlan plan = [&] {
        try
        {
            return BuildCollectivePlan(cfg);
        }
        catch (const std::invalid_argument& e)
        {
            throw ConfigError("collective", 0, "collective.algorithm", e.what());
        }
    }();
    Ptr<CollectiveEngine> engine = CreateObject<CollectiveEngine>();
    engine->Configure(net.GetFlowTable(), nics, cfg.hostOfRank, seed);
    engine->SetPlan(plan);
    engine->SetReadiness(cfg.readiness);
    engine->SetCheckValues(!cfg.interServerOnly);
    engine->SetCompleteCallback(MakeBoundCallback(&StopWhenAllDone, net.GetFlowTable()));
    engine->Start();
    return engine;
}

CollectiveBytes
CountCollectiveBytes(const CollectiveEngine& engine, const FabricNetwork& net)
{
    CollectiveBytes b;
    const CollectiveJob& job = engine.Plan().Job();
    b.sentPayloadPerRank.assign(job.ranks, 0);
    b.interServerPerRank.assign(job.ranks, 0);
    for (const CollectiveTransfer& t : engine.Plan().Transfers())
    {
        if (t.join)
        {
            continue;
        }
        uint64_t bytes = t.Bytes();
        b.sentPayloadPerRank[t.src] += bytes;
        if (t.sharp)
        {
            b.interServerPayload += bytes;
            b.interServerPerRank[t.src] += bytes;
        }
        else if (job.serverOfRank[t.src] != job.serverOfRank[t.dst])
        {
            b.interServerPayload += bytes;
            b.interServerPerRank[t.src] += bytes;
        }
        else
        {
            b.intraServerPayload += bytes;
        }
    }
    const TopologySpec& spec = net.Spec();
    for (uint32_t n = 0; n < spec.nodes.size(); ++n)
    {
        const TopologyNode& node = spec.nodes[n];
        for (uint32_t p = 0; p < net.GetNPorts(n); ++p)
        {
            const TopologyNode& peer = spec.nodes[net.PeerOf(n, p).node];
            uint64_t tx = net.GetDevice(n, p)->GetTxBytes();
            if (!node.isSwitch && peer.isSwitch && peer.role != "nvswitch")
            {
                b.nicTxBytes[node.name] += tx;
                b.nicRxBytes[node.name] += net.GetDevice(n, p)->GetRxBytes();
            }
            if (node.role == "leaf" && !peer.isSwitch)
            {
                b.railTxBytes[node.name] += tx;
            }
            if (node.role == "spine")
            {
                b.spineTxBytes += tx;
            }
        }
    }
    return b;
}

std::string
FinishCollective(const CollectiveEngine& engine,
                 const CollectiveConfig& cfg,
                 const FabricNetwork& net,
                 const std::string& outDir,
                 nlohmann::json& summary)
{
    engine.WriteCsv(outDir + "/collective.csv");
    const CollectivePlan& plan = engine.Plan();
    const CollectiveJob& job = plan.Job();
    CollectiveBytes bytes = CountCollectiveBytes(engine, net);
    std::string valueError = engine.ValuesChecked() || !engine.IsComplete() ? engine.CheckValues() : "";
    nlohmann::json c;
    c["algorithm"] = cfg.algorithm;
    c["ranks"] = job.ranks;
    c["servers"] = job.Servers();
    c["gpus_per_server"] = job.gpusPerServer;
    c["message_bytes"] = job.messageBytes;
    c["transfers"] = plan.Transfers().size();
    c["complete"] = engine.IsComplete();
    Time first = Time::Max();
    for (const auto& s : engine.States())
    {
        if (s.start >= Time(0))
        {
            first = std::min(first, s.start);
        }
    }
    c["total_time_ns"] = engine.CompletionTime().GetNanoSeconds();
    c["first_start_ns"] = first == Time::Max() ? 0 : first.GetNanoSeconds();
    c["inter_server_payload_bytes"] = bytes.interServerPayload;
    c["intra_server_payload_bytes"] = bytes.intraServerPayload;
    c["sent_payload_bytes_per_rank"] = bytes.sentPayloadPerRank;
    c["inter_server_payload_bytes_per_rank"] = bytes.interServerPerRank;
    c["nic_tx_bytes"] = bytes.nicTxBytes;
    c["nic_rx_bytes"] = bytes.nicRxBytes;
    c["rail_leaf_to_host_tx_bytes"] = bytes.railTxBytes;
    c["spine_tx_bytes"] = bytes.spineTxBytes;
    c["values_checked"] = engine.ValuesChecked();
    c["values_correct"] = valueError.empty();
    if (!valueError.empty())
    {
        c["values_error"] = valueError;
    }
    // Step timeline: compute (until ready), the collective, the update; the critical path.
    std::vector<Time> rankEnd(job.ranks, Time(0));
    for (const CollectiveTransfer& t : plan.Transfers())
    {
        const auto& s = engine.States()[t.id];
        if (!t.join && s.done)
        {
            rankEnd[t.dst] = std::max(rankEnd[t.dst], s.end);
            rankEnd[t.src] = std::max(rankEnd[t.src], s.end);
        }
    }
    nlohmann::json ranks = nlohmann::json::array();
    Time stepEnd(0);
    for (uint32_t r = 0; r < job.ranks; ++r)
    {
        Time done = rankEnd[r] + engine.GetUpdateTime();
        stepEnd = std::max(stepEnd, done);
        ranks.push_back({{"rank", r},
                         {"ready_ns", engine.Readiness()[r].GetNanoSeconds()},
                         {"collective_end_ns", rankEnd[r].GetNanoSeconds()},
                         {"step_end_ns", done.GetNanoSeconds()}});
    }
    nlohmann::json path = nlohmann::json::array();
    for (int64_t id : engine.CriticalPath())
    {
        if (id < 0)
        {
            uint32_t r = static_cast<uint32_t>(-1 - id);
            path.push_back({{"ready_rank", r}, {"at_ns", engine.Readiness()[r].GetNanoSeconds()}});
            continue;
        }
        const CollectiveTransfer& t = plan.Transfers()[id];
        const auto& s = engine.States()[id];
        path.push_back({{"transfer", id},
                        {"rank", t.src},
                        {"peer", t.dst},
                        {"step", t.step},
                        {"phase", t.phase},
                        {"bytes", t.Bytes()},
                        {"start_ns", s.start.GetNanoSeconds()},
                        {"end_ns", s.end.GetNanoSeconds()}});
    }
    c["step"] = {{"update_ns", engine.GetUpdateTime().GetNanoSeconds()},
                 {"step_time_ns", stepEnd.GetNanoSeconds()},
                 {"ranks", ranks},
                 {"critical_path", path}};
    summary["collective"] = c;
    return valueError;
}

} // namespace ns3
