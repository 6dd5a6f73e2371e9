// The run as a whole (name, seed, stop_time) and the free-form attributes: section.

#include "config/config-sections.h"

namespace ns3
{

namespace
{

void
ReadName(YamlFields& root, const ScenarioKey& key, ScenarioBuild& b)
{
    const std::string& file = b.cfg.file;
    b.cfg.name = root.String(key.Name(), file.substr(file.find_last_of('/') + 1));
    if (b.cfg.name.size() > 5 && b.cfg.name.substr(b.cfg.name.size() - 5) == ".yaml")
    {
        b.cfg.name = b.cfg.name.substr(0, b.cfg.name.size() - 5);
    }
}

void
ReadSeed(YamlFields& root, const ScenarioKey& key, ScenarioBuild& b)
{
    b.cfg.seed = ValueOf(root, key).count;
}

void
ReadStopTime(YamlFields& root, const ScenarioKey& key, ScenarioBuild& b)
{
    b.cfg.stopTime = ValueOf(root, key).time;
}

/// Free-form ns-3 attributes, read last so that they win: {"ns3::Type::Attr": value}.
void
ReadAttributes(YamlFields& root, const ScenarioKey& key, ScenarioBuild& b)
{
    YamlFields attrs = root.Child(key.Name());
    if (!root.Has(key.Name()))
    {
        return;
    }
    for (const auto& kv : root.Node(key.Name()))
    {
        std::string name = kv.first.Scalar();
        AddAttributeFromKey(b.cfg, attrs, name, name);
    }
}

/// hpcc_config: already expanded into the document by LoadScenario (hpcc-config.h); here its
/// keys are only taken as read.
void
ReadHpccConfigKey(YamlFields& root, const ScenarioKey& key, ScenarioBuild&)
{
    if (!root.Has(key.Name()))
    {
        return;
    }
    YamlFields section = root.Child(key.Name());
    section.String("file");
    section.String("simulator", "hpcc");
    section.RejectUnknownKeys();
}

} // namespace

ScenarioKeys
RunKeys()
{
    return {
        ScenarioKey("name", KeyKind::Text, "run name, used in result paths and summaries")
            .Rule("the file name without .yaml")
            .Reader(ReadName),
        ScenarioKey("seed", KeyKind::Count, "random seed; same seed, same results")
            .Default("1")
            // ns-3's RngSeedManager takes 32 bits (and 0 is read as 1).
            .Check(AtMost(UINT32_MAX, "must be 0..4294967295"))
            .Reader(ReadSeed),
        ScenarioKey("stop_time",
                    KeyKind::Duration,
                    "simulated time limit (the run also ends when every flow is done)")
            .Default("10ms")
            .Check(Positive("must be positive"))
            .Reader(ReadStopTime),
        ScenarioKey("hpcc_config",
                    KeyKind::Mapping,
                    "run an HPCC-family simulator's config.txt: its keys become this scenario's "
                    "(the scenario's own keys win), each applied with the reference's meaning "
                    "or refused by name (docs/hpcc-config.md)")
            .Reader(ReadHpccConfigKey),
        ScenarioKey("hpcc_config.file", KeyKind::Text, "the config.txt (relative to the scenario)")
            .Unit("file"),
        ScenarioKey("hpcc_config.simulator",
                    KeyKind::Choice,
                    "which simulator the config is written for: its keys mean different things "
                    "in places (BUFFER_SIZE with or without the PFC headroom, where CC_MODE "
                    "comes from)")
            .Choices({"hpcc", "conweave", "ns3-datacenter"})
            .Default("hpcc"),
    };
}

ScenarioKeys
AttributeKeys()
{
    return {
        ScenarioKey("attributes",
                    KeyKind::Mapping,
                    "{\"ns3::Type::Attribute\": value}: any ns-3 attribute, set before the fabric "
                    "is built and after every key above (fabric-run --print-attributes lists "
                    "them)")
            .Reader(ReadAttributes),
    };
}

} // namespace ns3
