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

TEST(HpccScenario, TraceFiltersTakeTopologyIds)
{
    // topologies/hpcc/fat-k4.txt: hosts 0..15, switches 16..35 (line 2); trace.txt names nodes
    // by these ids, and so may a scenario's trace filters.
    const std::string file = std::string(FABRIC_SOURCE_DIR) + "/examples/hpcc/hpcc-fat-k4.yaml";
    ScenarioConfig cfg = LoadScenario(file,
                                      {"trace.queue_nodes=[16, sw17]", "trace.pcap_nodes=[0]"},
                                      FABRIC_SOURCE_DIR);
    EXPECT_EQ(cfg.trace.queueNodes, (std::vector<std::string>{"sw16", "sw17"}));
    EXPECT_EQ(cfg.trace.pcapNodes, (std::vector<std::string>{"h0"}));
    try
    {
        LoadScenario(file, {"trace.queue_nodes=[36]"}, FABRIC_SOURCE_DIR);
        FAIL() << "node id 36 of a 36-node topology was accepted";
    }
    catch (const ConfigError& e)
    {
        EXPECT_EQ(e.Key(), "trace.queue_nodes");
        EXPECT_NE(std::string(e.what()).find("node ids 0..35"), std::string::npos) << e.what();
    }
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
