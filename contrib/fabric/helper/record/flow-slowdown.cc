#include "record/flow-slowdown.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace ns3
{

const std::vector<SizeBucket>&
SlowdownBuckets()
{
    static const std::vector<SizeBucket> buckets = {
        {"<10KB", 0, 10000},
        {"10KB-100KB", 10000, 100000},
        {"100KB-1MB", 100000, 1000000},
        {">=1MB", 1000000, std::numeric_limits<uint64_t>::max()},
    };
    return buckets;
}

double
NearestRank(const std::vector<double>& sorted, double p)
{
    if (sorted.empty())
    {
        return 0;
    }
    size_t rank = static_cast<size_t>(std::ceil(p * double(sorted.size())));
    return sorted[std::clamp<size_t>(rank, 1, sorted.size()) - 1];
}

double
Slowdown(const FlowRecord& f, Time ideal)
{
    if (!f.finished || !ideal.IsStrictlyPositive())
    {
        return 0;
    }
    return double((f.finish - f.start).GetPicoSeconds()) / double(ideal.GetPicoSeconds());
}

namespace
{

nlohmann::json
Percentiles(std::vector<double> v)
{
    std::sort(v.begin(), v.end());
    nlohmann::json j = {{"flows", v.size()}};
    if (!v.empty())
    {
        j["p50"] = NearestRank(v, 0.50);
        j["p95"] = NearestRank(v, 0.95);
        j["p99"] = NearestRank(v, 0.99);
    }
    return j;
}

} // namespace

nlohmann::json
SlowdownSummary(const FlowTable& flows, const std::vector<Time>& ideal)
{
    const auto& buckets = SlowdownBuckets();
    std::vector<std::vector<double>> per(buckets.size());
    std::vector<double> all;
    for (uint32_t i = 0; i < flows.GetN(); ++i)
    {
        const FlowRecord& f = flows.Get(i);
        double s = Slowdown(f, ideal[i]);
        if (s <= 0)
        {
            continue;
        }
        all.push_back(s);
        for (size_t b = 0; b < buckets.size(); ++b)
        {
            if (f.bytes >= buckets[b].lo && f.bytes < buckets[b].hi)
            {
                per[b].push_back(s);
            }
        }
    }
    nlohmann::json j = {{"all", Percentiles(all)}, {"buckets", nlohmann::json::array()}};
    for (size_t b = 0; b < buckets.size(); ++b)
    {
        nlohmann::json row = {{"bucket", buckets[b].name}};
        row.update(Percentiles(per[b]));
        j["buckets"].push_back(row);
    }
    return j;
}

} // namespace ns3
