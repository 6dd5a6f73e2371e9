// Small end-to-end runs of build/fabric-run on tests/data/scenarios/*.yaml, checked against
// numbers derived from the scenario (frame counts, hop counts, byte totals) rather than against
// what the run prints:
//   - same seed, same results (byte-identical traces; summary.json without wall-clock fields),
//     another seed with start_jitter, other start times;
//   - byte conservation per flow, and drops in a lossy incast accounted to flows and links;
//   - PFC with auto headroom loses nothing; a one-frame headroom does lose;
//   - the switch's pcaps, decoded by tshark, hold the RoCE and PFC frames links.csv counts.
// Runs go through the fabric-run binary (one process per run) so that ns-3's global attribute
// defaults set by one run cannot leak into another or into the other suites of this binary.

#include "../test-files.h"

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <string>
#include <sys/wait.h>
#include <vector>

namespace
{

using ns3::test::Csv;
using ns3::test::kTshark;
using ns3::test::ReadCsv;
using ns3::test::ReadFile;
using ns3::test::ShellQuote;
namespace fs = std::filesystem;

const std::string kSourceDir = FABRIC_SOURCE_DIR;
const std::string kFabricRun = std::string(FABRIC_BUILD_DIR) + "/fabric-run";

/// Bytes of one full RoCEv2 data frame: 4096 B payload + Ethernet 14 + IPv4 20 + UDP 8 + BTH 12
/// + ICRC 4 (the FCS is counted as wire overhead, not stored).
constexpr uint64_t kPayload = 4096;
constexpr uint64_t kFrame = kPayload + 14 + 20 + 8 + 12 + 4;

/// summary.json without the fields that measure the machine rather than the simulation.
nlohmann::json
StableSummary(const std::string& dir)
{
    nlohmann::json s = nlohmann::json::parse(ReadFile(dir + "/summary.json"));
    for (const char* k : {"wall_s", "build_s", "events_per_s", "packet_hops_per_s", "peak_rss_kb"})
    {
        EXPECT_TRUE(s.contains(k)) << k;
        s.erase(k);
    }
    return s;
}

class ScenarioRunTest : public ::testing::Test
{
  protected:
    void SetUp() override
    {
        if (!fs::exists(kFabricRun))
        {
            GTEST_FAIL() << kFabricRun << " is missing: build the fabric-run target first";
        }
    }

    /// Runs tests/data/scenarios/<fixture> into <tmp>/<name>; returns the exit status (-1 when
    /// killed by a signal) and the directory.
    int Run(const std::string& fixture,
            const std::string& name,
            const std::vector<std::string>& extra = {})
    {
        std::string out = Dir(name);
        std::string cmd = "cd " + ShellQuote(kSourceDir) + " && exec " + ShellQuote(kFabricRun) +
                          " " + ShellQuote("tests/data/scenarios/" + fixture) + " --quiet --out " +
                          ShellQuote(out);
        for (const std::string& a : extra)
        {
            cmd += " " + ShellQuote(a);
        }
        cmd += " >" + ShellQuote(out + ".log") + " 2>&1";
        int st = std::system(cmd.c_str());
        m_lastLog = ReadFile(out + ".log");
        return st != -1 && WIFEXITED(st) ? WEXITSTATUS(st) : -1;
    }

    std::string Dir(const std::string& name) const
    {
        return m_tmp + "/" + name;
    }

    /// Byte-for-byte comparison of the traces two runs wrote, and of their summaries.
    void ExpectSameResults(const std::string& a, const std::string& b)
    {
        for (const char* f : {"flows.csv", "queues.csv", "pfc.csv", "links.csv", "rates.csv"})
        {
            SCOPED_TRACE(f);
            std::string ta = ReadFile(Dir(a) + "/" + f);
            EXPECT_FALSE(ta.empty());
            EXPECT_TRUE(ta == ReadFile(Dir(b) + "/" + f)) << f << " differs between runs";
        }
        nlohmann::json sa = StableSummary(Dir(a));
        nlohmann::json sb = StableSummary(Dir(b));
        EXPECT_EQ(sa, sb) << nlohmann::json::diff(sa, sb).dump(1);
    }

