#include "run/collective-setup.h"

#include "build/nic-port-binder.h"
#include "collective/collective-algorithm.h"
#include "collective/sharp-service.h"
#include "config/config-error.h"
#include "distributed/partitioned-run.h"
#include "switch/fabric-switch.h"
#include "switch/sharp-aggregator.h"

#include "ns3/object-factory.h"
#include "ns3/simulator.h"

#include <algorithm>
#include <cstdio>

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

/// The NIC port of a host: its port toward a switch that is not an NVSwitch.
int32_t
NicPort(const FabricNetwork& net, uint32_t node)
{
    for (uint32_t p = 0; p < net.GetNPorts(node); ++p)
    {
        const TopologyNode& peer = net.Spec().nodes[net.PeerOf(node, p).node];
        if (peer.isSwitch && peer.role != "nvswitch")
        {
            return static_cast<int32_t>(p);
        }
    }
    return -1;
}

/// First port of \p node toward \p peer (-1 when none).
int32_t
PortToward(const FabricNetwork& net, uint32_t node, uint32_t peer)
{
    for (uint32_t p = 0; p < net.GetNPorts(node); ++p)
    {
        if (net.PeerOf(node, p).node == peer)
        {
            return static_cast<int32_t>(p);
        }
    }
    return -1;
}

/// The aggregator of switch \p node (null when another rank simulates the switch).
Ptr<SharpAggregator>
AggregatorOf(FabricNetwork& net, uint32_t node)
{
    Ptr<FabricSwitch> sw = net.GetSwitch(node);
    if (!sw)
    {
        return nullptr;
    }
    if (!sw->GetReceiveHook<SharpAggregator>())
    {
        Ptr<SharpAggregator> agg = CreateObject<SharpAggregator>();
        std::vector<Ptr<FabricNetDevice>> ports;
        for (uint32_t i = 0; i < sw->GetNPorts(); ++i)
        {
            ports.push_back(sw->GetPort(i));
        }
        agg->SetPorts(ports);
        sw->AddReceiveHook(agg);
    }
    return sw->GetReceiveHook<SharpAggregator>();
}

