// HPCC/ConWeave inputs through a scenario file: topology: {hpcc: ...} and workload type hpcc.

#include "../fabric-sim-util.h"
#include "config/config-error.h"
#include "config/scenario-config.h"

#include <fstream>

namespace ns3
{
namespace test
{
namespace
{

TEST(HpccScenario, FatTreeExampleLoadsTopologyFlowsAndLinkLossRates)
{
    ScenarioConfig cfg =
        LoadScenario(std::string(FABRIC_SOURCE_DIR) + "/examples/hpcc/hpcc-fat-k4.yaml",
                     {},
                     FABRIC_SOURCE_DIR);
    EXPECT_EQ(cfg.topology.Hosts().size(), 16u);
    EXPECT_EQ(cfg.topology.Switches().size(), 20u);
    for (const TopologyLink& l : cfg.topology.links)
    {
        EXPECT_EQ(l.rate, DataRate("100Gbps"));
        EXPECT_EQ(l.delay, MicroSeconds(1));
        EXPECT_EQ(l.lossRate, 0.0); // the file's error_rate column
    }
    ASSERT_EQ(cfg.flows.size(), 6u);
    EXPECT_EQ(cfg.flows[0].src, 1u);
    EXPECT_EQ(cfg.flows[0].dst, 0u);
    EXPECT_EQ(cfg.flows[0].bytes, 1000000u);
    EXPECT_EQ(cfg.flows[0].priority, 3);
}

TEST(HpccScenario, HpccFlowsNeedAnHpccTopology)
{
    std::string file = testing::TempDir() + "/hpcc-mismatch.yaml";
    std::ofstream(file) << "topology: {generator: star, hosts: 4}\n"
                           "workload: {type: hpcc, file: examples/hpcc/flow.txt}\n";
    try
    {
        LoadScenario(file, {}, FABRIC_SOURCE_DIR);
        FAIL() << "accepted an hpcc flow file over a generated topology";
    }
    catch (const ConfigError& e)
    {
        EXPECT_EQ(e.Key(), "workload.type");
        EXPECT_EQ(e.Line(), 2);
    }
}

} // namespace
} // namespace test
} // namespace ns3
