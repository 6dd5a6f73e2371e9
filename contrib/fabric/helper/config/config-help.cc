// `fabric-run --help`: every row of the scenario key table with its meaning, unit and default,
// the defaults read from the ns-3 attributes the keys stand for.

#include "config/attribute-values.h"
#include "config/config-table.h"
#include "config/units.h"

#include "ns3/data-rate.h"
#include "ns3/double.h"
#include "ns3/nstime.h"
#include "ns3/queue-size.h"

#include <sstream>

namespace ns3
{

namespace
{

/// The current default of \p attribute as a scenario file would write it.
std::string
AttributeDefaultForHelp(const ScenarioKey& key)
{
    TypeId::AttributeInformation info = AttributeDefault(key.attribute);
    Ptr<const AttributeValue> v = info.initialValue;
    if (auto size = DynamicCast<const QueueSizeValue>(v))
    {
        return BytesText(size->Get().GetValue());
    }
    if (auto time = DynamicCast<const TimeValue>(v))
    {
        return TimeText(time->Get());
    }
    if (auto rate = DynamicCast<const DataRateValue>(v))
    {
        return RateText(rate->Get());
    }
    if (key.kind == KeyKind::Bytes)
    {
        return std::to_string(DefaultOf(key).count) + "B"; // a byte count held in an integer
    }
    return DefaultOf(key).text; // numbers exactly, flags, enum and choice spellings, type names
}

/// What a value of \p key is, when the kind alone does not say enough.
std::string
UnitText(const ScenarioKey& key)
{
    if (!key.unit.empty())
    {
        return key.unit;
    }
    switch (key.kind)
    {
    case KeyKind::Bytes:
        return "bytes";
    case KeyKind::Count:
        return "integer";
    case KeyKind::Number:
        return "number";
    case KeyKind::Flag:
        return "true|false";
    case KeyKind::Duration:
        return "time";
    case KeyKind::Rate:
        return "rate";
    case KeyKind::Length:
        return "metres";
    case KeyKind::Choice: {
        std::string names;
        for (const auto& c : key.choices)
        {
            names += (names.empty() ? "" : "|") + c.first;
        }
        return names;
    }
    case KeyKind::Native: {
        TypeId::AttributeInformation info = AttributeDefault(key.attribute);
        std::string type = info.checker->GetValueTypeName();
        if (type.rfind("ns3::", 0) != 0)
        {
            type = "ns3::" + type; // some checkers leave the namespace out
        }
        if (type == "ns3::QueueSizeValue")
        {
            return "bytes";
        }
        if (type == "ns3::TimeValue")
        {
            return "time";
        }
        if (type == "ns3::DataRateValue")
        {
            return "rate";
        }
        if (type == "ns3::DoubleValue")
        {
            return "number";
        }
        if (type == "ns3::UintegerValue")
        {
            return "integer";
        }
        if (type == "ns3::BooleanValue")
        {
            return "true|false";
        }
        if (type == "ns3::EnumValue")
        {
            return info.checker->GetUnderlyingTypeInformation();
        }
        return "";
    }
    case KeyKind::List:
        return "list";
    default:
        return "";
    }
}

/// \p text broken into lines of at most \p width characters, each after \p indent spaces.
std::string
Wrap(const std::string& text, size_t indent, size_t width)
{
    std::istringstream words(text);
    std::string out;
    std::string line;
    for (std::string w; words >> w;)
    {
        if (!line.empty() && indent + line.size() + 1 + w.size() > width)
        {
            out += std::string(indent, ' ') + line + "\n";
            line.clear();
        }
        line += (line.empty() ? "" : " ") + w;
    }
    if (!line.empty())
    {
        out += std::string(indent, ' ') + line + "\n";
    }
    return out;
}

} // namespace

std::string
DefaultText(const ScenarioKey& key)
{
    if (key.rule)
    {
        return key.rule();
    }
    if (!key.fallback.empty())
    {
        return key.fallback;
    }
    if (!key.attribute.empty())
    {
        return key.shown ? key.shown(DefaultOf(key)) : AttributeDefaultForHelp(key);
    }
    return "";
}

std::string
ScenarioKeysHelp()
{
    std::string out =
        "Scenario keys (YAML; any key can be overridden with --set a.b.c=value). [...] gives a\n"
        "key's unit, its default and the ns-3 attribute it sets, whose default is the key's.\n"
        "--attr NAME=VALUE and the attributes: section are applied after every key.\n";
    const size_t column = 29;
    const size_t width = 100;
    for (const ScenarioKey& key : ScenarioKeyTable())
    {
        std::string help = key.help;
        if (help.empty() && !key.attribute.empty())
        {
            help = AttributeDefault(key.attribute).help;
        }
        std::vector<std::string> facts;
        if (!UnitText(key).empty())
        {
            facts.push_back(UnitText(key));
        }
        if (!DefaultText(key).empty())
        {
            facts.push_back("default " + DefaultText(key));
        }
        if (!key.attribute.empty())
        {
            facts.push_back(key.attribute);
        }
        if (!key.alias.empty())
        {
            facts.push_back("was " + key.alias);
        }
        std::string bracket;
        for (const std::string& f : facts)
        {
            bracket += (bracket.empty() ? "[" : "; ") + f;
        }
        std::string text = help + (bracket.empty() ? "" : " " + bracket + "]");
        std::string head = "  " + key.path;
        if (head.size() + 1 < column)
        {
            std::string body = Wrap(text, column, width);
            out += head + body.substr(head.size());
        }
        else
        {
            out += head + "\n" + Wrap(text, column, width);
        }
    }
    return out;
}

} // namespace ns3