/// Aggregation trees for every SHARP group of the plan: the members' NIC leaves aggregate
/// their members; when the group spans several leaves, a switch adjacent to all of them (a
/// spine, chosen by group number) is the root. Returns the member-side service.
Ptr<SharpService>
SetupSharp(const CollectivePlan& plan, const CollectiveConfig& cfg, FabricNetwork& net)
{
    std::map<uint16_t, std::vector<uint32_t>> members;
    for (const CollectiveTransfer& t : plan.Transfers())
    {
        if (t.sharp)
        {
            auto& m = members[t.sharpGroup];
            if (std::find(m.begin(), m.end(), t.src) == m.end())
            {
                m.push_back(t.src);
            }
        }
    }
    if (members.empty())
    {
        return nullptr;
    }
    Ptr<SharpService> service = CreateObject<SharpService>();
    std::vector<bool> added(cfg.hostOfRank.size(), false);
    for (const auto& [group, ranks] : members)
    {
        // Leaf of every member, and the member ports of every leaf.
        std::map<uint32_t, std::vector<std::pair<uint32_t, int32_t>>> leafChildren;
        for (uint32_t r : ranks)
        {
            uint32_t host = cfg.hostOfRank[r];
            uint32_t node = net.NodeOfHost(host);
            int32_t nic = NicPort(net, node);
            if (nic < 0)
            {
                throw ConfigError("collective",
                                  0,
                                  "collective.algorithm",
                                  "SHARP: host " + net.NodeName(node) + " has no NIC port");
            }
            PortRef leaf = net.PeerOf(node, static_cast<uint32_t>(nic));
            if (net.Spec().nodes[leaf.node].role != "leaf")
            {
                throw ConfigError("collective",
                                  0,
                                  "collective.algorithm",
                                  "SHARP trees need each GPU's NIC link on its rail leaf (not "
                                  "with modelled PCIe or control servers)");
            }
            leafChildren[leaf.node].emplace_back(leaf.port, static_cast<int32_t>(host));
            if (!added[r] && net.IsLocal(node))
            {
                service->AddMember(r, host, net.GetDevice(node, static_cast<uint32_t>(nic)));
                added[r] = true;
            }
        }
        int32_t root = -1;
        if (leafChildren.size() > 1)
        {
            std::vector<uint32_t> candidates;
            uint32_t firstLeaf = leafChildren.begin()->first;
            for (uint32_t p = 0; p < net.GetNPorts(firstLeaf); ++p)
            {
                uint32_t up = net.PeerOf(firstLeaf, p).node;
                if (!net.Spec().nodes[up].isSwitch || net.Spec().nodes[up].role == "nvswitch" ||
                    std::find(candidates.begin(), candidates.end(), up) != candidates.end())
                {
                    continue;
                }
                bool all = true;
                for (const auto& [leaf, children] : leafChildren)
                {
                    all = all && PortToward(net, leaf, up) >= 0;
                }
                if (all)
                {
                    candidates.push_back(up);
                }
            }
            if (candidates.empty())
            {
                throw ConfigError("collective",
                                  0,
                                  "collective.algorithm",
                                  "SHARP: no switch is adjacent to every leaf of group " +
                                      std::to_string(group) + " (two-level trees only)");
            }
            root = static_cast<int32_t>(candidates[group % candidates.size()]);
            std::vector<uint32_t> rootChildren;
            std::vector<int32_t> rootHosts;
            for (const auto& [leaf, children] : leafChildren)
            {
                rootChildren.push_back(static_cast<uint32_t>(PortToward(net, root, leaf)));
                rootHosts.push_back(-1);
            }
            if (Ptr<SharpAggregator> agg = AggregatorOf(net, root))
            {
                agg->AddGroup(group, rootChildren, rootHosts, -1);
            }
        }
        for (const auto& [leaf, children] : leafChildren)
        {
            std::vector<uint32_t> ports;
            std::vector<int32_t> hosts;
            for (const auto& [port, host] : children)
            {
                ports.push_back(port);
                hosts.push_back(host);
            }
            int32_t parent = root < 0 ? -1 : PortToward(net, leaf, root);
            if (Ptr<SharpAggregator> agg = AggregatorOf(net, leaf))
            {
                agg->AddGroup(group, ports, hosts, parent);
            }
        }
    }
    return service;
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
                uint64_t seed,
                PartitionedRun* parts,
                CollectiveEngine::LaunchScheduledCallback launchScheduled)
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
    engine->SetPortBinder(Create<NicPortBinder>(net)->AsCallback());
    engine->SetPlan(plan);
    engine->SetReadiness(cfg.readiness);
    engine->SetCheckValues(!cfg.interServerOnly);
    engine->SetLaunchScheduledCallback(launchScheduled);
    if (Ptr<SharpService> sharp = SetupSharp(plan, cfg, net))
    {
        engine->SetSharpService(sharp);
    }
    if (parts)
    {
        parts->ConnectCollective(engine);
    }
    else
    {
        engine->SetCompleteCallback(MakeBoundCallback(&StopWhenAllDone, net.GetFlowTable()));
    }
    engine->Start();
    return engine;
}

nlohmann::json
CollectiveNetworkCounters(const CollectiveEngine& engine, const FabricNetwork& net)
{
    nlohmann::json c;
    nlohmann::json nicTx = nlohmann::json::object();
    nlohmann::json nicRx = nlohmann::json::object();
    nlohmann::json railTx = nlohmann::json::object();
    uint64_t spineTx = 0;
    const TopologySpec& spec = net.Spec();
    net.ForEachLocalPort([&](uint32_t n, uint32_t p, const Ptr<FabricNetDevice>& dev) {
        const TopologyNode& node = spec.nodes[n];
        const TopologyNode& peer = spec.nodes[net.PeerOf(n, p).node];
        uint64_t tx = dev->GetTxBytes();
        // A GPU's NIC: its link to a rail leaf, or a NIC node's ports to leaves (modelled
        // PCIe, control servers' dual-port NIC).
        if ((!node.isSwitch && peer.role == "leaf") || (node.role == "nic" && peer.role == "leaf"))
        {
            std::string nic = node.role == "nic" && node.name.find("-nic") != std::string::npos
                                  ? node.name + "->" + peer.name
                                  : node.name;
            nicTx[nic] = nicTx.value(nic, uint64_t(0)) + tx;
            nicRx[nic] = nicRx.value(nic, uint64_t(0)) + dev->GetRxBytes();
        }
        if (node.role == "leaf" && !peer.isSwitch)
        {
            railTx[node.name] = railTx.value(node.name, uint64_t(0)) + tx;
        }
        if (node.role == "spine")
        {
            spineTx += tx;
        }
    });
    c["nic_tx_bytes"] = nicTx;
    c["nic_rx_bytes"] = nicRx;
    c["rail_leaf_to_host_tx_bytes"] = railTx;
    c["spine_tx_bytes"] = spineTx;
    c["late_launches"] = engine.GetLateLaunches();
    c["late_launch_ps"] = engine.GetLateLaunchTime().GetPicoSeconds();
    if (Ptr<SharpService> sharp = DynamicCast<SharpService>(engine.GetSharpService()))
    {
        nlohmann::json sj;
        std::vector<uint64_t> frames;
        std::vector<uint64_t> payload;
        for (uint32_t r = 0; r < engine.Plan().Job().ranks; ++r)
        {
            frames.push_back(sharp->GetContribFramesSent(r));
            payload.push_back(sharp->GetContribPayloadSent(r));
        }
        sj["contrib_frames_per_rank"] = frames;
        sj["contrib_payload_bytes_per_rank"] = payload;
        sj["retransmitted_frames"] = sharp->GetRetransmittedFrames();
        sj["failed_reductions"] = sharp->GetFailedReductions();
        // Keyed by node index (zero-padded: key order is node order) so that the ranks, each
        // with its own switches' aggregators, add up key by key.
        nlohmann::json aggs = nlohmann::json::object();
        for (uint32_t n = 0; n < spec.nodes.size(); ++n)
        {
            Ptr<FabricSwitch> sw = net.GetSwitch(n);
            if (sw && sw->GetReceiveHook<SharpAggregator>())
            {
                Ptr<SharpAggregator> a = sw->GetReceiveHook<SharpAggregator>();
                char key[16];
                std::snprintf(key, sizeof key, "%08u", n);
                aggs[key] = nlohmann::json({{"switch", net.NodeName(n)},
                                            {"contributions", a->GetContributions()},
                                            {"duplicates", a->GetDuplicates()},
                                            {"results_sent", a->GetResultsSent()},
                                            {"peak_buffer_bytes", a->GetPeakBufferBytes()},
                                            {"held_frames", a->GetHeldFrames()},
                                            {"peak_held_frames", a->GetPeakHeldFrames()}});
            }
        }
        sj["aggregators"] = aggs;
        c["sharp"] = sj;
    }
    return c;
}

