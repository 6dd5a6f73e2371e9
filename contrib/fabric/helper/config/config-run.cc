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
