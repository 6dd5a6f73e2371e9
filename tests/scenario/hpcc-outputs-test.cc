// trace.hpcc: fct.txt, pfc.txt and qlen.txt in the formats of the HPCC-family simulators
// (alibaba-edu/High-Precision-Congestion-Control simulation/scratch/third.cc, conweave-project/
// conweave-ns3 scratch/network-load-balance.cc), on an HPCC topology.txt.

#include "../fabric-sim-util.h"
#include "../test-files.h"
#include "config/config-error.h"
#include "config/scenario-config.h"
#include "run/scenario-runner.h"

#include <filesystem>
#include <regex>

namespace ns3
{
namespace test
{
namespace
{

namespace fs = std::filesystem;

// tests/data/hpcc/leaf-spine-4hosts.txt: hosts 0, 1 on leaf 4, hosts 2, 3 on leaf 5, spines 6
// and 7; every link 100 Gb/s, 1 us. Ports in link order: sw4: 0->h0 1->h1 2->sw6 3->sw7;
// sw5: 0->h2 1->h3 2->sw6 3->sw7; sw6: 0->sw4 1->sw5; sw7: 0->sw4 1->sw5.
class HpccOutputs : public SimTest
{
  protected:
    RunOutcome Run(const std::string& flows,
                   const std::vector<std::string>& overrides = {},
                   bool hpccKeys = true)
    {
        std::ofstream(m_dir.Path() + "/flow.txt") << flows;
        std::ofstream(m_dir.Path() + "/run.yaml")
            << "name: hpcc-outputs\n"
               "stop_time: 1s\n"
               "transport: roce\n"
               "cc: none\n"
               "topology: {hpcc: "
            << FABRIC_SOURCE_DIR
            << "/tests/data/hpcc/leaf-spine-4hosts.txt}\n"
               "host: {mtu: 1000B}\n"
               "switch:\n"
               "  buffer: 1MiB\n"
               "  pfc: {enabled: true, lossless: [3], xoff: 32KiB, xon: 16KiB}\n"
               "workload: {type: hpcc, file: flow.txt}\n"
            << (hpccKeys ? "trace:\n"
                           "  hpcc: {fct: mix/fct.txt, pfc: mix/pfc.txt, qlen: mix/qlen.txt}\n"
                         : "");
        ScenarioConfig cfg = LoadScenario(m_dir.Path() + "/run.yaml", overrides, FABRIC_SOURCE_DIR);
        fs::create_directories(Out());
        return ScenarioRunner::Run(cfg, Out());
    }

    std::string Out() const
    {
        return m_dir.Path() + "/out";
    }