CollectiveBytes
CollectiveBytesFrom(const CollectivePlan& plan, const nlohmann::json& counters)
{
    CollectiveBytes b;
    const CollectiveJob& job = plan.Job();
    b.sentPayloadPerRank.assign(job.ranks, 0);
    b.interServerPerRank.assign(job.ranks, 0);
    for (const CollectiveTransfer& t : plan.Transfers())
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
    b.nicTxBytes = counters.at("nic_tx_bytes").get<std::map<std::string, uint64_t>>();
    b.nicRxBytes = counters.at("nic_rx_bytes").get<std::map<std::string, uint64_t>>();
    b.railTxBytes =
        counters.at("rail_leaf_to_host_tx_bytes").get<std::map<std::string, uint64_t>>();
    b.spineTxBytes = counters.at("spine_tx_bytes");
    return b;
}

CollectiveBytes
CountCollectiveBytes(const CollectiveEngine& engine, const FabricNetwork& net)
{
    return CollectiveBytesFrom(engine.Plan(), CollectiveNetworkCounters(engine, net));
}

std::string
FinishCollective(const CollectiveEngine& engine,
                 const CollectiveConfig& cfg,
                 const nlohmann::json& counters,
                 bool distributed,
                 const std::string& outDir,
                 nlohmann::json& summary)
{
    engine.WriteCsv(outDir + "/collective.csv");
    const CollectivePlan& plan = engine.Plan();
    const CollectiveJob& job = plan.Job();
    CollectiveBytes bytes = CollectiveBytesFrom(plan, counters);
    std::string valueError =
        engine.ValuesChecked() || !engine.IsComplete() ? engine.CheckValues() : "";
    nlohmann::json c;
    c["algorithm"] = cfg.algorithm;
    c["ranks"] = job.ranks;
    c["servers"] = job.Servers();
    c["gpus_per_server"] = job.gpusPerServer;
    c["message_bytes"] = job.messageBytes;
    c["launch_cost_ps"] = engine.GetLaunchCost().GetPicoSeconds();
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
    if (counters.contains("sharp"))
    {
        c["sharp"] = counters["sharp"];
        nlohmann::json aggs = nlohmann::json::array();
        for (const auto& [node, agg] : counters["sharp"]["aggregators"].items())
        {
            aggs.push_back(agg);
        }
        c["sharp"]["aggregators"] = aggs;
    }
    if (distributed)
    {
        // Transfers whose inputs were announced from another rank later than LaunchCost.
        c["late_launches"] = counters["late_launches"];
        c["late_launch_ps"] = counters["late_launch_ps"];
    }
    summary["collective"] = c;
    return valueError;
}

} // namespace ns3
