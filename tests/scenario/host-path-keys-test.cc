// The host path keys (docs/models.md#remote-read-stages): roce.host_path / ub.host_path set
// every stage attribute of their NIC to a preset, roce.host_stages.* / ub.host_stages.* (read
// after it) change single stages, and bad values are errors naming file, line and key.

#include "config/config-error.h"
#include "config/scenario-config.h"
#include "scenario-attributes.h"

#include <cstdio>
#include <fstream>
#include <gtest/gtest.h>
#include <string>
#include <vector>

using namespace ns3;
using ns3::test::Attr;

namespace
{

ScenarioConfig
LoadExample(const std::vector<std::string>& overrides = {})
{
    return LoadScenario(std::string(FABRIC_SOURCE_DIR) + "/examples/remote-read-paths.yaml",
                        overrides,
                        FABRIC_SOURCE_DIR);
}

/// Loads the example with \p line appended under `roce:` (line 5 of a small file).
void
ExpectError(const std::string& section,
            const std::string& line,
            const std::string& key,
            const std::string& says)
{
    std::string path = ::testing::TempDir() + "host-path-keys.yaml";
    {
        std::ofstream out(path);
        out << "transport: roce\n"                                   // 1
            << "topology: {generator: star, hosts: 2}\n"             // 2
            << "workload: {type: flows, flows: [{src: h0, dst: h1, " // 3
            << "bytes: 64B, verb: read}]}\n"                         //
            << section << ":\n"                                      // 4
            << "  " << line << "\n";                                 // 5
    }
    try
    {
        LoadScenario(path, {}, FABRIC_SOURCE_DIR);
        ADD_FAILURE() << line << ": accepted";
    }
    catch (const ConfigError& e)
    {
        EXPECT_EQ(e.Line(), 5) << line;
        EXPECT_EQ(e.Key(), key) << line;
        EXPECT_NE(e.File().find("host-path-keys.yaml"), std::string::npos);
        EXPECT_NE(e.Message().find(says), std::string::npos) << e.Message();
    }
    std::remove(path.c_str());
}

TEST(HostPathKeys, PresetSetsEveryStageOfItsNic)
{
    ScenarioConfig cfg = LoadExample();
    // roce.host_path: pcie, ub.host_path: onchip (the example).
    EXPECT_EQ(Attr(cfg, "ns3::RdmaNic::DoorbellTime"), "150ns");
    EXPECT_EQ(Attr(cfg, "ns3::RdmaNic::DescriptorFetchTime"), "500ns");
    EXPECT_EQ(Attr(cfg, "ns3::RdmaNic::PipelineCycles"), "9");
    EXPECT_EQ(Attr(cfg, "ns3::RdmaNic::SubmitBusTime"), "0ns");
    EXPECT_EQ(Attr(cfg, "ns3::UbNic::PipelineCycles"), "25");
    EXPECT_EQ(Attr(cfg, "ns3::UbNic::DoorbellTime"), "0ns");
    EXPECT_EQ(Attr(cfg, "ns3::UbNic::CqPollTime"), "5ns");
}

TEST(HostPathKeys, SingleStagesOverrideThePreset)
{
    ScenarioConfig cfg = LoadExample({"roce.host_stages.doorbell=300ns",
                                      "ub.host_path=load",
                                      "ub.host_stages.pipeline_clock=1GHz"});
    EXPECT_EQ(Attr(cfg, "ns3::RdmaNic::DoorbellTime"), "300000ps");
    EXPECT_EQ(Attr(cfg, "ns3::RdmaNic::DescriptorFetchTime"), "500ns"); // the rest: pcie
    EXPECT_EQ(Attr(cfg, "ns3::UbNic::PipelineCycles"), "8");
    EXPECT_EQ(Attr(cfg, "ns3::UbNic::PipelineClock"), "1GHz");
    EXPECT_EQ(Attr(cfg, "ns3::UbNic::PostTime"), "0ns");
}

TEST(HostPathKeys, WithoutThemNoStageIsSet)
{
    ScenarioConfig cfg =
        LoadScenario(std::string(FABRIC_SOURCE_DIR) + "/examples/validation/request-path.yaml",
                     {},
                     FABRIC_SOURCE_DIR);
    for (const auto& [name, value] : cfg.attributes)
    {
        EXPECT_EQ(name.find("PipelineCycles"), std::string::npos) << name;
        EXPECT_EQ(name.find("DoorbellTime"), std::string::npos) << name;
    }
}

TEST(HostPathKeys, BadValuesNameFileLineAndKey)
{
    ExpectError("roce", "host_path: pci", "roce.host_path", "pcie_nic_cpu");
    ExpectError("ub", "host_path: fast", "ub.host_path", "onchip");
    ExpectError("roce",
                "host_stages: {pipeline_clock: 322}",
                "roce.host_stages.pipeline_clock",
                "322MHz");
    ExpectError("ub", "host_stages: {doorbell: -5ns}", "ub.host_stages.doorbell", "-5ns");
    ExpectError("roce",
                "host_stages: {pipeline_cycles: many}",
                "roce.host_stages.pipeline_cycles",
                "many");
    ExpectError("roce", "host_stages: {doorbel: 150ns}", "roce.host_stages.doorbel", "doorbell");
}

} // namespace
