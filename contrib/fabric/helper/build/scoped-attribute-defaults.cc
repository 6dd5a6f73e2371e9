#include "build/scoped-attribute-defaults.h"

#include "config/attribute-values.h"
#include "config/config-error.h"

#include "ns3/config.h"
#include "ns3/string.h"

namespace ns3
{

ScopedAttributeDefaults::ScopedAttributeDefaults(
    const std::string& file,
    const std::vector<std::pair<std::string, std::string>>& values)
{
    try
    {
        for (const auto& [name, value] : values)
        {
            Set(file, name, value);
        }
    }
    catch (...)
    {
        Restore(); // the destructor of a half-built object does not run
        throw;
    }
}

ScopedAttributeDefaults::~ScopedAttributeDefaults()
{
    Restore();
}

void
ScopedAttributeDefaults::Set(const std::string& file,
                             const std::string& name,
                             const std::string& value)
{
    std::string normalized;
    std::string error;
    if (!NormalizeAttributeValue(name, value, &normalized, &error))
    {
        throw ConfigError(file, 0, name, error);
    }
    Ptr<const AttributeValue> before = AttributeDefault(name).initialValue;
    if (!Config::SetDefaultFailSafe(name, StringValue(normalized)))
    {
        throw ConfigError(file, 0, name, "cannot set '" + value + "'");
    }
    m_previous.emplace_back(name, before);
}

void
ScopedAttributeDefaults::Restore()
{
    // Newest first, so that an attribute set twice ends at the value before the first.
    for (auto it = m_previous.rbegin(); it != m_previous.rend(); ++it)
    {
        Config::SetDefaultFailSafe(it->first, *it->second);
    }
    m_previous.clear();
}

} // namespace ns3
