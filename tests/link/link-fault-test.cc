// Faults short of a failure in `events:` (helper/build/link-faults.cc): a link degraded to a lower
// rate, a delay added to a cable, frame errors, and restore — each against a completion time
// or a count worked out by hand, plus the configuration errors.

#include "../fabric-sim-util.h"
#include "../test-files.h"
#include "config/config-error.h"
#include "config/scenario-config.h"
#include "run/scenario-runner.h"

#include <cmath>
#include <filesystem>
#include <fstream>

namespace ns3
{
namespace test
{
namespace
{

namespace fs = std::filesystem;

// h0 -> sw0 -> h1 at 400 Gb/s with 1 µs cables. A frame of 4096 B payload carries 58 B of
// headers (Ethernet 14, IPv4 20, UDP 8, BTH 12, ICRC 4) and takes 24 B more on the wire
// (preamble, SFD, FCS, gap): 4178 B, 83 560 ps at 400 Gb/s and 167 120 ps at 200 Gb/s.
constexpr int64_t kTx400 = 4178 * 8 * 1000 / 400; // ps
constexpr int64_t kTx200 = 4178 * 8 * 1000 / 200;
constexpr int64_t kCable = 1000000; // ps

const char* const kStar = "topology: {generator: star, hosts: 2, rate: 400Gbps, delay: 1us}\n"
                          "host: {mtu: 4096B}\n"
                          "switch:\n  pfc: {enabled: false}\n  ecn: {enabled: false}\n";

class LinkFault : public SimTest
{
  protected:
    /// Runs \p yaml in a fresh directory (removed at the end of the test) and returns it.
    std::string Run(const std::string& name, const std::string& yaml, RunOutcome* out = nullptr)
    {
        std::string dir = m_tmp.Path() + "/" + name;
        fs::create_directories(dir);
        std::string path = dir + ".yaml";
        std::ofstream(path) << yaml;
        ScenarioConfig cfg = LoadScenario(path, {}, FABRIC_SOURCE_DIR);
        RunOutcome o = ScenarioRunner::Run(cfg, dir);
        EXPECT_EQ(o.exitCode, 0) << name << ": " << o.message;
        EXPECT_TRUE(o.summary["conservation_ok"].get<bool>()) << name;
        if (out)
        {
            *out = o;
        }
        Simulator::Destroy();
        return dir;
    }

    /// fct_ns of flow \p flow in \p dir's flows.csv (the flow must have finished).
    int64_t Fct(const std::string& dir, size_t flow = 0)
    {
        Csv flows = ReadCsv(dir + "/flows.csv");
        EXPECT_FALSE(flows.rows.at(flow).at("fct_ns").empty()) << dir << ": flow did not finish";
        return static_cast<int64_t>(flows.U(flow, "fct_ns"));
    }

    void ExpectKeyError(const std::string& yaml, const std::string& key)
    {
        SCOPED_TRACE(key);
        std::string path = m_tmp.Path() + "/bad.yaml";
        std::ofstream(path) << yaml;
        try
        {
            LoadScenario(path, {}, FABRIC_SOURCE_DIR);
            ADD_FAILURE() << "accepted:\n" << yaml;
        }
        catch (const ConfigError& e)
        {
            EXPECT_EQ(e.Key(), key) << e.what();
            EXPECT_GT(e.Line(), 0) << e.what();
        }
    }

