#include "config/poisson-workload.h"

#include <algorithm>

namespace ns3
{

std::vector<FlowSpec>
GeneratePoissonFlows(const PoissonLoad& w,
                     const FlowSizeCdf& cdf,
                     const FlowSpec& shape,
                     std::mt19937_64& rng)
{
    std::vector<FlowSpec> flows;
    if (w.hosts.size() < 2 || w.load <= 0)
    {
        return flows;
    }
    std::uniform_real_distribution<double> uniform(0.0, 1.0);
    std::uniform_int_distribution<size_t> other(0, w.hosts.size() - 2);
    Time end = w.start + w.duration;
    for (size_t i = 0; i < w.hosts.size(); ++i)
    {
        double meanGapSeconds =
            cdf.MeanBytes() * 8 / (w.load * double(w.linkRates[i].GetBitRate()));
        std::exponential_distribution<double> gap(1.0 / meanGapSeconds);
        for (Time t = w.start + Seconds(gap(rng)); t < end; t += Seconds(gap(rng)))
        {
            size_t d = other(rng);
            FlowSpec fs = shape;
            fs.src = w.hosts[i];
            fs.dst = w.hosts[d >= i ? d + 1 : d]; // skip the sender itself
            fs.bytes = cdf.Sample(uniform(rng));
            fs.start = t;
            flows.push_back(fs);
        }
    }
    std::stable_sort(flows.begin(), flows.end(), [](const FlowSpec& a, const FlowSpec& b) {
        return a.start < b.start;
    });
    return flows;
}

} // namespace ns3
