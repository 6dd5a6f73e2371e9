#include "record/run-totals.h"

#include "record/conservation.h"
#include "roce/rdma-nic.h"

#include "ns3/simulator.h"

#include <algorithm>
#include <string>
#include <sys/resource.h>
#include <utility>

namespace ns3
{

namespace
{

/**
 * Adds one rank's counters (a JSON tree) into \p into: numbers add up, except peaks (a key
 * with "peak" in it), which are per NIC or switch, so the largest anywhere; objects add key by
 * key, arrays element by element; names are the same on every rank. A null side adds nothing.
 */
void
AddCounters(nlohmann::json& into, const nlohmann::json& part)
{
    if (into.is_null())
    {
        into = part;
        return;
    }
    if (part.is_object())
    {
        for (const auto& [key, value] : part.items())
        {
            nlohmann::json& mine = into[key];
            if (key.find("peak") != std::string::npos && value.is_number())
            {
                mine = std::max(mine.is_null() ? uint64_t(0) : mine.get<uint64_t>(),
                                value.get<uint64_t>());
            }
            else
            {
                AddCounters(mine, value);
            }
        }
    }
    else if (part.is_array())
    {
        for (size_t i = 0; i < part.size(); ++i)
        {
            if (i < into.size())
            {
                AddCounters(into[i], part[i]);
            }
            else
            {
                into.push_back(part[i]);
            }
        }
    }
    else if (part.is_number_integer())
    {
        into = into.get<int64_t>() + part.get<int64_t>();
    }
}

/// Why a flow did not finish by the end of the run (empty when it did).
std::string
StuckReason(const FabricNetwork& net,
            const std::vector<Ptr<HostTransport>>& nics,
            const FlowRecord& f,
            bool deadlock)
{
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

} // namespace

RunTotals
CollectTotals(const FabricNetwork& net,
              const std::vector<Ptr<HostTransport>>& nics,
              const DeadlockDetector& deadlock,
              uint64_t events)
{
    RunTotals t;
    t.events = events;
    const TopologySpec& spec = net.Spec();
    net.ForEachLocalPort([&](uint32_t n, uint32_t p, const Ptr<FabricNetDevice>& dev) {
        t.packetHops += dev->GetTxFrames();
        t.pauses += dev->GetPfcFramesSent();
        t.linkErrorFrames += dev->GetLostFrames();
        if (dev->GetCredits())
        {
            t.cbfc = true;
            t.creditFrames += dev->GetCreditFramesSent();
            t.creditBytes += dev->GetCreditBytesSent();
            t.creditStalls += dev->GetCreditStalls();
        }
        PortRef peer = net.PeerOf(n, p);
        // Appended, not streamed: an ostringstream per port was most of this function's cost
        // (its construction alone ~900 instructions; bench/PROFILE.md "Start-up").
        std::string row = net.NodeName(n);
        for (const std::string& field : {std::to_string(p),
                                         net.NodeName(peer.node),
                                         std::to_string(peer.port),
                                         std::to_string(dev->GetDataRate().GetBitRate()),
                                         std::to_string(dev->GetTxBytes()),
                                         std::to_string(dev->GetRxBytes()),
                                         std::to_string(dev->GetTxFrames())})
        {
            row += ',';
            row += field;
        }
        row += '\n';
        t.linkRows.emplace_back((uint64_t(n) << 32) | p, std::move(row));
    });
    for (uint32_t n = 0; n < spec.nodes.size(); ++n)
    {
        Ptr<FabricSwitch> sw = net.GetSwitch(n);
        if (!sw || !net.IsLocal(n))
        {
            continue;
        }
        t.violations += sw->GetHeadroomViolationBytes();
        t.watchdogTriggers += sw->GetWatchdogTriggers();
        t.ecnMarked += sw->GetEcnMarkedFrames();
        t.trimEnabled = t.trimEnabled || sw->IsTrimEnabled();
        t.trimmedFrames += sw->GetTrimmedFrames();
        t.trimmedBytes += sw->GetTrimmedBytes();
        for (uint32_t p = 0; p < sw->GetNPorts(); ++p)
        {
            uint64_t q = sw->GetMaxQueueBytes(p);
            if (q > 0)
            {
                t.maxQueues.push_back({n, p, q});
            }
        }
    }
    Ptr<FlowTable> table = net.GetFlowTable();
    t.inFlight = CountInFlight(net);
    t.stuck.assign(table->GetN(), "");
    for (const FlowRecord& f : table->All())
    {
        // Told by the end that drives the flow: the sender's NIC (the responder for a READ).
        uint32_t owner = nics.empty() ? f.src : (f.verb == RdmaVerb::READ ? f.dst : f.src);
        if (!f.finished && net.IsHostLocal(owner))
        {
            t.stuck[f.id] = StuckReason(net, nics, f, deadlock.Detected());
        }
    }
    for (uint32_t h = 0; h < nics.size(); ++h)
    {
        if (net.IsHostLocal(h))
        {
            t.transportProblems += nics[h]->AuditTransportState(*table);
            t.transportStateBytes = std::max(t.transportStateBytes, nics[h]->GetPeakStateBytes());
            if (Ptr<RdmaNic> rdma = DynamicCast<RdmaNic>(nics[h]))
            {
                t.roceRetransmittedPackets += rdma->GetRetransmittedPackets();
                t.roceNaksSent += rdma->GetNaksSent();
            }
        }
    }
    t.deadlock = deadlock.Detected();
    if (t.deadlock)
    {
        t.deadlockAtPs = deadlock.DetectedAt().GetPicoSeconds();
        t.deadlockCycle = nlohmann::json::array();
        for (const auto& q : deadlock.Cycle())
        {
            t.deadlockCycle.push_back(
                {{"node", spec.nodes[q.node].name}, {"port", q.port}, {"priority", q.priority}});
        }
        t.deadlockText = deadlock.Describe();
    }
    struct rusage usage;
    getrusage(RUSAGE_SELF, &usage);
    t.peakRssKb = usage.ru_maxrss;
    return t;
}

nlohmann::json
TotalsToJson(const RunTotals& t)
{
    nlohmann::json links = nlohmann::json::array();
    for (const auto& [key, row] : t.linkRows)
    {
        links.push_back({key, row});
    }
    return {{"events", t.events},
            {"packet_hops", t.packetHops},
            {"pauses", t.pauses},
            {"violations", t.violations},
            {"watchdog_triggers", t.watchdogTriggers},
            {"link_error_frames", t.linkErrorFrames},
            {"ecn_marked", t.ecnMarked},
            {"trim_enabled", t.trimEnabled},
            {"trimmed_frames", t.trimmedFrames},
            {"trimmed_bytes", t.trimmedBytes},
            {"roce_retransmitted_packets", t.roceRetransmittedPackets},
            {"roce_naks_sent", t.roceNaksSent},
            {"max_queues", t.maxQueues},
            {"transport_problems", t.transportProblems},
            {"transport_state_bytes", t.transportStateBytes},
            {"peak_rss_kb", t.peakRssKb},
            {"in_flight", t.inFlight},
            {"stuck", t.stuck},
            {"links", links},
            {"ub", t.ub},
            {"collective", t.collective},
            {"deadlock", t.deadlock},
            {"deadlock_at_ps", t.deadlockAtPs},
            {"deadlock_cycle", t.deadlockCycle},
            {"deadlock_text", t.deadlockText}};
}

RunTotals
TotalsFromJson(const nlohmann::json& j)
{
    RunTotals t;
    t.events = j.at("events");
    t.packetHops = j.at("packet_hops");
    t.pauses = j.at("pauses");
    t.violations = j.at("violations");
    t.watchdogTriggers = j.at("watchdog_triggers");
    t.linkErrorFrames = j.at("link_error_frames");
    t.ecnMarked = j.at("ecn_marked");
    t.trimEnabled = j.at("trim_enabled");
    t.trimmedFrames = j.at("trimmed_frames");
    t.trimmedBytes = j.at("trimmed_bytes");
    t.roceRetransmittedPackets = j.at("roce_retransmitted_packets");
    t.roceNaksSent = j.at("roce_naks_sent");
    t.maxQueues = j.at("max_queues").get<std::vector<std::array<uint64_t, 3>>>();
    t.transportProblems = j.at("transport_problems");
    t.transportStateBytes = j.at("transport_state_bytes");
    t.peakRssKb = j.at("peak_rss_kb");
    t.inFlight = j.at("in_flight").get<std::vector<uint64_t>>();
    t.stuck = j.at("stuck").get<std::vector<std::string>>();
    for (const auto& l : j.at("links"))
    {
        t.linkRows.emplace_back(l.at(0).get<uint64_t>(), l.at(1).get<std::string>());
    }
    t.ub = j.at("ub");
    t.collective = j.at("collective");
    t.deadlock = j.at("deadlock");
    t.deadlockAtPs = j.at("deadlock_at_ps");
    t.deadlockCycle = j.at("deadlock_cycle");
    t.deadlockText = j.at("deadlock_text");
    return t;
}

void
AccumulateTotals(RunTotals& into, const RunTotals& part)
{
    into.events += part.events;
    into.packetHops += part.packetHops;
    into.pauses += part.pauses;
    into.violations += part.violations;
    into.watchdogTriggers += part.watchdogTriggers;
    into.linkErrorFrames += part.linkErrorFrames;
    into.ecnMarked += part.ecnMarked;
    into.trimEnabled = into.trimEnabled || part.trimEnabled;
    into.trimmedFrames += part.trimmedFrames;
    into.trimmedBytes += part.trimmedBytes;
    into.roceRetransmittedPackets += part.roceRetransmittedPackets;
    into.roceNaksSent += part.roceNaksSent;
    into.maxQueues.insert(into.maxQueues.end(), part.maxQueues.begin(), part.maxQueues.end());
    std::sort(into.maxQueues.begin(), into.maxQueues.end());
    into.transportProblems += part.transportProblems;
    into.transportStateBytes = std::max(into.transportStateBytes, part.transportStateBytes);
    into.peakRssKb = std::max(into.peakRssKb, part.peakRssKb);
    into.inFlight.resize(std::max(into.inFlight.size(), part.inFlight.size()), 0);
    for (size_t i = 0; i < part.inFlight.size(); ++i)
    {
        into.inFlight[i] += part.inFlight[i];
    }
    into.stuck.resize(std::max(into.stuck.size(), part.stuck.size()));
    for (size_t i = 0; i < part.stuck.size(); ++i)
    {
        if (into.stuck[i].empty())
        {
            into.stuck[i] = part.stuck[i];
        }
    }
    into.linkRows.insert(into.linkRows.end(), part.linkRows.begin(), part.linkRows.end());
    std::sort(into.linkRows.begin(), into.linkRows.end());
    AddCounters(into.ub, part.ub);
    AddCounters(into.collective, part.collective);
    if (part.deadlock && (!into.deadlock || part.deadlockAtPs < into.deadlockAtPs))
    {
        into.deadlock = true;
        into.deadlockAtPs = part.deadlockAtPs;
        into.deadlockCycle = part.deadlockCycle;
        into.deadlockText = part.deadlockText;
    }
}

nlohmann::json
FlowPartialToJson(const FlowRecord& f)
{
    return {f.sentBytes,
            f.retransmittedBytes,
            f.launch.GetPicoSeconds(),
            f.cnpsReceived,
            f.droppedBytes,
            f.deliveredBytes,
            f.discardedBytes,
            f.ecnMarkedFrames,
            f.firstRx.GetPicoSeconds(),
            f.lastRx.GetPicoSeconds(),
            f.executed.GetPicoSeconds(),
            f.finished,
            f.finish.GetPicoSeconds(),
            f.start.GetPicoSeconds(),
            f.spuriousBytes};
}

void
ClearFlowPartial(FlowRecord& f)
{
    f.sentBytes = f.retransmittedBytes = f.cnpsReceived = 0;
    f.droppedBytes = f.deliveredBytes = f.discardedBytes = f.ecnMarkedFrames = 0;
    f.spuriousBytes = 0;
    f.launch = f.firstRx = f.lastRx = f.executed = f.finish = Time(0);
    f.finished = false;
}

void
MergeFlowPartial(FlowRecord& into, const nlohmann::json& p)
{
    auto maxTime = [](Time& t, int64_t ps) { t = std::max(t, PicoSeconds(ps)); };
    into.sentBytes += p.at(0).get<uint64_t>();
    into.retransmittedBytes += p.at(1).get<uint64_t>();
    maxTime(into.launch, p.at(2));
    into.cnpsReceived += p.at(3).get<uint64_t>();
    into.droppedBytes += p.at(4).get<uint64_t>();
    uint64_t delivered = p.at(5);
    if (delivered > 0)
    {
        into.firstRx = PicoSeconds(p.at(8).get<int64_t>());
        maxTime(into.lastRx, p.at(9));
    }
    into.deliveredBytes += delivered;
    into.discardedBytes += p.at(6).get<uint64_t>();
    into.ecnMarkedFrames += p.at(7).get<uint64_t>();
    maxTime(into.executed, p.at(10));
    if (p.at(11).get<bool>())
    {
        into.finished = true;
        into.finish = PicoSeconds(p.at(12).get<int64_t>());
    }
    // A collective's flow is posted (its start set) only by the rank simulating its source.
    into.start = std::min(into.start, PicoSeconds(p.at(13).get<int64_t>()));
    into.spuriousBytes += p.at(14).get<uint64_t>();
}

} // namespace ns3
