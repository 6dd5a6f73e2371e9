// ConWeave's experiment as its run.py sets it up (conweave-project/conweave-ns3), imported by
// `fabric-run --hpcc-config FILE --hpcc-simulator conweave`.
//
// tests/data/conweave/ is a run directory as run.py lays it out: mix/output/1/config.txt is what
// tools/conweave-run writes for `run.py --cc dcqcn --lb fecmp --pfc 1 --irn 0 --topo
// fat_k4_100G_OS2 --netload 50 --simul_time 0.005` (byte for byte what run.py writes for a
// topology in its topo2bdp), config/fat_k4_100G_OS2.txt is ConWeave's topology, and the flow
// file under run.py's name holds four hand-written flows instead of traffic_gen.py's 12 k:
// 0 -> 1, 0 -> 4, 0 -> 8 (10 000 B at 2 s + 0, 10, 20 us) and 31 -> 2 (1000 B at 2 s + 30 us).

#include "../fabric-sim-util.h"
#include "../test-files.h"
#include "config/config-error.h"
#include "config/hpcc-config.h"
#include "config/scenario-config.h"
#include "run/scenario-runner.h"

#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <sstream>
#include <yaml-cpp/yaml.h>

namespace ns3
{
namespace test
{
namespace
{

namespace fs = std::filesystem;

/// run.py's working directory, and the config it writes there.
const std::string kRunDir = std::string(FABRIC_SOURCE_DIR) + "/tests/data/conweave";
const std::string kConfig = kRunDir + "/mix/output/1/config.txt";

/// The scenario key \p path of a translated document, as text ("<absent>" when not set).
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

class ConWeaveConfig : public SimTest
{
  protected:
    TempDir m_dir{"conweave-config"};
};

TEST_F(ConWeaveConfig, RunPyValuesBecomeScenarioKeys)
{
    HpccScenario s = TranslateHpccConfig(kConfig, HpccSimulator::CONWEAVE, kRunDir);
    // run.py:107-113 lb_modes: fecmp = 0 = ECMP; --pfc 1 --irn 0: lossless, go-back-N.
    EXPECT_EQ(Key(s, "switch.lb"), "ecmp");
    EXPECT_EQ(Key(s, "switch.pfc.enabled"), "true");
    EXPECT_EQ(Key(s, "roce.recovery"), "gbn");
    // network-load-balance.cc:1445, no key: ACKs at the highest priority on every switch.
    EXPECT_EQ(Key(s, "switch.ack_high_priority"), "true");
    // run.py:353-359 for --bw 100: RATE_AI 10 x 100 / 25 = 40.0 Mb/s, RATE_HAI 25 x 100 / 25 =
    // 100.0 Mb/s, EWMA_GAIN 1/256; CC_MODE 1 is DCQCN as the HPCC simulator runs it.
    EXPECT_EQ(Key(s, "cc"), "dcqcn");
    EXPECT_EQ(Key(s, "dcqcn.rate_ai"), "40000000bps");
    EXPECT_EQ(Key(s, "dcqcn.rate_hai"), "100000000bps");
    EXPECT_EQ(Key(s, "dcqcn.g"), "0.00390625");
    // PACKET_PAYLOAD_SIZE 1000; RANDOM_SEED 1; BUFFER_SIZE 9 (run.py --buffer default, MB).
    EXPECT_EQ(Key(s, "host.mtu"), "1000B");
    EXPECT_EQ(Key(s, "seed"), "1");
    EXPECT_EQ(Key(s, "switch.buffer"), "9437184B"); // 9 x 1024 x 1024, as the switches take it
    EXPECT_EQ(Key(s, "trace.hpcc.format"), "conweave");
    EXPECT_EQ(Key(s, "trace.hpcc.fct"), "mix/output/1/1_out_fct.txt");
}

TEST_F(ConWeaveConfig, RunsEndToEndAndWritesConWeavesFctFile)
{
    ScenarioConfig cfg = LoadHpccConfigScenario(kConfig, "conweave", {}, FABRIC_SOURCE_DIR);
    std::string out = m_dir.Path() + "/out";
    fs::create_directories(out);
    RunOutcome outcome = ScenarioRunner::Run(cfg, out);
    ASSERT_EQ(outcome.exitCode, EXIT_OK) << outcome.message;
    EXPECT_EQ(outcome.summary["flows_finished"], 4);

    // ConWeave's fct.txt (network-load-balance.cc:484-487 qp_finish): src and dst node ids,
    // sport (10000 up per source), dport (100 up per destination), size, start ns, fct ns,
    // standalone ns = pairRtt + (size + packets x 48 B) x 8 / 100 Gb/s. pairRtt = 2 x delay +
    // one 1000 B payload's 80 ns per link (network-load-balance.cc:1464-1466), 1000 ns links:
    // same ToR (h0-sw32-h1) 2 links: 4160; same pod (h0-32-40-33-h4) 4: 8320; across pods
    // (h0-32-40-48-42-34-h8, h31-39-46-50-41-32-h2) 6: 12480. 10 000 B = 10 packets, 10 480 B:
    // 838 ns (integer division); 1000 B: 1048 B, 83 ns.
    std::vector<std::string> fct = Lines(ReadFile(out + "/mix/output/1/1_out_fct.txt"));
    ASSERT_EQ(fct.size(), 4u);
    std::regex line("^[0-9]+ [0-9]+ [0-9]+ [0-9]+ [0-9]+ [0-9]+ [0-9]+ [0-9]+$");
    std::map<std::string, std::vector<uint64_t>> byPair;
    for (const std::string& l : fct)
    {
        EXPECT_TRUE(std::regex_match(l, line)) << l;
        std::istringstream f(l);
        std::string src, dst;
        uint64_t sport, dport, size, start, time, standalone;
        f >> src >> dst >> sport >> dport >> size >> start >> time >> standalone;
        byPair[src + ">" + dst] = {sport, dport, size, start, time, standalone};
    }
    using V = std::vector<uint64_t>;
    auto expect = [&](const std::string& pair, V want) {
        ASSERT_TRUE(byPair.count(pair)) << pair;
        V got = byPair[pair];
        EXPECT_EQ(V(got.begin(), got.begin() + 4), V(want.begin(), want.begin() + 4)) << pair;
        EXPECT_EQ(got[5], want[5]) << pair;
        // A lone flow takes at least the path's delay both ways and its payload's
        // serialization at 100 Gb/s (want[4]).
        EXPECT_GE(got[4], want[4]) << pair;
    };
    expect("0>1", {10000, 100, 10000, 2000000000, 2 * 2000 + 800, 4160 + 838});
    expect("0>4", {10001, 100, 10000, 2000010000, 2 * 4000 + 800, 8320 + 838});
    expect("0>8", {10002, 100, 10000, 2000020000, 2 * 6000 + 800, 12480 + 838});
    expect("31>2", {10000, 100, 1000, 2000030000, 2 * 6000 + 80, 12480 + 83});
}

// mix/output/9/config.txt: the same run with --lb conweave (tools/conweave-run --id 9), whose
// ConWeave timers run.py:268-271 sets for a 3-tier fat tree with PFC and no IRN.
const std::string kConWeaveConfig = kRunDir + "/mix/output/9/config.txt";

TEST_F(ConWeaveConfig, LbMode9IsConWeaveWithItsTimersInMicroseconds)
{
    HpccScenario s = TranslateHpccConfig(kConWeaveConfig, HpccSimulator::CONWEAVE, kRunDir);
    // network-load-balance.cc: LB_MODE 9 = ConWeave; its timers read as whole microseconds
    // (:769-797, conf >> uint32_t then MicroSeconds).
    EXPECT_EQ(Key(s, "switch.lb"), "conweave");
    EXPECT_EQ(Key(s, "conweave.tx_expiry_time"), "1000us");
    EXPECT_EQ(Key(s, "conweave.reply_timeout_extra"), "4us");
    EXPECT_EQ(Key(s, "conweave.path_pause_time"), "16us");
    EXPECT_EQ(Key(s, "conweave.extra_voq_flush_time"), "64us");
    EXPECT_EQ(Key(s, "conweave.default_voq_waiting_time"), "600us");
    // ConWeave's replies ride the ACKs' highest priority (switch-node.cc:295 asserts it).
    EXPECT_EQ(Key(s, "switch.ack_high_priority"), "true");
    // Its reorder queues wait outside the MMU (switch-node.cc:198-214).
    EXPECT_EQ(Key(s, "conweave.hold_in_buffer"), "false");

    // A timer the file leaves out keeps network-load-balance.cc:72-76's default, not the
    // attribute's (run.py's leaf-spine values).
    std::vector<std::string> lines = Lines(ReadFile(kConWeaveConfig));
    std::string trimmed;
    for (const std::string& l : lines)
    {
        if (l.rfind("CONWEAVE_", 0) != 0)
        {
            trimmed += l + "\n";
        }
    }
    fs::create_directories(m_dir.Path() + "/mix/output/9");
    fs::create_directories(m_dir.Path() + "/config");
    for (const char* f : {"config/fat_k4_100G_OS2.txt",
                          "config/L_25.00_CDF_AliStorage2019_N_32_T_5ms_B_100_flow.txt"})
    {
        fs::copy_file(kRunDir + "/" + f, m_dir.Path() + "/" + f);
    }
    std::string bare = m_dir.Path() + "/mix/output/9/config.txt";
    std::ofstream(bare) << trimmed;
    HpccScenario d = TranslateHpccConfig(bare, HpccSimulator::CONWEAVE, m_dir.Path());
    EXPECT_EQ(Key(d, "conweave.tx_expiry_time"), "1000us");
    EXPECT_EQ(Key(d, "conweave.reply_timeout_extra"), "4us");
    EXPECT_EQ(Key(d, "conweave.path_pause_time"), "8us");
    EXPECT_EQ(Key(d, "conweave.extra_voq_flush_time"), "32us");
    EXPECT_EQ(Key(d, "conweave.default_voq_waiting_time"), "500us");

    // With another balancer they are inert (noted), as before.
    HpccScenario ecmp = TranslateHpccConfig(kConfig, HpccSimulator::CONWEAVE, kRunDir);
    EXPECT_EQ(Key(ecmp, "conweave.tx_expiry_time"), "<absent>");
    EXPECT_EQ(Key(ecmp, "conweave.hold_in_buffer"), "<absent>");
}

TEST_F(ConWeaveConfig, LetFlowAndCongaTakeTheConstantsTheReferenceSetsInCode)
{
    // network-load-balance.cc:61-68: CONGA's 100 us flowlets, 50 us DRE period, alpha 0.2;
    // LetFlow's 100 us flowlets. No config key carries them.
    std::string text = ReadFile(kConfig);
    for (const auto& [mode, lb] :
         std::map<std::string, std::string>{{"3", "conga"}, {"6", "flowlet"}})
    {
        std::string config = std::regex_replace(text, std::regex("LB_MODE 0"), "LB_MODE " + mode);
        fs::create_directories(m_dir.Path() + "/mix/output/" + mode);
        fs::create_directories(m_dir.Path() + "/config");
        for (const char* f : {"config/fat_k4_100G_OS2.txt",
                              "config/L_25.00_CDF_AliStorage2019_N_32_T_5ms_B_100_flow.txt"})
        {
            if (!fs::exists(m_dir.Path() + "/" + f))
            {
                fs::copy_file(kRunDir + "/" + f, m_dir.Path() + "/" + f);
            }
        }
        std::string file = m_dir.Path() + "/mix/output/" + mode + "/config.txt";
        std::ofstream(file) << config;
        HpccScenario s = TranslateHpccConfig(file, HpccSimulator::CONWEAVE, m_dir.Path());
        EXPECT_EQ(Key(s, "switch.lb"), lb);
        if (lb == "conga")
        {
            EXPECT_EQ(Key(s, "conga.flowlet_gap"), "100us");
            EXPECT_EQ(Key(s, "conga.dre_period"), "50us");
            EXPECT_EQ(Key(s, "conga.dre_alpha"), "0.2");
            EXPECT_EQ(Key(s, "flowlet.gap"), "<absent>");
        }
        else
        {
            EXPECT_EQ(Key(s, "flowlet.gap"), "100us");
            EXPECT_EQ(Key(s, "conga.flowlet_gap"), "<absent>");
        }
    }
}

TEST_F(ConWeaveConfig, LbMode9RunsEndToEnd)
{
    ScenarioConfig cfg = LoadHpccConfigScenario(kConWeaveConfig, "conweave", {}, FABRIC_SOURCE_DIR);
    EXPECT_TRUE(cfg.warnings.empty()); // ConWeave keeps each flow in order: no go-back-N warning
    std::string out = m_dir.Path() + "/out";
    fs::create_directories(out);
    RunOutcome outcome = ScenarioRunner::Run(cfg, out);
    ASSERT_EQ(outcome.exitCode, EXIT_OK) << outcome.message;
    EXPECT_EQ(outcome.summary["flows_finished"], 4);
    EXPECT_TRUE(outcome.summary["conservation_ok"].get<bool>());
    // Lone flows: nothing reordered, nothing resent.
    EXPECT_EQ(outcome.summary["counters"]["retransmitted_packets"], 0);
    EXPECT_EQ(Lines(ReadFile(out + "/mix/output/9/9_out_fct.txt")).size(), 4u);
}

} // namespace
} // namespace test
} // namespace ns3
