// Example 7.4 of "Datacenter networks", chapter 7, §7.4.3 at packet level
// (examples/validation/ordering-example-7-4.yaml, docs/models.md#ordering): the times each write
// becomes visible at its target, derived by hand for that fabric.
//
// Fabric: h0 on 800 Gb/s, h1, h2, h3 on 400 Gb/s, 50 ns cables, no wire overhead, 5000 B frames
// (T8 = 50 ns on h0's link, T4 = 100 ns on a target's); ACK frame 66 + 10 + 32 = 108 B, so an
// execution notice returns in R = 2.16 + 1.08 + 2 x 50 = 103.24 ns. A = 200 frames to h1,
// packet 0 lost, resent when Rto = 99.9 us has passed since its first transmission started (at
// 0); B = 20 frames to h2 after A; C = 100 frames to h3.
//
//   A visible  = 99 900 + T8 + T4 + 2D            = 100 150 ns    (chapter: 20 + 80 = 100 us)
//   A complete = 100 150 + R                      = 100 253.24 ns (B is held until then)
//   B visible  = 100 253.24 + T8 + 2D + 20 T4     = 102 403.24 ns (chapter: 102 us)
//   strict C   = 102 403.24 + R + T8 + 2D + 100 T4 = 112 656.48 ns (chapter: 112 us)
//   only A->B: C's first frame leaves after A0 (on the wire) and A1 (queued at the port) when
//              C is posted 6.2 ns after A: C visible = 2 T8 + T8 + 2D + 100 T4 = 10 250 ns
//              (chapter: 10 us)
// flows.csv prints whole ns (truncated).

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

class UbOrderingExample : public SimTest
{
  protected:
    Csv Run(const std::vector<std::string>& sets)
    {
        fs::path dir =
            fs::temp_directory_path() /
            ("fabric-ordering-7-4-" + std::to_string(getpid()) + "-" + std::to_string(sets.size()));
        fs::create_directories(dir);
        ScenarioConfig cfg = LoadScenario(std::string(FABRIC_SOURCE_DIR) +
                                              "/examples/validation/ordering-example-7-4.yaml",
                                          sets,
                                          FABRIC_SOURCE_DIR);
        RunOutcome o = ScenarioRunner::Run(cfg, dir.string());
        EXPECT_EQ(o.exitCode, 0) << o.message;
        EXPECT_TRUE(o.conservation.Ok());
        Csv flows = ReadCsv((dir / "flows.csv").string());
        fs::remove_all(dir);
        EXPECT_EQ(flows.rows.size(), 3u);
        for (size_t i = 0; i < flows.rows.size(); ++i)
        {
            EXPECT_EQ(flows.U(i, "delivered_bytes"), flows.U(i, "bytes")) << "flow " << i;
        }
        EXPECT_EQ(flows.U(0, "retransmitted_bytes"), 4934u); // A's packet 0, once
        return flows;
    }
};

TEST_F(UbOrderingExample, OnlyAThenBLetsTheIndependentTransferFinishFirst)
{
    Csv f = Run({});
    EXPECT_EQ(f.U(0, "executed_ns"), 100150u);
    EXPECT_EQ(f.U(0, "finish_ns"), 100253u);
    EXPECT_EQ(f.U(1, "launch_ns"), 100253u); // held at h0 until A completed
    EXPECT_EQ(f.U(1, "executed_ns"), 102403u);
    EXPECT_EQ(f.U(2, "executed_ns"), 10250u);
    EXPECT_EQ(f.U(2, "finish_ns"), 10353u); // 10 250 + R
}

TEST_F(UbOrderingExample, StrictOrderPutsTheIndependentTransferAfterThePublication)
{
    Csv f = Run({"workload.flows.2.after=[1]"});
    EXPECT_EQ(f.U(0, "executed_ns"), 100150u);
    EXPECT_EQ(f.U(1, "executed_ns"), 102403u);
    EXPECT_EQ(f.U(1, "finish_ns"), 102506u); // 102 403.24 + R
    EXPECT_EQ(f.U(2, "launch_ns"), 102506u);
    EXPECT_EQ(f.U(2, "executed_ns"), 112656u);
}

TEST_F(UbOrderingExample, LongerRecoveryDelaysOnlyWhatIsOrderedAfterA)
{
    // The chapter's second question: a recovery of 200 us (Rto 219.9 us) moves A, B and a
    // strictly ordered C by 120 us (C: 112 656.48 + 120 000 ns; chapter 232 us), and leaves an
    // unordered C at 10 250 ns (chapter 10 us).
    Csv strict = Run({"ub.rto=219900ns", "workload.flows.2.after=[1]"});
    EXPECT_EQ(strict.U(0, "executed_ns"), 220150u);
    EXPECT_EQ(strict.U(1, "executed_ns"), 222403u);
    EXPECT_EQ(strict.U(2, "executed_ns"), 232656u);
    Csv relaxed = Run({"ub.rto=219900ns"});
    EXPECT_EQ(relaxed.U(1, "executed_ns"), 222403u);
    EXPECT_EQ(relaxed.U(2, "executed_ns"), 10250u);
}

TEST_F(UbOrderingExample, NoticeToTheSameTargetIsHeldThereAndSentDuringTheRecovery)
{
    // B to h1 too: ordered by the target's transport (ROL), so its 20 frames follow A's on the
    // shared channel at once and wait at h1; B executes the moment A does, not 2 us later.
    Csv f = Run({"workload.flows.1.dst=h1"});
    EXPECT_EQ(f.U(1, "launch_ns"), 6u); // one request interval (6.2 ns) after A
    EXPECT_EQ(f.U(0, "executed_ns"), 100150u);
    EXPECT_EQ(f.U(1, "executed_ns"), 100150u);
    EXPECT_EQ(f.U(2, "executed_ns"), 10250u);
}

} // namespace
} // namespace test
} // namespace ns3