    /// Per-flow conservation in flows.csv, and flows.csv totals equal to summary.json counters.
    void ExpectConservation(const std::string& name)
    {
        Csv flows = ReadCsv(Dir(name) + "/flows.csv");
        nlohmann::json s = nlohmann::json::parse(ReadFile(Dir(name) + "/summary.json"));
        uint64_t sent = 0;
        uint64_t delivered = 0;
        uint64_t dropped = 0;
        uint64_t inFlight = 0;
        for (size_t i = 0; i < flows.rows.size(); ++i)
        {
            SCOPED_TRACE("flow row " + std::to_string(i));
            uint64_t fs = flows.U(i, "sent_bytes");
            uint64_t fd = flows.U(i, "delivered_bytes");
            uint64_t fx = flows.U(i, "dropped_bytes");
            uint64_t ff = flows.U(i, "in_flight_bytes");
            EXPECT_EQ(fs, fd + fx + ff);
            EXPECT_LE(fs, flows.U(i, "bytes"));
            sent += fs;
            delivered += fd;
            dropped += fx;
            inFlight += ff;
        }
        EXPECT_EQ(s["flows_total"], flows.rows.size());
        EXPECT_EQ(s["counters"]["sent_bytes"], sent);
        EXPECT_EQ(s["counters"]["delivered_bytes"], delivered);
        EXPECT_EQ(s["counters"]["dropped_bytes"], dropped);
        EXPECT_EQ(s["counters"]["in_flight_bytes"], inFlight);
        EXPECT_EQ(s["conservation_ok"], true);
    }

