#ifndef FABRIC_FLOW_SLOWDOWN_H
#define FABRIC_FLOW_SLOWDOWN_H

#include "host/flow-table.h"

#include "ns3/nstime.h"

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace ns3
{

/// Flow-size buckets of the slowdown summary (bytes, decimal units as the papers plot them).
struct SizeBucket
{
    std::string name; ///< "<10KB", "10KB-100KB", "100KB-1MB", ">=1MB"
    uint64_t lo;      ///< smallest size in the bucket
    uint64_t hi;      ///< first size above it (UINT64_MAX: no bound)
};

const std::vector<SizeBucket>& SlowdownBuckets();

/// The \p p-quantile (0..1) of \p sorted values by nearest rank: the ceil(p*n)-th smallest.
double NearestRank(const std::vector<double>& sorted, double p);

/// A finished flow's slowdown: its FCT over \p ideal (0 when the ideal is unknown).
double Slowdown(const FlowRecord& f, Time ideal);

/**
 * summary.json's "slowdown": p50, p95, p99 of the finished flows' slowdowns per size bucket
 * and over all flows, with the flow count of each: {"all": {...}, "buckets": [{"bucket":
 * "<10KB", "flows": n, "p50": ..., "p95": ..., "p99": ...}, ...]}; empty buckets have only
 * their name and count.
 */
nlohmann::json SlowdownSummary(const FlowTable& flows, const std::vector<Time>& ideal);

} // namespace ns3

#endif
