// examples/ub-read.yaml and examples/ub-load-store.yaml run end to end: every flow finishes,
// bytes are conserved, and the numbers their comments state hold in flows.csv (the READ's one
// lost response packet is resent alone; loads are latency bound at N m / T).

#include "../fabric-sim-util.h"
#include "../test-files.h"
#include "config/scenario-config.h"
#include "run/scenario-runner.h"

#include <filesystem>
#include <unistd.h>

namespace ns3
{
namespace test
{
namespace
{

namespace fs = std::filesystem;

class UbMemoryExamples : public SimTest
{
  protected:
    Csv Run(const std::string& example)
    {
        fs::path dir =
            fs::temp_directory_path() / ("fabric-" + example + "-" + std::to_string(getpid()));
        fs::create_directories(dir);
        ScenarioConfig cfg =
            LoadScenario(std::string(FABRIC_SOURCE_DIR) + "/examples/" + example + ".yaml",
                         {},
                         FABRIC_SOURCE_DIR);
        RunOutcome o = ScenarioRunner::Run(cfg, dir.string());
        EXPECT_EQ(o.exitCode, 0) << o.message;
        EXPECT_TRUE(o.conservation.Ok());
        Csv flows = ReadCsv((dir / "flows.csv").string());
        for (size_t i = 0; i < flows.rows.size(); ++i)
        {
            EXPECT_EQ(flows.U(i, "delivered_bytes"), flows.U(i, "bytes")) << "flow " << i;
            EXPECT_FALSE(flows.rows[i].at("finish_ns").empty()) << "flow " << i;
        }
        fs::remove_all(dir);
        return flows;
    }
};

TEST_F(UbMemoryExamples, ReadExampleResendsTheLostResponsePacketOnly)
{
    Csv flows = Run("ub-read");
    ASSERT_EQ(flows.rows.size(), 3u);
    EXPECT_EQ(flows.U(0, "retransmitted_bytes"), 4096u);
    EXPECT_EQ(flows.U(0, "dropped_bytes"), 4096u);
    EXPECT_EQ(flows.U(0, "sent_bytes"), 1048576u + 4096u);
    EXPECT_EQ(flows.U(1, "retransmitted_bytes"), 0u);
}

TEST_F(UbMemoryExamples, LoadStoreExampleIsLatencyBound)
{
    // Flow 0: 256 loads of 64 B, 16 outstanding, T >= 2 (2 x 15 ns + frames) + 300 ns: at
    // least 16 round trips of 0.36 us, and the link (50 GB/s) could carry them in 0.33 us.
    Csv flows = Run("ub-load-store");
    ASSERT_EQ(flows.rows.size(), 4u);
    const double T = 4 * 15e-9 + 300e-9;
    double fct = flows.U(0, "fct_ns") * 1e-9;
    EXPECT_GE(fct, 16 * T);
    EXPECT_LE(fct, 16 * T * 1.1);
}

TEST_F(UbMemoryExamples, AHeldLoadStoreFlowSaysItWaitsForItsPredecessor)
{
    // Stopped at 2 us: flow 0 (256 strict loads, 16 outstanding) needs at least 16 round trips
    // of 0.36 us, so the relaxed store flow 1 behind it is still held at its initiator.
    fs::path dir = fs::temp_directory_path() / ("fabric-ub-held-" + std::to_string(getpid()));
    fs::create_directories(dir);
    ScenarioConfig cfg =
        LoadScenario(std::string(FABRIC_SOURCE_DIR) + "/examples/ub-load-store.yaml",
                     {"stop_time=2us"},
                     FABRIC_SOURCE_DIR);
    RunOutcome o = ScenarioRunner::Run(cfg, dir.string());
    EXPECT_TRUE(o.conservation.Ok());
    Csv flows = ReadCsv((dir / "flows.csv").string());
    ASSERT_EQ(flows.rows.size(), 4u);
    EXPECT_TRUE(flows.rows[0].at("finish_ns").empty());
    EXPECT_EQ(flows.rows[1].at("stuck_reason"),
              "waiting at the initiator for its ordered predecessors");
    EXPECT_EQ(flows.U(1, "sent_bytes"), 0u);
    fs::remove_all(dir);
}

} // namespace
} // namespace test
} // namespace ns3
