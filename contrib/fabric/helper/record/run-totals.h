#ifndef FABRIC_RUN_TOTALS_H
#define FABRIC_RUN_TOTALS_H

#include "build/fabric-builder.h"
#include "host/host-transport.h"
#include "record/deadlock-detector.h"

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace ns3
{

/**
 * \brief What one process counted over a run, in a form that adds up across the ranks of a
 * distributed run: fabric counters, per-flow bytes still in flight, why unfinished flows are
 * stuck, and the links.csv rows of its nodes.
 */
struct RunTotals
{
    uint64_t events = 0;
    uint64_t packetHops = 0;
    uint64_t pauses = 0;
    uint64_t violations = 0;
    uint64_t watchdogTriggers = 0;
    uint64_t linkErrorFrames = 0; ///< frames lost on working cables (FabricNetDevice::LossRate)
    uint64_t ecnMarked = 0;
    bool cbfc = false;         ///< some port uses credits (then their counters are reported)
    uint64_t creditFrames = 0; ///< credit frames sent (UPDATE, SYNC, REQUEST)
    uint64_t creditBytes = 0;  ///< their bytes as stored (wire overhead not counted)
    uint64_t creditStalls = 0; ///< a credited lane's head frame found too few credits
    bool trimEnabled = false;  ///< some switch trims packets (then the counters are reported)
    uint64_t trimmedFrames = 0;
    uint64_t trimmedBytes = 0;             ///< payload bytes packet trimming cut
    uint64_t roceRetransmittedPackets = 0; ///< RoCE data packets sent again (RdmaNic)
    uint64_t roceNaksSent = 0;             ///< RoCE NAKs sent (sequence error, trimmed)
    /// (node, port, max queue bytes) of every switch port that ever queued, in node/port order.
    std::vector<std::array<uint64_t, 3>> maxQueues;
    std::string transportProblems;
    uint64_t transportStateBytes = 0;
    int64_t peakRssKb = 0;
    std::vector<uint64_t> inFlight; ///< by flow id
    std::vector<std::string> stuck; ///< by flow id; "" where unknown here or finished
    /// links.csv rows of this process's nodes, keyed by (node << 32 | port).
    std::vector<std::pair<uint64_t, std::string>> linkRows;
    nlohmann::json ub;         ///< UB NIC counters (null without UB)
    nlohmann::json collective; ///< CollectiveNetworkCounters (null without a collective)
    bool deadlock = false;
    int64_t deadlockAtPs = 0;
    nlohmann::json deadlockCycle; ///< [{node, port, priority}]
    std::string deadlockText;
};

/// Counts what this process simulated (every node unless the run is distributed).
RunTotals CollectTotals(const FabricNetwork& net,
                        const std::vector<Ptr<HostTransport>>& nics,
                        const DeadlockDetector& deadlock,
                        uint64_t events);

nlohmann::json TotalsToJson(const RunTotals& t);
RunTotals TotalsFromJson(const nlohmann::json& j);
/// Adds \p part (one rank's totals) into \p into.
void AccumulateTotals(RunTotals& into, const RunTotals& part);

/// The fields of one flow a rank may have changed (counters, completion, timestamps).
nlohmann::json FlowPartialToJson(const FlowRecord& f);
/// Zeroes what MergeFlowPartial adds up, keeping what the workload asked for.
void ClearFlowPartial(FlowRecord& f);
/// Adds one rank's partial record into \p into (counters add, times and flags taken from the
/// rank that set them).
void MergeFlowPartial(FlowRecord& into, const nlohmann::json& part);

} // namespace ns3

#endif
