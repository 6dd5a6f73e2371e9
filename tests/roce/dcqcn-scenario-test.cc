// DCQCN end to end: ECN marks at the switch, CNPs from receivers, rate cuts at senders.

#include "../fabric-sim-util.h"
#include "../test-files.h"
#include "config/scenario-config.h"
#include "run/scenario-runner.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <vector>

namespace ns3
{
namespace test
{
namespace
{

namespace fs = std::filesystem;

class DcqcnScenario : public SimTest
{
  protected:
    RunOutcome RunScenario(const std::string& name, const std::vector<std::string>& overrides = {})
    {
        m_dir =
            fs::temp_directory_path() / ("fabric-dcqcn-" + name + "-" + std::to_string(getpid()));
        fs::create_directories(m_dir);
        ScenarioConfig cfg =
            LoadScenario(std::string(FABRIC_SOURCE_DIR) + "/tests/data/scenarios/" + name + ".yaml",
                         overrides,
                         FABRIC_SOURCE_DIR);
        return ScenarioRunner::Run(cfg, m_dir.string());
    }

    void TearDown() override
    {
        fs::remove_all(m_dir);
        SimTest::TearDown();
    }

    fs::path m_dir;
};

TEST_F(DcqcnScenario, TwoFlowsConvergeToFairShare)
{
    // Flow 1 joins flow 0 at 1 ms. Fair share: half the payload rate of the 400 Gb/s port,
    // 400 · 4096 / 4178 / 2 = 196 Gb/s. Stated target: from 3 ms to 16 ms each flow averages
    // within 10% of it (DCQCN settles into a limit cycle around the fair share, not onto it),
    // and together they keep the port at least 90% busy.
    RunOutcome o = RunScenario("dcqcn-two-flows");
    ASSERT_EQ(o.exitCode, 0) << o.message;
    const double fair = 400.0 * 4096 / 4178 / 2;
    std::map<std::string, std::pair<double, int>> avg;
    for (const auto& r : ReadCsv((m_dir / "rates.csv").string()).rows)
    {
        double t = std::stod(r.at("time_ns"));
        if (t > 3e6 && t <= 16e6)
        {
            avg[r.at("flow_id")].first += std::stod(r.at("rate_gbps"));
            avg[r.at("flow_id")].second++;
        }
    }
    ASSERT_EQ(avg.size(), 2u);
    double total = 0;
    for (const auto& [flow, sum] : avg)
    {
        double rate = sum.first / sum.second;
        total += rate;
        EXPECT_NEAR(rate, fair, 0.10 * fair) << "flow " << flow;
    }
    EXPECT_GE(total, 0.9 * 2 * fair);
    // Alpha and the sender rates are traced.
    auto cc = ReadCsv((m_dir / "cc.csv").string()).rows;
    ASSERT_FALSE(cc.empty());
    EXPECT_EQ(cc.back().at("cc"), "dcqcn");
    EXPECT_FALSE(cc.back().at("alpha").empty());
}

TEST_F(DcqcnScenario, ScaledPresetRecoversByHyperIncreaseOnceAlone)
{
    // dcqcn.preset scaled, the NIC's timer-only reaction point (docs/models.md#dcqcn-presets):
    // once flow 1 (20 MiB from 1 ms) has left, flow 0 hears no more CNPs and recovers by its
    // 300 us timer alone. As the HPCC simulator does it (rdma-hw.cc:686-733, FAST_RECOVERY_TIMES
    // 1): one fast-recovery event, one additive step of R_AI, then R_HAI at every event, with
    // R_AI = 5 Mb/s and R_HAI = 50 Mb/s per 25 Gb/s of line rate (run.py:100-101): 80 Mb/s and
    // 800 Mb/s at 400 Gb/s. cc.csv's target_gbps (six digits) shows the steps.
    RunOutcome o = RunScenario("dcqcn-two-flows",
                               {"dcqcn.preset=scaled",
                                "stop_time=4ms",
                                "workload.flows.1={src: h2, dst: h0, bytes: 20MiB, start: 1ms}",
                                "trace.rate_interval=10us"});
    ASSERT_EQ(o.exitCode, 0) << o.message;
    double competitorDone = 0;
    for (const auto& r : ReadCsv((m_dir / "flows.csv").string()).rows)
    {
        if (r.at("flow_id") == "1")
        {
            ASSERT_FALSE(r.at("finish_ns").empty());
            competitorDone = std::stod(r.at("finish_ns"));
        }
    }
    // Flow 0's target after the competitor left: (time of change, new value).
    std::vector<std::pair<double, double>> steps;
    double last = -1;
    for (const auto& r : ReadCsv((m_dir / "cc.csv").string()).rows)
    {
        if (r.at("flow_id") != "0" || r.at("target_gbps").empty())
        {
            continue;
        }
        double t = std::stod(r.at("time_ns"));
        double target = std::stod(r.at("target_gbps"));
        if (t > competitorDone + 100e3 && target != last && last >= 0)
        {
            steps.emplace_back(t, target - last);
        }
        last = target;
    }
    ASSERT_GE(steps.size(), 4u);
    EXPECT_NEAR(steps[0].second, 0.080, 0.002); // additive
    for (size_t i = 1; i < steps.size(); ++i)
    {
        EXPECT_NEAR(steps[i].second, 0.800, 0.002) << "step " << i; // hyper
        EXPECT_NEAR(steps[i].first - steps[i - 1].first, 300e3, 10e3) << "step " << i;
    }
}

TEST_F(DcqcnScenario, IncastWithPfcAndDcqcnIsLosslessAndQueueBounded)
{
    RunOutcome o = RunScenario("dcqcn-incast-8");
    ASSERT_EQ(o.exitCode, 0) << o.message;
    const auto& c = o.summary["counters"];
    EXPECT_EQ(c["dropped_bytes"].get<uint64_t>(), 0u);
    EXPECT_EQ(c["headroom_violation_bytes"].get<uint64_t>(), 0u);
    EXPECT_EQ(c["retransmitted_bytes"].get<uint64_t>(), 0u);
    EXPECT_EQ(o.summary["flows_finished"].get<uint32_t>(), 8u);
    EXPECT_TRUE(o.summary["conservation_ok"].get<bool>());
    // PFC absorbs the first burst (the queue may reach the buffer's shared pool); once DCQCN
    // has cut the rates (CNPs every 50 us, a few cuts), the queue stays within the marking range:
    // below 2 · Kmax after 500 us.
    uint64_t late = 0;
    for (const auto& r : ReadCsv((m_dir / "queues.csv").string()).rows)
    {
        if (std::stod(r.at("time_ns")) > 500e3 && r.at("port") == "0")
        {
            late = std::max<uint64_t>(late, std::stoull(r.at("bytes")));
        }
    }
    EXPECT_LT(late, 2u * 160 * 1024);
    // Every sender is notified and cut: its own CNP count, and its rate in cc.csv below the
    // line rate at some time (a sum over senders would pass with one sender never notified).
    for (const auto& r : ReadCsv((m_dir / "flows.csv").string()).rows)
    {
        EXPECT_GE(std::stoull(r.at("cnps")), 1u) << "flow " << r.at("flow_id");
    }
    std::map<std::string, double> lowest;
    for (const auto& r : ReadCsv((m_dir / "cc.csv").string()).rows)
    {
        double rate = std::stod(r.at("rate_gbps"));
        auto [it, fresh] = lowest.emplace(r.at("flow_id"), rate);
        it->second = std::min(it->second, rate);
    }
    ASSERT_EQ(lowest.size(), 8u);
    for (const auto& [flow, rate] : lowest)
    {
        // The first CNP halves the rate (alpha starts at 1): at most 200 Gb/s.
        EXPECT_LE(rate, 200.0) << "flow " << flow;
    }
}

} // namespace
} // namespace test
} // namespace ns3
