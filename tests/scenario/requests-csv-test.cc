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
#include <string>
#include <sys/wait.h>

namespace
{

using ns3::test::ReadCsv;
using ns3::test::ShellQuote;
namespace fs = std::filesystem;

/// Runs the example with \p set overrides into a fresh directory; returns it.
std::string
RunExample(const std::string& name, const std::string& set)
{
    std::string out = ::testing::TempDir() + "requests-csv-" + name;
    fs::remove_all(out);
    std::string cmd = "cd " + ShellQuote(FABRIC_SOURCE_DIR) + " && " +
                      ShellQuote(std::string(FABRIC_BUILD_DIR) + "/fabric-run") +
                      " examples/remote-read-paths.yaml --quiet --out " + ShellQuote(out) + set +
                      " >/dev/null 2>&1";
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

} // namespace
