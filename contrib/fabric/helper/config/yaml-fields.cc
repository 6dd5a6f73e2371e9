#include "config/yaml-fields.h"

#include "config/key-suggestion.h"
#include "config/units.h"

namespace ns3
{

int
YamlLine(const YAML::Node& node)
{
    if (!node.IsDefined() || node.Mark().is_null())
    {
        return 0;
    }
    return node.Mark().line + 1;
}

YamlFields::YamlFields(const YAML::Node& map, std::string file, std::string path)
    : m_map(map),
      m_file(std::move(file)),
      m_path(std::move(path))
{
    if (m_map.IsDefined() && !m_map.IsNull() && !m_map.IsMap())
    {
        throw ConfigError(m_file, YamlLine(m_map), m_path, "expected a mapping of keys");
    }
}

std::string
YamlFields::KeyPath(const std::string& key) const
{
    return m_path.empty() ? key : m_path + "." + key;
}

int
YamlFields::LineOf(const std::string& key) const
{
    if (m_map.IsMap() && m_map[key])
    {
        return YamlLine(m_map[key]);
    }
    return YamlLine(m_map);
}

ConfigError
YamlFields::Error(const std::string& key, const std::string& message) const
{
    return ConfigError(m_file, LineOf(key), KeyPath(key), message);
}

bool
YamlFields::Has(const std::string& key) const
{
    return m_map.IsMap() && m_map[key] && !m_map[key].IsNull();
}

YAML::Node
YamlFields::Required(const std::string& key)
{
    m_known.insert(key);
    if (!Has(key))
    {
        throw ConfigError(m_file, YamlLine(m_map), KeyPath(key), "required key is missing");
    }
    return m_map[key];
}

YAML::Node
YamlFields::Node(const std::string& key)
{
    return Required(key);
}

YamlFields
YamlFields::Child(const std::string& key)
{
    m_known.insert(key);
    if (!Has(key))
    {
        return YamlFields(YAML::Node(YAML::NodeType::Map), m_file, KeyPath(key));
    }
    return YamlFields(m_map[key], m_file, KeyPath(key));
}

std::string
YamlFields::Scalar(const std::string& key)
{
    YAML::Node n = Required(key);
    if (!n.IsScalar())
    {
        throw Error(key, "expected a single value");
    }
    return n.Scalar();
}

std::string
YamlFields::String(const std::string& key)
{
    return Scalar(key);
}

std::string
YamlFields::String(const std::string& key, const std::string& fallback)
{
    m_known.insert(key);
    return Has(key) ? Scalar(key) : fallback;
}

uint64_t
YamlFields::Uint(const std::string& key)
{
    std::string s = Scalar(key);
    auto v = ParseCount(s);
    if (!v)
    {
        bool digits = !s.empty() && s.find_first_not_of("0123456789") == std::string::npos;
        throw Error(key,
                    digits ? "integer '" + s + "' is too large (the largest is " +
                                 std::to_string(UINT64_MAX) + ")"
                           : "expected a non-negative integer, got '" + s + "'");
    }
    return *v;
}

uint64_t
YamlFields::Uint(const std::string& key, uint64_t fallback)
{
    m_known.insert(key);
    return Has(key) ? Uint(key) : fallback;
}

double
YamlFields::Double(const std::string& key)
{
    std::string s = Scalar(key);
    size_t used = 0;
    double v = 0;
    try
    {
        v = std::stod(s, &used);
    }
    catch (const std::exception&)
    {
        used = 0;
    }
    if (used == 0 || used != s.size())
    {
        throw Error(key, "expected a number, got '" + s + "'");
    }
    return v;
}

double
YamlFields::Double(const std::string& key, double fallback)
{
    m_known.insert(key);
    return Has(key) ? Double(key) : fallback;
}

bool
YamlFields::Bool(const std::string& key)
{
    std::string s = Scalar(key);
    if (s == "true" || s == "yes" || s == "on")
    {
        return true;
    }
    if (s == "false" || s == "no" || s == "off")
    {
        return false;
    }
    throw Error(key, "expected true or false, got '" + s + "'");
}

bool
YamlFields::Bool(const std::string& key, bool fallback)
{
    m_known.insert(key);
    return Has(key) ? Bool(key) : fallback;
}

uint64_t
YamlFields::Bytes(const std::string& key)
{
    std::string s = Scalar(key);
    auto v = ParseBytes(s);
    if (!v)
    {
        throw Error(key, "expected a byte size such as 1500B, 64KiB or 4MiB, got '" + s + "'");
    }
    return *v;
}

uint64_t
YamlFields::Bytes(const std::string& key, uint64_t fallback)
{
    m_known.insert(key);
    return Has(key) ? Bytes(key) : fallback;
}

DataRate
YamlFields::Rate(const std::string& key)
{
    std::string s = Scalar(key);
    auto v = ParseDataRate(s);
    if (!v)
    {
        throw Error(key,
                    "expected a positive data rate such as 400Gbps or 50GB/s, got '" + s + "'");
    }
    return *v;
}

DataRate
YamlFields::Rate(const std::string& key, DataRate fallback)
{
    m_known.insert(key);
    return Has(key) ? Rate(key) : fallback;
}

Time
YamlFields::Duration(const std::string& key)
{
    std::string s = Scalar(key);
    auto v = ParseTime(s);
    if (!v)
    {
        throw Error(key, "expected a time with unit such as 150ns, 2us or 10ms, got '" + s + "'");
    }
    return *v;
}

Time
YamlFields::Duration(const std::string& key, Time fallback)
{
    m_known.insert(key);
    return Has(key) ? Duration(key) : fallback;
}

Time
YamlFields::DelayOrCable(const std::string& delayKey, const std::string& cableKey, Time fallback)
{
    m_known.insert(delayKey);
    m_known.insert(cableKey);
    if (Has(delayKey) && Has(cableKey))
    {
        throw Error(cableKey, "give either '" + delayKey + "' or '" + cableKey + "', not both");
    }
    if (Has(cableKey))
    {
        std::string s = Scalar(cableKey);
        auto m = ParseLengthMetres(s);
        if (!m)
        {
            throw Error(cableKey, "expected a cable length in metres such as 30m, got '" + s + "'");
        }
        return CableDelay(*m);
    }
    return Has(delayKey) ? Duration(delayKey) : fallback;
}

std::vector<std::string>
YamlFields::StringList(const std::string& key)
{
    YAML::Node n = Required(key);
    std::vector<std::string> out;
    if (n.IsScalar())
    {
        out.push_back(n.Scalar());
        return out;
    }
    if (!n.IsSequence())
    {
        throw Error(key, "expected a list");
    }
    for (const auto& item : n)
    {
        if (!item.IsScalar())
        {
            throw ConfigError(m_file, YamlLine(item), KeyPath(key), "expected a list of values");
        }
        out.push_back(item.Scalar());
    }
    return out;
}

void
YamlFields::Expect(const std::string& key)
{
    m_expected.insert(key);
}

void
YamlFields::RejectUnknownKeys(const std::string& message) const
{
    if (!m_map.IsMap())
    {
        return;
    }
    for (const auto& kv : m_map)
    {
        std::string k = kv.first.Scalar();
        if (m_known.count(k) == 0)
        {
            std::vector<std::string> valid(m_known.begin(), m_known.end());
            valid.insert(valid.end(), m_expected.begin(), m_expected.end());
            std::string nearest = NearestKey(k, valid);
            throw ConfigError(m_file,
                              YamlLine(kv.first),
                              KeyPath(k),
                              message + DidYouMean(nearest.empty() ? "" : KeyPath(nearest)));
        }
    }
}

} // namespace ns3
