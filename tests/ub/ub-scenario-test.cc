// Unified Bus through the scenario layer: a UB scenario (tests/data/scenarios/ub-small.yaml)
// run in-process by ScenarioRunner, its traces and summary; and the UB configuration errors,
// each a ConfigError naming the offending key.

#include "../fabric-sim-util.h"
#include "config/config-error.h"
#include "config/scenario-config.h"
#include "run/scenario-runner.h"
#include "wire/ub-header.h"

#include <filesystem>
#include <fstream>
#include <sstream>

namespace ns3
{
namespace test
{
namespace
{

namespace fs = std::filesystem;

class UbScenario : public SimTest
{
  protected:
    void SetUp() override
    {
        SimTest::SetUp();
        m_dir = fs::temp_directory_path() /
                ("fabric-ub-scenario-" + std::to_string(getpid()) + "-" +
                 ::testing::UnitTest::GetInstance()->current_test_info()->name());
        fs::create_directories(m_dir);
    }

    void TearDown() override
    {
        std::error_code ec;
        fs::remove_all(m_dir, ec);
        SimTest::TearDown();
    }

    /// Writes \p yaml to a file in the temp dir and loads it.
    ScenarioConfig LoadText(const std::string& name, const std::string& yaml)
    {
        std::string path = (m_dir / name).string();
        std::ofstream(path) << yaml;
        return LoadScenario(path, {}, FABRIC_SOURCE_DIR);
    }

    /// Expects loading \p yaml to fail with a ConfigError whose key is \p key.
    void ExpectKeyError(const std::string& yaml, const std::string& key)
    {
        SCOPED_TRACE(key);
        try
        {
            LoadText("bad.yaml", yaml);
            ADD_FAILURE() << "accepted:\n" << yaml;
        }
        catch (const ConfigError& e)
        {
            EXPECT_EQ(e.Key(), key) << e.what();
            EXPECT_GT(e.Line(), 0);
        }
    }

