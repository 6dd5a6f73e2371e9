// A scenario refused while its fabric is being built (here: INT telemetry on a rail fabric's
// 3600 Gb/s NVLink ports, which an INT hop record cannot name) leaves nothing behind for the
// next run in the same process: the next scenario builds and runs as if it were the first.

#include "../fabric-sim-util.h"
#include "config/config-error.h"
#include "config/scenario-config.h"
#include "run/scenario-runner.h"

#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>
#include <unistd.h>

namespace ns3
{
namespace test
{
namespace
{

namespace fs = std::filesystem;

class RefusedRunCleanupTest : public SimTest
{
  protected:
    RunOutcome RunYaml(const std::string& yaml, const std::string& dir)
    {
        fs::create_directories(dir);
        std::ofstream(dir + "/scenario.yaml") << yaml;
        SetUp();
        ScenarioConfig cfg = LoadScenario(dir + "/scenario.yaml", {}, FABRIC_SOURCE_DIR);
        return ScenarioRunner::Run(cfg, dir);
    }
};

TEST_F(RefusedRunCleanupTest, NextScenarioRunsAfterOneRefusedHalfBuilt)
{
    fs::path root = fs::temp_directory_path() / ("fabric-refused-" + std::to_string(getpid()));
    const std::string refused = "name: refused\nstop_time: 10ms\ntransport: roce\ncc: hpcc\n"
                                "topology: {generator: rail, servers: 2, gpus_per_server: 2}\n"
                                "workload: {type: flows, flows: [{src: 0, dst: 3, bytes: 4KiB}]}\n";
    EXPECT_THROW(RunYaml(refused, (root / "refused").string()), ConfigError);
    // Two hosts, one flow of 8 frames: it must finish with all its bytes.
    const std::string next = "name: next\nstop_time: 10ms\ntransport: roce\ncc: none\n"
                             "topology: {generator: star, hosts: 2}\n"
                             "workload: {type: flows, flows: [{src: 1, dst: 0, bytes: 32KiB}]}\n";
    RunOutcome o = RunYaml(next, (root / "next").string());
    EXPECT_EQ(o.exitCode, 0) << o.message;
    EXPECT_EQ(o.summary["flows_total"], 1);
    EXPECT_EQ(o.summary["flows_finished"], 1);
    EXPECT_EQ(o.summary["counters"]["delivered_bytes"].get<uint64_t>(), 32u * 1024);
    fs::remove_all(root);
}

} // namespace
} // namespace test
} // namespace ns3