    TempDir m_tmp{"fabric-link-fault"};
};

std::string
RawFlow(const std::string& bytes, const std::string& events)
{
    return std::string("name: fault\nseed: 1\nstop_time: 1ms\ntransport: raw\n") + kStar +
           "workload:\n  type: flows\n  flows:\n    - {src: h0, dst: h1, bytes: " + bytes +
           ", start: 0us}\n" + events;
}

// A raw flow of N = 256 full frames leaves h0 back to back. The link h0-sw0 drops to 200 Gb/s
// at t = 10 µs: frames 0..119 started before t (119 x 83.56 ns = 9.944 µs < t < 120 x 83.56 ns)
// and leave at 400 Gb/s (the frame on the wire at t finishes at its old rate), the other 136
// at 200 Gb/s. h0 is done at E = 120·tx400 + 136·tx200; the last frame crosses the cable,
// is forwarded by sw0 at 400 Gb/s (no queue: frames arrive slower than it sends them), and
// crosses the second cable: FCT = E + 2·cable + tx400.
TEST_F(LinkFault, RateChangeSplitsTheFlowAtTheEventTime)
{
    const int64_t n = 256;
    const int64_t before = 10000000 / kTx400 + 1; // frames started before 10 µs
    ASSERT_EQ(before, 120);
    const int64_t e = before * kTx400 + (n - before) * kTx200;
    const int64_t fctPs = e + 2 * kCable + kTx400;
    std::string dir =
        Run("rate",
            RawFlow("1MiB", "events:\n  - {at: 10us, degrade: [h0, sw0], rate: 200Gbps}\n"));
    EXPECT_EQ(Fct(dir), fctPs / 1000) << "expected " << fctPs << " ps";
    // Without the event: 257 frame times and two cables (the scratch two-hosts arithmetic).
    std::string base = Run("base", RawFlow("1MiB", ""));
    EXPECT_EQ(Fct(base), (257 * kTx400 + 2 * kCable) / 1000);
    // The event is in link-events.csv with the link's state after it.
    Csv ev = ReadCsv(dir + "/link-events.csv");
    ASSERT_EQ(ev.rows.size(), 1u);
    EXPECT_EQ(ev.rows.at(0).at("time_ns"), "10000");
    EXPECT_EQ(ev.rows.at(0).at("action"), "degrade");
    EXPECT_EQ(ev.rows.at(0).at("rate_bps"), "200000000000");
    EXPECT_EQ(ev.rows.at(0).at("added_delay_ns"), "0");
    EXPECT_FALSE(fs::exists(base + "/link-events.csv"));
}

// Restored at 15 µs: frames that start after it are back at 400 Gb/s. At 200 Gb/s from 10 µs,
// frame 120 starts at 120·tx400 = 10.027 µs; frames 120 + k start at 120·tx400 + k·tx200; the
// last one started before 15 µs is k = 29 (120·tx400 + 29·tx200 = 14.874 µs, k = 30 would be at
// 15.041 µs). So 30 frames at 200 Gb/s, the remaining 106 at 400 Gb/s.
TEST_F(LinkFault, RestoreReturnsToTheBuiltRate)
{
    const int64_t slow = (15000000 - 120 * kTx400) / kTx200 + 1;
    ASSERT_EQ(slow, 30);
    const int64_t e = 120 * kTx400 + slow * kTx200 + (256 - 120 - slow) * kTx400;
    std::string dir = Run("restore",
                          RawFlow("1MiB",
                                  "events:\n  - {at: 10us, degrade: [h0, sw0], rate: 200Gbps}\n"
                                  "  - {at: 15us, restore: [h0, sw0]}\n"));
    EXPECT_EQ(Fct(dir), (e + 2 * kCable + kTx400) / 1000);
    Csv ev = ReadCsv(dir + "/link-events.csv");
    ASSERT_EQ(ev.rows.size(), 2u);
    EXPECT_EQ(ev.rows.at(1).at("action"), "restore");
    EXPECT_EQ(ev.rows.at(1).at("rate_bps"), "400000000000");
}

std::string
ReliableFlow(const std::string& transport, const std::string& events)
{
    return "name: fault\nseed: 1\nstop_time: 1ms\ntransport: " + transport + "\ncc: none\n" +
           kStar +
           "workload:\n  type: flows\n  flows:\n    - {src: h0, dst: h1, bytes: 16KiB, "
           "start: 1us}\n" +
           events;
}

// Added delay before a lone short flow starts (4 frames, inside any window): its data cross
// the delayed cable once and its last acknowledgement once more, so the FCT grows by exactly
// 2 x delay per delayed link — 4 µs for one link, 8 µs for both — with RoCE and UB alike.
TEST_F(LinkFault, AddedDelayShiftsTheFctByDelayTimesCrossings)
{
    for (std::string transport : {"roce", "ub"})
    {
        SCOPED_TRACE(transport);
        int64_t base = Fct(Run(transport + "-base", ReliableFlow(transport, "")));
        int64_t one = Fct(Run(
            transport + "-one",
            ReliableFlow(transport, "events:\n  - {at: 500ns, degrade: [sw0, h1], delay: 2us}\n")));
        int64_t both =
            Fct(Run(transport + "-both",
                    ReliableFlow(transport,
                                 "events:\n  - {at: 500ns, degrade: [sw0, h1], delay: 2us}\n"
                                 "  - {at: 500ns, degrade: [h0, sw0], delay: 2us}\n")));
        EXPECT_EQ(one - base, 4000);
        EXPECT_EQ(both - base, 8000);
    }
}

// Lowering the delay while frames are on the cable must not let later frames overtake them.
// h0-sw0 gets 5 µs added at 2 µs and loses it at 4 µs. A raw 1 MiB flow leaves h0 back to back
// (frame k starts at k·tx): frames 24..47 start inside the window (23·tx < 2 µs < 24·tx,
// 47·tx < 4 µs < 48·tx) and reach sw0 at (k+1)·tx + 1 µs + 5 µs, the last at 48·tx + 6 µs.
// Frames 48.. would by their own delay arrive earlier; the cable holds them behind frame 47.
// sw0's egress is busy without a gap from frame 24 on (frames keep arriving at least as fast as
// it sends them, then a backlog), so it sends frames 47..255 back to back from 48·tx + 6 µs and
// the last reaches h1 at 48·tx + 6 µs + 209·tx + 1 µs: FCT = 257·tx + 7 µs, the baseline plus
// exactly the 5 µs. (Frames handed over at their own, earlier times would finish sooner.)
TEST_F(LinkFault, LoweredDelayKeepsTheCableInOrder)
{
    std::string dir = Run("fifo",
                          RawFlow("1MiB",
                                  "events:\n  - {at: 2us, degrade: [h0, sw0], delay: 5us}\n"
                                  "  - {at: 4us, restore: [h0, sw0]}\n"));
    EXPECT_EQ(Fct(dir), (257 * kTx400 + 2 * kCable + 5000000) / 1000);
}

/// The two-sided normal bound z·σ of a Binomial(n, p) count (z = 5: a miss by chance has
/// probability below 1e-6, so a fixed seed cannot fail by bad luck).
double
BinomialHalfWidth(double n, double p)
{
    return 5 * std::sqrt(n * p * (1 - p));
}

// Frame errors on h0-sw0 at p = 1 %: every frame that crosses that cable (data one way, ACKs and
// NAKs the other, PFC off) is lost with probability p, so the lost count is Binomial(n, p) with n
// the frames sent onto it — links.csv tx_frames of h0's port and of sw0's port 0. The flow still
// completes (go-back-N / selective repeat resend), the same seed gives the same count, and
// the lost frames are dropped bytes, so conservation holds.
TEST_F(LinkFault, ErrorRateLosesABinomialShareAndRecovers)
{
    for (std::string transport : {"roce", "ub"})
    {
        SCOPED_TRACE(transport);
        std::string yaml =
            "name: fault\nseed: 7\nstop_time: 20ms\ntransport: " + transport + "\ncc: none\n" +
            kStar +
            "workload:\n  type: flows\n  flows:\n    - {src: h0, dst: h1, bytes: 4MiB, "
            "start: 0us}\n"
            "events:\n  - {at: 0us, degrade: [h0, sw0], error_rate: 0.01}\n";
        RunOutcome o;
        std::string dir = Run(transport + "-errors", yaml, &o);
        Csv links = ReadCsv(dir + "/links.csv");
        double crossed = 0;
        for (size_t r = 0; r < links.rows.size(); ++r)
        {
            const auto& row = links.rows[r];
            if ((row.at("node") == "h0") || (row.at("node") == "sw0" && row.at("peer") == "h0"))
            {
                crossed += static_cast<double>(links.U(r, "tx_frames"));
            }
        }
        ASSERT_GT(crossed, 1024); // 1024 data frames at least
        uint64_t lost = o.summary["counters"]["link_error_frames"].get<uint64_t>();
        EXPECT_NEAR(static_cast<double>(lost), crossed * 0.01, BinomialHalfWidth(crossed, 0.01))
            << lost << " of " << crossed;
        EXPECT_GT(lost, 0u);
        Csv flows = ReadCsv(dir + "/flows.csv");
        EXPECT_EQ(flows.rows.at(0).at("delivered_bytes"), "4194304");
        EXPECT_GT(flows.U(0, "retransmitted_bytes"), 0u);
        // Determinism: the loss stream is seeded.
        RunOutcome again;
        Run(transport + "-errors-again", yaml, &again);
        EXPECT_EQ(again.summary["counters"]["link_error_frames"].get<uint64_t>(), lost);
    }
}

// Restore puts back the link's built loss rate (link.loss_rate), not zero, and the log shows the
// link's state after each event.
TEST_F(LinkFault, RestoreReturnsToTheBuiltLossRate)
{
    std::string yaml = RawFlow("64KiB",
                               "link: {loss_rate: 0.001}\n"
                               "events:\n  - {at: 1us, degrade: [h0, sw0], error_rate: 0.01}\n"
                               "  - {at: 2us, restore: [h0, sw0]}\n");
    std::string dir = Run("restore-loss", yaml);
    Csv ev = ReadCsv(dir + "/link-events.csv");
    ASSERT_EQ(ev.rows.size(), 2u);
    EXPECT_EQ(ev.rows.at(0).at("error_rate"), "0.01");
    EXPECT_EQ(ev.rows.at(1).at("error_rate"), "0.001");
}

const char* const kBad = "name: bad\nstop_time: 1ms\ntransport: roce\n"
                         "topology: {generator: star, hosts: 2}\n"
                         "workload: {type: flows, flows: [{src: h0, dst: h1, bytes: 8KiB}]}\n";

TEST_F(LinkFault, BadEventsNameTheirKey)
{
    std::string base = kBad;
    ExpectKeyError(base + "events:\n  - {at: 1us, degrade: [h0, sw0]}\n", "events[0].degrade");
    ExpectKeyError(base + "events:\n  - {at: 1us, degrade: [h0, sw0], rate: 0Gbps}\n",
                   "events[0].rate");
    ExpectKeyError(base + "events:\n  - {at: 1us, degrade: [h0, sw0], error_rate: 1.5}\n",
                   "events[0].error_rate");
    ExpectKeyError(base + "events:\n  - {at: 1us, degrade: [h0, sw0], delay: -1us}\n",
                   "events[0].delay");
    ExpectKeyError(base + "events:\n  - {at: 1us, degrade: [h0, h1], rate: 100Gbps}\n",
                   "events[0].degrade");
    ExpectKeyError(base + "events:\n  - {at: 1us, restore: [h0, sw0], rat: 1Gbps}\n",
                   "events[0].rat");
}

} // namespace
} // namespace test
} // namespace ns3
