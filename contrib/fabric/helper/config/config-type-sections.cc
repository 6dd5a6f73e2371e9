// Sections of one ns-3 type's attributes (dcqcn:, caqm:, caqm_switch:): a key per attribute, in
// snake_case, generated from the TypeId so that a new attribute is a new key.

#include "config/config-sections.h"

#include "ns3/object.h"

#include <cctype>

namespace ns3
{

std::string
SnakeCase(const std::string& camel)
{
    std::string out;
    for (size_t i = 0; i < camel.size(); ++i)
    {
        char c = camel[i];
        bool upper = std::isupper(static_cast<unsigned char>(c)) != 0;
        if (upper && i > 0)
        {
            bool afterLower = !std::isupper(static_cast<unsigned char>(camel[i - 1]));
            bool endsAcronym =
                i + 1 < camel.size() && std::islower(static_cast<unsigned char>(camel[i + 1]));
            if (afterLower || endsAcronym)
            {
                out += '_';
            }
        }
        out += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    }
    return out;
}

namespace
{

/// KeyReader of a section of one type's attributes: an unknown key names no attribute.
void
ReadTypeSection(YamlFields& parent, const ScenarioKey& key, ScenarioBuild& build)
{
    YamlFields section = parent.Child(key.Name());
    ReadKeys(section, build);
    section.RejectUnknownKeys(
        "cannot set: no such ns-3 attribute (fabric-run --print-attributes lists them)");
}

} // namespace

ScenarioKeys
TypeAttributeKeys(const std::string& section, const std::string& typeName, const std::string& help)
{
    ScenarioKeys rows{ScenarioKey(section, KeyKind::Mapping, help).Reader(ReadTypeSection)};
    for (TypeId tid = TypeId::LookupByName(typeName); tid != Object::GetTypeId();
         tid = tid.GetParent())
    {
        for (size_t i = 0; i < tid.GetAttributeN(); ++i)
        {
            std::string name = tid.GetAttribute(i).name;
            rows.push_back(ScenarioKey(section + "." + SnakeCase(name), KeyKind::Native, "")
                               .Attribute(typeName + "::" + name)
                               .Alias(name)
                               .OnlyWhenGiven());
        }
    }
    return rows;
}

} // namespace ns3