    TempDir m_dir{"fabric-hpcc-out"};
};

// Four flows to h2: h0 (sport 10000), h1 (dport 200), h0 again (sport 10001), h3 (same leaf).
const char* const kFourFlows = "4\n"
                               "0 2 3 100 100000 0\n"
                               "1 2 3 200 50000 0.000001\n"
                               "0 2 3 100 20000 0.00002\n"
                               "3 2 3 100 1500 0.00003\n";

// Standalone FCT, third.cc:163-167 with packet_payload_size 1000 and 48 B of header a packet.
// Across the spine (4 links, found from h2: sw5, sw6, sw4, h0): delay 4 x 1000 ns, txDelay
// 4 x (1000 x 8e9 / 1e11 = 80 ns): base_rtt = 2 x 4000 + 320 = 8320 ns.
//   100000 B: 100 packets, 104800 B x 8e9 / 1e11 = 8384 ns  -> 16704
//    50000 B:  50 packets,  52400 B                = 4192 ns  -> 12512
//    20000 B:  20 packets,  20960 B                = 1676 ns (1676.8, truncated) -> 9996
// Within the leaf (h3 -> sw5 -> h2): base_rtt = 2 x 2000 + 160 = 4160 ns;
//     1500 B:   2 packets,   1596 B                = 127 ns (127.68) -> 4287
const uint64_t kStandalone[] = {16704, 12512, 9996, 4287};

TEST_F(HpccOutputs, FctLinesAreHpccsFormatWithFlowsCsvTimes)
{
    RunOutcome o = Run(kFourFlows);
    ASSERT_EQ(o.exitCode, 0) << o.message;
    Csv flows = ReadCsv(Out() + "/flows.csv");
    ASSERT_EQ(flows.rows.size(), 4u);
    // node_id_to_ip (third.cc:155): 0x0b000001 + id * 0x100 for ids below 256.
    const std::string sip[] = {"0b000001", "0b000101", "0b000001", "0b000301"};
    const char* const sport[] = {"10000", "10000", "10001", "10000"};
    const char* const dport[] = {"100", "200", "100", "100"};
    std::vector<std::string> expected;
    for (size_t i = 0; i < 4; ++i)
    {
        expected.push_back(sip[i] + " 0b000201 " + sport[i] + " " + dport[i] + " " +
                           flows.rows[i].at("bytes") + " " + flows.rows[i].at("start_ns") + " " +
                           flows.rows[i].at("fct_ns") + " " + std::to_string(kStandalone[i]));
    }
    EXPECT_EQ(flows.rows[1].at("start_ns"), "1000");
    std::vector<std::string> lines = Lines(ReadFile(Out() + "/mix/fct.txt"));
    ASSERT_EQ(lines.size(), 4u);
    const std::regex format("[0-9a-f]{8} [0-9a-f]{8} [0-9]+ [0-9]+ [0-9]+ [0-9]+ [0-9]+ [0-9]+");
    uint64_t lastEnd = 0;
    for (const std::string& l : lines)
    {
        EXPECT_TRUE(std::regex_match(l, format)) << l;
        auto it = std::find(expected.begin(), expected.end(), l);
        ASSERT_NE(it, expected.end()) << l;
        // Written as flows finish (qp_finish): finish times never decrease.
        const auto& row = flows.rows[it - expected.begin()];
        uint64_t end = std::stoull(row.at("finish_ns"));
        EXPECT_GE(end, lastEnd);
        lastEnd = end;
    }
}

TEST_F(HpccOutputs, FctLinesInConweavesFormat)
{
    RunOutcome o = Run(kFourFlows, {"trace.hpcc.format=conweave"});
    ASSERT_EQ(o.exitCode, 0) << o.message;
    Csv flows = ReadCsv(Out() + "/flows.csv");
    ASSERT_EQ(flows.rows.size(), 4u);
    // network-load-balance.cc:224-229, 484: decimal node ids, sport from 10000 per source,
    // dport from 100 per destination (flow.txt's column is not read there).
    const char* const head[] = {"0 2 10000 100", "1 2 10000 101", "0 2 10001 102", "3 2 10000 103"};
    std::vector<std::string> expected;
    for (size_t i = 0; i < 4; ++i)
    {
        expected.push_back(std::string(head[i]) + " " + flows.rows[i].at("bytes") + " " +
                           flows.rows[i].at("start_ns") + " " + flows.rows[i].at("fct_ns") + " " +
                           std::to_string(kStandalone[i]));
    }
    std::vector<std::string> lines = Lines(ReadFile(Out() + "/mix/fct.txt"));
    ASSERT_EQ(lines.size(), 4u);
    const std::regex format("[0-9]+ [0-9]+ [0-9]+ [0-9]+ [0-9]+ [0-9]+ [0-9]+ [0-9]+");
    for (const std::string& l : lines)
    {
        EXPECT_TRUE(std::regex_match(l, format)) << l;
        EXPECT_NE(std::find(expected.begin(), expected.end(), l), expected.end()) << l;
    }
}

// h0, h1 and h3 into h2: sw5's port to h2 is the bottleneck, and its ingress ports pause the
// spines and h3.
const char* const kIncast = "3\n"
                            "0 2 3 100 300000 0\n"
                            "1 2 3 100 300000 0\n"
                            "3 2 3 100 300000 0\n";

uint32_t
IdOfName(const std::string& name)
{
    return static_cast<uint32_t>(std::stoul(name.substr(name[0] == 'h' ? 1 : 2)));
}

TEST_F(HpccOutputs, PfcLinesAreThePausesAndResumesReceived)
{
    RunOutcome o = Run(kIncast);
    ASSERT_EQ(o.exitCode, 0) << o.message;
    // third.cc:178-180: time_ns node_id node_type if_index type, for every PFC frame received.
    std::vector<std::string> expected;
    for (const auto& r : ReadCsv(Out() + "/pfc.csv").rows)
    {
        const std::string& event = r.at("event");
        if (event != "PAUSE_RECEIVED" && event != "RESUME_RECEIVED")
        {
            continue;
        }
        uint32_t id = IdOfName(r.at("node"));
        expected.push_back(r.at("time_ns") + " " + std::to_string(id) + " " +
                           (id >= 4 ? "1" : "0") + " " +
                           std::to_string(std::stoul(r.at("port")) + 1) + " " +
                           (event == "PAUSE_RECEIVED" ? "1" : "0"));
    }
    std::vector<std::string> lines = Lines(ReadFile(Out() + "/mix/pfc.txt"));
    ASSERT_FALSE(lines.empty()) << "the incast paused nothing";
    const std::regex format("[0-9]+ [0-9]+ [01] [1-9][0-9]* [01]");
    for (const std::string& l : lines)
    {
        EXPECT_TRUE(std::regex_match(l, format)) << l;
    }
    EXPECT_EQ(lines, expected);
    // sw5 pauses both spines (switches, type 1) and h3 (a host, type 0; its only port, if 1).
    EXPECT_NE(std::find(lines.begin(), lines.end(), expected.front()), lines.end());
    bool hostPaused = false;
    bool spinePaused = false;
    for (const std::string& l : lines)
    {
        std::istringstream f(l);
        uint64_t t;
        uint32_t id;
        uint32_t type;
        uint32_t ifIndex;
        uint32_t pause;
        f >> t >> id >> type >> ifIndex >> pause;
        hostPaused |= id == 3 && type == 0 && ifIndex == 1 && pause == 1;
        spinePaused |= (id == 6 || id == 7) && type == 1 && ifIndex == 2 && pause == 1;
    }
    EXPECT_TRUE(hostPaused);
    EXPECT_TRUE(spinePaused);
}

/// The histogram lines qlen.txt must hold at dump time \p t (ns) for samples every 100 ns from
/// \p start, rebuilt from queues.csv in change mode: a sample at t sees the changes before t.
std::map<std::pair<uint32_t, uint32_t>, std::vector<uint64_t>>
ExpectedHistograms(const Csv& queues, uint64_t start, uint64_t t)
{
    std::map<std::pair<uint32_t, uint32_t>, std::map<std::string, uint64_t>> depth;
    std::map<std::pair<uint32_t, uint32_t>, std::vector<uint64_t>> histograms;
    for (uint32_t port = 1; port <= 4; ++port)
    {
        histograms[{5, port}];
    }
    size_t next = 0;
    for (uint64_t sample = start; sample <= t; sample += 100)
    {
        while (next < queues.rows.size() && queues.U(next, "time_ns") < sample)
        {
            const auto& r = queues.rows[next++];
            depth[{IdOfName(r.at("node")), std::stoul(r.at("port")) + 1}][r.at("priority")] =
                std::stoull(r.at("bytes"));
        }
        for (auto& [port, h] : histograms)
        {
            uint64_t total = 0;
            for (const auto& [prio, bytes] : depth[port])
            {
                total += bytes;
            }
            if (h.size() < total / 1000 + 1)
            {
                h.resize(total / 1000 + 1);
            }
            ++h[total / 1000];
        }
    }
    return histograms;
}

TEST_F(HpccOutputs, QlenHistogramsCountEverySampleOfTheWindow)
{
    RunOutcome o = Run(kIncast,
                       {"trace.hpcc.qlen_start=0ns",
                        "trace.hpcc.qlen_end=100us",
                        "trace.hpcc.qlen_interval=100ns",
                        "trace.hpcc.qlen_dump_interval=10us",
                        "trace.queue_mode=change",
                        "trace.queue_nodes=[5]"});
    ASSERT_EQ(o.exitCode, 0) << o.message;
    Csv flows = ReadCsv(Out() + "/flows.csv");
    for (size_t i = 0; i < flows.rows.size(); ++i)
    {
        ASSERT_LT(flows.U(i, "finish_ns"), 100000u) << "the window should outlast the incast";
    }
    Csv queues = ReadCsv(Out() + "/queues.csv");
    std::vector<std::string> lines = Lines(ReadFile(Out() + "/mix/qlen.txt"));
    // Samples at 0, 100 ns, ..., 100 us (the first at or after QLEN_MON_END); a dump at every
    // multiple of 10 us: 11 dumps of 12 switch ports (4 + 4 + 2 + 2), by node id, then if_index.
    ASSERT_EQ(lines.size(), 11u * 13u);
    const std::regex line("([0-9]+) ([0-9]+)((?: [0-9]+)+)");
    const std::pair<uint32_t, uint32_t> order[] = {{4, 1},
                                                   {4, 2},
                                                   {4, 3},
                                                   {4, 4},
                                                   {5, 1},
                                                   {5, 2},
                                                   {5, 3},
                                                   {5, 4},
                                                   {6, 1},
                                                   {6, 2},
                                                   {7, 1},
                                                   {7, 2}};
    bool queued = false;
    for (uint64_t d = 0; d < 11; ++d)
    {
        uint64_t t = d * 10000;
        ASSERT_EQ(lines[d * 13], "time: " + std::to_string(t));
        auto expected = ExpectedHistograms(queues, 0, t);
        for (size_t p = 0; p < 12; ++p)
        {
            const std::string& l = lines[d * 13 + 1 + p];
            std::smatch m;
            ASSERT_TRUE(std::regex_match(l, m, line)) << l;
            EXPECT_EQ(std::stoul(m[1]), order[p].first) << l;
            EXPECT_EQ(std::stoul(m[2]), order[p].second) << l;
            std::vector<uint64_t> counts;
            std::istringstream f(m[3].str());
            uint64_t total = 0;
            for (uint64_t c; f >> c;)
            {
                counts.push_back(c);
                total += c;
            }
            EXPECT_EQ(total, t / 100 + 1) << "every sample counts once: " << l;
            if (order[p].first == 5)
            {
                EXPECT_EQ(counts, expected[order[p]]) << "t " << t << ": " << l;
                queued |= counts.size() > 1;
            }
        }
    }
    EXPECT_TRUE(queued) << "sw5's port to h2 never queued a kilobyte";
}

TEST_F(HpccOutputs, QlenSamplesOnlyWithinTheWindow)
{
    // The incast is over by 100 us; the reference keeps sampling until QLEN_MON_END (its run
    // lasts until the stop time), and so does qlen.txt: empty queues from 500 us on, samples
    // until the first at or after 515 us, so dumps at 500 us (1 sample) and 510 us (101).
    RunOutcome o = Run(kIncast,
                       {"trace.hpcc.qlen_start=500us",
                        "trace.hpcc.qlen_end=515us",
                        "trace.hpcc.qlen_dump_interval=10us"});
    ASSERT_EQ(o.exitCode, 0) << o.message;
    std::vector<std::string> lines = Lines(ReadFile(Out() + "/mix/qlen.txt"));
    ASSERT_EQ(lines.size(), 2u * 13u);
    EXPECT_EQ(lines[0], "time: 500000");
    EXPECT_EQ(lines[1], "4 1 1");
    EXPECT_EQ(lines[13], "time: 510000");
    EXPECT_EQ(lines[14], "4 1 101");
    EXPECT_EQ(lines[25], "7 2 101");
}

TEST_F(HpccOutputs, DefaultWindowFromTwoSecondsWritesNothingBeforeIt)
{
    // QLEN_MON_START 2 s by default (third.cc:82): a run stopped at 1 s samples nothing.
    RunOutcome o = Run(kIncast);
    ASSERT_EQ(o.exitCode, 0) << o.message;
    EXPECT_TRUE(fs::exists(Out() + "/mix/qlen.txt"));
    EXPECT_EQ(ReadFile(Out() + "/mix/qlen.txt"), "");
}

TEST_F(HpccOutputs, NoFilesWithoutTheKeys)
{
    RunOutcome o = Run(kIncast, {}, false);
    ASSERT_EQ(o.exitCode, 0) << o.message;
    EXPECT_FALSE(fs::exists(Out() + "/mix"));
    for (const auto& entry : fs::recursive_directory_iterator(Out()))
    {
        EXPECT_NE(entry.path().extension(), ".txt") << entry.path();
    }
}

TEST_F(HpccOutputs, AbsolutePathsAreRefused)
{
    std::ofstream(m_dir.Path() + "/flow.txt") << kIncast;
    std::ofstream(m_dir.Path() + "/run.yaml") << "topology: {hpcc: " << FABRIC_SOURCE_DIR
                                              << "/tests/data/hpcc/leaf-spine-4hosts.txt}\n"
                                                 "workload: {type: hpcc, file: flow.txt}\n"
                                                 "trace: {hpcc: {fct: /tmp/fct.txt}}\n";
    try
    {
        LoadScenario(m_dir.Path() + "/run.yaml", {}, FABRIC_SOURCE_DIR);
        FAIL() << "an absolute trace.hpcc.fct was accepted";
    }
    catch (const ConfigError& e)
    {
        EXPECT_EQ(e.Key(), "trace.hpcc.fct");
        EXPECT_EQ(e.Line(), 3);
    }
}

} // namespace
} // namespace test
} // namespace ns3
