#include "config/scenario-config.h"

#include "config/attribute-values.h"
#include "config/config-error.h"
#include "config/config-sections.h"
#include "config/config-table.h"
#include "config/hpcc-config.h"
#include "config/key-suggestion.h"
#include "config/topology-reader.h"
#include "link/frame-codec.h"

#include <cmath>
#include <filesystem>
#include <optional>
#include <sstream>

namespace ns3
{

void
AddAttributeFromKey(ScenarioConfig& cfg,
                    YamlFields& fields,
                    const std::string& key,
                    const std::string& attribute)
{
    std::string normalized;
    std::string error;
    if (!NormalizeAttributeValue(attribute, fields.String(key), &normalized, &error))
    {
        throw fields.Error(key, error);
    }
    cfg.attributes.emplace_back(attribute, normalized);
}

namespace
{

/// A copy of a node built programmatically: no source position, so a bad --set value is not
/// reported at some line of the scenario file.
YAML::Node
WithoutMarks(const YAML::Node& n)
{
    if (n.IsScalar())
    {
        return YAML::Node(n.Scalar());
    }
    if (n.IsSequence())
    {
        YAML::Node out(YAML::NodeType::Sequence);
        for (const auto& item : n)
        {
            out.push_back(WithoutMarks(item));
        }
        return out;
    }
    if (n.IsMap())
    {
        YAML::Node out(YAML::NodeType::Map);
        for (const auto& kv : n)
        {
            out[kv.first.Scalar()] = WithoutMarks(kv.second);
        }
        return out;
    }
    return YAML::Node();
}

/// A ConfigError about a key that --set \p key created: "no: unknown key" for --set
/// no.such.key=1 names the whole of what the user typed, with the nearest key of the table.
ConfigError
NameWholeOverrideKey(const ConfigError& e,
                     const std::string& file,
                     const std::vector<std::string>& overrides)
{
    if (e.File() != file || e.Line() != 0 || e.Message().rfind("unknown key", 0) != 0)
    {
        return e;
    }
    for (const std::string& o : overrides)
    {
        std::string key = o.substr(0, o.find('='));
        if (key.rfind(e.Key() + ".", 0) != 0)
        {
            continue;
        }
        std::vector<std::string> settable;
        for (const ScenarioKey& k : ScenarioKeyTable())
        {
            if (k.path.find("[]") == std::string::npos)
            {
                settable.push_back(k.path);
            }
        }
        return ConfigError(file,
                           0,
                           key,
                           "unknown key: there is no section '" + e.Key() + "'" +
                               DidYouMean(NearestKey(key, settable)));
    }
    return e;
}

} // namespace

void
ApplyOverride(YAML::Node& document, const std::string& assignment)
{
    size_t eq = assignment.find('=');
    if (eq == std::string::npos || eq == 0)
    {
        throw ConfigError("--set", 0, assignment, "expected key=value (keys joined by dots)");
    }
    std::string key = assignment.substr(0, eq);
    std::string value = assignment.substr(eq + 1);
    if (key.back() == '.' || key.front() == '.')
    {
        throw ConfigError("--set", 0, key, "empty key component");
    }
    std::vector<std::string> parts;
    std::stringstream ss(key);
    for (std::string part; std::getline(ss, part, '.');)
    {
        if (part.empty())
        {
            throw ConfigError("--set", 0, key, "empty key component");
        }
        parts.push_back(part);
    }
    // yaml-cpp nodes are handles: walk with fresh handles, never reassign one (that would
    // rebind it instead of writing into the tree).
    std::vector<YAML::Node> path{document};
    // A numeric component indexes an existing list element: topology.links.2.delay=9us.
    auto listIndex = [&](const YAML::Node& node, const std::string& part) -> int64_t {
        if (!node.IsSequence())
        {
            return -1;
        }
        if (part.find_first_not_of("0123456789") != std::string::npos || part.size() > 9 ||
            std::stoul(part) >= node.size())
        {
            throw ConfigError("--set",
                              0,
                              key,
                              "'" + part + "' is not an index of that list (0.." +
                                  std::to_string(node.size() - 1) + ")");
        }
        return static_cast<int64_t>(std::stoul(part));
    };
    for (size_t i = 0; i + 1 < parts.size(); ++i)
    {
        int64_t index = listIndex(path.back(), parts[i]);
        if (index >= 0)
        {
            YAML::Node element = path.back()[static_cast<size_t>(index)];
            if (!element.IsMap())
            {
                throw ConfigError("--set", 0, key, "element " + parts[i] + " is not a mapping");
            }
            path.push_back(element);
            continue;
        }
        YAML::Node child = path.back()[parts[i]];
        if (child.IsDefined() && !child.IsNull() && !child.IsMap() && !child.IsSequence())
        {
            throw ConfigError("--set", 0, key, "'" + parts[i] + "' is not a mapping");
        }
        if (!child.IsDefined() || child.IsNull())
        {
            path.back()[parts[i]] = YAML::Node(YAML::NodeType::Map);
            child = path.back()[parts[i]];
        }
        path.push_back(child);
    }
    YAML::Node parsed;
    try
    {
        parsed = YAML::Load(value);
    }
    catch (const YAML::Exception& e)
    {
        throw ConfigError("--set", 0, key, "value is not valid YAML: " + value);
    }
    int64_t last = listIndex(path.back(), parts.back());
    if (last >= 0)
    {
        path.back()[static_cast<size_t>(last)] = WithoutMarks(parsed);
        return;
    }
    path.back()[parts.back()] = WithoutMarks(parsed);
}

uint64_t
OneHopHeadroomBytes(DataRate rate, Time cableDelay, uint32_t frameBytes, uint32_t wireOverhead)
{
    // The frame that pauses an (ingress port, priority) lands in headroom itself when the
    // shared pool has no room for it (SharedBufferMmu::Admit): that is one frame F. After it
    // has arrived, the pause may wait behind one frame in transmission and one other PFC frame
    // on our port, serializes, and propagates up the cable; everything the upstream starts
    // before it arrives lands here too: the bytes it can send in
    // W = T_frame + 2·T_pause + 2·d, plus the last frame it started (in full), another F.
    // Counting bytes rather than frames keeps the bound safe when small frames (ACKs) mix with
    // full ones. docs/models.md#pfc-headroom derives it.
    double bitsPerSecond = static_cast<double>(rate.GetBitRate());
    double frameTime = (frameBytes + wireOverhead) * 8.0 / bitsPerSecond;
    double pauseTime = (kMinFrameBytes + wireOverhead) * 8.0 / bitsPerSecond;
    double window = frameTime + 2 * pauseTime + 2 * cableDelay.GetSeconds();
    return static_cast<uint64_t>(std::ceil(window * bitsPerSecond / 8 - 1e-6)) + 2 * frameBytes;
}

namespace
{

/// The config.txt entry a scenario key of an hpcc_config translation came from: \p key itself
/// or the nearest section above it.
const HpccConfigEntry*
OriginOf(const HpccScenario& imported, std::string key)
{
    while (!key.empty())
    {
        auto it = imported.origin.find(key);
        if (it != imported.origin.end())
        {
            return &it->second;
        }
        size_t cut = key.find_last_of(".[");
        key = cut == std::string::npos ? "" : key.substr(0, cut);
    }
    return nullptr;
}

/// hpcc_config: {file, simulator}: the config.txt translated, under the scenario's own keys
/// (which win). Returns whether the document had one.
bool
ExpandHpccConfig(YAML::Node& doc,
                 const std::string& path,
                 const std::string& sourceRoot,
                 HpccScenario* imported)
{
    // hpcc: {config: FILE} is hpcc_config: {file: FILE} (the hpcc section's other keys are the
    // HPCC congestion control's and stay).
    YAML::Node hpcc = doc["hpcc"];
    if (hpcc && hpcc.IsMap() && hpcc["config"])
    {
        if (doc["hpcc_config"])
        {
            throw ConfigError(path,
                              YamlLine(hpcc["config"]),
                              "hpcc.config",
                              "give the config once: hpcc.config or hpcc_config.file");
        }
        YAML::Node spec(YAML::NodeType::Map);
        spec["file"] = hpcc["config"];
        doc["hpcc_config"] = spec;
        hpcc.remove("config");
    }
    YAML::Node spec = doc["hpcc_config"];
    if (!spec)
    {
        return false;
    }
    if (!spec.IsMap() || !spec["file"] || !spec["file"].IsScalar())
    {
        throw ConfigError(path,
                          YamlLine(spec),
                          "hpcc_config",
                          "expected {file: config.txt, simulator: hpcc|conweave|ns3-datacenter}");
    }
    std::string file = spec["file"].Scalar();
    std::string found = ResolvePath(path, sourceRoot, file);
    if (found.empty())
    {
        throw ConfigError(path,
                          YamlLine(spec["file"]),
                          "hpcc_config.file",
                          "config file '" + file + "' not found");
    }
    std::string simulator = spec["simulator"] ? spec["simulator"].Scalar() : "hpcc";
    HpccSimulator sim = HpccSimulatorFromName(simulator,
                                              path,
                                              YamlLine(spec["simulator"]),
                                              "hpcc_config.simulator");
    *imported = TranslateHpccConfig(found, sim, std::filesystem::current_path().string());
    YAML::Node merged = imported->document;
    MergeScenarioDocuments(merged, doc);
    doc = merged;
    return true;
}

ScenarioConfig
LoadScenarioDocument(YAML::Node doc,
                     const std::string& path,
                     const std::vector<std::string>& overrides,
                     const std::string& sourceRoot)
{
    ScenarioConfig cfg;
    cfg.file = path;
    HpccScenario imported;
    bool fromHpcc = ExpandHpccConfig(doc, path, sourceRoot, &imported);
    for (const std::string& o : overrides)
    {
        ApplyOverride(doc, o);
    }
    cfg.document = doc;
    cfg.importNotes = imported.notes;
    // Every key is a row of the scenario key table (config-table.h), read in table order: each
    // section's reader finds what the keys above it have set (the topology, the MTU, ...).
    ScenarioBuild build(cfg, sourceRoot);
    YamlFields root(doc, path, "");
    try
    {
        ReadKeys(root, build);
        root.RejectUnknownKeys();
        if (std::optional<ConfigError> w = PerPacketGoBackNWarning(build))
        {
            // Set by the config.txt (no line in the scenario): name the config's line.
            const HpccConfigEntry* from = fromHpcc && w->File() == path && w->Line() == 0
                                              ? OriginOf(imported, w->Key())
                                              : nullptr;
            cfg.warnings.push_back(
                from ? ConfigError(imported.configPath,
                                   from->line,
                                   from->key,
                                   w->Message() + " (as scenario key " + w->Key() + ")")
                           .what()
                     : w->what());
        }
    }
    catch (const ConfigError& e)
    {
        // A value the config.txt set (no line in the scenario): name the config's line.
        const HpccConfigEntry* from =
            fromHpcc && e.File() == path && e.Line() == 0 ? OriginOf(imported, e.Key()) : nullptr;
        bool overridden = false;
        for (const std::string& o : overrides)
        {
            overridden = overridden || e.Key().rfind(o.substr(0, o.find('=')), 0) == 0;
        }
        if (from && !overridden)
        {
            throw ConfigError(imported.configPath,
                              from->line,
                              from->key,
                              e.Message() + " (as scenario key " + e.Key() + ")");
        }
        throw NameWholeOverrideKey(e, path, overrides);
    }
    return cfg;
}

} // namespace

ScenarioConfig
LoadScenario(const std::string& path,
             const std::vector<std::string>& overrides,
             const std::string& sourceRoot)
{
    YAML::Node doc = LoadYamlFile(path);
    if (!doc.IsMap())
    {
        throw ConfigError(path, 1, "", "a scenario file is a mapping of keys");
    }
    return LoadScenarioDocument(doc, path, overrides, sourceRoot);
}

ScenarioConfig
LoadHpccConfigScenario(const std::string& configPath,
                       const std::string& simulator,
                       const std::vector<std::string>& overrides,
                       const std::string& sourceRoot)
{
    YAML::Node doc(YAML::NodeType::Map);
    doc["hpcc_config"]["file"] = std::filesystem::absolute(configPath).string();
    doc["hpcc_config"]["simulator"] = simulator;
    std::string stem = std::filesystem::path(configPath).stem().string();
    doc["name"] = stem.empty() ? std::string("hpcc-config") : stem;
    return LoadScenarioDocument(doc, configPath, overrides, sourceRoot);
}

} // namespace ns3
