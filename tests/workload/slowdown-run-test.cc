// End-to-end runs of build/fabric-run for the flow-size metrics and idle time:
//   - a lone flow's ideal_fct_ns, derived here by hand, and its slowdown of 1.0;
//   - slowdown percentiles per size bucket in summary.json agree with flows.csv;
//   - flows starting at 2 s give the traces of the same flows at 0, shifted by 2 s, for the
//     same number of events (the samplers sleep through the idle 2 s);
//   - examples/websearch-poisson.yaml runs, conserves bytes and finishes every flow.
// One process per run, so attribute defaults of one run cannot leak into another.

#include "../test-files.h"

#include <cmath>
#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <sys/wait.h>

namespace ns3
{
namespace test
{
namespace
{

const std::string kSourceDir = FABRIC_SOURCE_DIR;
const std::string kFabricRun = std::string(FABRIC_BUILD_DIR) + "/fabric-run";

class SlowdownRunTest : public ::testing::Test
{
  protected:
    /// Runs \p scenario (a path, or YAML text written to a file first) into <tmp>/<name>.
    int Run(const std::string& name,
            const std::string& scenario,
            const std::vector<std::string>& extra = {})
    {
        std::string file = scenario;
        if (scenario.find('\n') != std::string::npos)
        {
            file = m_tmp.Path() + "/" + name + ".yaml";
            std::ofstream(file) << scenario;
        }
        std::string cmd = "cd " + ShellQuote(kSourceDir) + " && exec " + ShellQuote(kFabricRun) +
                          " " + ShellQuote(file) + " --quiet --out " + ShellQuote(Dir(name));
        for (const std::string& a : extra)
        {
            cmd += " " + ShellQuote(a);
        }
        cmd += " >" + ShellQuote(Dir(name) + ".log") + " 2>&1";
        int st = std::system(cmd.c_str());
        m_log = ReadFile(Dir(name) + ".log");
        return st != -1 && WIFEXITED(st) ? WEXITSTATUS(st) : -1;
    }

    std::string Dir(const std::string& name) const
    {
        return m_tmp.Path() + "/" + name;
    }

