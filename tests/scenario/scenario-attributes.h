#ifndef FABRIC_TESTS_SCENARIO_ATTRIBUTES_H
#define FABRIC_TESTS_SCENARIO_ATTRIBUTES_H

// What a loaded scenario sets: shared by the suites that check scenario keys.

#include "config/scenario-config.h"

#include <string>

namespace ns3
{
namespace test
{

/// The value an attribute ends with: the last (name, value) pair wins, as when applied in order.
inline std::string
Attr(const ScenarioConfig& cfg, const std::string& name)
{
    std::string value = "<unset>";
    for (const auto& [n, v] : cfg.attributes)
    {
        if (n == name)
        {
            value = v;
        }
    }
    return value;
}

} // namespace test
} // namespace ns3

#endif
