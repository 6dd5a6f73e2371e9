// requests.csv (docs/models.md#remote-read-stages): fabric-run on examples/remote-read-paths.yaml
// writes each request's host path stage boundaries in ps, only when a NIC has a host path. The
// PCIe read (two NICs, one 100 ns cable, 24 B of wire overhead per frame): submitted after
// 50 + 30 + 150 + 500 + 50 = 780 ns; the NIC has the data after the 74 B request (1.96 ns), four
// 9-cycle pipeline passes (4 × 27.95 ns), the cable twice, the target's DMA read and DRAM access
// (530 ns) and the 126 B response (3.0 ns): 1626.76 ns; the completion stages add 600 ns.

#include "../test-files.h"

#include <cstdlib>
#include <filesystem>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <string>
#include <sys/wait.h>

namespace
{

using ns3::test::ReadCsv;
using ns3::test::ShellQuote;
namespace fs = std::filesystem;

/// Runs \p example with \p set overrides into a fresh directory; returns it.
std::string
RunExample(const std::string& name,
           const std::string& set,
           const std::string& example = "examples/remote-read-paths.yaml")
{
    std::string out = ::testing::TempDir() + "requests-csv-" + name;
    fs::remove_all(out);
    std::string cmd = "cd " + ShellQuote(FABRIC_SOURCE_DIR) + " && " +
                      ShellQuote(std::string(FABRIC_BUILD_DIR) + "/fabric-run") + " " + example +
                      " --quiet --out " + ShellQuote(out) + set + " >/dev/null 2>&1";
    int st = std::system(cmd.c_str());
    EXPECT_TRUE(st != -1 && WIFEXITED(st) && WEXITSTATUS(st) == 0) << cmd;
    return out;
}

TEST(RequestsCsv, StageBoundariesOfThePcieRead)
{
    std::string dir = RunExample("pcie", "");
    auto csv = ReadCsv(dir + "/requests.csv");
    ASSERT_EQ(csv.rows.size(), 1u);
    const auto& r = csv.rows[0];
    EXPECT_EQ(r.at("verb"), "read");
    EXPECT_EQ(r.at("post_ps"), "0");
    EXPECT_EQ(r.at("submitted_ps"), "780000");
    EXPECT_EQ(r.at("launch_ps"), "780000");
    EXPECT_EQ(r.at("executed_ps"), ""); // RoCE: the target records no execution
    EXPECT_EQ(r.at("answered_ps"), "1626760");
    EXPECT_EQ(r.at("finish_ps"), "2226760");
    EXPECT_EQ(r.at("latency_ps"), "2226760");
    fs::remove_all(dir);
}

TEST(RequestsCsv, NotWrittenWithoutAHostPath)
{
    std::string dir = RunExample("none", " --set roce.host_path=none");
    EXPECT_TRUE(fs::exists(dir + "/flows.csv"));
    EXPECT_FALSE(fs::exists(dir + "/requests.csv"));
    fs::remove_all(dir);
}

TEST(RequestsCsv, PipelinesLeaveThePauseReactionAlone)
{
    // The NIC pipelines delay data frames after they arrive, not PFC pauses (MAC control): the
    // 16:1 PFC incast with the on-chip placement (2 x 77.64 ns per frame) stays lossless with
    // the headroom sized for the cables alone. (Delaying the pause by the pipelines, or holding
    // sent frames in them, lost 40 KiB here.)
    std::string dir = RunExample("incast", " --set roce.host_path=onchip", "examples/incast.yaml");
    auto summary = nlohmann::json::parse(ns3::test::ReadFile(dir + "/summary.json"));
    EXPECT_EQ(summary["counters"]["dropped_bytes"].get<uint64_t>(), 0u);
    EXPECT_EQ(summary["counters"]["headroom_violation_bytes"].get<uint64_t>(), 0u);
    EXPECT_GT(summary["counters"]["pfc_frames_sent"].get<uint64_t>(), 0u);
    EXPECT_TRUE(summary["conservation_ok"].get<bool>());
    fs::remove_all(dir);
}

TEST(RequestsCsv, AFrameInsideThePipelinesIsInFlight)
{
    // The response (126 B, 3.0 ns) reaches h0 at 1467.86 + 3.0 + 100 = 1570.86 ns and the NIC
    // 2 x 27.95 ns later, at 1626.76 ns: stopped at 1600 ns its 64 B are in flight, not lost.
    std::string dir = RunExample("stopped", " --set stop_time=1600ns");
    auto summary = nlohmann::json::parse(ns3::test::ReadFile(dir + "/summary.json"));
    EXPECT_EQ(summary["counters"]["in_flight_bytes"].get<uint64_t>(), 64u);
    EXPECT_EQ(summary["counters"]["delivered_bytes"].get<uint64_t>(), 0u);
    EXPECT_TRUE(summary["conservation_ok"].get<bool>());
    fs::remove_all(dir);
}

} // namespace
