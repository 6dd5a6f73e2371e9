#ifndef FABRIC_ATTRIBUTE_VALUES_H
#define FABRIC_ATTRIBUTE_VALUES_H

#include <string>

namespace ns3
{

/**
 * \brief Checks a user-given value for an ns-3 attribute and rewrites it into the form ns-3
 * parses, so a bad value is reported instead of aborting the process inside ns-3.
 *
 * \p name is "ns3::Type::Attribute". Units follow the scenario-file rules: byte sizes
 * ("4MiB"), rates ("400Gbps", "50GB/s"), times ("150ns"). On success returns true and stores
 * the ns-3 form in \p normalized; otherwise returns false with a reason in \p error.
 */
bool NormalizeAttributeValue(const std::string& name,
                             const std::string& value,
                             std::string* normalized,
                             std::string* error);

} // namespace ns3

#endif