    ns3::test::TempDir m_tmpDir{"fabric-scenario"};
    const std::string& m_tmp = m_tmpDir.Path();
    std::string m_lastLog;
};

/// Rows of pfc.csv for PFC frames a device transmitted (XOFF or XON).
uint64_t
PfcFramesSent(const Csv& pfc)
{
    uint64_t n = 0;
    for (const auto& r : pfc.rows)
    {
        n += r.at("event") == "XOFF_SENT" || r.at("event") == "XON_SENT" ? 1 : 0;
    }
    return n;
}

// --- determinism --------------------------------------------------------------------------

TEST_F(ScenarioRunTest, HpccRecordsBeyondTheCountsAreIgnoredUnlessStrict)
{
    // topo-links-extra.txt counts 5 links and lists 6 (line 8 the extra); flow-count-extra.txt
    // counts 3 flows and lists 4 (line 5 the extra, which would not even parse).
    ASSERT_EQ(Run("hpcc-extra-records.yaml", "hpcc-lenient"), 0) << m_lastLog;
    EXPECT_NE(m_lastLog.find("topo-links-extra.txt:1: N_links: says 5 links; line 8 and those "
                             "after it are ignored"),
              std::string::npos)
        << m_lastLog;
    EXPECT_NE(m_lastLog.find("flow-count-extra.txt:1: N_flows: says 3 flows; line 5 and those "
                             "after it are ignored"),
              std::string::npos)
        << m_lastLog;
    EXPECT_EQ(ReadCsv(Dir("hpcc-lenient") + "/flows.csv").rows.size(), 3u);

    ASSERT_EQ(Run("hpcc-extra-records.yaml", "hpcc-strict", {"--strict-import"}), 2) << m_lastLog;
    EXPECT_NE(m_lastLog.find("topo-links-extra.txt:1: N_links: says 5 links but more records "
                             "follow from line 8"),
              std::string::npos)
        << m_lastLog;
    EXPECT_EQ(m_lastLog.find("warning"), std::string::npos) << m_lastLog;
}

TEST_F(ScenarioRunTest, TrimsTraceHasEveryTrimmedFrame)
{
    // incast-lossy.yaml with trimming above 32 KiB: the queue toward h0 never reaches the
    // 128 KiB buffer, so no frame is lost. Each of the 128 data frames (8 x 64 KiB of 4096 B
    // payload, raw transport: no resends) reaches h0 either whole or trimmed, and every trimmed
    // one is a trims.csv row at sw0's port 0 (toward h0) cutting its 4096 B payload. So per flow,
    // rows x 4096 = 65536 - delivered_bytes, and sw0 forwards all 128 frames.
    ASSERT_EQ(Run("incast-lossy.yaml",
                  "trim",
                  {"--set", "switch.trim.enabled=true", "--set", "switch.trim.threshold=32KiB"}),
              0)
        << m_lastLog;
    Csv trims = ReadCsv(Dir("trim") + "/trims.csv");
    EXPECT_EQ(trims.columns,
              (std::vector<std::string>{"time_ns", "node", "port", "flow_id", "bytes"}));
    ASSERT_GT(trims.rows.size(), 0u);
    std::map<std::string, uint64_t> rowsOfFlow;
    uint64_t lastTime = 0;
    for (size_t i = 0; i < trims.rows.size(); ++i)
    {
        SCOPED_TRACE("trims row " + std::to_string(i));
        EXPECT_EQ(trims.rows[i].at("node"), "sw0");
        EXPECT_EQ(trims.U(i, "port"), 0u);
        EXPECT_EQ(trims.U(i, "bytes"), 4096u);
        EXPECT_GE(trims.U(i, "time_ns"), std::max<uint64_t>(lastTime, 1000u)); // after the start
        lastTime = trims.U(i, "time_ns");
        ++rowsOfFlow[trims.rows[i].at("flow_id")];
    }
    Csv flows = ReadCsv(Dir("trim") + "/flows.csv");
    ASSERT_EQ(flows.rows.size(), 8u);
    for (size_t i = 0; i < flows.rows.size(); ++i)
    {
        SCOPED_TRACE("flow " + flows.rows[i].at("flow_id"));
        EXPECT_EQ(rowsOfFlow[flows.rows[i].at("flow_id")] * 4096,
                  65536u - flows.U(i, "delivered_bytes"));
    }
    Csv links = ReadCsv(Dir("trim") + "/links.csv");
    for (size_t i = 0; i < links.rows.size(); ++i)
    {
        if (links.rows[i].at("node") == "sw0" && links.rows[i].at("peer") == "h0")
        {
            EXPECT_EQ(links.U(i, "tx_frames"), 128u);
        }
    }
    // Without trimming the run keeps its set of files: no trims.csv.
    ASSERT_EQ(Run("incast-lossy.yaml", "no-trim"), 0) << m_lastLog;
    EXPECT_FALSE(fs::exists(Dir("no-trim") + "/trims.csv"));
}

TEST_F(ScenarioRunTest, Clos2AllToAllSameSeedSameResults)
{
    ASSERT_EQ(Run("clos2-all-to-all.yaml", "a"), 0) << m_lastLog;
    ASSERT_EQ(Run("clos2-all-to-all.yaml", "b"), 0) << m_lastLog;
    ExpectSameResults("a", "b");
    // The comparison means something only if the run congested: queues and PFC were traced.
    EXPECT_GT(ReadCsv(Dir("a") + "/queues.csv").rows.size(), 10u);
    EXPECT_GT(ReadCsv(Dir("a") + "/pfc.csv").rows.size(), 0u);
}

TEST_F(ScenarioRunTest, LossyIncastSameSeedSameResults)
{
    // The exit status is checked by LossyIncastAccountsDrops; here only the outputs matter.
    Run("incast-lossy.yaml", "a");
    Run("incast-lossy.yaml", "b");
    ExpectSameResults("a", "b");
}

TEST_F(ScenarioRunTest, OtherSeedMovesJitteredStarts)
{
    ASSERT_EQ(Run("clos2-all-to-all.yaml", "s1"), 0) << m_lastLog;
    ASSERT_EQ(Run("clos2-all-to-all.yaml", "s2", {"--seed", "2"}), 0) << m_lastLog;
    EXPECT_NE(ReadFile(Dir("s1") + "/flows.csv"), ReadFile(Dir("s2") + "/flows.csv"));
    Csv a = ReadCsv(Dir("s1") + "/flows.csv");
    Csv b = ReadCsv(Dir("s2") + "/flows.csv");
    ASSERT_EQ(a.rows.size(), 56u);
    ASSERT_EQ(b.rows.size(), 56u);
    int moved = 0;
    for (size_t i = 0; i < a.rows.size(); ++i)
    {
        // start: 1us, start_jitter: 2us -> every start in [1000, 3000] ns.
        for (const Csv* c : {&a, &b})
        {
            EXPECT_GE(c->U(i, "start_ns"), 1000u);
            EXPECT_LE(c->U(i, "start_ns"), 3000u);
        }
        moved += a.U(i, "start_ns") != b.U(i, "start_ns") ? 1 : 0;
    }
    EXPECT_GT(moved, 40);
    EXPECT_EQ(nlohmann::json::parse(ReadFile(Dir("s2") + "/summary.json"))["seed"], 2);
}

// --- conservation -------------------------------------------------------------------------

TEST_F(ScenarioRunTest, Clos2AllToAllConservesBytesAndHops)
{
    ASSERT_EQ(Run("clos2-all-to-all.yaml", "run"), 0) << m_lastLog;
    ExpectConservation("run");
    Csv flows = ReadCsv(Dir("run") + "/flows.csv");
    ASSERT_EQ(flows.rows.size(), 56u); // 8 hosts x 7 destinations
    for (size_t i = 0; i < flows.rows.size(); ++i)
    {
        EXPECT_EQ(flows.U(i, "delivered_bytes"), 16384u);
        EXPECT_FALSE(flows.rows[i].at("finish_ns").empty());
    }

    // Every flow is 16 KiB = 4 full frames: hosts transmit 56 x 4 = 224 frames of 4154 B.
    Csv links = ReadCsv(Dir("run") + "/links.csv");
    uint64_t hostTxFrames = 0;
    uint64_t hostTxBytes = 0;
    uint64_t allTxFrames = 0;
    for (size_t i = 0; i < links.rows.size(); ++i)
    {
        allTxFrames += links.U(i, "tx_frames");
        if (links.rows[i].at("node")[0] == 'h')
        {
            hostTxFrames += links.U(i, "tx_frames");
            hostTxBytes += links.U(i, "tx_bytes");
        }
    }
    EXPECT_EQ(hostTxFrames, 224u);
    EXPECT_EQ(hostTxBytes, 224u * kFrame);
    // Hops: host i sits on leaf i/2. Its one same-leaf destination is 2 hops away (host-leaf,
    // leaf-host), its six others 4 (host-leaf-spine-leaf-host): per source 4 x (1 x 2 + 6 x 4)
    // = 104 frame-hops, 832 for 8 sources. Every other transmitted frame is a PFC frame.
    Csv pfc = ReadCsv(Dir("run") + "/pfc.csv");
    EXPECT_EQ(allTxFrames, 832u + PfcFramesSent(pfc));
    nlohmann::json s = nlohmann::json::parse(ReadFile(Dir("run") + "/summary.json"));
    EXPECT_EQ(s["packet_hops"], allTxFrames);
    EXPECT_EQ(s["flows_finished"], 56);
}

TEST_F(ScenarioRunTest, LossyIncastAccountsDrops)
{
    int status = Run("incast-lossy.yaml", "run");
    EXPECT_EQ(status, 0) << m_lastLog;
    ExpectConservation("run");

    // 8 x 64 KiB = 128 frames of 4096 B payload into a 128 KiB buffer at 8x the drain rate.
    Csv flows = ReadCsv(Dir("run") + "/flows.csv");
    ASSERT_EQ(flows.rows.size(), 8u);
    uint64_t dropped = 0;
    for (size_t i = 0; i < flows.rows.size(); ++i)
    {
        EXPECT_EQ(flows.U(i, "sent_bytes"), 65536u); // line rate, no PFC: everything leaves
        dropped += flows.U(i, "dropped_bytes");
    }
    EXPECT_GT(dropped, 0u);
    nlohmann::json s = nlohmann::json::parse(ReadFile(Dir("run") + "/summary.json"));
    EXPECT_EQ(s["counters"]["dropped_bytes"], dropped);

    // The same drops seen from the links: frames the senders put on the wire minus frames the
    // switch forwarded to the receiver (no PFC, so all of them are data frames of 4096 B).
    Csv links = ReadCsv(Dir("run") + "/links.csv");
    uint64_t senderFrames = 0;
    uint64_t forwarded = 0;
    for (size_t i = 0; i < links.rows.size(); ++i)
    {
        const auto& r = links.rows[i];
        if (r.at("node") != "sw0" && r.at("node") != "h0")
        {
            senderFrames += links.U(i, "tx_frames");
        }
        if (r.at("node") == "sw0" && r.at("peer") == "h0")
        {
            forwarded += links.U(i, "tx_frames");
        }
    }
    EXPECT_EQ(senderFrames, 128u);
    EXPECT_EQ(dropped, (senderFrames - forwarded) * kPayload);
    // Raw flows are not retransmitted: a flow is done when every byte is delivered or dropped.
    EXPECT_EQ(s["flows_finished"], 8);
}

// --- lossless -----------------------------------------------------------------------------

/// The lossless fixture (optionally with --set overrides) loses nothing and needed PFC.
void
ExpectLossless(const std::string& dir)
{
    nlohmann::json s = nlohmann::json::parse(ReadFile(dir + "/summary.json"));
    EXPECT_EQ(s["counters"]["dropped_bytes"], 0);
    EXPECT_EQ(s["counters"]["headroom_violation_bytes"], 0);
    EXPECT_EQ(s["counters"]["in_flight_bytes"], 0);
    EXPECT_EQ(s["counters"]["delivered_bytes"], 8 * 256 * 1024);
    EXPECT_EQ(s["flows_finished"], 8);
    Csv flows = ReadCsv(dir + "/flows.csv");
    ASSERT_EQ(flows.rows.size(), 8u);
    for (size_t i = 0; i < flows.rows.size(); ++i)
    {
        EXPECT_EQ(flows.U(i, "delivered_bytes"), flows.U(i, "bytes"));
        EXPECT_EQ(flows.U(i, "bytes"), 256u * 1024);
    }
    // 2 MiB arrive at 8x the drain rate: without pauses the buffer would have overflowed.
    Csv pfc = ReadCsv(dir + "/pfc.csv");
    uint64_t xoff = 0;
    for (const auto& r : pfc.rows)
    {
        xoff += r.at("event") == "XOFF_SENT" ? 1 : 0;
    }
    EXPECT_GT(xoff, 0u);
}

TEST_F(ScenarioRunTest, LosslessIncastWithAutoHeadroomLosesNothing)
{
    ASSERT_EQ(Run("incast-lossless.yaml", "run"), 0) << m_lastLog;
    ExpectLossless(Dir("run"));
    ExpectConservation("run");
}

TEST_F(ScenarioRunTest, LosslessAcrossCableLengths)
{
    // Auto headroom follows the cable: 1 m, 30 m and 300 m (37 frames per port at 300 m; the
    // 4 MiB buffer holds 9 ports of that).
    for (const char* cable : {"1m", "30m", "300m"})
    {
        SCOPED_TRACE(cable);
        std::string name = std::string("cable-") + cable;
        ASSERT_EQ(
            Run("incast-lossless.yaml",
                name,
                {"--set", std::string("topology.cable=") + cable, "--set", "switch.buffer=4MiB"}),
            0)
            << m_lastLog;
        ExpectLossless(Dir(name));
    }
}

TEST_F(ScenarioRunTest, OneFrameOfHeadroomIsNotEnoughAt100m)
{
    // The control for the test above: at 100 m the bound is 13 frames; with one frame of
    // headroom the frames in flight after an XOFF overflow it. Each violating frame is dropped,
    // so the flows lose exactly its payload: dropped = violation bytes / 4154 x 4096.
    Run("incast-lossless.yaml", "run", {"--set", "switch.pfc.headroom=4154B"});
    nlohmann::json s = nlohmann::json::parse(ReadFile(Dir("run") + "/summary.json"));
    uint64_t violation = s["counters"]["headroom_violation_bytes"];
    EXPECT_GT(violation, 0u);
    EXPECT_EQ(violation % kFrame, 0u);
    EXPECT_EQ(s["counters"]["dropped_bytes"], violation / kFrame * kPayload);
    EXPECT_EQ(s["conservation_ok"], true);
}

// --- pcap ---------------------------------------------------------------------------------

/// One decoded frame: the tshark fields we ask for, by name.
using Frame = std::map<std::string, std::string>;

std::vector<Frame>
Decode(const std::string& pcap)
{
    const std::vector<std::string> fields = {"eth.type",
                                             "ip.src",
                                             "infiniband.bth.opcode",
                                             "infiniband.bth.destqp",
                                             "infiniband.bth.psn",
                                             "macc.opcode",
                                             "macc.cbfc.enbv",
                                             "macc.cbfc.pause_time.c3"};
    std::string cmd = std::string(kTshark) + " -r " + ShellQuote(pcap) +
                      " -T fields -E separator=/t -E occurrence=f";
    for (const std::string& f : fields)
    {
        cmd += " -e " + f;
    }
    cmd += " 2>/dev/null";
    std::vector<Frame> frames;
    FILE* p = popen(cmd.c_str(), "r");
    if (p == nullptr)
    {
        ADD_FAILURE() << "cannot run " << cmd;
        return frames;
    }
    std::string text;
    char buf[4096];
    for (size_t n; (n = fread(buf, 1, sizeof buf, p)) > 0;)
    {
        text.append(buf, n);
    }
    EXPECT_EQ(pclose(p), 0) << cmd;
    std::istringstream lines(text);
    for (std::string line; std::getline(lines, line);)
    {
        Frame f;
        std::stringstream ls(line);
        std::string cell;
        for (const std::string& name : fields)
        {
            std::getline(ls, cell, '\t');
            f[name] = cell;
            cell.clear();
        }
        frames.push_back(f);
    }
    return frames;
}

uint64_t
Hex(const std::string& s)
{
    return std::stoull(s, nullptr, 0);
}

TEST_F(ScenarioRunTest, SwitchPcapsHoldTheRoceAndPfcFramesLinksCount)
{
    ASSERT_TRUE(ns3::test::TsharkInstalled());
    ASSERT_EQ(Run("pcap-tiny.yaml", "run"), 0) << m_lastLog;
    std::string dir = Dir("run");

    // pcap_nodes: [sw0] -> one file per sw0 port (h0, h1, h2), none for the hosts.
    std::set<std::string> pcaps;
    for (const auto& e : fs::directory_iterator(dir))
    {
        if (e.path().extension() == ".pcap")
        {
            pcaps.insert(e.path().filename().string());
        }
    }
    EXPECT_EQ(pcaps, (std::set<std::string>{"sw0-0.pcap", "sw0-1.pcap", "sw0-2.pcap"}));

    Csv links = ReadCsv(dir + "/links.csv");
    Csv pfc = ReadCsv(dir + "/pfc.csv");
    auto txFrames = [&](const std::string& node, uint32_t port) -> uint64_t {
        for (size_t i = 0; i < links.rows.size(); ++i)
        {
            if (links.rows[i].at("node") == node && links.U(i, "port") == port)
            {
                return links.U(i, "tx_frames");
            }
        }
        ADD_FAILURE() << "no links.csv row for " << node << " port " << port;
        return 0;
    };

    // Each sender h<i> (i = 1, 2) sends 12 KiB = 3 frames, on sw0 port i; sw0 forwards all 6 to
    // h0 on port 0. A sw0 pcap holds what the port sent and what it received.
    EXPECT_EQ(txFrames("h1", 0), 3u);
    EXPECT_EQ(txFrames("h2", 0), 3u);
    EXPECT_EQ(txFrames("sw0", 0), 6u);
    std::map<uint32_t, std::string> peer = {{0, "h0"}, {1, "h1"}, {2, "h2"}};
    uint64_t pfcFramesSeen = 0;
    for (uint32_t port = 0; port < 3; ++port)
    {
        SCOPED_TRACE("sw0 port " + std::to_string(port));
        std::vector<Frame> frames = Decode(dir + "/sw0-" + std::to_string(port) + ".pcap");
        EXPECT_EQ(frames.size(), txFrames("sw0", port) + txFrames(peer[port], 0));

        // PFC frames: those the switch sent on this port, in pfc.csv order, each pausing
        // (65535 quanta) or resuming (0) priority 3 only (class-enable vector bit 3).
        std::vector<uint64_t> expectedQuanta;
        for (const auto& r : pfc.rows)
        {
            if (r.at("node") == "sw0" && std::stoul(r.at("port")) == port &&
                (r.at("event") == "XOFF_SENT" || r.at("event") == "XON_SENT"))
            {
                EXPECT_EQ(r.at("priority"), "3");
                expectedQuanta.push_back(std::stoull(r.at("quanta")));
            }
        }
        std::vector<uint64_t> quanta;
        std::map<uint64_t, std::vector<std::pair<uint64_t, uint64_t>>> byQp; // qp -> (opcode, psn)
        std::map<uint64_t, std::string> srcOfQp;
        for (const Frame& f : frames)
        {
            if (!f.at("macc.opcode").empty())
            {
                EXPECT_EQ(Hex(f.at("eth.type")), 0x8808u);
                EXPECT_EQ(Hex(f.at("macc.opcode")), 0x0101u);
                EXPECT_EQ(Hex(f.at("macc.cbfc.enbv")), 0x0008u);
                quanta.push_back(std::stoull(f.at("macc.cbfc.pause_time.c3")));
                continue;
            }
            ASSERT_FALSE(f.at("infiniband.bth.opcode").empty()) << "neither RoCE nor PFC";
            uint64_t qp = Hex(f.at("infiniband.bth.destqp"));
            byQp[qp].emplace_back(Hex(f.at("infiniband.bth.opcode")),
                                  Hex(f.at("infiniband.bth.psn")));
            srcOfQp[qp] = f.at("ip.src");
        }
        EXPECT_EQ(quanta, expectedQuanta);
        pfcFramesSeen += quanta.size();

        // RoCE frames: a 3-frame RC SEND is First (0x00), Middle (0x01), Last (0x02) with
        // consecutive PSNs. The destination QP is the flow id (flow 0 from h1, flow 1 from h2);
        // host i has address 10.0.0.(i+1).
        std::set<uint64_t> expectedQps =
            port == 0 ? std::set<uint64_t>{0, 1} : std::set<uint64_t>{port - 1};
        std::set<uint64_t> qps;
        for (const auto& [qp, seq] : byQp)
        {
            qps.insert(qp);
            ASSERT_EQ(seq.size(), 3u) << "qp " << qp;
            for (size_t k = 0; k < 3; ++k)
            {
                EXPECT_EQ(seq[k].first, k) << "qp " << qp;
                EXPECT_EQ(seq[k].second, seq[0].second + k) << "qp " << qp;
            }
            EXPECT_EQ(srcOfQp[qp], "10.0.0." + std::to_string(qp + 2));
        }
        EXPECT_EQ(qps, expectedQps);
    }
    // XOFF is 4 KiB, below one frame: the first frame stored from each sender paused it.
    EXPECT_GT(pfcFramesSeen, 0u);
}

} // namespace
