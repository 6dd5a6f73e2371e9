// roce.host_path, ub.host_path and their host_stages sections: the NIC host interface stages of
// a remote request (docs/models.md#remote-read-stages). A preset sets every stage attribute of
// its NIC type; single stages given under host_stages (read after it) override one each.

#include "config/attribute-values.h"
#include "config/config-sections.h"
#include "host/host-path.h"

namespace ns3
{

namespace
{

/// The NIC type whose attributes the section's keys set: roce -> RdmaNic, ub -> UbNic.
std::string
NicTypeOf(const ScenarioKey& key)
{
    return key.path.rfind("ub.", 0) == 0 ? "ns3::UbNic::" : "ns3::RdmaNic::";
}

void
ReadHostPathPreset(YamlFields& section, const ScenarioKey& key, ScenarioBuild& b)
{
    if (!Given(section, key))
    {
        return; // the stage attributes keep their defaults (0: no host path)
    }
    std::string name = ValueOf(section, key).text;
    for (const HostPathPreset& preset : HostPathPresets())
    {
        if (preset.name == name)
        {
            for (const auto& [attribute, value] : preset.values)
            {
                b.cfg.attributes.emplace_back(NicTypeOf(key) + attribute, value);
            }
        }
    }
}

} // namespace

ScenarioKeys
HostPathKeys(const std::string& section)
{
    const std::string nic = section == "ub" ? "ns3::UbNic::" : "ns3::RdmaNic::";
    std::vector<std::string> names;
    std::string help = "host interface placement, the stages of Datacenter networks §7.3.3 "
                       "(docs/models.md#remote-read-stages; times in ns): ";
    for (const HostPathPreset& preset : HostPathPresets())
    {
        names.push_back(preset.name);
        help += (names.size() > 1 ? "; " : "") + preset.name + ": " + preset.description;
    }
    ScenarioKeys rows = {
        ScenarioKey(section + ".host_path", KeyKind::Choice, help)
            .Choices(names)
            .Default("none")
            .Reader(ReadHostPathPreset),
        ScenarioKey(section + ".host_stages",
                    KeyKind::Mapping,
                    "single host interface stages, read after " + section +
                        ".host_path (docs/models.md#remote-read-stages)")
            .Reader(ReadSection),
    };
    // Each stage's key is its attribute's name in snake case, without "Time":
    // DescriptorBuildTime -> descriptor_build, PipelineClock -> pipeline_clock.
    for (const std::string& attribute : HostPathStageAttributes())
    {
        std::string stem = attribute;
        if (stem.size() > 4 && stem.compare(stem.size() - 4, 4, "Time") == 0)
        {
            stem.erase(stem.size() - 4);
        }
        rows.push_back(ScenarioKey(section + ".host_stages." + SnakeCase(stem), KeyKind::Native, "")
                           .Attribute(nic + attribute)
                           .OnlyWhenGiven());
    }
    return rows;
}

} // namespace ns3
