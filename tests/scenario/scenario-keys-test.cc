// The scenario key table (helper/config/config-table.h): every key's default is its ns-3
// attribute's, read when the scenario is loaded (so Config::SetDefault moves it); `fabric-run
// --help` lists every key; the deprecated CamelCase spellings of the dcqcn:, caqm: and caqm_switch:
// keys still load, with a notice naming file, line, old and new key; a run leaves the attribute
// defaults as it found them.

#include "../test-files.h"
#include "config/attribute-values.h"
#include "config/config-error.h"
#include "config/config-sections.h"
#include "config/scenario-config.h"
#include "run/scenario-runner.h"

#include "ns3/boolean.h"
#include "ns3/config.h"
#include "ns3/data-rate.h"
#include "ns3/double.h"
#include "ns3/enum.h"
#include "ns3/nstime.h"
#include "ns3/queue-size.h"
#include "ns3/simulator.h"
#include "ns3/string.h"
#include "ns3/uinteger.h"

#include <fstream>
#include <gtest/gtest.h>
#include <map>
#include <set>
#include <sstream>

namespace ns3
{
namespace test
{
namespace
{

/// A scenario with only a topology and a workload: every other key takes its default.
const char* const kMinimal = R"(topology: {generator: star, hosts: 3}
workload: {type: incast, senders: 2, bytes_per_sender: 8KiB}
)";

/// The same for a collective, so that the collective keys are read too.
const char* const kMinimalCollective = R"(topology: {generator: star, hosts: 4}
transport: roce
workload: {type: collective}
collective: {message: 64KiB}
)";

class ScenarioKeys : public ::testing::Test
{
  protected:
    void SetUp() override
    {
        Config::Reset();
    }

    void TearDown() override
    {
        Simulator::Destroy();
        Config::Reset();
    }

    std::string Write(const std::string& name, const std::string& yaml)
    {
        std::string path = m_dir.Path() + "/" + name;
        std::ofstream(path) << yaml;
        return path;
    }

    ScenarioConfig LoadText(const std::string& name, const std::string& yaml)
    {
        return LoadScenario(Write(name, yaml), {}, FABRIC_SOURCE_DIR);
    }

    /// Loads \p yaml and returns what it wrote on stderr.
    std::string LoadCapturingNotices(const std::string& name,
                                     const std::string& yaml,
                                     ScenarioConfig* cfg)
    {
        std::string path = Write(name, yaml);
        ::testing::internal::CaptureStderr();
        try
        {
            *cfg = LoadScenario(path, {}, FABRIC_SOURCE_DIR);
        }
        catch (...)
        {
            ::testing::internal::GetCapturedStderr();
            throw;
        }
        return ::testing::internal::GetCapturedStderr();
    }