    fs::path m_dir;
};

const char* const kBase = R"(name: ub-bad
stop_time: 1ms
topology: {generator: star, hosts: 3}
)";

TEST_F(UbScenario, SmallRunIsConsistentAndTracesTheReorderBuffer)
{
    ScenarioConfig cfg =
        LoadScenario(std::string(FABRIC_SOURCE_DIR) + "/tests/data/scenarios/ub-small.yaml",
                     {},
                     FABRIC_SOURCE_DIR);
    ASSERT_EQ(cfg.transport, "ub");
    ASSERT_EQ(cfg.flows.size(), 4u);
    EXPECT_EQ(cfg.flows[2].order, 1);
    EXPECT_EQ(cfg.flows[2].after, std::vector<uint32_t>{0});
    EXPECT_EQ(cfg.flows[3].endpoint, 1);
    RunOutcome o = ScenarioRunner::Run(cfg, m_dir.string());
    ASSERT_EQ(o.exitCode, 0) << o.message;
    const nlohmann::json& s = o.summary;
    EXPECT_TRUE(s["conservation_ok"].get<bool>());
    EXPECT_TRUE(s["transport_state_ok"].get<bool>());
    EXPECT_EQ(s["flows_finished"].get<uint32_t>(), 4u);
    ASSERT_TRUE(s.contains("ub")) << s.dump(1);
    const nlohmann::json& ub = s["ub"];
    for (const char* k : {"reorder_peak_bytes_per_nic",
                          "reorder_peak_packets_per_nic",
                          "resent_packets",
                          "context_misses",
                          "sender_channels"})
    {
        EXPECT_TRUE(ub.contains(k)) << k;
    }
    // Shared channels: one per (sending host, target): h0 -> h2 and h1 -> h3.
    EXPECT_EQ(ub["sender_channels"].get<uint64_t>(), 2u);
    // The scripted loss of flow 0's packet 3 is resent; later packets of flow 0 wait for it.
    EXPECT_GE(ub["resent_packets"].get<uint64_t>(), 1u);
    EXPECT_GE(ub["reorder_peak_packets_per_nic"].get<uint64_t>(), 1u);
    EXPECT_EQ(ub["reorder_peak_bytes_per_nic"].get<uint64_t>(),
              ub["reorder_peak_packets_per_nic"].get<uint64_t>() * 4096);

    std::ifstream in((m_dir / "reorder.csv").string());
    ASSERT_TRUE(in.good()) << "reorder.csv missing";
    std::string line;
    std::getline(in, line);
    EXPECT_EQ(line, "time_ns,flow_id,packets,bytes");
    uint32_t rows = 0, flow0Max = 0;
    std::string lastFlow0;
    while (std::getline(in, line))
    {
        ++rows;
        std::stringstream ls(line);
        std::string t, flow, packets, bytes;
        std::getline(ls, t, ',');
        std::getline(ls, flow, ',');
        std::getline(ls, packets, ',');
        std::getline(ls, bytes, ',');
        EXPECT_EQ(std::stoull(bytes), std::stoull(packets) * 4096) << line;
        if (flow == "0")
        {
            flow0Max = std::max<uint32_t>(flow0Max, std::stoul(packets));
            lastFlow0 = packets;
        }
    }
    EXPECT_GT(rows, 0u);
    EXPECT_GE(flow0Max, 1u);
    EXPECT_EQ(lastFlow0, "0"); // everything held was eventually delivered in order
    EXPECT_TRUE(fs::exists(m_dir / "flows.csv"));
}

TEST_F(UbScenario, CcMustBeCaqmOrNone)
{
    ExpectKeyError(std::string(kBase) +
                       "transport: ub\ncc: dcqcn\n"
                       "workload: {type: incast, senders: 2, bytes_per_sender: 8KiB}\n",
                   "cc");
}

TEST_F(UbScenario, UnknownSprayPolicy)
{
    ExpectKeyError(std::string(kBase) +
                       "transport: ub\nub:\n  spray: bogus\n"
                       "workload: {type: incast, senders: 2, bytes_per_sender: 8KiB}\n",
                   "ub.spray");
}

TEST_F(UbScenario, AfterMustNameAnEarlierFlow)
{
    ExpectKeyError(std::string(kBase) + "transport: ub\n"
                                        "workload:\n"
                                        "  type: flows\n"
                                        "  flows:\n"
                                        "    - {src: h1, dst: h0, bytes: 8KiB, after: [1]}\n"
                                        "    - {src: h2, dst: h0, bytes: 8KiB}\n",
                   "workload.flows[0].after");
}

TEST_F(UbScenario, OrderAfterNeedsAList)
{
    ExpectKeyError(std::string(kBase) + "transport: ub\n"
                                        "workload:\n"
                                        "  type: flows\n"
                                        "  flows:\n"
                                        "    - {src: h1, dst: h0, bytes: 8KiB}\n"
                                        "    - {src: h2, dst: h0, bytes: 8KiB, order: after}\n",
                   "workload.flows[1].order");
}

TEST_F(UbScenario, JettysNeedTransportUb)
{
    ExpectKeyError(std::string(kBase) + "transport: roce\n"
                                        "workload: {type: incast, senders: 2, "
                                        "bytes_per_sender: 8KiB, jettys: 4}\n",
                   "workload.jettys");
}

TEST_F(UbScenario, RequestFieldsNeedTransportUb)
{
    ExpectKeyError(std::string(kBase) + "transport: roce\n"
                                        "workload:\n"
                                        "  type: flows\n"
                                        "  flows:\n"
                                        "    - {src: h1, dst: h0, bytes: 8KiB, order: strict}\n",
                   "workload.flows[0].order");
}

TEST_F(UbScenario, FixedWindowOnlyWithoutCaqm)
{
    ExpectKeyError(std::string(kBase) +
                       "transport: ub\ncc: caqm\nub: {window: 64KiB}\n"
                       "workload: {type: incast, senders: 2, bytes_per_sender: 8KiB}\n",
                   "ub.window");
}

TEST_F(UbScenario, JettysAssignEndpointsInTurn)
{
    // workload.jettys: 2 — each host's flows are posted by Jetty 0, 1, 0, ... in turn.
    ScenarioConfig cfg = LoadText("ok.yaml",
                                  std::string(kBase) + "transport: ub\n"
                                                       "workload:\n"
                                                       "  type: flows\n"
                                                       "  jettys: 2\n"
                                                       "  flows:\n"
                                                       "    - {src: h1, dst: h0, bytes: 8KiB}\n"
                                                       "    - {src: h1, dst: h2, bytes: 8KiB}\n"
                                                       "    - {src: h2, dst: h0, bytes: 8KiB}\n"
                                                       "    - {src: h1, dst: h0, bytes: 8KiB}\n");
    ASSERT_EQ(cfg.flows.size(), 4u);
    EXPECT_EQ(cfg.flows[0].endpoint, 0);
    EXPECT_EQ(cfg.flows[1].endpoint, 1);
    EXPECT_EQ(cfg.flows[2].endpoint, 0); // h2's first
    EXPECT_EQ(cfg.flows[3].endpoint, 0); // h1's third
}

TEST_F(UbScenario, MemoryVerbsAndTheSpecificationsOrderNames)
{
    // verb: read / load / store / atomic are UB requests; order: NO / RO / SO are the
    // specification's names of none / relaxed / strict (docs/models.md#ordering).
    ScenarioConfig cfg = LoadText("ok.yaml",
                                  std::string(kBase) + "transport: ub\n"
                                                       "workload:\n"
                                                       "  type: flows\n"
                                                       "  flows:\n"
                                                       "    - {src: h1, dst: h0, bytes: 8KiB, "
                                                       "verb: read, order: SO}\n"
                                                       "    - {src: h1, dst: h0, bytes: 1KiB, "
                                                       "verb: load, order: RO}\n"
                                                       "    - {src: h1, dst: h0, bytes: 1KiB, "
                                                       "verb: store, order: NO}\n"
                                                       "    - {src: h1, dst: h0, bytes: 64, "
                                                       "verb: atomic, order: relaxed}\n");
    ASSERT_EQ(cfg.flows.size(), 4u);
    EXPECT_EQ(cfg.flows[0].verb, RdmaVerb::READ);
    EXPECT_EQ(cfg.flows[0].order, uint8_t(UbOrder::STRICT));
    EXPECT_EQ(cfg.flows[1].verb, RdmaVerb::LOAD);
    EXPECT_EQ(cfg.flows[1].order, uint8_t(UbOrder::RELAXED));
    EXPECT_EQ(cfg.flows[2].verb, RdmaVerb::STORE);
    EXPECT_EQ(cfg.flows[2].order, uint8_t(UbOrder::NONE));
    EXPECT_EQ(cfg.flows[3].verb, RdmaVerb::ATOMIC);
    EXPECT_EQ(cfg.flows[3].order, uint8_t(UbOrder::RELAXED));
}

TEST_F(UbScenario, MoreKeysAreNamedInErrors)
{
    const std::string ub = std::string(kBase) + "transport: ub\n";
    const std::string incast = "workload: {type: incast, senders: 2, bytes_per_sender: 8KiB}\n";
    ExpectKeyError(ub + "ub: {bogus_key: 1}\n" + incast, "ub.bogus_key");
    ExpectKeyError(ub + "ub: {sharing: sideways}\n" + incast, "ub.sharing");
    ExpectKeyError(ub + "ub: {rto: fast}\n" + incast, "ub.rto");
    ExpectKeyError(ub + "caqm: {Bogus: 1}\n" + incast, "caqm.Bogus");
    ExpectKeyError(ub + "caqm_switch: {TargetQueue: lots}\n" + incast, "caqm_switch.TargetQueue");
    ExpectKeyError(ub + "workload:\n  type: flows\n  flows:\n"
                        "    - {src: h1, dst: h0, bytes: 8KiB, endpoint: 70000}\n",
                   "workload.flows[0].endpoint");
    ExpectKeyError(ub + "workload:\n  type: flows\n  flows:\n"
                        "    - {src: h1, dst: h0, bytes: 8KiB, order: sideways}\n",
                   "workload.flows[0].order");
    const std::string roce = std::string(kBase) + "transport: roce\n";
    ExpectKeyError(roce + "workload:\n  type: flows\n  flows:\n"
                          "    - {src: h1, dst: h0, bytes: 8KiB, verb: load}\n",
                   "workload.flows[0].verb");
    ExpectKeyError(roce + "workload: {type: incast, senders: 2, bytes_per_sender: 8KiB, "
                          "verb: atomic}\n",
                   "workload.verb");
    ExpectKeyError(ub + "ub: {cache_line: 0B}\n" + incast, "ub.cache_line");
    ExpectKeyError(ub + "ub: {cache_line: 8KiB}\n" + incast, "ub.cache_line");
    ExpectKeyError(ub + "ub: {memory_latency: -1us}\n" + incast, "ub.memory_latency");
    ExpectKeyError(ub + "ub: {max_outstanding_ops: 5000000000}\n" + incast,
                   "ub.max_outstanding_ops");
    ExpectKeyError(ub + "workload: {type: incast, senders: 2, bytes_per_sender: 8KiB, jettys: 0}\n",
                   "workload.jettys");
}

} // namespace
} // namespace test
} // namespace ns3

