#include "config/config-key.h"

namespace ns3
{

ScenarioKey::ScenarioKey(std::string p, KeyKind k, std::string h)
    : path(std::move(p)),
      kind(k),
      help(std::move(h))
{
}

ScenarioKey&
ScenarioKey::Attribute(std::string name)
{
    attribute = std::move(name);
    return *this;
}

ScenarioKey&
ScenarioKey::Reader(KeyReader reader)
{
    read = reader;
    return *this;
}

ScenarioKey&
ScenarioKey::Check(KeyCheck c)
{
    check = std::move(c);
    return *this;
}

ScenarioKey&
ScenarioKey::Default(std::string value)
{
    fallback = std::move(value);
    return *this;
}

ScenarioKey&
ScenarioKey::Rule(std::string text)
{
    rule = [text]() { return text; };
    return *this;
}

ScenarioKey&
ScenarioKey::Rule(std::function<std::string()> text)
{
    rule = std::move(text);
    return *this;
}

ScenarioKey&
ScenarioKey::Shown(std::function<std::string(const KeyValue&)> format)
{
    shown = std::move(format);
    return *this;
}

ScenarioKey&
ScenarioKey::MappedChoices(std::vector<std::pair<std::string, std::string>> spellings)
{
    choices = std::move(spellings);
    return *this;
}

ScenarioKey&
ScenarioKey::Choices(const std::vector<std::string>& spellings)
{
    choices.clear();
    for (const std::string& s : spellings)
    {
        choices.emplace_back(s, s);
    }
    return *this;
}

ScenarioKey&
ScenarioKey::Unit(std::string text)
{
    unit = std::move(text);
    return *this;
}

ScenarioKey&
ScenarioKey::Alias(std::string deprecated)
{
    alias = std::move(deprecated);
    return *this;
}

ScenarioKey&
ScenarioKey::OnlyWhenGiven()
{
    onlyWhenGiven = true;
    return *this;
}

std::string
ScenarioKey::Name() const
{
    return path.substr(path.find_last_of('.') + 1);
}

std::string
ScenarioKey::Parent() const
{
    size_t dot = path.find_last_of('.');
    return dot == std::string::npos ? "" : path.substr(0, dot);
}

KeyCheck
Positive(const std::string& message)
{
    return [message](const KeyValue& v) {
        return v.number > 0 || v.time.IsStrictlyPositive() ? std::string() : message;
    };
}

KeyCheck
Within(double lo, double hi, const std::string& message)
{
    return [lo, hi, message](const KeyValue& v) {
        return v.number >= lo && v.number <= hi ? std::string() : message;
    };
}

KeyCheck
AtMost(uint64_t max, const std::string& message)
{
    return [max, message](const KeyValue& v) { return v.count <= max ? std::string() : message; };
}

} // namespace ns3
