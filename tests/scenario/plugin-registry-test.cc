// A toy of each plug-in kind, declared in this one file and run from a scenario with no other
// edit (docs/architecture.md, "Plug-ins"): a RoCE congestion control that paces at its Rate
// attribute and needs a switch stage, an egress stage that counts what leaves each port, and a
// load balancer that always takes the group's first port, per packet. The scenario names them
// (cc:, switch.lb:, the toy's section toy_rate.rate) and the config layer, its errors and
// --help know them from their FABRIC_PLUGIN records alone.

#include "../fabric-sim-util.h"
#include "config/config-error.h"
#include "config/scenario-config.h"
#include "roce/roce-congestion-control.h"
#include "run/scenario-runner.h"
#include "sim/fabric-plugin.h"
#include "switch/mmu-policy.h"
#include "switch/switch-stages.h"

#include "ns3/data-rate.h"

#include <filesystem>
#include <fstream>
#include <sstream>
#include <unistd.h>

namespace ns3
{

/// Paces every QP at its Rate attribute, whatever the network says.
class ToyRateCc : public RoceCongestionControl
{
  public:
    static TypeId GetTypeId()
    {
        static TypeId tid = TypeId("ns3::ToyRateCc")
                                .SetParent<RoceCongestionControl>()
                                .SetGroupName("Fabric")
                                .AddConstructor<ToyRateCc>()
                                .AddAttribute("Rate",
                                              "The one rate every QP sends at.",
                                              DataRateValue(DataRate("100Gbps")),
                                              MakeDataRateAccessor(&ToyRateCc::m_rate),
                                              MakeDataRateChecker());
        return tid;
    }

    void Start(DataRate) override
    {
        ++s_started;
    }

    void Stop() override
    {
    }

    DataRate GetRate() const override
    {
        return m_rate;
    }

    void OnCnp() override
    {
    }

    void OnBytesSent(uint32_t) override
    {
    }

    std::string GetName() const override
    {
        return "toy-rate";
    }

    static inline uint32_t s_started = 0;

  private:
    DataRate m_rate;
};

/// Counts the frames every port of its switch sends.
class ToyCountStage : public EgressStage
{
  public:
    static TypeId GetTypeId()
    {
        static TypeId tid = TypeId("ns3::ToyCountStage")
                                .SetParent<EgressStage>()
                                .SetGroupName("Fabric")
                                .AddConstructor<ToyCountStage>();
        return tid;
    }

    bool RunsOnDequeue() const override
    {
        return true;
    }

    StageVerdict OnDequeue(FabricNetDevice&, QueuedFrame&) override
    {
        ++s_frames;
        return StageVerdict::Pass();
    }

    static inline uint64_t s_frames = 0;
};

/// The group's first port, for every packet.
class ToyFirstPortLb : public SwitchLoadBalancer
{
  public:
    static TypeId GetTypeId()
    {
        static TypeId tid = TypeId("ns3::ToyFirstPortLb")
                                .SetParent<SwitchLoadBalancer>()
                                .SetGroupName("Fabric")
                                .AddConstructor<ToyFirstPortLb>();
        return tid;
    }

    uint16_t SelectPort(const FrameInfo&, const std::vector<uint16_t>& group) override
    {
        ++s_calls;
        return group[0];
    }

    static inline uint64_t s_calls = 0;
};

/// Asks for XOFF as soon as an (ingress port, priority) holds any byte; resumes once it holds
/// none.
class ToyEagerMmu : public MmuPolicy
{
  public:
    static TypeId GetTypeId()
    {
        static TypeId tid = TypeId("ns3::ToyEagerMmu")
                                .SetParent<MmuPolicy>()
                                .SetGroupName("Fabric")
                                .AddConstructor<ToyEagerMmu>();
        return tid;
    }

    uint64_t XoffThreshold(const MmuPoolState&) const override
    {
        return 1;
    }

    bool MayResume(uint64_t shared, const MmuPoolState&) const override
    {
        ++s_resumeChecks;
        return shared == 0;
    }

