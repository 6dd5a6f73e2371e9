#ifndef FABRIC_SCOPED_ATTRIBUTE_DEFAULTS_H
#define FABRIC_SCOPED_ATTRIBUTE_DEFAULTS_H

#include "ns3/attribute.h"
#include "ns3/ptr.h"

#include <string>
#include <utility>
#include <vector>

namespace ns3
{

/**
 * \brief ns-3 attribute defaults set for as long as this object lives: constructed, it applies
 * (name, value) pairs in order with Config::SetDefault; destroyed, it puts back the defaults it
 * found, so that what one run sets does not leak into the next one in the same process.
 */
class ScopedAttributeDefaults
{
  public:
    /// Values are checked and rewritten by NormalizeAttributeValue; a bad one throws a
    /// ConfigError naming \p file and the attribute, after putting back what was already set.
    ScopedAttributeDefaults(const std::string& file,
                            const std::vector<std::pair<std::string, std::string>>& values);
    ~ScopedAttributeDefaults();

    ScopedAttributeDefaults(const ScopedAttributeDefaults&) = delete;
    ScopedAttributeDefaults& operator=(const ScopedAttributeDefaults&) = delete;

  private:
    void Set(const std::string& file, const std::string& name, const std::string& value);
    void Restore();

    std::vector<std::pair<std::string, Ptr<const AttributeValue>>> m_previous;
};

} // namespace ns3

#endif
