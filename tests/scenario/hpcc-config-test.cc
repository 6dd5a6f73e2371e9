// fabric-run --hpcc-config: an HPCC-family simulator's config.txt runs as it is (hpcc-config.h).
// tests/data/hpcc-config/ is a small experiment directory in HPCC's layout: config.txt,
// topology.txt (hosts 0, 1 on leaf 4, hosts 2, 3 on leaf 5, spines 6 and 7; every link 100 Gb/s
// and 1 us), flow.txt (hosts 0, 1 and 3 send 1 MB each to host 2 at 2 s) and trace.txt.

#include "../fabric-sim-util.h"
#include "../test-files.h"
#include "config/config-error.h"
#include "config/hpcc-config-file.h"
#include "config/hpcc-config.h"
#include "config/scenario-config.h"
#include "run/scenario-runner.h"

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>

namespace ns3
{
namespace test
{
namespace
{

namespace fs = std::filesystem;

const std::string kDir = std::string(FABRIC_SOURCE_DIR) + "/tests/data/hpcc-config";

/// The scenario key \p path ("switch.pfc.xon_offset") of a translated document, as text.
std::string
Key(const HpccScenario& s, const std::string& path)
{
    YAML::Node node = s.document;
    std::istringstream parts(path);
    for (std::string part; std::getline(parts, part, '.');)
    {
        if (!node.IsMap() || !node[part])
        {
            return "<absent>";
        }
        node.reset(node[part]);
    }
    return node.IsScalar() ? node.Scalar() : "<not a scalar>";
}

class HpccConfig : public SimTest
{
  protected:
    /// tests/data/hpcc-config/config.txt with each line of \p lines replacing the line that
    /// starts with the same key (or appended), written beside copies of its inputs.
    std::string Variant(const std::string& lines)
    {
        std::vector<std::string> config = Lines(ReadFile(kDir + "/config.txt"));
        for (const std::string& line : Lines(lines))
        {
            std::string key = line.substr(0, line.find(' '));
            auto it = std::find_if(config.begin(), config.end(), [&](const std::string& l) {
                return l.rfind(key + " ", 0) == 0;
            });
            if (it != config.end())
            {
                *it = line;
            }
            else
            {
                config.push_back(line);
            }
        }
        std::string out;
        for (const std::string& l : config)
        {
            out += l + "\n";
        }
        std::string path = m_dir.Path() + "/config.txt";
        std::ofstream(path) << out;
        // The inputs next to it, as in the shipped directory.
        for (const char* f : {"topology.txt", "flow.txt", "trace.txt"})
        {
            fs::copy_file(kDir + "/" + f,
                          m_dir.Path() + "/" + f,
                          fs::copy_options::overwrite_existing);
        }
        return path;
    }

    /// The ConfigError of translating \p config (fails the test when there is none).
    ConfigError ErrorOf(const std::string& config, HpccSimulator sim = HpccSimulator::HPCC)
    {
        try
        {
            TranslateHpccConfig(config, sim, m_dir.Path());
        }
        catch (const ConfigError& e)
        {
            return e;
        }
        ADD_FAILURE() << "no error for " << config;
        return ConfigError("", 0, "", "");
    }

