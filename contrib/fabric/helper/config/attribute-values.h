#ifndef FABRIC_ATTRIBUTE_VALUES_H
#define FABRIC_ATTRIBUTE_VALUES_H

#include "ns3/attribute.h"
#include "ns3/type-id.h"

#include <string>

namespace ns3
{

/**
 * \brief Checks a user-given value for an ns-3 attribute (its spelling, and the range of the
 * attribute's checker: a uint8_t takes 0..255) and rewrites it into the form ns-3 parses, so a
 * bad value is reported instead of aborting the process inside ns-3.
 *
 * \p name is "ns3::Type::Attribute". Units follow the scenario-file rules: byte sizes
 * ("4MiB"), rates ("400Gbps", "50GB/s"), times ("150ns"). On success returns true and stores
 * the ns-3 form in \p normalized; otherwise returns false with a reason in \p error.
 */
bool NormalizeAttributeValue(const std::string& name,
                             const std::string& value,
                             std::string* normalized,
                             std::string* error);

/**
 * \brief The current default of ns-3 attribute \p name ("ns3::Type::Attribute"): its initial
 * value, which Config::SetDefault updates, with its checker.
 *
 * Throws std::invalid_argument when no type has that attribute: the scenario key table names
 * attributes in code, so that is a programming error, not bad input.
 */
TypeId::AttributeInformation AttributeDefault(const std::string& name);

/// The current default of attribute \p name read as its value type \p V (TimeValue,
/// UintegerValue, ...): what V::Get() gives.
template <class V>
auto
AttributeDefaultAs(const std::string& name)
{
    return DynamicCast<const V>(AttributeDefault(name).initialValue)->Get();
}

/// AttributeDefault(\p name) in the form NormalizeAttributeValue produces (sizes "4096B", times
/// in ps, rates in bps, numbers exactly), so it can be set back with Config::SetDefault.
std::string AttributeDefaultText(const std::string& name);

} // namespace ns3

#endif