namespace ns3
{
namespace test
{
namespace
{

/// The last value \p cfg sets for attribute \p name ("" when it sets none).
std::string
AttributeOf(const ScenarioConfig& cfg, const std::string& name)
{
    std::string value;
    for (const auto& [n, v] : cfg.attributes)
    {
        if (n == name)
        {
            value = v;
        }
    }
    return value;
}

TEST_F(UbScenario, NsccAndDctcpSelectTheirStrategiesAndTakeTheirSections)
{
    const std::string incast = "workload: {type: incast, senders: 2, bytes_per_sender: 8KiB}\n";
    ScenarioConfig nscc =
        LoadText("nscc.yaml",
                 std::string(kBase) + "transport: ub\ncc: nscc\n" +
                     "nscc: {network_rtt: 3us, target_delay: 2us, fair_increase: 4}\n" + incast);
    EXPECT_EQ(AttributeOf(nscc, "ns3::UbNic::CongestionControl"), "ns3::NsccCongestionControl");
    // NSCC's record names no switch stage: the switches run no C-AQM (cc: caqm's does).
    EXPECT_EQ(AttributeOf(nscc, "ns3::FabricSwitch::TransportStages"), "");
    ScenarioConfig caqm =
        LoadText("caqm.yaml", std::string(kBase) + "transport: ub\ncc: caqm\n" + incast);
    EXPECT_EQ(AttributeOf(caqm, "ns3::FabricSwitch::TransportStages"), "ns3::CaqmSwitch");
    EXPECT_EQ(Time(AttributeOf(nscc, "ns3::NsccCongestionControl::TargetDelay")), MicroSeconds(2));
    EXPECT_EQ(AttributeOf(nscc, "ns3::NsccCongestionControl::FairIncrease"), "4");
    ScenarioConfig dctcp = LoadText("dctcp.yaml",
                                    std::string(kBase) + "transport: ub\ncc: dctcp\n" +
                                        "ub_dctcp: {g: 0.125}\n" + incast);
    // The one DCTCP of both transports; UB scenarios keep their ub_dctcp section.
    EXPECT_EQ(AttributeOf(dctcp, "ns3::UbNic::CongestionControl"), "ns3::DctcpCongestionControl");
    EXPECT_EQ(AttributeOf(dctcp, "ns3::DctcpCongestionControl::G"), "0.125");
    ExpectKeyError(std::string(kBase) + "transport: ub\ncc: nscc\nnscc: {gama: 1}\n" + incast,
                   "nscc.gama");
    ExpectKeyError(std::string(kBase) + "transport: ub\ncc: nscc\nub: {window: 64KiB}\n" + incast,
                   "ub.window");
}

} // namespace
} // namespace test
} // namespace ns3
