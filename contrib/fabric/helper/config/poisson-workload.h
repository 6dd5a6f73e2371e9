#ifndef FABRIC_POISSON_WORKLOAD_H
#define FABRIC_POISSON_WORKLOAD_H

#include "config/flow-size-cdf.h"
#include "config/scenario-config.h"

#include "ns3/data-rate.h"
#include "ns3/nstime.h"

#include <random>
#include <vector>

namespace ns3
{

/// What a Poisson flow-size workload needs besides its CDF (workload: {type: poisson}).
struct PoissonLoad
{
    std::vector<uint32_t> hosts;     ///< host indices that send and receive
    std::vector<DataRate> linkRates; ///< the link rate of each of \c hosts, in the same order
    double load = 0.5;               ///< offered load as a fraction of each host's link rate
    Time start;                      ///< first possible arrival
    Time duration;                   ///< arrivals in [start, start + duration)
};

/**
 * Poisson flow arrivals at every host of \p w: exponential inter-arrival times with mean
 * mean_flow_bytes * 8 / (load * link_rate), so each host offers `load` of its link on average
 * (as HPCC's traffic_gen.py: avg_inter_arrival = 1 / (bandwidth * load / 8 / avg)); the
 * destination is uniform among the other hosts of \p w, the size drawn from \p cdf. Every flow
 * copies \p shape (rate, priority, ECN, verb). Flows come out in start order (ties by host).
 */
std::vector<FlowSpec> GeneratePoissonFlows(const PoissonLoad& w,
                                           const FlowSizeCdf& cdf,
                                           const FlowSpec& shape,
                                           std::mt19937_64& rng);

} // namespace ns3

#endif
