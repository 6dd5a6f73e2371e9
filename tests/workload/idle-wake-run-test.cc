// End-to-end runs of build/fabric-run for idle time in runs whose flows are posted at run time:
// a job that computes between its collectives gives, with the samplers sleeping through the
// compute gaps (the default), every file of the run that ticks throughout (trace.sleep_when_idle
// false) byte for byte, for fewer events: the ticks of each gap, per sampler. Launch costs put
// the launches on a tick announced one interval before it, on a tick announced earlier (the
// tick must follow the launch), and between ticks.
// One process per run, so attribute defaults of one run cannot leak into another.

#include "../test-files.h"

#include <algorithm>
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

/// Three steps of 200 us of compute, each with a ring AllReduce of 1 MiB over four hosts of a
/// star (the previous step's gradients: it starts with the step); host NIC queues traced too (a
/// launch puts its first frame there), PFC on (the deadlock detector checks every 100 us).
std::string
ComputeGapJob(const std::string& launchCost)
{
    return "name: idle-job\nseed: 1\nstop_time: 100ms\ntransport: roce\ncc: none\n"
           "topology: {generator: star, hosts: 4, rate: 400Gbps, cable: 2m}\n"
           "link: {wire_overhead: 24B}\nhost: {mtu: 4096B}\n"
           "switch: {buffer: 16MiB, pfc: {enabled: true, lossless: [3]}}\n"
           "workload:\n  type: job\n  jobs:\n    - name: train\n      ranks: 4\n"
           "      steps: 3\n      phases:\n"
           "        - {name: fwd, type: compute, duration: 200us}\n"
           "        - {name: sync, type: collective, group: all, algorithm: ring, bytes: 1MiB,"
           " launch_cost: " +
           launchCost +
           "}\n"
           "trace:\n  queue_nodes: [sw0, h0, h1, h2, h3]\n  queue_interval: 1us\n"
           "  rate_interval: 5us\n";
}

class IdleWakeRunTest : public ::testing::TestWithParam<const char*>
{
  protected:
    int Run(const std::string& name, const std::string& yaml, const std::string& sleep)
    {
        std::string file = m_tmp.Path() + "/job.yaml"; // summary.json names it
        std::ofstream(file) << yaml;
        std::string cmd = "cd " + ShellQuote(kSourceDir) + " && exec " + ShellQuote(kFabricRun) +
                          " " + ShellQuote(file) + " --quiet --out " + ShellQuote(Dir(name)) +
                          " --set trace.sleep_when_idle=" + sleep + " >" +
                          ShellQuote(Dir(name) + ".log") + " 2>&1";
        int st = std::system(cmd.c_str());
        m_log = ReadFile(Dir(name) + ".log");
        return st != -1 && WIFEXITED(st) ? WEXITSTATUS(st) : -1;
    }

    std::string Dir(const std::string& name) const
    {
        return m_tmp.Path() + "/" + name;
    }

    TempDir m_tmp{"fabric-idle-wake"};
    std::string m_log;
};

/// The stretches in which no flow is active: between the flows' [start, finish] intervals, and
/// from the last finish to \p endNs.
std::vector<std::pair<int64_t, int64_t>>
IdleStretches(const Csv& flows, int64_t endNs)
{
    std::vector<std::pair<int64_t, int64_t>> busy;
    for (size_t i = 0; i < flows.rows.size(); ++i)
    {
        busy.emplace_back(int64_t(flows.U(i, "start_ns")), int64_t(flows.U(i, "finish_ns")));
    }
    std::sort(busy.begin(), busy.end());
    std::vector<std::pair<int64_t, int64_t>> idle;
    int64_t until = 0;
    for (auto [start, finish] : busy)
    {
        if (start > until)
        {
            idle.emplace_back(until, start);
        }
        until = std::max(until, finish);
    }
    if (endNs > until)
    {
        idle.emplace_back(until, endNs);
    }
    return idle;
}