    TempDir m_dir{"fabric-keys"};
};

/// The last value a scenario gives \p attribute ("" when it gives none).
std::string
LastValue(const ScenarioConfig& cfg, const std::string& attribute)
{
    std::string value;
    for (const auto& [name, v] : cfg.attributes)
    {
        if (name == attribute)
        {
            value = v;
        }
    }
    return value;
}

/// The current default of \p attribute, exactly (ns-3 prints times to six digits only).
std::string
CurrentDefault(const std::string& attribute)
{
    return AttributeDefaultText(attribute);
}

/// \p attribute's default once set to \p text, as CurrentDefault writes it (then put back).
std::string
DefaultAfterSetting(const std::string& attribute, const std::string& text)
{
    Ptr<const AttributeValue> before = AttributeDefault(attribute).initialValue;
    std::string normalized;
    std::string error;
    EXPECT_TRUE(NormalizeAttributeValue(attribute, text, &normalized, &error))
        << attribute << " = " << text << ": " << error;
    EXPECT_TRUE(Config::SetDefaultFailSafe(attribute, StringValue(normalized)))
        << attribute << " = " << normalized;
    std::string after = CurrentDefault(attribute);
    Config::SetDefault(attribute, *before);
    return after;
}

/**
 * A valid value of \p key's attribute other than its default, built from the default alone (so
 * a new key is covered without touching this test): another of the key's choices, booleans
 * flipped, numbers moved by one step inside the checker's range, the next enum name. Null when
 * the type has no such rule.
 */
Ptr<AttributeValue>
AnotherValue(const ScenarioKey& key)
{
    TypeId::AttributeInformation info = AttributeDefault(key.attribute);
    Ptr<const AttributeValue> v = info.initialValue;
    std::string current = v->SerializeToString(info.checker);
    std::vector<std::string> names; // for choices and enums
    for (const auto& [spelling, value] : key.choices)
    {
        names.push_back(value);
    }
    std::vector<Ptr<AttributeValue>> candidates;
    if (auto b = DynamicCast<const BooleanValue>(v))
    {
        candidates.push_back(Create<BooleanValue>(!b->Get()));
    }
    else if (auto u = DynamicCast<const UintegerValue>(v))
    {
        candidates.push_back(Create<UintegerValue>(u->Get() + 1));
        candidates.push_back(Create<UintegerValue>(u->Get() - 1));
    }
    else if (auto d = DynamicCast<const DoubleValue>(v))
    {
        candidates.push_back(Create<DoubleValue>(d->Get() == 0 ? 0.5 : d->Get() / 2));
    }
    else if (auto t = DynamicCast<const TimeValue>(v))
    {
        candidates.push_back(Create<TimeValue>(t->Get() + NanoSeconds(3)));
    }
    else if (auto r = DynamicCast<const DataRateValue>(v))
    {
        candidates.push_back(Create<DataRateValue>(DataRate(r->Get().GetBitRate() * 2)));
    }
    else if (auto q = DynamicCast<const QueueSizeValue>(v))
    {
        candidates.push_back(
            Create<QueueSizeValue>(QueueSize(QueueSizeUnit::BYTES, q->Get().GetValue() + 1024)));
    }
    else if (DynamicCast<const EnumValue>(v))
    {
        std::istringstream list(info.checker->GetUnderlyingTypeInformation());
        for (std::string n; std::getline(list, n, '|');)
        {
            names.push_back(n);
        }
    }
    for (const std::string& n : names)
    {
        Ptr<AttributeValue> value = info.checker->Create();
        if (n != current && value->DeserializeFromString(n, info.checker))
        {
            candidates.push_back(value);
        }
    }
    for (const auto& c : candidates)
    {
        if (info.checker->Check(*c))
        {
            return c;
        }
    }
    return nullptr;
}

/// A key whose default is its attribute's as it stands, and which sets that attribute.
bool
TakesAttributeDefault(const ScenarioKey& key)
{
    return !key.attribute.empty() && key.fallback.empty() && !key.rule && !key.onlyWhenGiven;
}

/// link.rate and link.delay hold their attribute's default but feed the topology, not the
/// attribute (FabricBuilder sets every device and channel from its link).
bool
FeedsTheTopology(const ScenarioKey& key)
{
    return key.path == "link.rate" || key.path == "link.delay";
}

/// \p text with every run of spaces and line breaks made one space (help lines are wrapped).
std::string
Unwrapped(const std::string& text)
{
    std::istringstream words(text);
    std::string out;
    for (std::string w; words >> w;)
    {
        out += (out.empty() ? "" : " ") + w;
    }
    return out;
}

// --- defaults come from the TypeIds ----------------------------------------------------------

TEST_F(ScenarioKeys, AbsentKeysLeaveEveryAttributeAtItsDefault)
{
    // Applying what a scenario without those keys sets changes no attribute: each default the
    // loader wrote is the attribute's own.
    std::vector<ScenarioConfig> loaded = {LoadText("minimal.yaml", kMinimal),
                                          LoadText("collective.yaml", kMinimalCollective)};
    int checked = 0;
    for (const ScenarioKey& key : ScenarioKeyTable())
    {
        if (!TakesAttributeDefault(key) || FeedsTheTopology(key))
        {
            continue;
        }
        SCOPED_TRACE(key.path);
        bool set = false;
        for (const ScenarioConfig& cfg : loaded)
        {
            std::string value = LastValue(cfg, key.attribute);
            if (!value.empty())
            {
                set = true;
                EXPECT_EQ(DefaultAfterSetting(key.attribute, value), CurrentDefault(key.attribute));
            }
        }
        EXPECT_TRUE(set) << "no scenario sets " << key.attribute;
        ++checked;
    }
    EXPECT_GT(checked, 60); // the table's attribute keys, not an empty loop
}

TEST_F(ScenarioKeys, DefaultsFollowConfigSetDefault)
{
    // Move every attribute a key takes its default from, then load: every key must give the
    // moved value, so no default is written anywhere but in the TypeId.
    std::map<std::string, std::string> moved; // attribute -> its new default, serialized
    for (const ScenarioKey& key : ScenarioKeyTable())
    {
        if (!TakesAttributeDefault(key) || moved.count(key.attribute))
        {
            continue;
        }
        Ptr<AttributeValue> other = AnotherValue(key);
        ASSERT_TRUE(other) << key.path << ": no other value for " << key.attribute;
        std::string original = CurrentDefault(key.attribute);
        Config::SetDefault(key.attribute, *other);
        moved[key.attribute] = CurrentDefault(key.attribute);
        ASSERT_NE(moved[key.attribute], original) << key.path;
    }
    std::vector<ScenarioConfig> loaded = {LoadText("minimal.yaml", kMinimal),
                                          LoadText("collective.yaml", kMinimalCollective)};
    for (const ScenarioKey& key : ScenarioKeyTable())
    {
        if (!TakesAttributeDefault(key))
        {
            continue;
        }
        SCOPED_TRACE(key.path);
        if (FeedsTheTopology(key))
        {
            // The star generator's links take the link defaults.
            const TopologyLink& link = loaded[0].topology.links.at(0);
            std::string got = key.path == "link.rate"
                                  ? std::to_string(link.rate.GetBitRate()) + "bps"
                                  : std::to_string(link.delay.GetPicoSeconds()) + "ps";
            EXPECT_EQ(got, moved[key.attribute]);
            continue;
        }
        for (const ScenarioConfig& cfg : loaded)
        {
            std::string value = LastValue(cfg, key.attribute);
            if (!value.empty())
            {
                EXPECT_EQ(DefaultAfterSetting(key.attribute, value), moved[key.attribute]);
            }
        }
    }
}

TEST_F(ScenarioKeys, HeadroomAndXonOffsetAreComputedNotTheAttributeDefaults)
{
    // The two defaults the scenario computes: the one-hop headroom bound (400 Gb/s star with
    // 150 ns cables and 4154-byte frames: 27654 B, see scenario-config-test.cc) and two such
    // frames of XON offset; the attributes' own defaults (32 KiB, 8 KiB) apply only outside
    // scenarios.
    ScenarioConfig cfg = LoadText("minimal.yaml", kMinimal);
    EXPECT_EQ(LastValue(cfg, "ns3::SharedBufferMmu::Headroom"), "27654B");
    EXPECT_EQ(LastValue(cfg, "ns3::SharedBufferMmu::XonOffset"), std::to_string(2 * 4154) + "B");
    // xon: half of xoff, which agrees with the attributes' own defaults when neither is given.
    EXPECT_EQ(LastValue(cfg, "ns3::SharedBufferMmu::XonThreshold"), "131072B");
    EXPECT_EQ(CurrentDefault("ns3::SharedBufferMmu::XonThreshold"), "131072B");
    cfg = LoadText("xoff.yaml", std::string(kMinimal) + "switch: {pfc: {xoff: 100KiB}}\n");
    EXPECT_EQ(LastValue(cfg, "ns3::SharedBufferMmu::XonThreshold"), "51200B");
}

TEST_F(ScenarioKeys, TrimmingTellsNsccToTargetThreeQuartersOfTheRtt)
{
    // uet-htsim sets NSCC's target from its trimming flag (htsim/sim/uec.cpp:107-111): the
    // scenario's switch.trim.enabled is that flag.
    ScenarioConfig cfg = LoadText("minimal.yaml", kMinimal);
    EXPECT_EQ(LastValue(cfg, "ns3::NsccCongestionControl::TrimmingEnabled"), "");
    cfg = LoadText("trim.yaml", std::string(kMinimal) + "switch: {trim: {enabled: true}}\n");
    EXPECT_EQ(LastValue(cfg, "ns3::FabricSwitch::TrimEnabled"), "true");
    EXPECT_EQ(LastValue(cfg, "ns3::NsccCongestionControl::TrimmingEnabled"), "true");
}

TEST_F(ScenarioKeys, ZeroRateOnlyWhereTheAttributeStartsAtZero)
{
    // dcqcn.rate_scale_reference documents 0 as "R_AI and R_HAI as given", which turns off the
    // scaled preset's scaling; a rate whose attribute starts elsewhere still refuses 0.
    ScenarioConfig cfg =
        LoadText("zero.yaml",
                 std::string(kMinimal) + "dcqcn: {preset: scaled, rate_scale_reference: 0bps}\n");
    EXPECT_EQ(LastValue(cfg, "ns3::DcqcnCongestionControl::RateScaleReference"), "0bps");
    EXPECT_THROW(LoadText("zero-ai.yaml", std::string(kMinimal) + "dcqcn: {rate_ai: 0Gbps}\n"),
                 ConfigError);
}

// --- --help ------------------------------------------------------------------------------------

TEST_F(ScenarioKeys, HelpListsEveryKeyWithItsDefault)
{
    std::string help = ScenarioKeysHelp();
    for (const ScenarioKey& key : ScenarioKeyTable())
    {
        SCOPED_TRACE(key.path);
        // At the start of a line, followed by its help on the same line or the next.
        size_t at = help.find("\n  " + key.path);
        while (at != std::string::npos && help[at + 3 + key.path.size()] != ' ' &&
               help[at + 3 + key.path.size()] != '\n')
        {
            at = help.find("\n  " + key.path, at + 1);
        }
        EXPECT_NE(at, std::string::npos);
        if (!key.attribute.empty())
        {
            EXPECT_NE(help.find(key.attribute), std::string::npos);
        }
    }
    // The defaults shown are the attributes' current ones, in the units of a scenario file.
    EXPECT_TRUE(Contains(Unwrapped(help),
                         "[bytes|infinite; default 32MiB; "
                         "ns3::SharedBufferMmu::BufferSize]"));
    Config::SetDefault("ns3::SharedBufferMmu::BufferSize", QueueSizeValue(QueueSize("4MiB")));
    Config::SetDefault("ns3::RdmaNic::RtoLow", TimeValue(MicroSeconds(70)));
    help = Unwrapped(ScenarioKeysHelp());
    EXPECT_TRUE(Contains(help, "default 4MiB; ns3::SharedBufferMmu::BufferSize]"));
    EXPECT_TRUE(Contains(help, "[time; default 70us; ns3::RdmaNic::RtoLow]"));
}

// --- the table itself ----------------------------------------------------------------------------

TEST_F(ScenarioKeys, EveryKeyIsSnakeCaseUnderAnExistingSection)
{
    std::set<std::string> sections = {""};
    for (const ScenarioKey& key : ScenarioKeyTable())
    {
        SCOPED_TRACE(key.path);
        EXPECT_TRUE(sections.count(key.Parent())) << "parent " << key.Parent() << " comes later";
        if (key.kind == KeyKind::Mapping)
        {
            sections.insert(key.path);
        }
        if (key.kind == KeyKind::List)
        {
            sections.insert(key.path + "[]");
        }
        EXPECT_EQ(key.Name(), SnakeCase(key.Name()));
        EXPECT_NO_THROW(key.attribute.empty() || !AttributeDefault(key.attribute).name.empty());
        EXPECT_TRUE(key.kind != KeyKind::Choice || !key.choices.empty());
    }
}

TEST(SnakeCase, OfAttributeNames)
{
    EXPECT_EQ(SnakeCase("G"), "g");
    EXPECT_EQ(SnakeCase("InitialAlpha"), "initial_alpha");
    EXPECT_EQ(SnakeCase("RateAI"), "rate_ai");
    EXPECT_EQ(SnakeCase("RateHAI"), "rate_hai");
    EXPECT_EQ(SnakeCase("ByteCounter"), "byte_counter");
    EXPECT_EQ(SnakeCase("Mtu"), "mtu");
    EXPECT_EQ(SnakeCase("already_snake"), "already_snake");
}

// --- deprecated spellings ---------------------------------------------------------------------

TEST_F(ScenarioKeys, DeprecatedDcqcnSpellingLoadsWithANotice)
{
    const std::string head = std::string(kMinimal) + "transport: roce\ncc: dcqcn\n";
    ScenarioConfig old;
    std::string notices = LoadCapturingNotices(
        "old.yaml",
        head + "dcqcn:\n  RateAI: 80Mbps\n  ByteCounter: 1100000B\n  G: 0.125\n",
        &old);
    // Lines 6..8 of old.yaml hold the three keys.
    std::string file = m_dir.Path() + "/old.yaml";
    EXPECT_TRUE(Contains(notices,
                         file + ":6: dcqcn.RateAI: deprecated spelling, write "
                                "dcqcn.rate_ai\n"));
    EXPECT_TRUE(Contains(notices,
                         file + ":7: dcqcn.ByteCounter: deprecated spelling, write "
                                "dcqcn.byte_counter\n"));
    EXPECT_TRUE(Contains(notices, file + ":8: dcqcn.G: deprecated spelling, write dcqcn.g\n"));
    EXPECT_EQ(std::count(notices.begin(), notices.end(), '\n'), 3) << notices;

    ScenarioConfig current;
    EXPECT_EQ(LoadCapturingNotices("new.yaml",
                                   head + "dcqcn:\n  rate_ai: 80Mbps\n  byte_counter: 1100000B\n"
                                          "  g: 0.125\n",
                                   &current),
              "");
    // The same attributes, with the values written: 80 Mb/s, 1.1 MB, 1/8.
    EXPECT_EQ(old.attributes, current.attributes);
    const std::string dcqcn = "ns3::DcqcnCongestionControl::";
    EXPECT_EQ(DefaultAfterSetting(dcqcn + "RateAI", LastValue(current, dcqcn + "RateAI")),
              "80000000bps");
    EXPECT_EQ(DefaultAfterSetting(dcqcn + "ByteCounter", LastValue(current, dcqcn + "ByteCounter")),
              "1100000B");
    EXPECT_EQ(DefaultAfterSetting(dcqcn + "G", LastValue(current, dcqcn + "G")), "0.125");
}

// --- congestion-control choices and presets --------------------------------------------------

TEST_F(ScenarioKeys, DcqcnPresetSetsItsConstantsAndSingleKeysOverrideThem)
{
    const std::string head = std::string(kMinimal) + "transport: roce\ncc: dcqcn\n";
    const std::string dcqcn = "ns3::DcqcnCongestionControl::";
    ScenarioConfig scaled;
    EXPECT_EQ(LoadCapturingNotices("scaled.yaml",
                                   head + "dcqcn: {preset: scaled, rate_hai: 1Gbps}\n",
                                   &scaled),
              "");
    // docs/models.md#dcqcn-presets: NIC timers, steps per 25 Gb/s of line rate.
    EXPECT_EQ(LastValue(scaled, dcqcn + "AlphaTimer"), "1us");
    EXPECT_EQ(LastValue(scaled, dcqcn + "RateIncreaseTimer"), "300us");
    EXPECT_EQ(LastValue(scaled, dcqcn + "FastRecoveryStages"), "1");
    EXPECT_EQ(LastValue(scaled, dcqcn + "RateAI"), "5Mbps");
    EXPECT_EQ(LastValue(scaled, dcqcn + "RateScaleReference"), "25Gbps");
    EXPECT_EQ(LastValue(scaled, dcqcn + "ClampTargetRate"), "false");
    // A single key written beside the preset wins.
    EXPECT_EQ(DefaultAfterSetting(dcqcn + "RateHAI", LastValue(scaled, dcqcn + "RateHAI")),
              "1000000000bps");

    ScenarioConfig paper;
    LoadCapturingNotices("paper.yaml", head + "dcqcn: {preset: paper}\n", &paper);
    EXPECT_EQ(LastValue(paper, dcqcn + "RateAI"), "40Mbps");
    EXPECT_EQ(LastValue(paper, dcqcn + "RateScaleReference"), "") << "left at its default, 0";
    EXPECT_EQ(LastValue(paper, dcqcn + "AlphaTimer"), "55us");
}

TEST_F(ScenarioKeys, DctcpTurnsOnEcnEchoAndSwiftTakesTheHostMtu)
{
    const std::string head = std::string(kMinimal) + "transport: roce\nhost: {mtu: 1024B}\n";
    ScenarioConfig dctcp;
    LoadCapturingNotices("dctcp.yaml", head + "cc: dctcp\ndctcp: {g: 0.125}\n", &dctcp);
    EXPECT_EQ(LastValue(dctcp, "ns3::RdmaNic::CongestionControl"), "ns3::DctcpCongestionControl");
    EXPECT_EQ(LastValue(dctcp, "ns3::RdmaNic::EcnEcho"), "true");
    EXPECT_EQ(DefaultAfterSetting("ns3::DctcpCongestionControl::G",
                                  LastValue(dctcp, "ns3::DctcpCongestionControl::G")),
              "0.125");
    ScenarioConfig swift;
    LoadCapturingNotices("swift.yaml", head + "cc: swift\nswift: {base_target: 7us}\n", &swift);
    EXPECT_EQ(LastValue(swift, "ns3::SwiftCongestionControl::Mtu"), "1024");
    EXPECT_EQ(LastValue(swift, "ns3::SwiftCongestionControl::BaseTarget"), "7000000ps"); // 7 us
    EXPECT_EQ(LastValue(swift, "ns3::RdmaNic::EcnEcho"), "") << "only DCTCP needs ECN echo";
    ScenarioConfig timely;
    LoadCapturingNotices("timely.yaml", head + "cc: timely\ntimely: {t_low: 3us}\n", &timely);
    EXPECT_EQ(LastValue(timely, "ns3::RdmaNic::CongestionControl"), "ns3::TimelyCongestionControl");
    EXPECT_EQ(LastValue(timely, "ns3::TimelyCongestionControl::TLow"), "3000000ps"); // 3 us
}

TEST_F(ScenarioKeys, DeprecatedCaqmSpellingLoadsAndBothSpellingsAreAnError)
{
    const std::string head = std::string(kMinimal) + "transport: ub\n";
    ScenarioConfig old;
    std::string notices =
        LoadCapturingNotices("old.yaml", head + "caqm_switch: {TargetQueue: 20KiB}\n", &old);
    EXPECT_TRUE(Contains(notices,
                         "caqm_switch.TargetQueue: deprecated spelling, write "
                         "caqm_switch.target_queue"));
    ScenarioConfig current = LoadText("new.yaml", head + "caqm_switch: {target_queue: 20KiB}\n");
    EXPECT_EQ(LastValue(old, "ns3::CaqmSwitch::TargetQueue"),
              LastValue(current, "ns3::CaqmSwitch::TargetQueue"));
    EXPECT_EQ(DefaultAfterSetting("ns3::CaqmSwitch::TargetQueue",
                                  LastValue(current, "ns3::CaqmSwitch::TargetQueue")),
              "20480B");
    try
    {
        LoadText("both.yaml", head + "caqm: {alpha: 0.25, Alpha: 0.25}\n");
        ADD_FAILURE() << "both spellings accepted";
    }
    catch (const ConfigError& e)
    {
        EXPECT_EQ(e.Key(), "caqm.Alpha");
        EXPECT_EQ(e.Line(), 4);
    }
}

// --- a run leaves the defaults as it found them ------------------------------------------------

TEST_F(ScenarioKeys, RunPutsTheAttributeDefaultsBack)
{
    std::string before = CurrentDefault("ns3::SharedBufferMmu::BufferSize");
    ScenarioConfig cfg =
        LoadText("run.yaml", std::string(kMinimal) + "switch: {buffer: 1MiB}\nstop_time: 50us\n");
    TempDir out("fabric-keys-run");
    RunOutcome o = ScenarioRunner::Run(cfg, out.Path());
    EXPECT_EQ(o.exitCode, EXIT_OK) << o.message;
    EXPECT_EQ(CurrentDefault("ns3::SharedBufferMmu::BufferSize"), before);
    // So a scenario loaded next takes the attribute's default, not the previous run's buffer.
    ScenarioConfig next = LoadText("next.yaml", kMinimal);
    EXPECT_EQ(LastValue(next, "ns3::SharedBufferMmu::BufferSize"), "33554432B");
}

} // namespace
} // namespace test
} // namespace ns3