    TempDir m_tmp{"fabric-slowdown"};
    std::string m_log;
};

/// One flow h0 -> sw0 -> h1 at 400 Gb/s over two 30 m (150 ns) cables.
std::string
LoneFlow(const std::string& transport, const std::string& bytes)
{
    return "name: lone\ntransport: " + transport +
           "\ntopology: {generator: star, hosts: 2, rate: 400Gbps, cable: 30m}\n"
           "link: {wire_overhead: 24B}\nhost: {mtu: 4096B}\n"
           "workload: {type: flows, flows: [{src: 0, dst: 1, bytes: " +
           bytes + "}]}\n";
}

TEST_F(SlowdownRunTest, LoneFlowSlowdownIsOne)
{
    // Raw, 1 MiB: 256 frames of 4096 + 58 B stored + 24 B on the wire = 4178 B (83.56 ns at
    // 400 Gb/s) leave h0 back to back; the switch forwards the last one once it has arrived:
    // 257 x 83.56 ns + 2 x 150 ns = 21774.92 ns (no acknowledgement ends a raw flow).
    // RoCE WRITE, 1 MiB: the first of the 256 frames carries a 16 B RETH, so the wire holds
    // W = 256 x 4178 + 16 = 1069584 B and the largest frame is F = 4194 B. h0 sends W back to
    // back and sw0 adds one F: (W + F) x 8 / 400 Gb/s = 21475.56 ns, plus 2 x 150 ns of cable;
    // then the ACK (58 + 4 B AETH = 62 B stored + 24 B: 1.72 ns per hop) returns over both
    // hops: 2 x (150 + 1.72) = 303.44 ns; 21775.56 + 303.44 = 22079.00 ns.
    // RoCE WRITE, 1000 B: one frame of 1000 + 58 + 16 + 24 = 1098 B (21.96 ns) per hop:
    // 2 x (150 + 21.96) + 303.44 = 647.36 ns.
    struct Case
    {
        std::string transport;
        std::string bytes;
        int64_t idealNs; ///< the hand value above, in whole nanoseconds as flows.csv writes it
    };

    for (const Case& c :
         {Case{"raw", "1MiB", 21774}, Case{"roce", "1MiB", 22079}, Case{"roce", "1000B", 647}})
    {
        SCOPED_TRACE(c.transport + " " + c.bytes);
        ASSERT_EQ(Run("lone", LoneFlow(c.transport, c.bytes)), 0) << m_log;
        Csv flows = ReadCsv(Dir("lone") + "/flows.csv");
        ASSERT_EQ(flows.rows.size(), 1u);
        EXPECT_EQ(flows.columns.back(), "spurious_bytes"); // appended after slowdown
        EXPECT_EQ(flows.columns[flows.columns.size() - 2], "slowdown");
        EXPECT_EQ(flows.columns[flows.columns.size() - 3], "ideal_fct_ns");
        EXPECT_EQ(flows.columns[18], "stuck_reason"); // the existing columns keep their places
        EXPECT_EQ(int64_t(flows.U(0, "ideal_fct_ns")), c.idealNs);
        int64_t fct = int64_t(flows.U(0, "fct_ns"));
        EXPECT_LE(std::abs(fct - c.idealNs), 1) << "fct " << fct;
        EXPECT_EQ(flows.rows[0].at("slowdown"), "1.0000");
    }
}

TEST_F(SlowdownRunTest, SummaryPercentilesMatchFlowsCsv)
{
    ASSERT_EQ(Run("ws", kSourceDir + "/examples/websearch-poisson.yaml"), 0) << m_log;
    Csv flows = ReadCsv(Dir("ws") + "/flows.csv");
    nlohmann::json s = nlohmann::json::parse(ReadFile(Dir("ws") + "/summary.json"));
    ASSERT_GT(flows.rows.size(), 50u);
    EXPECT_EQ(s["flows_finished"], flows.rows.size());
    // Buckets <10KB, 10KB-100KB, 100KB-1MB, >=1MB (decimal); nearest-rank percentiles.
    const std::vector<std::pair<uint64_t, uint64_t>> bounds = {{0, 10000},
                                                               {10000, 100000},
                                                               {100000, 1000000},
                                                               {1000000, UINT64_MAX}};
    size_t total = 0;
    for (size_t b = 0; b < bounds.size(); ++b)
    {
        std::vector<double> v;
        for (size_t i = 0; i < flows.rows.size(); ++i)
        {
            uint64_t bytes = flows.U(i, "bytes");
            double sd = std::stod(flows.rows[i].at("slowdown"));
            EXPECT_GE(sd, 0.999) << "a flow faster than alone";
            if (bytes >= bounds[b].first && bytes < bounds[b].second)
            {
                v.push_back(sd);
            }
        }
        std::sort(v.begin(), v.end());
        const nlohmann::json& row = s["slowdown"]["buckets"][b];
        ASSERT_EQ(row["flows"], v.size());
        total += v.size();
        if (v.empty())
        {
            continue;
        }
        for (auto [key, p] : {std::pair{"p50", 0.50}, {"p95", 0.95}, {"p99", 0.99}})
        {
            double expected = v[size_t(std::ceil(p * v.size())) - 1];
            EXPECT_NEAR(row[key].get<double>(), expected, 1e-4) << key; // csv has 4 decimals
        }
    }
    EXPECT_EQ(total, flows.rows.size());
    EXPECT_TRUE(s["conservation_ok"].get<bool>());
}

TEST_F(SlowdownRunTest, BadCdfFileExitsTwoNamingFileLineAndField)
{
    std::string cdf = m_tmp.Path() + "/bad-cdf.txt";
    std::ofstream(cdf) << "# sizes in bytes\n0 0\n5000 40\n4000 100\n";
    EXPECT_EQ(Run("bad",
                  kSourceDir + "/examples/websearch-poisson.yaml",
                  {"--set", "workload.cdf=" + cdf}),
              2);
    EXPECT_TRUE(Contains(m_log, cdf + ":4: size_bytes: sizes must increase")) << m_log;
    EXPECT_FALSE(std::filesystem::exists(Dir("bad") + "/summary.json"));
}

/// \p path's rows with the time_ns column (the first) moved back by \p shiftNs.
std::string
Shifted(const std::string& path, int64_t shiftNs)
{
    std::istringstream in(ReadFile(path));
    std::string out;
    std::string line;
    std::getline(in, line);
    out += line + "\n";
    while (std::getline(in, line))
    {
        size_t comma = line.find(',');
        out +=
            std::to_string(std::stoll(line.substr(0, comma)) - shiftNs) + line.substr(comma) + "\n";
    }
    return out;
}

TEST_F(SlowdownRunTest, IdleStartCostsNothingAndShiftsTracesOnly)
{
    // The same Poisson flows from t = 0 and from t = 2 s (a multiple of every sampling
    // interval, so the samplers' grids line up).
    std::string scenario = kSourceDir + "/examples/websearch-poisson.yaml";
    ASSERT_EQ(Run("at0", scenario, {"--set", "workload.duration=1ms", "--set", "stop_time=3s"}), 0)
        << m_log;
    ASSERT_EQ(Run("at2s",
                  scenario,
                  {"--set",
                   "workload.duration=1ms",
                   "--set",
                   "stop_time=3s",
                   "--set",
                   "workload.start=2s"}),
              0)
        << m_log;
    const int64_t shift = 2'000'000'000;
    for (const char* f : {"queues.csv", "rates.csv", "cc.csv", "pfc.csv"})
    {
        SCOPED_TRACE(f);
        std::string at0 = ReadFile(Dir("at0") + "/" + f);
        EXPECT_GT(at0.size(), 40u);
        EXPECT_TRUE(at0 == Shifted(Dir("at2s") + "/" + f, shift)) << f << " differs";
    }
    Csv a = ReadCsv(Dir("at0") + "/flows.csv");
    Csv b = ReadCsv(Dir("at2s") + "/flows.csv");
    ASSERT_EQ(a.rows.size(), b.rows.size());
    for (size_t i = 0; i < a.rows.size(); ++i)
    {
        EXPECT_EQ(a.rows[i].at("fct_ns"), b.rows[i].at("fct_ns"));
        EXPECT_EQ(a.rows[i].at("slowdown"), b.rows[i].at("slowdown"));
    }
    // Ticking through 2 s would take 2 s / 1 us = 2 million queue samples alone.
    nlohmann::json s0 = nlohmann::json::parse(ReadFile(Dir("at0") + "/summary.json"));
    nlohmann::json s2 = nlohmann::json::parse(ReadFile(Dir("at2s") + "/summary.json"));
    EXPECT_LE(s2["events"].get<uint64_t>(), s0["events"].get<uint64_t>() + 10);
}

} // namespace
} // namespace test
} // namespace ns3