    TempDir m_dir{"fabric-hpcc-config"};
};

TEST_F(HpccConfig, EveryKeyBecomesTheReferencesValue)
{
    HpccScenario s = TranslateHpccConfig(kDir + "/config.txt", HpccSimulator::HPCC, m_dir.Path());
    EXPECT_EQ(Key(s, "transport"), "roce");
    EXPECT_EQ(Key(s, "cc"), "dcqcn"); // CC_MODE 1
    EXPECT_EQ(Key(s, "host.mtu"), "1000B");
    EXPECT_EQ(Key(s, "link.wire_overhead"), "0B");
    EXPECT_EQ(Key(s, "stop_time"), "2010000000000ps"); // 2.01 s
    // T = maxRtt (third.cc:905-912): h0 -> h2 crosses 4 links of 1 us and 100 Gb/s:
    // 2 x 4000 ns + 4 x (1000 B x 8 / 100 Gb/s = 80 ns) = 8320 ns.
    EXPECT_EQ(Key(s, "hpcc.base_rtt"), "8320ns");
    EXPECT_EQ(Key(s, "powertcp.base_rtt"), "8320ns");
    // HPCC's rate step as a window step: 50 Mb/s x 8320 ns / 8 = 52 B.
    EXPECT_EQ(Key(s, "hpcc.w_ai"), "52B");
    EXPECT_EQ(Key(s, "hpcc.eta"), "0.95");
    EXPECT_EQ(Key(s, "hpcc.max_stage"), "0");
    EXPECT_EQ(Key(s, "hpcc.min_rate"), "100000000bps");
    // DCQCN as the Mellanox NIC (rdma-hw.cc:618-738): times in microseconds.
    EXPECT_EQ(Key(s, "dcqcn.variant"), "mellanox");
    EXPECT_EQ(Key(s, "dcqcn.alpha_timer"), "1000000ps");
    EXPECT_EQ(Key(s, "dcqcn.rate_decrease_interval"), "4000000ps");
    EXPECT_EQ(Key(s, "dcqcn.rate_increase_timer"), "900000000ps");
    EXPECT_EQ(Key(s, "dcqcn.g"), "0.00390625");
    EXPECT_EQ(Key(s, "dcqcn.fast_recovery_stages"), "1");
    EXPECT_EQ(Key(s, "dcqcn.rate_ai"), "50000000bps");
    EXPECT_EQ(Key(s, "dcqcn.rate_hai"), "100000000bps");
    EXPECT_EQ(Key(s, "dcqcn.clamp_target_rate"), "false");
    EXPECT_EQ(Key(s, "dcqcn.rate_scale_reference"), "100000000000bps"); // the NIC's rate
    EXPECT_EQ(Key(s, "timely.variant"), "simulator");
    EXPECT_EQ(Key(s, "timely.hai_multiplier"), "2"); // RATE_HAI / RATE_AI
    EXPECT_EQ(Key(s, "dctcp_rate.rate_ai"), "1000000000bps");
    // HAS_WIN 1, GLOBAL_T 1, VAR_WIN 1.
    EXPECT_EQ(Key(s, "roce.rate_window"), "global");
    EXPECT_EQ(Key(s, "roce.rate_window_scaled"), "true");
    EXPECT_EQ(Key(s, "roce.ack_interval"), "1");
    EXPECT_EQ(Key(s, "roce.recovery"), "gbn");
    EXPECT_EQ(Key(s, "roce.serve_new_qp_first"), "true"); // qbb-net-device.cc GetNextQindex
    // HPCC's MMU: 1 MiB holding 3 x rate x delay of headroom per port, alpha 1/8, XON 3 KiB.
    EXPECT_EQ(Key(s, "switch.buffer"), "1048576B");
    EXPECT_EQ(Key(s, "switch.pfc.headroom_delay_multiple"), "3");
    EXPECT_EQ(Key(s, "switch.pfc.headroom_outside_buffer"), "false");
    EXPECT_EQ(Key(s, "switch.pfc.dynamic_alpha"), "0.125");
    EXPECT_EQ(Key(s, "switch.pfc.xon_offset"), "3KiB");
    EXPECT_EQ(Key(s, "switch.ecn.enabled"), "true");
    EXPECT_EQ(Key(s, "switch.ecn.mark_on"), "dequeue");
    ASSERT_TRUE(s.document["switch"]["ecn"]["speed_map"].IsSequence());
    YAML::Node row = s.document["switch"]["ecn"]["speed_map"][0];
    EXPECT_EQ(row["rate"].Scalar(), "100000000000bps");
    EXPECT_EQ(row["kmin"].Scalar(), "400000B"); // KB of 1000 B
    EXPECT_EQ(row["kmax"].Scalar(), "1600000B");
    EXPECT_EQ(row["pmax"].Scalar(), "0.2");
    EXPECT_EQ(Key(s, "trace.hpcc.fct"), "mix/fct.txt");
    EXPECT_EQ(Key(s, "trace.hpcc.qlen_start"), "2000000000ns");
    EXPECT_EQ(Key(s, "trace.hpcc.qlen_end"), "2000200000ns");
    ASSERT_TRUE(s.document["trace"]["pcap_nodes"].IsSequence());
    EXPECT_EQ(s.document["trace"]["pcap_nodes"].size(), 2u); // trace.txt: nodes 4 and 2
    EXPECT_EQ(Key(s, "trace.pcap_snaplen"), "128B");         // mix.tr's headers, no payload
    // What is not simply applied is said: the PINT keys are inert under CC_MODE 1.
    int pint = 0;
    for (const std::string& note : s.notes)
    {
        pint += note.find("PINT_PROB: used only by CC_MODE 10") != std::string::npos;
    }
    EXPECT_EQ(pint, 1);
}

TEST_F(HpccConfig, Ns3DatacenterPutsTheHeadroomOutsideTheBuffer)
{
    // powertcp-evaluation-burst.cc:925-951: BUFFER_SIZE is the shared pool, headroom on top,
    // XON 2496 B below the threshold (its switch-mmu.cc:99-100).
    HpccScenario s =
        TranslateHpccConfig(kDir + "/config.txt", HpccSimulator::NS3_DATACENTER, m_dir.Path());
    EXPECT_EQ(Key(s, "switch.pfc.headroom_outside_buffer"), "true");
    EXPECT_EQ(Key(s, "switch.pfc.xon_offset"), "2496B");
    EXPECT_EQ(Key(s, "trace.hpcc.format"), "ns3-datacenter");
    EXPECT_EQ(Key(s, "trace.pcap"), "<absent>"); // it traces no packets
}

/// The experiment directory end to end: config, topology, flows and trace in; fct.txt, pfc.txt
/// and qlen.txt out, every line in its format (third.cc:163-221).
TEST_F(HpccConfig, ExperimentDirectoryRunsEndToEnd)
{
    ScenarioConfig cfg =
        LoadHpccConfigScenario(kDir + "/config.txt", "hpcc", {}, FABRIC_SOURCE_DIR);
    std::string out = m_dir.Path() + "/out";
    fs::create_directories(out);
    RunOutcome outcome = ScenarioRunner::Run(cfg, out);
    ASSERT_EQ(outcome.exitCode, EXIT_OK) << outcome.message;

    // fct.txt: sip dip sport dport size start_ns fct_ns standalone_ns, IPs as 0x0b000001 +
    // id x 0x100; standalone = base RTT + (size + packets x 48 B) x 8 / 100 Gb/s
    // = rtt + 1048000 B x 0.08 ns = rtt + 83840 ns: 8320 + 83840 across the spine, 4160 + 83840
    // from host 3 (same leaf: 2 x 2000 + 2 x 80).
    std::vector<std::string> fct = Lines(ReadFile(out + "/mix/fct.txt"));
    ASSERT_EQ(fct.size(), 3u);
    std::regex fctLine("^[0-9a-f]{8} [0-9a-f]{8} [0-9]+ [0-9]+ [0-9]+ [0-9]+ [0-9]+ [0-9]+$");
    std::map<std::string, std::string> standaloneBySource;
    for (const std::string& l : fct)
    {
        EXPECT_TRUE(std::regex_match(l, fctLine)) << l;
        std::istringstream f(l);
        std::string sip, dip, sport, dport, size, start, time, standalone;
        f >> sip >> dip >> sport >> dport >> size >> start >> time >> standalone;
        EXPECT_EQ(dip, "0b000201");
        EXPECT_EQ(size, "1000000");
        EXPECT_EQ(start, "2000000000");
        standaloneBySource[sip] = standalone;
    }
    EXPECT_EQ(standaloneBySource["0b000001"], "92160");
    EXPECT_EQ(standaloneBySource["0b000101"], "92160");
    EXPECT_EQ(standaloneBySource["0b000301"], "88000");

    // pfc.txt: time node node_type if_index type (1 pause, 0 resume): a 3:1 incast into a
    // 1 MiB buffer pauses.
    std::vector<std::string> pfc = Lines(ReadFile(out + "/mix/pfc.txt"));
    EXPECT_FALSE(pfc.empty());
    std::regex pfcLine("^[0-9]+ [0-9]+ [01] [0-9]+ [01]$");
    for (const std::string& l : pfc)
    {
        EXPECT_TRUE(std::regex_match(l, pfcLine)) << l;
    }

    // qlen.txt: "time: T" then "switch port count..." lines, T within QLEN_MON_START..END.
    std::vector<std::string> qlen = Lines(ReadFile(out + "/mix/qlen.txt"));
    ASSERT_FALSE(qlen.empty());
    std::regex timeLine("^time: ([0-9]+)$");
    std::regex histLine("^[0-9]+ [0-9]+( [0-9]+)+$");
    int dumps = 0;
    for (const std::string& l : qlen)
    {
        std::smatch m;
        if (std::regex_match(l, m, timeLine))
        {
            uint64_t t = std::stoull(m[1]);
            EXPECT_GE(t, 2000000000u);
            EXPECT_LE(t, 2000200000u);
            ++dumps;
        }
        else
        {
            EXPECT_TRUE(std::regex_match(l, histLine)) << l;
        }
    }
    EXPECT_GE(dumps, 1);
    // trace.txt's host 2 is captured, each frame cut to its first 128 B: the pcap header's
    // snaplen, and every record stores at most that of frames of up to 1000 B of payload.
    std::string pcap = ReadFile(out + "/h2-0.pcap");
    ASSERT_GT(pcap.size(), 24u + 16u);
    auto u32 = [&](size_t at) {
        uint32_t v;
        std::memcpy(&v, pcap.data() + at, 4);
        return v;
    };
    EXPECT_EQ(u32(16), 128u);
    size_t records = 0;
    size_t cut = 0;
    for (size_t at = 24; at + 16 <= pcap.size(); at += 16 + u32(at + 8), ++records)
    {
        EXPECT_LE(u32(at + 8), 128u);
        cut += u32(at + 12) > 128 ? 1 : 0;
    }
    EXPECT_GT(cut, 0u);        // data frames are longer than what is kept
    EXPECT_GT(records, 3000u); // 3 MB of data into host 2
    // The notes go with the run: what each key that was not simply applied became.
    EXPECT_FALSE(cfg.importNotes.empty());
}

TEST_F(HpccConfig, ScenarioKeysWinOverTheConfig)
{
    std::ofstream(m_dir.Path() + "/run.yaml") << "hpcc_config: {file: " << kDir
                                              << "/config.txt}\n"
                                                 "cc: hpcc\n"
                                                 "switch: {buffer: 2MiB}\n";
    ScenarioConfig cfg = LoadScenario(m_dir.Path() + "/run.yaml", {}, FABRIC_SOURCE_DIR);
    EXPECT_EQ(cfg.document["cc"].Scalar(), "hpcc");
    EXPECT_EQ(cfg.document["switch"]["buffer"].Scalar(), "2MiB");
    // The rest of the config's switch section stays.
    EXPECT_EQ(cfg.document["switch"]["pfc"]["xon_offset"].Scalar(), "3KiB");
}

TEST_F(HpccConfig, TheHpccSectionCanNameTheConfig)
{
    // hpcc: {config: FILE} is hpcc_config: {file: FILE}; the section's own keys stay HPCC's.
    std::ofstream(m_dir.Path() + "/run.yaml")
        << "hpcc: {config: " << kDir << "/config.txt, max_stage: 3}\n";
    ScenarioConfig cfg = LoadScenario(m_dir.Path() + "/run.yaml", {}, FABRIC_SOURCE_DIR);
    EXPECT_EQ(cfg.document["cc"].Scalar(), "dcqcn"); // the config's CC_MODE 1
    EXPECT_EQ(cfg.document["hpcc"]["max_stage"].Scalar(), "3");
    EXPECT_EQ(cfg.document["hpcc"]["base_rtt"].Scalar(), "8320ns");
    EXPECT_FALSE(cfg.document["hpcc"]["config"]);
}

TEST_F(HpccConfig, UnknownKeyIsRefusedByNameAndLine)
{
    std::string config = Variant("RATE_IA 50Mb/s");
    ConfigError e = ErrorOf(config);
    EXPECT_EQ(e.File(), config);
    EXPECT_EQ(e.Key(), "RATE_IA");
    // Appended after the file's last line.
    EXPECT_EQ(e.Line(), static_cast<int>(Lines(ReadFile(kDir + "/config.txt")).size()) + 1);
    EXPECT_NE(e.Message().find("RATE_AI"), std::string::npos) << e.Message(); // did you mean
}

TEST_F(HpccConfig, KeyGivenTwiceIsRefused)
{
    std::string config = Variant("");
    std::ofstream(config, std::ios::app) << "ENABLE_QCN 0\n";
    ConfigError e = ErrorOf(config);
    EXPECT_EQ(e.Key(), "ENABLE_QCN");
    EXPECT_EQ(e.Line(), static_cast<int>(Lines(ReadFile(kDir + "/config.txt")).size()) + 1);
    EXPECT_NE(e.Message().find("first on line 1"), std::string::npos) << e.Message();
}

TEST_F(HpccConfig, MechanismsNotModelledAreRefusedWithTheReason)
{
    struct Case
    {
        const char* line;
        const char* key;
        const char* reason;
    };

    for (const Case& c : {Case{"CC_MODE 10", "CC_MODE", "HPCC-PINT"},
                          Case{"MULTI_RATE 1\nCC_MODE 3", "MULTI_RATE", "a rate per hop"},
                          Case{"SAMPLE_FEEDBACK 1", "SAMPLE_FEEDBACK", "not modelled"},
                          Case{"L2_BACK_TO_ZERO 1", "L2_BACK_TO_ZERO", "not modelled"},
                          Case{"RATE_BOUND 0", "RATE_BOUND", "paced"},
                          Case{"INT_MULTI 2", "INT_MULTI", "exact counters"},
                          Case{"LB_MODE 3", "LB_MODE", "ConWeave"}})
    {
        SCOPED_TRACE(c.line);
        ConfigError e = ErrorOf(Variant(c.line));
        EXPECT_EQ(e.Key(), c.key);
        EXPECT_GT(e.Line(), 0);
        EXPECT_NE(e.Message().find(c.reason), std::string::npos) << e.Message();
    }
}

TEST_F(HpccConfig, EcnMapMustCoverEveryLinkSpeed)
{
    ConfigError e = ErrorOf(Variant("KMIN_MAP 1 25000000000 100"));
    EXPECT_EQ(e.Key(), "KMIN_MAP");
    EXPECT_NE(e.Message().find("100000000000"), std::string::npos) << e.Message();
}

TEST_F(HpccConfig, MapWithTooFewPairsNamesTheNextKey)
{
    ConfigError e = ErrorOf(Variant("KMAX_MAP 2 100000000000 1600"));
    EXPECT_EQ(e.Key(), "KMAX_MAP");
    EXPECT_NE(e.Message().find("KMIN_MAP"), std::string::npos) << e.Message();
}

TEST_F(HpccConfig, MissingInputFileNamesTheKey)
{
    ConfigError e = ErrorOf(Variant("FLOW_FILE no-such-flow.txt"));
    EXPECT_EQ(e.Key(), "FLOW_FILE");
    EXPECT_EQ(e.Line(), 7);
}

TEST_F(HpccConfig, TimelyHyperStepIsCheckedOnlyForTimely)
{
    // conweave-project/conweave-ns3 run.py writes DCQCN's steps for a 100 Gb/s NIC as
    // RATE_AI 10 x 100 / 25 = 40.0Mb/s and RATE_HAI 25 x 100 / 25 = 100.0Mb/s (run.py:353-354,
    // Python 3 division): 2.5 steps, which TIMELY's whole multiplier cannot express, but only
    // CC_MODE 7 reads it (rdma-hw.cc UpdateRateTimely); DCQCN takes both rates as they are.
    HpccScenario s = TranslateHpccConfig(Variant("CC_MODE 1\nRATE_AI 40.0Mb/s\nRATE_HAI 100.0Mb/s"),
                                         HpccSimulator::CONWEAVE,
                                         m_dir.Path());
    EXPECT_EQ(Key(s, "dcqcn.rate_ai"), "40000000bps");
    EXPECT_EQ(Key(s, "dcqcn.rate_hai"), "100000000bps");
    EXPECT_EQ(Key(s, "timely.hai_multiplier"), "<absent>");
    ConfigError e = ErrorOf(Variant("CC_MODE 7\nRATE_AI 40.0Mb/s\nRATE_HAI 100.0Mb/s"),
                            HpccSimulator::CONWEAVE);
    EXPECT_EQ(e.Key(), "RATE_HAI");
    EXPECT_NE(e.Message().find("whole multiple"), std::string::npos) << e.Message();
}

TEST_F(HpccConfig, FastReactIsRefusedOnlyForHpcc)
{
    // conweave-project/conweave-ns3 run.py:356 writes FAST_REACT 0 for DCQCN; only HPCC reads
    // it (rdma-hw.cc:1221 FastReactHp, reached from HandleAckHp with CC_MODE 3 only, :554).
    HpccScenario s = TranslateHpccConfig(Variant("CC_MODE 1\nFAST_REACT 0"),
                                         HpccSimulator::CONWEAVE,
                                         m_dir.Path());
    EXPECT_EQ(Key(s, "cc"), "dcqcn");
    ConfigError e = ErrorOf(Variant("CC_MODE 3\nFAST_REACT 0"), HpccSimulator::CONWEAVE);
    EXPECT_EQ(e.Key(), "FAST_REACT");
    EXPECT_NE(e.Message().find("once per RTT"), std::string::npos) << e.Message();
}

TEST_F(HpccConfig, AcksAtTheHighestPriorityAsTheReferenceSwitchesSendThem)
{
    // HPCC's third.cc never sets its switches' AckHighPrio (switch-node.cc: 0): off, unless the
    // config asks for high-priority ACKs (ACK_HIGH_PRIO 1, which third.cc:898-901 gives the
    // NIC's ACK queue).
    std::string plain = Variant("ACK_HIGH_PRIO 0");
    EXPECT_EQ(Key(TranslateHpccConfig(plain, HpccSimulator::HPCC, m_dir.Path()),
                  "switch.ack_high_priority"),
              "<absent>");
    HpccScenario high =
        TranslateHpccConfig(Variant("ACK_HIGH_PRIO 1"), HpccSimulator::HPCC, m_dir.Path());
    EXPECT_EQ(Key(high, "switch.ack_high_priority"), "true");
    // ConWeave's scratch/network-load-balance.cc:1445 sets AckHighPrio 1 on every switch,
    // whatever the config says.
    EXPECT_EQ(Key(TranslateHpccConfig(plain, HpccSimulator::CONWEAVE, m_dir.Path()),
                  "switch.ack_high_priority"),
              "true");
}

TEST_F(HpccConfig, ConWeaveReadsItsQueueMonitorWindowAsWholeNanoseconds)
{
    // conweave-project/conweave-ns3 run.py:349-350 writes QLEN_MON_START/END as the flow
    // generator's start and stop in seconds (2.0, 2.002); network-load-balance.cc:1055-1058
    // reads them into uint64_t nanoseconds with >>: 2 and 2.
    const std::string lines = "QLEN_MON_FILE qlen.txt\nQLEN_MON_START 2.0\nQLEN_MON_END 2.002";
    HpccScenario s = TranslateHpccConfig(Variant(lines), HpccSimulator::CONWEAVE, m_dir.Path());
    EXPECT_EQ(Key(s, "trace.hpcc.qlen_start"), "2ns");
    EXPECT_EQ(Key(s, "trace.hpcc.qlen_end"), "2ns");
    // HPCC's third.cc reads them the same way, but its own scripts write integers: refused there.
    ConfigError e = ErrorOf(Variant(lines), HpccSimulator::HPCC);
    EXPECT_EQ(e.Key(), "QLEN_MON_START");
}

TEST_F(HpccConfig, ConWeaveKeysNeedTheConWeaveSimulator)
{
    std::string config = Variant("LB_MODE 2");
    ConfigError e = ErrorOf(config, HpccSimulator::HPCC);
    EXPECT_EQ(e.Key(), "LB_MODE");
    HpccScenario s = TranslateHpccConfig(config, HpccSimulator::CONWEAVE, m_dir.Path());
    EXPECT_EQ(Key(s, "switch.lb"), "drill"); // network-load-balance.cc: 2 = DRILL
    EXPECT_EQ(Key(s, "trace.hpcc.format"), "conweave");
}

} // namespace
} // namespace test
} // namespace ns3
