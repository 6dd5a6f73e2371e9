// A randomly drawn scenario for the property tests and what its invariants expect of it.

#ifndef FABRIC_TEST_RANDOM_SCENARIO_H
#define FABRIC_TEST_RANDOM_SCENARIO_H

#include <cstdint>
#include <string>

namespace ns3
{
namespace test
{

struct RandomScenario
{
    std::string yaml;
    bool expectLossless = false; ///< PFC on the flows' priority, no cable loss, no link failure
    bool reliable = false;       ///< every byte must be delivered (RoCE, UB, collectives)
    bool collective = false;     ///< workload: collective (its values must add up)
    uint64_t bufferBytes = 0;    ///< switch.buffer: no switch queue may hold more
    std::string coverage;        ///< "dimension=value ..." pairs the run counts towards
};

/// The value of the first line of \p yaml that starts with \p prefix ("" if none).
std::string YamlLine(const std::string& yaml, const std::string& prefix);

/// Any fabric the generators build (star, clos2, fat-tree3, rail, an HPCC import), any
/// transport and congestion control, UB spraying, switch load balancing and trimming, PFC on or
/// off, lossy cables, link failures that come back or not, and flow or collective workloads
/// (every AllReduce algorithm, SHARP where the topology has leaves).
RandomScenario DrawAnyFabric(uint32_t seed);

} // namespace test
} // namespace ns3

#endif
