// Values several sections read: hosts, priorities, files named in a scenario.

#include "config/config-table.h"
#include "config/units.h"

#include <algorithm>
#include <fstream>

namespace ns3
{

uint32_t
ReadHost(YamlFields& f, const std::string& key, const TopologySpec& topo)
{
    return HostIndex(f, key, f.String(key), topo);
}

uint32_t
HostIndex(YamlFields& f, const std::string& key, const std::string& v, const TopologySpec& topo)
{
    std::vector<uint32_t> hosts = topo.Hosts();
    bool numeric = !v.empty() && std::all_of(v.begin(), v.end(), ::isdigit);
    if (numeric)
    {
        uint64_t i = ParseCount(v).value_or(UINT64_MAX); // too large for 64 bits: out of range
        if (i >= hosts.size())
        {
            throw f.Error(key,
                          "host index " + v + " out of range (topology has " +
                              std::to_string(hosts.size()) + " hosts)");
        }
        return static_cast<uint32_t>(i);
    }
    auto node = topo.Find(v);
    if (!node)
    {
        throw f.Error(key, "unknown node '" + v + "'");
    }
    auto it = std::find(hosts.begin(), hosts.end(), *node);
    if (it == hosts.end())
    {
        throw f.Error(key, "'" + v + "' is a switch; flows start and end at hosts");
    }
    return static_cast<uint32_t>(it - hosts.begin());
}

uint8_t
ReadPriority(YamlFields& f, const std::string& key, uint8_t fallback)
{
    uint64_t p = f.Uint(key, fallback);
    if (p > 7)
    {
        throw f.Error(key, "priority must be 0..7, got " + std::to_string(p));
    }
    return static_cast<uint8_t>(p);
}

KeyCheck
PriorityCheck()
{
    return [](const KeyValue& v) {
        return v.count > 7 ? "priority must be 0..7, got " + std::to_string(v.count) : "";
    };
}

std::string
ResolvePath(const std::string& scenarioFile, const std::string& sourceRoot, const std::string& path)
{
    std::string dir = scenarioFile.substr(0, scenarioFile.find_last_of('/') + 1);
    for (const std::string& candidate : {dir + path, sourceRoot + "/" + path, path})
    {
        if (std::ifstream(candidate).good())
        {
            return candidate;
        }
    }
    return "";
}

} // namespace ns3