    static inline uint64_t s_resumeChecks = 0;
};

NS_OBJECT_ENSURE_REGISTERED(ToyRateCc);
FABRIC_PLUGIN(FabricPlugin(PluginKind::CongestionControl,
                           "toy-rate",
                           &ToyRateCc::GetTypeId,
                           "a fixed rate, for the registry's test")
                  .Transport("roce")
                  .Section("toy_rate")
                  .SwitchStage("toy-count"));
NS_OBJECT_ENSURE_REGISTERED(ToyCountStage);
FABRIC_PLUGIN(FabricPlugin(PluginKind::EgressStage,
                           "toy-count",
                           &ToyCountStage::GetTypeId,
                           "counts frames, for the registry's test"));
NS_OBJECT_ENSURE_REGISTERED(ToyFirstPortLb);
FABRIC_PLUGIN(FabricPlugin(PluginKind::LoadBalancer,
                           "toy-first",
                           &ToyFirstPortLb::GetTypeId,
                           "the first port, for the registry's test")
                  .PerPacket());
NS_OBJECT_ENSURE_REGISTERED(ToyEagerMmu);
FABRIC_PLUGIN(FabricPlugin(PluginKind::MmuPolicy,
                           "toy-eager",
                           &ToyEagerMmu::GetTypeId,
                           "XOFF at the first byte, for the registry's test"));

namespace test
{
namespace
{

namespace fs = std::filesystem;

/// One 1 MiB RoCE flow between two leaves of a two-spine Clos; \p sw: the switch section,
/// \p extra: more lines of YAML.
std::string
WriteScenario(const std::string& sw, const std::string& extra)
{
    std::string file = testing::TempDir() + "/plugin-toys-" + std::to_string(getpid()) + ".yaml";
    std::ofstream(file) << "name: plugin-toys\n"
                           "stop_time: 5ms\n"
                           "topology: {generator: clos2, k: 4, rate: 100Gbps, cable: 10m}\n"
                           "host: {mtu: 4096B}\n"
                           "transport: roce\n"
                           "roce: {recovery: sr}\n"
                           "workload:\n"
                           "  type: flows\n"
                           "  flows:\n"
                           "    - {src: h0, dst: h7, bytes: 1MiB, start: 0s}\n"
                        << "switch: " << sw << "\n"
                        << extra;
    return file;
}

/// fct_ns of the first row of \p dir/flows.csv.
uint64_t
FirstFct(const fs::path& dir)
{
    std::ifstream in(dir / "flows.csv");
    std::string header;
    std::string row;
    std::getline(in, header);
    std::getline(in, row);
    std::vector<std::string> names;
    std::vector<std::string> cells;
    std::stringstream h(header);
    std::stringstream r(row);
    for (std::string s; std::getline(h, s, ',');)
    {
        names.push_back(s);
    }
    for (std::string s; std::getline(r, s, ',');)
    {
        cells.push_back(s);
    }
    for (size_t i = 0; i < names.size() && i < cells.size(); ++i)
    {
        if (names[i] == "fct_ns")
        {
            return std::stoull(cells[i]);
        }
    }
    ADD_FAILURE() << "no fct_ns in " << (dir / "flows.csv");
    return 0;
}

TEST(PluginRegistry, ToysOfEachKindRunFromAScenarioByTheirNames)
{
    std::string file = WriteScenario("{lb: toy-first}", "cc: toy-rate\ntoy_rate: {rate: 10Gbps}\n");
    ScenarioConfig cfg = LoadScenario(file, {}, FABRIC_SOURCE_DIR);
    fs::path dir = fs::temp_directory_path() / ("fabric-plugins-" + std::to_string(getpid()));
    fs::remove_all(dir);
    fs::create_directories(dir);
    ToyRateCc::s_started = 0;
    ToyCountStage::s_frames = 0;
    ToyFirstPortLb::s_calls = 0;
    RunOutcome outcome = ScenarioRunner::Run(cfg, dir.string());
    ASSERT_EQ(outcome.exitCode, EXIT_OK) << outcome.message;

    // 1 MiB in 256 frames of 4096 B payload (+126 B of headers, preamble and gap on the wire:
    // 4222 B), paced at the section's 10 Gb/s, not the attribute's default 100 Gb/s: the
    // payload alone takes 838.9 us at that rate, the wire bytes 864.7 us; one base RTT over
    // four hops of 10 m cable and the last ACK add under 10 us.
    uint64_t fct = FirstFct(dir);
    EXPECT_GE(fct, 838861u);
    EXPECT_LE(fct, 864666u + 10000u);
    EXPECT_EQ(ToyRateCc::s_started, 1u);
    // Every data frame crosses a leaf, a spine and a leaf: the stage cc: asked for counts at
    // least three departures per frame (ACKs come on top).
    EXPECT_GE(ToyCountStage::s_frames, 3u * 256u);
    // The source leaf chose an uplink for each of the 256 frames.
    EXPECT_GE(ToyFirstPortLb::s_calls, 256u);
    fs::remove_all(dir);
}

TEST(PluginRegistry, ErrorsAndHelpListTheRegisteredNames)
{
    std::string file = WriteScenario("{lb: toy-first}", "cc: nope\n");
    try
    {
        LoadScenario(file, {}, FABRIC_SOURCE_DIR);
        FAIL() << "cc: nope was accepted";
    }
    catch (const ConfigError& e)
    {
        EXPECT_NE(std::string(e.what()).find("toy-rate"), std::string::npos) << e.what();
    }
    // --help wraps its lines: compare with runs of white space made one space.
    std::string help;
    for (char c : ScenarioKeysHelp())
    {
        bool space = c == ' ' || c == '\n';
        if (!space || (!help.empty() && help.back() != ' '))
        {
            help += space ? ' ' : c;
        }
    }
    EXPECT_NE(help.find("toy-rate (a fixed rate, for the registry's test)"), std::string::npos);
    EXPECT_NE(help.find("toy_rate.rate"), std::string::npos);
    EXPECT_NE(help.find("toy-first (the first port, for the registry's test)"), std::string::npos);
    EXPECT_NE(help.find("toy-count (counts frames, for the registry's test)"), std::string::npos);
    EXPECT_NE(help.find("toy-eager (XOFF at the first byte, for the registry's test)"),
              std::string::npos);
}

TEST(PluginRegistry, APerPacketBalancerWarnsOfGoBackN)
{
    // The toy declares PerPacket(): its flag alone makes go-back-N behind it a warning.
    std::string file = WriteScenario("{lb: toy-first}", "cc: toy-rate\n");
    ScenarioConfig cfg = LoadScenario(file, {"roce.recovery=gbn"}, FABRIC_SOURCE_DIR);
    ASSERT_EQ(cfg.warnings.size(), 1u);
    EXPECT_NE(cfg.warnings[0].find("'toy-first' chooses a path per packet"), std::string::npos)
        << cfg.warnings[0];
    EXPECT_TRUE(LoadScenario(file, {"roce.recovery=sr"}, FABRIC_SOURCE_DIR).warnings.empty());
}

TEST(PluginRegistry, SwitchStagesKeyInstallsAStageByName)
{
    std::string file = WriteScenario("{lb: ecmp, stages: [toy-count]}", "cc: none\n");
    ScenarioConfig cfg = LoadScenario(file, {}, FABRIC_SOURCE_DIR);
    bool found = false;
    for (const auto& [name, value] : cfg.attributes)
    {
        found =
            found || (name == "ns3::FabricSwitch::EgressStages" && value == "ns3::ToyCountStage");
    }
    EXPECT_TRUE(found) << "switch.stages: [toy-count] did not select ns3::ToyCountStage";
    std::string bad = WriteScenario("{lb: ecmp, stages: [nope]}", "");
    try
    {
        LoadScenario(bad, {}, FABRIC_SOURCE_DIR);
        FAIL() << "an unknown stage was accepted";
    }
    catch (const ConfigError& e)
    {
        EXPECT_NE(std::string(e.what()).find("toy-count"), std::string::npos) << e.what();
    }
}

/// PFC frames the switches sent in the run of \p file (summary.json's counters).
uint64_t
PfcFramesSent(const std::string& file, const std::vector<std::string>& overrides)
{
    ScenarioConfig cfg = LoadScenario(file, overrides, FABRIC_SOURCE_DIR);
    fs::path dir = fs::temp_directory_path() / ("fabric-mmu-toy-" + std::to_string(getpid()));
    fs::remove_all(dir);
    fs::create_directories(dir);
    RunOutcome outcome = ScenarioRunner::Run(cfg, dir.string());
    fs::remove_all(dir);
    EXPECT_EQ(outcome.exitCode, EXIT_OK) << outcome.message;
    return outcome.summary["counters"]["pfc_frames_sent"].get<uint64_t>();
}

TEST(PluginRegistry, AnMmuPolicyChosenByNameSetsThePfcThresholds)
{
    // One flow at line rate never holds 256 KiB of one ingress counter: the static default
    // pauses nothing. The toy pauses at the first byte a switch holds, so every frame a switch
    // takes in pauses its sender, and resumes it when it leaves.
    std::string file = WriteScenario("{lb: ecmp}", "cc: none\n");
    EXPECT_EQ(PfcFramesSent(file, {}), 0u);
    ToyEagerMmu::s_resumeChecks = 0;
    EXPECT_GT(PfcFramesSent(file, {"switch.mmu=toy-eager"}), 0u);
    EXPECT_GT(ToyEagerMmu::s_resumeChecks, 0u);
    try
    {
        LoadScenario(file,
                     {"switch.mmu=toy-eager", "switch.pfc.dynamic_alpha=0.5"},
                     FABRIC_SOURCE_DIR);
        FAIL() << "dynamic_alpha beside another policy was accepted";
    }
    catch (const ConfigError& e)
    {
        EXPECT_NE(std::string(e.what()).find("switch.mmu"), std::string::npos) << e.what();
    }
}

} // namespace
} // namespace test
} // namespace ns3
