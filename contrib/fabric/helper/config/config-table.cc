// The scenario key table: the rows of every section joined in reading order, and the engine
// that reads a section of a file by its rows.

#include "config/config-table.h"

#include "config/attribute-values.h"
#include "config/config-sections.h"
#include "config/units.h"

#include "ns3/double.h"
#include "ns3/queue-size.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <cctype>
#include <iostream>
#include <set>
#include <stdexcept>
#include <unordered_map>

namespace ns3
{

ScenarioBuild::ScenarioBuild(ScenarioConfig& config, std::string root)
    : cfg(config),
      sourceRoot(std::move(root))
{
}

const ScenarioKeys&
ScenarioKeyTable()
{
    static const ScenarioKeys table = [] {
        ScenarioKeys all;
        for (ScenarioKeys (*section)() : {RunKeys,
                                          LinkKeys,
                                          TopologyKeys,
                                          HostKeys,
                                          SwitchKeys,
                                          TransportKeys,
                                          UbKeys,
                                          WorkloadKeys,
                                          JobKeys,
                                          CollectiveKeys,
                                          TraceKeys,
                                          EventKeys,
                                          SimulatorKeys,
                                          AttributeKeys})
        {
            ScenarioKeys rows = section();
            all.insert(all.end(), rows.begin(), rows.end());
        }
        std::set<std::string> paths;
        for (const ScenarioKey& k : all)
        {
            if (!paths.insert(k.path).second)
            {
                throw std::logic_error("scenario key " + k.path + " is in the table twice");
            }
        }
        return all;
    }();
    return table;
}

namespace
{

/// "workload.flows[3]" -> "workload.flows[]": the table has one row for every item of a list.
std::string
ItemPath(const std::string& path)
{
    std::string out;
    for (size_t i = 0; i < path.size(); ++i)
    {
        out += path[i];
        if (path[i] == '[')
        {
            while (i + 1 < path.size() && std::isdigit(static_cast<unsigned char>(path[i + 1])))
            {
                ++i;
            }
        }
    }
    return out;
}

std::string
JoinPath(const std::string& parent, const std::string& name)
{
    return parent.empty() ? name : parent + "." + name;
}

/// The spelling \p section uses for \p key: its name, or its deprecated alias (with a notice).
std::string
KeyInFile(YamlFields& section, const ScenarioKey& key)
{
    if (key.alias.empty() || !section.Has(key.alias))
    {
        return key.Name();
    }
    if (section.Has(key.Name()))
    {
        throw section.Error(key.alias,
                            "give either '" + key.Name() + "' or its deprecated spelling '" +
                                key.alias + "', not both");
    }
    int line = section.LineOf(key.alias);
    std::cerr << "warning: " << section.File() << (line > 0 ? ":" + std::to_string(line) : "")
              << ": " << section.KeyPath(key.alias) << ": deprecated spelling, write "
              << section.KeyPath(key.Name()) << "\n";
    return key.alias;
}

/// A value given in the file under \p name, read as \p key's kind says.
KeyValue
ReadGiven(YamlFields& section, const std::string& name, const ScenarioKey& key)
{
    KeyValue v;
    switch (key.kind)
    {
    case KeyKind::Bytes:
        v.count = section.Bytes(name);
        v.number = static_cast<double>(v.count);
        break;
    case KeyKind::Count:
        v.count = section.Uint(name);
        v.number = static_cast<double>(v.count);
        break;
    case KeyKind::Number:
        v.number = section.Double(name);
        break;
    case KeyKind::Flag:
        v.flag = section.Bool(name);
        break;
    case KeyKind::Duration:
        v.time = section.Duration(name);
        break;
    case KeyKind::Rate:
        v.rate = section.Rate(name);
        break;
    case KeyKind::Length: {
        std::string s = section.String(name);
        auto metres = ParseLengthMetres(s);
        if (!metres)
        {
            throw section.Error(name,
                                "expected a cable length in metres such as 30m, got '" + s + "'");
        }
        v.number = *metres;
        break;
    }
    case KeyKind::Choice: {
        v.text = section.String(name);
        auto known = std::find_if(key.choices.begin(), key.choices.end(), [&](const auto& c) {
            return c.first == v.text;
        });
        if (known == key.choices.end())
        {
            std::string expected;
            for (size_t i = 0; i < key.choices.size(); ++i)
            {
                expected += (i == 0                        ? ""
                             : i + 1 == key.choices.size() ? " or "
                                                           : ", ") +
                            key.choices[i].first;
            }
            throw section.Error(name, "expected " + expected + ", got '" + v.text + "'");
        }
        break;
    }
    case KeyKind::Text:
        v.text = section.String(name);
        break;
    case KeyKind::Native: {
        std::string error;
        if (!NormalizeAttributeValue(key.attribute, section.String(name), &v.text, &error))
        {
            throw section.Error(name, error);
        }
        break;
    }
    case KeyKind::List:
    case KeyKind::Mapping:
        throw std::logic_error(key.path + ": a list or mapping is read by its own reader");
    }
    return v;
}

/// A default written as in a file (a scenario-level fallback); words such as "line" stay text.
KeyValue
ParseFallback(const ScenarioKey& key)
{
    KeyValue v;
    v.text = key.fallback;
    switch (key.kind)
    {
    case KeyKind::Bytes:
    case KeyKind::Count:
        v.count = ParseBytes(key.fallback).value_or(0);
        v.number = static_cast<double>(v.count);
        break;
    case KeyKind::Number:
        v.number = std::stod(key.fallback);
        break;
    case KeyKind::Flag:
        v.flag = key.fallback == "true";
        break;
    case KeyKind::Duration:
        v.time = ParseTime(key.fallback).value_or(Time(0));
        break;
    case KeyKind::Rate:
        v.rate = ParseDataRate(key.fallback).value_or(DataRate(0ULL));
        break;
    default:
        break;
    }
    return v;
}

/// The current default of \p key's attribute as a value of the key's kind.
KeyValue
AttributeValueOf(const ScenarioKey& key)
{
    KeyValue v;
    v.text = AttributeDefaultText(key.attribute);
    Ptr<const AttributeValue> initial = AttributeDefault(key.attribute).initialValue;
    if (auto size = DynamicCast<const QueueSizeValue>(initial))
    {
        v.count = size->Get().GetValue();
    }
    else if (auto count = DynamicCast<const UintegerValue>(initial))
    {
        v.count = count->Get();
    }
    else if (auto number = DynamicCast<const DoubleValue>(initial))
    {
        v.number = number->Get();
    }
    else if (auto time = DynamicCast<const TimeValue>(initial))
    {
        v.time = time->Get();
    }
    else if (auto rate = DynamicCast<const DataRateValue>(initial))
    {
        v.rate = rate->Get();
    }
    if (key.kind == KeyKind::Bytes || key.kind == KeyKind::Count)
    {
        v.number = static_cast<double>(v.count);
    }
    v.flag = v.text == "true";
    for (const auto& [spelling, value] : key.choices)
    {
        if (value == v.text)
        {
            v.text = spelling;
        }
    }
    return v;
}

/// Kinds read as a quantity that the key's attribute may hold in fewer bits than it is read in.
bool
IsQuantity(KeyKind kind)
{
    return kind == KeyKind::Bytes || kind == KeyKind::Count || kind == KeyKind::Number ||
           kind == KeyKind::Duration || kind == KeyKind::Rate;
}

bool
HasDefault(const ScenarioKey& key)
{
    return !key.attribute.empty() || !key.fallback.empty() || key.rule;
}

} // namespace

const ScenarioKey&
FindKey(const std::string& path)
{
    std::string wanted = ItemPath(path);
    for (const ScenarioKey& k : ScenarioKeyTable())
    {
        if (k.path == wanted)
        {
            return k;
        }
    }
    throw std::logic_error("no scenario key " + wanted + " in the table");
}

std::vector<const ScenarioKey*>
KeysUnder(const std::string& parent)
{
    // The table is fixed: its keys are grouped by parent once, in table order, instead of
    // making every key's parent path each time (the scenario reader asks twice per section;
    // about 5 M instructions a run, bench/PROFILE.md "Start-up").
    static const std::unordered_map<std::string, std::vector<const ScenarioKey*>> byParent = [] {
        std::unordered_map<std::string, std::vector<const ScenarioKey*>> groups;
        for (const ScenarioKey& k : ScenarioKeyTable())
        {
            groups[k.Parent()].push_back(&k);
        }
        return groups;
    }();
    auto it = byParent.find(ItemPath(parent));
    return it == byParent.end() ? std::vector<const ScenarioKey*>() : it->second;
}

void
ReadKeys(YamlFields& section, ScenarioBuild& build)
{
    for (const ScenarioKey* key : KeysUnder(section.Path()))
    {
        section.Expect(key->Name()); // for the suggestion when a key is misspelled
    }
    for (const ScenarioKey* key : KeysUnder(section.Path()))
    {
        if (key->read)
        {
            key->read(section, *key, build);
        }
        else if (!key->attribute.empty() && (!key->onlyWhenGiven || Given(section, *key)))
        {
            SetFromKey(section, *key, build.cfg.attributes);
        }
    }
}

void
ReadSection(YamlFields& parent, const ScenarioKey& key, ScenarioBuild& build)
{
    YamlFields section = parent.Child(key.Name());
    ReadKeys(section, build);
    section.RejectUnknownKeys();
}

bool
Given(const YamlFields& section, const ScenarioKey& key)
{
    return section.Has(key.Name()) || (!key.alias.empty() && section.Has(key.alias));
}

KeyValue
ValueOf(YamlFields& section, const ScenarioKey& key)
{
    section.Expect(key.Name()); // read by a section's own reader: valid here all the same
    std::string name = KeyInFile(section, key);
    if (!section.Has(name) && HasDefault(key))
    {
        return DefaultOf(key);
    }
    KeyValue v = ReadGiven(section, name, key); // a missing required key throws here
    std::string problem = key.check ? key.check(v) : "";
    if (!problem.empty())
    {
        throw section.Error(name, problem);
    }
    if (!key.attribute.empty() && IsQuantity(key.kind))
    {
        // The attribute's own range (a uint32_t, a bounded time), checked here so that the
        // message names this line rather than the attribute when ns-3 refuses the value.
        std::string normalized;
        std::string text = AttributeText(key, v);
        if (!NormalizeAttributeValue(key.attribute, text, &normalized, &problem))
        {
            // Quote the value as the file writes it ("8GiB"), not in the attribute's form.
            size_t at = problem.find("'" + text + "'");
            if (at != std::string::npos)
            {
                problem.replace(at, text.size() + 2, "'" + section.String(name) + "'");
            }
            throw section.Error(name, problem);
        }
    }
    return v;
}

KeyValue
ValueOf(YamlFields& section, const std::string& name)
{
    return ValueOf(section, FindKey(JoinPath(section.Path(), name)));
}

KeyValue
DefaultOf(const ScenarioKey& key)
{
    if (!key.fallback.empty())
    {
        return ParseFallback(key);
    }
    if (!key.attribute.empty() && !key.rule)
    {
        return AttributeValueOf(key);
    }
    return KeyValue{};
}

std::string
AttributeText(const ScenarioKey& key, const KeyValue& value)
{
    switch (key.kind)
    {
    case KeyKind::Choice:
        for (const auto& [spelling, attributeValue] : key.choices)
        {
            if (spelling == value.text)
            {
                return attributeValue;
            }
        }
        return value.text;
    case KeyKind::Bytes:
    case KeyKind::Count:
        if (DynamicCast<const QueueSizeValue>(AttributeDefault(key.attribute).initialValue))
        {
            // QueueSize is 32-bit; 4 GiB is "infinite" for a switch buffer.
            return std::to_string(std::min<uint64_t>(value.count, 0xFFFFFFFFull)) + "B";
        }
        return std::to_string(value.count);
    case KeyKind::Number:
        return NumberText(value.number);
    case KeyKind::Flag:
        return value.flag ? "true" : "false";
    case KeyKind::Duration:
        return std::to_string(value.time.GetPicoSeconds()) + "ps";
    case KeyKind::Rate:
        return std::to_string(value.rate.GetBitRate()) + "bps";
    default:
        return value.text;
    }
}

KeyValue
SetFromKey(YamlFields& section, const ScenarioKey& key, AttributeList& attributes)
{
    KeyValue v = ValueOf(section, key);
    attributes.emplace_back(key.attribute, AttributeText(key, v));
    return v;
}

KeyValue
SetFromKey(YamlFields& section, const std::string& name, AttributeList& attributes)
{
    return SetFromKey(section, FindKey(JoinPath(section.Path(), name)), attributes);
}

} // namespace ns3
