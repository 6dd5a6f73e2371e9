// Swift's target scales with each QP's own path (Swift §3.5; htsim swift.cpp:792), end to end:
// on examples/cc-compare.yaml (2-tier Clos, 8 hosts per leaf, 100 Gb/s hosts) a sender on the
// receiver's leaf crosses 1 switch and one on the next leaf 3. The starting window is
// line rate x (BaseTarget + hops x PerHopScaling), with the scenario's 2 us and 500 ns:
// 100 Gb/s x 2.5 us = 31 250 B and 100 Gb/s x 3.5 us = 43 750 B, cc.csv's first row of each.

#include "../fabric-sim-util.h"
#include "../test-files.h"
#include "config/scenario-config.h"
#include "run/scenario-runner.h"

#include <filesystem>
#include <map>

namespace ns3
{
namespace test
{
namespace
{

namespace fs = std::filesystem;

class SwiftPathHops : public SimTest
{
  protected:
    void TearDown() override
    {
        fs::remove_all(m_dir);
        SimTest::TearDown();
    }

    fs::path m_dir = fs::temp_directory_path() / ("fabric-swift-hops-" + std::to_string(getpid()));
};

TEST_F(SwiftPathHops, EachQpStartsWithTheWindowOfItsOwnPath)
{
    fs::create_directories(m_dir);
    ScenarioConfig cfg = LoadScenario(
        std::string(FABRIC_SOURCE_DIR) + "/examples/cc-compare.yaml",
        {"cc=swift",
         "stop_time=12us",
         "workload={type: incast, senders: 10, receiver: 0, bytes_per_sender: 1MiB, start: 10us, "
         "priority: 3}"},
        FABRIC_SOURCE_DIR);
    RunOutcome o = ScenarioRunner::Run(cfg, m_dir.string());
    ASSERT_EQ(o.exitCode, 0) << o.message;
    std::map<std::string, std::string> firstWindow; // flow id -> window_bytes of its first row
    for (const auto& r : ReadCsv((m_dir / "cc.csv").string()).rows)
    {
        firstWindow.emplace(r.at("flow_id"), r.at("window_bytes"));
    }
    std::map<std::string, std::string> sender; // flow id -> source host
    for (const auto& r : ReadCsv((m_dir / "flows.csv").string()).rows)
    {
        sender[r.at("flow_id")] = r.at("src");
    }
    ASSERT_EQ(firstWindow.size(), 10u);
    for (const auto& [flow, window] : firstWindow)
    {
        // Senders h1..h10: h1..h7 share leaf0 with h0, h8..h10 are on leaf1.
        const int host = std::stoi(sender.at(flow).substr(1));
        EXPECT_EQ(window, host < 8 ? "31250" : "43750") << "flow " << flow << " from h" << host;
    }
}

} // namespace
} // namespace test
} // namespace ns3