TEST_P(IdleWakeRunTest, ComputeGapsCostNoTicksAndTracesStayByteIdentical)
{
    const std::string yaml = ComputeGapJob(GetParam());
    ASSERT_EQ(Run("ticking", yaml, "false"), 0) << m_log;
    ASSERT_EQ(Run("sleeping", yaml, "true"), 0) << m_log;

    // Every file but summary.json byte for byte; summary.json but for the event count, the
    // wall-clock figures and the echo of the switch itself.
    std::vector<std::string> files;
    for (const auto& e : std::filesystem::directory_iterator(Dir("ticking")))
    {
        files.push_back(e.path().filename().string());
    }
    std::sort(files.begin(), files.end());
    EXPECT_GE(files.size(), 8u);
    for (const std::string& f : files)
    {
        SCOPED_TRACE(f);
        ASSERT_TRUE(std::filesystem::exists(Dir("sleeping") + "/" + f));
        if (f == "summary.json")
        {
            continue;
        }
        EXPECT_TRUE(ReadFile(Dir("ticking") + "/" + f) == ReadFile(Dir("sleeping") + "/" + f))
            << f << " differs";
    }
    EXPECT_GT(ReadCsv(Dir("ticking") + "/queues.csv").rows.size(), 100u);
    EXPECT_GT(ReadCsv(Dir("ticking") + "/rates.csv").rows.size(), 100u);
    nlohmann::json tick = nlohmann::json::parse(ReadFile(Dir("ticking") + "/summary.json"));
    nlohmann::json sleep = nlohmann::json::parse(ReadFile(Dir("sleeping") + "/summary.json"));
    const int64_t eventsTicking = tick["events"].get<int64_t>();
    const int64_t eventsSleeping = sleep["events"].get<int64_t>();
    for (const char* volatileKey :
         {"events", "events_per_s", "packet_hops_per_s", "wall_s", "build_s", "peak_rss_kb"})
    {
        tick.erase(volatileKey);
        sleep.erase(volatileKey);
    }
    tick["parameters"]["trace"].erase("sleep_when_idle");
    sleep["parameters"]["trace"].erase("sleep_when_idle");
    EXPECT_EQ(tick.dump(1), sleep.dump(1));

    // Events saved: in an idle stretch (a, b) a sampler ticking every I runs about (b - a) / I
    // ticks; sleeping, it runs the first tick at or after a (it finds the fabric idle), then
    // the first tick at or after b (and, for a launch announced more than one interval ahead,
    // one event at the tick before). So per sampler and stretch at least floor((b - a) / I) - 3
    // and at most ceil((b - a) / I) events fewer. Samplers: queues.csv every 1 us, rates.csv
    // every 5 us, the deadlock detector every 100 us. The AllReduce takes 6 rounds of
    // LaunchCost + 64 frames of 4178 B at 400 Gb/s (40 to 64 us): over 100 us of each 200 us step
    // is idle, the last one until the job ends.
    Csv flows = ReadCsv(Dir("sleeping") + "/flows.csv");
    ASSERT_EQ(flows.rows.size(), 3u * 2 * 3 * 4); // 3 steps x 2(S - 1) rounds x 4 ranks
    const int64_t endNs = sleep["sim_time_ns"].get<int64_t>();
    int64_t least = 0;
    int64_t most = 0;
    size_t computeGaps = 0;
    for (auto [a, b] : IdleStretches(flows, endNs))
    {
        computeGaps += b - a >= 100'000;
        for (int64_t interval : {1'000, 5'000, 100'000})
        {
            least += std::max<int64_t>(0, (b - a) / interval - 3);
            most += (b - a + interval - 1) / interval;
        }
    }
    EXPECT_EQ(computeGaps, 3u); // after each step's AllReduce
    EXPECT_GE(least, 3 * (100 + 20 - 3 * 3));
    EXPECT_GE(eventsTicking - eventsSleeping, least);
    EXPECT_LE(eventsTicking - eventsSleeping, most);
}

// 1 us: launches on a queue tick, announced one interval before it (at the end of the compute);
// 5 us: on a tick of both samplers, announced 5 queue intervals before; 1.5 us: between ticks.
INSTANTIATE_TEST_SUITE_P(LaunchCosts, IdleWakeRunTest, ::testing::Values("1us", "5us", "1500ns"));

} // namespace
} // namespace test
} // namespace ns3
