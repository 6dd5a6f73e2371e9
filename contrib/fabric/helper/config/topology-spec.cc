#include "config/topology-spec.h"

namespace ns3
{

std::optional<uint32_t>
TopologySpec::Find(const std::string& name) const
{
    for (uint32_t i = 0; i < nodes.size(); ++i)
    {
        if (nodes[i].name == name)
        {
            return i;
        }
    }
    return std::nullopt;
}

std::vector<uint32_t>
TopologySpec::Hosts() const
{
    std::vector<uint32_t> out;
    for (uint32_t i = 0; i < nodes.size(); ++i)
    {
        if (!nodes[i].isSwitch)
        {
            out.push_back(i);
        }
    }
    return out;
}

std::vector<uint32_t>
TopologySpec::Switches() const
{
    std::vector<uint32_t> out;
    for (uint32_t i = 0; i < nodes.size(); ++i)
    {
        if (nodes[i].isSwitch)
        {
            out.push_back(i);
        }
    }
    return out;
}

} // namespace ns3
