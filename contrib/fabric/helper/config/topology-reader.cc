#include "config/topology-reader.h"

#include "config/topology-generators.h"
#include "config/yaml-fields.h"

#include <cctype>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <initializer_list>
#include <limits>
#include <unordered_map>

namespace ns3
{

namespace
{

std::string
JoinKey(const std::string& path, const std::string& key)
{
    return path.empty() ? key : path + "." + key;
}

std::string
ItemPath(const std::string& path, const std::string& list, size_t index)
{
    return JoinKey(path, list) + "[" + std::to_string(index) + "]";
}

/**
 * Rejects keys outside \p allowed before any value is read, so that a misspelled key is reported
 * as such ("hots: unknown key") rather than as the missing key it was meant to be. Also rejects a
 * key given twice: yaml-cpp keeps the first silently, so "rate" written twice would ignore the
 * value the user edited last.
 */
void
RejectKeysOutside(const YAML::Node& map,
                  const std::string& file,
                  const std::string& path,
                  std::initializer_list<const char*> allowed)
{
    if (!map.IsMap())
    {
        return;
    }
    std::unordered_map<std::string, int> seen;
    for (const auto& kv : map)
    {
        const std::string key = kv.first.Scalar();
        auto [it, fresh] = seen.emplace(key, YamlLine(kv.first));
        if (!fresh)
        {
            throw ConfigError(file,
                              YamlLine(kv.first),
                              JoinKey(path, key),
                              "duplicate key (first given on line " + std::to_string(it->second) +
                                  ")");
        }
        bool ok = false;
        for (const char* a : allowed)
        {
            ok |= key == a;
        }
        if (!ok)
        {
            std::string list;
            for (const char* a : allowed)
            {
                list += list.empty() ? "" : ", ";
                list += a;
            }
            throw ConfigError(file,
                              YamlLine(kv.first),
                              JoinKey(path, key),
                              "unknown key (expected one of: " + list + ")");
        }
    }
}

/// Line of \p key itself (not of its value, which for a block list starts on the next line).
int
KeyLine(const YAML::Node& map, const std::string& key)
{
    for (const auto& kv : map)
    {
        if (kv.first.Scalar() == key)
        {
            return YamlLine(kv.first);
        }
    }
    return YamlLine(map);
}

/// An optional count from a file: absent gives 0 (the generator's "derive it"), present must be
/// at least 1 so that "leaves: 0" is not silently read as "the default".
uint32_t
Count(YamlFields& f, const std::string& key)
{
    if (!f.Has(key))
    {
        f.Uint(key, 0); // marks the key as known
        return 0;
    }
    uint64_t v = f.Uint(key);
    if (v == 0)
    {
        throw f.Error(key, "must be at least 1 (leave the key out for the default)");
    }
    if (v > std::numeric_limits<uint32_t>::max())
    {
        throw f.Error(key, "value too large");
    }
    return static_cast<uint32_t>(v);
}

uint32_t
RequiredCount(YamlFields& f, const std::string& key)
{
    f.Node(key); // throws "required key is missing" when absent
    return Count(f, key);
}

bool
ValidNodeName(const std::string& name)
{
    if (name.empty())
    {
        return false;
    }
    for (char c : name)
    {
        if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_' && c != '-' && c != '.')
        {
            return false;
        }
    }
    return true;
}

/// A YAML list under \p key: absent or empty (`links:`) gives an empty list.
std::vector<YAML::Node>
ListOf(const YAML::Node& map,
       const std::string& file,
       const std::string& path,
       const std::string& key)
{
    std::vector<YAML::Node> out;
    const YAML::Node& cmap = map;
    YAML::Node list = cmap[key];
    if (!list.IsDefined() || list.IsNull())
    {
        return out;
    }
    if (!list.IsSequence())
    {
        throw ConfigError(file, YamlLine(list), JoinKey(path, key), "expected a list");
    }
    for (const auto& item : list)
    {
        out.push_back(item);
    }
    return out;
}

TopologySpec
ReadExplicit(const YAML::Node& node,
             const std::string& file,
             const std::string& path,
             const LinkDefaults& defaults)
{
    RejectKeysOutside(node,
                      file,
                      path,
                      {"description", "rate", "delay", "cable", "nodes", "links"});
    YamlFields root(node, file, path);
    root.String("description", "");
    const DataRate fileRate = root.Rate("rate", defaults.rate);
    const Time fileDelay = root.DelayOrCable("delay", "cable", defaults.delay);
    root.Node("nodes");
    root.Node("links");
    root.RejectUnknownKeys();

    TopologySpec spec;
    spec.source = file;

    std::vector<YAML::Node> nodes = ListOf(node, file, path, "nodes");
    std::vector<int> nodeLines;
    std::unordered_map<std::string, uint32_t> byName;
    for (size_t i = 0; i < nodes.size(); ++i)
    {
        const std::string itemPath = ItemPath(path, "nodes", i);
        RejectKeysOutside(nodes[i], file, itemPath, {"name", "type", "role", "group"});
        YamlFields f(nodes[i], file, itemPath);
        TopologyNode n;
        n.name = f.String("name");
        if (!ValidNodeName(n.name))
        {
            throw f.Error("name",
                          "node names may contain only letters, digits, '_', '-' and '.', got '" +
                              n.name + "'");
        }
        auto [it, fresh] = byName.emplace(n.name, static_cast<uint32_t>(i));
        if (!fresh)
        {
            throw f.Error("name",
                          "duplicate node name '" + n.name + "' (first declared on line " +
                              std::to_string(nodeLines[it->second]) + ")");
        }
        std::string type = f.String("type");
        if (type != "host" && type != "switch")
        {
            throw f.Error("type", "expected host or switch, got '" + type + "'");
        }
        n.isSwitch = type == "switch";
        n.role = f.String("role", type);
        uint64_t group = f.Uint("group", std::numeric_limits<uint64_t>::max());
        if (group != std::numeric_limits<uint64_t>::max())
        {
            if (group > uint64_t(std::numeric_limits<int32_t>::max()))
            {
                throw f.Error("group", "value too large");
            }
            n.group = static_cast<int32_t>(group);
        }
        f.RejectUnknownKeys();
        nodeLines.push_back(YamlLine(nodes[i]));
        spec.nodes.push_back(std::move(n));
    }
    if (spec.Hosts().empty())
    {
        throw root.Error("nodes", "the topology needs at least one node of type host");
    }

    std::vector<YAML::Node> links = ListOf(node, file, path, "links");
    std::vector<size_t> entryOf; // link index -> entry in the file's list (count expands)
    for (size_t j = 0; j < links.size(); ++j)
    {
        const std::string itemPath = ItemPath(path, "links", j);
        RejectKeysOutside(links[j], file, itemPath, {"a", "b", "rate", "delay", "cable", "count"});
        YamlFields f(links[j], file, itemPath);
        TopologyLink l;
        for (const char* end : {"a", "b"})
        {
            std::string name = f.String(end);
            auto it = byName.find(name);
            if (it == byName.end())
            {
                throw f.Error(end, "unknown node '" + name + "' (not declared under nodes)");
            }
            (end[0] == 'a' ? l.a : l.b) = it->second;
        }
        if (l.a == l.b)
        {
            throw f.Error("b", "link connects '" + spec.nodes[l.a].name + "' to itself");
        }
        l.rate = f.Rate("rate", fileRate);
        l.delay = f.DelayOrCable("delay", "cable", fileDelay);
        uint64_t count = f.Uint("count", 1);
        if (count == 0 || count > 4096)
        {
            throw f.Error("count", "number of parallel links must be between 1 and 4096");
        }
        f.RejectUnknownKeys();
        l.sourceLine = YamlLine(links[j]);
        for (uint64_t c = 0; c < count; ++c)
        {
            spec.links.push_back(l);
            entryOf.push_back(j);
        }
    }

    if (auto problem = FindTopologyProblem(spec))
    {
        // Point at the node's entry (nodes are 1:1 with their entries) or the link's entry.
        if (problem->node)
        {
            throw ConfigError(file,
                              nodeLines[*problem->node],
                              ItemPath(path, "nodes", *problem->node),
                              problem->message);
        }
        if (problem->link)
        {
            throw ConfigError(file,
                              spec.links[*problem->link].sourceLine,
                              ItemPath(path, "links", entryOf[*problem->link]),
                              problem->message);
        }
        throw ConfigError(file, YamlLine(node), path, problem->message);
    }
    return spec;
}

/// Reads `<prefix>rate`, falling back to \p fallback.
DataRate
RateOf(YamlFields& f, const std::string& prefix, DataRate fallback)
{
    return f.Rate(prefix + "rate", fallback);
}

/// Reads `<prefix>delay` or `<prefix>cable`, falling back to \p fallback.
Time
DelayOf(YamlFields& f, const std::string& prefix, Time fallback)
{
    return f.DelayOrCable(prefix + "delay", prefix + "cable", fallback);
}

TopologySpec
ReadGenerated(const YAML::Node& node,
              const std::string& file,
              const std::string& path,
              const LinkDefaults& defaults)
{
    YamlFields f(node, file, path);
    const std::string gen = f.String("generator");
    TopologySpec spec;
    try
    {
        if (gen == "star")
        {
            RejectKeysOutside(node,
                              file,
                              path,
                              {"generator", "description", "hosts", "rate", "delay", "cable"});
            f.String("description", "");
            uint32_t hosts = RequiredCount(f, "hosts");
            DataRate rate = RateOf(f, "", defaults.rate);
            Time delay = DelayOf(f, "", defaults.delay);
            f.RejectUnknownKeys();
            spec = MakeStar(hosts, rate, delay);
        }
        else if (gen == "clos2")
        {
            RejectKeysOutside(node,
                              file,
                              path,
                              {"generator",
                               "description",
                               "k",
                               "oversubscription",
                               "down",
                               "up",
                               "leaves",
                               "spines",
                               "hosts",
                               "rate",
                               "delay",
                               "cable",
                               "host_rate",
                               "host_delay",
                               "host_cable",
                               "fabric_rate",
                               "fabric_delay",
                               "fabric_cable"});
            f.String("description", "");
            Clos2Params p;
            p.k = RequiredCount(f, "k");
            p.oversubscription = f.String("oversubscription", "");
            p.down = Count(f, "down");
            p.up = Count(f, "up");
            p.leaves = Count(f, "leaves");
            p.spines = Count(f, "spines");
            p.hosts = Count(f, "hosts");
            DataRate rate = RateOf(f, "", defaults.rate);
            Time delay = DelayOf(f, "", defaults.delay);
            p.hostRate = RateOf(f, "host_", rate);
            p.hostDelay = DelayOf(f, "host_", delay);
            p.fabricRate = RateOf(f, "fabric_", rate);
            p.fabricDelay = DelayOf(f, "fabric_", delay);
            f.RejectUnknownKeys();
            spec = MakeClos2(p);
        }
        else if (gen == "fat-tree3")
        {
            RejectKeysOutside(node,
                              file,
                              path,
                              {"generator", "description", "k", "hosts", "rate", "delay", "cable"});
            f.String("description", "");
            uint32_t k = RequiredCount(f, "k");
            uint32_t hosts = Count(f, "hosts");
            DataRate rate = RateOf(f, "", defaults.rate);
            Time delay = DelayOf(f, "", defaults.delay);
            f.RejectUnknownKeys();
            spec = MakeFatTree3(k, rate, delay, hosts);
        }
        else if (gen == "rail")
        {
            RejectKeysOutside(node,
                              file,
                              path,
                              {"generator",
                               "description",
                               "servers",
                               "gpus_per_server",
                               "servers_per_group",
                               "spines",
                               "uplinks_per_leaf",
                               "nvlink_rate",
                               "nvlink_delay",
                               "nvlink_cable",
                               "nic_rate",
                               "nic_delay",
                               "nic_cable",
                               "fabric_rate",
                               "fabric_delay",
                               "fabric_cable",
                               "pcie_rate",
                               "pcie_delay",
                               "pcie_cable",
                               "server_type",
                               "control_gpus",
                               "control_peer_rate",
                               "control_slot_rate",
                               "control_nic_port_rate",
                               "control_nic_ports",
                               "rate",
                               "delay",
                               "cable"});
            f.String("description", "");
            RailParams p;
            p.servers = RequiredCount(f, "servers");
            if (uint32_t g = Count(f, "gpus_per_server"))
            {
                p.gpusPerServer = g;
            }
            if (uint32_t s = Count(f, "servers_per_group"))
            {
                p.serversPerGroup = s;
            }
            p.spines = Count(f, "spines");
            p.uplinksPerLeaf = Count(f, "uplinks_per_leaf");
            p.nvlinkRate = RateOf(f, "nvlink_", p.nvlinkRate);
            p.nvlinkDelay = DelayOf(f, "nvlink_", p.nvlinkDelay);
            DataRate rate = RateOf(f, "", defaults.rate);
            Time delay = DelayOf(f, "", defaults.delay);
            p.nicRate = RateOf(f, "nic_", rate);
            p.nicDelay = DelayOf(f, "nic_", delay);
            p.fabricRate = RateOf(f, "fabric_", rate);
            p.fabricDelay = DelayOf(f, "fabric_", delay);
            // The GPU-NIC PCIe link (absent: not modelled) and the "control" server type.
            p.pcieRate = RateOf(f, "pcie_", p.pcieRate);
            p.pcieDelay = DelayOf(f, "pcie_", p.pcieDelay);
            p.serverType = f.String("server_type", "dgx");
            if (p.serverType != "dgx" && p.serverType != "control")
            {
                throw f.Error("server_type", "expected dgx or control, got '" + p.serverType + "'");
            }
            if (uint32_t g = Count(f, "control_gpus"))
            {
                p.controlGpus = g;
            }
            if (uint32_t n = Count(f, "control_nic_ports"))
            {
                p.controlNicPorts = n;
            }
            p.controlPeerRate = RateOf(f, "control_peer_", p.controlPeerRate);
            p.controlSlotRate = RateOf(f, "control_slot_", p.controlSlotRate);
            p.controlNicPortRate = RateOf(f, "control_nic_port_", p.controlNicPortRate);
            f.RejectUnknownKeys();
            spec = MakeRail(p);
        }
        else
        {
            throw f.Error("generator",
                          "unknown generator '" + gen +
                              "' (expected star, clos2, fat-tree3 or rail)");
        }
    }
    catch (const TopologyParamError& e)
    {
        // The generator names the parameter; point at its line in this file.
        throw f.Error(e.Key(), e.Message());
    }
    spec.source = file;
    // Generators build sound fabrics by construction; this guards against a generator bug
    // reaching a simulation as a confusing routing failure.
    if (auto problem = FindTopologyProblem(spec))
    {
        throw f.Error("generator", "generated an unusable topology: " + problem->message);
    }
    return spec;
}

} // namespace

YAML::Node
LoadYamlFile(const std::string& path)
{
    std::error_code ec;
    if (std::filesystem::is_directory(path, ec))
    {
        throw ConfigError(path, 0, "", "is a directory, expected a YAML file");
    }
    std::ifstream in(path);
    if (!in)
    {
        throw ConfigError(path, 0, "", std::string("cannot open file: ") + std::strerror(errno));
    }
    try
    {
        return YAML::Load(in);
    }
    catch (const YAML::ParserException& e)
    {
        int line = e.mark.is_null() ? 0 : e.mark.line + 1;
        throw ConfigError(path, line, "", "YAML syntax error: " + e.msg);
    }
}

TopologySpec
ReadTopologyFile(const std::string& path, const LinkDefaults& defaults)
{
    return ReadTopology(LoadYamlFile(path), path, "", defaults);
}

TopologySpec
ReadTopology(const YAML::Node& node,
             const std::string& fileName,
             const std::string& keyPath,
             const LinkDefaults& defaults)
{
    if (!node.IsDefined() || node.IsNull())
    {
        throw ConfigError(fileName,
                          YamlLine(node),
                          keyPath,
                          "empty topology: give 'generator: ...' or 'nodes' and 'links'");
    }
    if (!node.IsMap())
    {
        throw ConfigError(fileName,
                          YamlLine(node),
                          keyPath,
                          "expected a mapping with 'generator: ...' or 'nodes' and 'links'");
    }
    const YAML::Node& cnode = node;
    const bool generated = cnode["generator"].IsDefined();
    const bool explicitForm = cnode["nodes"].IsDefined() || cnode["links"].IsDefined();
    if (generated && explicitForm)
    {
        const char* key = cnode["nodes"].IsDefined() ? "nodes" : "links";
        throw ConfigError(fileName,
                          KeyLine(node, key),
                          JoinKey(keyPath, key),
                          "give either 'generator' or 'nodes' and 'links', not both");
    }
    if (generated)
    {
        return ReadGenerated(node, fileName, keyPath, defaults);
    }
    if (explicitForm)
    {
        return ReadExplicit(node, fileName, keyPath, defaults);
    }
    // Neither form: an unknown key is the likelier mistake ("generater:"), so report that first.
    RejectKeysOutside(node,
                      fileName,
                      keyPath,
                      {"description", "generator", "nodes", "links", "rate", "delay", "cable"});
    throw ConfigError(fileName,
                      YamlLine(node),
                      keyPath,
                      "give either 'generator: ...' or 'nodes' and 'links'");
}

} // namespace ns3
