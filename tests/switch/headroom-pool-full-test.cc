// Regression for property seed 5515: the one-hop headroom bound must hold the frame that pauses
// an (ingress port, priority) when the shared pool is full, since that frame lands in headroom
// itself (SharedBufferMmu::Admit), besides everything the upstream starts before the pause
// reaches it (docs/models.md#pfc-headroom).
//
// tests/data/scenarios/headroom-pool-full.yaml: 400 Gb/s (50 B/ns), 108 m (d = 540 ns), 4096 B
// payload → F = 4154 B frames, 24 B of preamble, FCS and gap:
//   T_f = 4178·8/400e9 = 83.56 ns, T_pause = 84·8/400e9 = 1.68 ns,
//   W   = T_f + 2·T_pause + 2d = 83.56 + 3.36 + 1080 = 1166.92 ns → 50 B/ns · W = 58 346 B,
//   H   = 58 346 + 2·4154 = 66 654 B   (the bound before the fix stopped at + F: 62 500 B).
// Seven ports reserve 7 · 66 654 = 466 578 B of the 524 288 B buffer: the shared pool
// (57 710 B) is smaller than XOFF (99 KiB), so every pause is a pool-full pause. With 62 500 B
// one port held 14 full frames, one 2106 B frame (a flow's last, 2048 B of payload) and then
// received another full frame: 64 416 B, one 4154 B frame lost; 66 654 B holds it.

#include "../fabric-sim-util.h"
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

constexpr uint64_t kHeadroom = 66654;
constexpr uint64_t kFrame = 4154;

class HeadroomPoolFull : public SimTest
{
  protected:
    RunOutcome Run(const std::vector<std::string>& overrides)
    {
        std::string dir =
            (fs::temp_directory_path() / ("fabric-headroom-pool-full-" + std::to_string(getpid())))
                .string();
        fs::create_directories(dir);
        ScenarioConfig cfg = LoadScenario(std::string(FABRIC_SOURCE_DIR) +
                                              "/tests/data/scenarios/headroom-pool-full.yaml",
                                          overrides,
                                          FABRIC_SOURCE_DIR);
        RunOutcome o = ScenarioRunner::Run(cfg, dir);
        fs::remove_all(dir);
        return o;
    }
};

TEST_F(HeadroomPoolFull, BoundCountsThePausingFrame)
{
    EXPECT_EQ(OneHopHeadroomBytes(DataRate("400Gbps"), NanoSeconds(540), kFrame, 24), kHeadroom);
}

TEST_F(HeadroomPoolFull, SeedFiftyFiveFifteenIsLossless)
{
    RunOutcome o = Run({});
    const auto& c = o.summary["counters"];
    EXPECT_EQ(o.exitCode, 0) << o.message;
    EXPECT_EQ(c["headroom_violation_bytes"].get<uint64_t>(), 0u);
    EXPECT_EQ(c["dropped_bytes"].get<uint64_t>(), 0u);
    EXPECT_EQ(o.summary["flows_finished"], o.summary["flows_total"]);
}

TEST_F(HeadroomPoolFull, TheOldBoundLosesOneFrame)
{
    // One frame less of headroom (what the bound gave before): the violation comes back, so the
    // run above is lossless because of the pausing frame's place, not by chance.
    RunOutcome o = Run({"switch.pfc.headroom=" + std::to_string(kHeadroom - kFrame) + "B"});
    EXPECT_EQ(o.summary["counters"]["headroom_violation_bytes"].get<uint64_t>(), kFrame);
}

} // namespace
} // namespace test
} // namespace ns3
