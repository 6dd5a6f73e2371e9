#include "build/path-hops.h"

#include <deque>

namespace ns3
{

PathHops::PathHops(const TopologySpec& topo)
    : m_isSwitch(topo.nodes.size()),
      m_hosts(topo.Hosts()),
      m_neighbours(topo.nodes.size())
{
    for (uint32_t n = 0; n < topo.nodes.size(); ++n)
    {
        m_isSwitch[n] = topo.nodes[n].isSwitch;
    }
    for (const TopologyLink& l : topo.links)
    {
        m_neighbours[l.a].push_back(l.b);
        m_neighbours[l.b].push_back(l.a);
    }
}

void
PathHops::SearchFrom(uint32_t srcNode)
{
    m_searchedFrom = srcNode;
    m_distance.assign(m_isSwitch.size(), UINT32_MAX);
    m_distance[srcNode] = 0;
    std::deque<uint32_t> queue{srcNode};
    while (!queue.empty())
    {
        uint32_t n = queue.front();
        queue.pop_front();
        // A host is a path's end, never a way through (except the source itself).
        if (n != srcNode && !m_isSwitch[n])
        {
            continue;
        }
        for (uint32_t peer : m_neighbours[n])
        {
            if (m_distance[peer] == UINT32_MAX)
            {
                m_distance[peer] = m_distance[n] + 1;
                queue.push_back(peer);
            }
        }
    }
}

uint32_t
PathHops::Between(uint32_t src, uint32_t dst)
{
    const uint64_t key = (uint64_t(src) << 32) | dst;
    auto it = m_answers.find(key);
    if (it != m_answers.end())
    {
        return it->second;
    }
    uint32_t srcNode = m_hosts.at(src);
    if (m_searchedFrom != srcNode)
    {
        SearchFrom(srcNode);
    }
    uint32_t links = m_distance[m_hosts.at(dst)];
    // n links between two hosts cross n - 1 switches.
    uint32_t switches = (links == UINT32_MAX || links == 0) ? 0 : links - 1;
    m_answers.emplace(key, switches);
    return switches;
}

} // namespace ns3
