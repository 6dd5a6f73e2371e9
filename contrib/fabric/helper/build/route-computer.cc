#include "build/route-computer.h"

#include <limits>
#include <map>

namespace ns3
{

std::vector<NodeRoutes>
ComputeRoutes(const TopologySpec& spec,
              const std::vector<std::vector<uint32_t>>& portsOfNode,
              const std::vector<bool>& linkUp,
              const std::vector<bool>& wanted)
{
    const uint32_t nNodes = static_cast<uint32_t>(spec.nodes.size());
    const uint32_t kInf = std::numeric_limits<uint32_t>::max();

    // Every node's working links as (peer, port index), in port order, and which nodes carry
    // transit traffic, read once: the searches below visit each of them once per destination.
    struct Neighbor
    {
        uint32_t peer;
        uint16_t port;
    };

    std::vector<std::vector<Neighbor>> neighbors(nNodes);
    std::vector<uint8_t> isSwitch(nNodes);
    for (uint32_t n = 0; n < nNodes; ++n)
    {
        isSwitch[n] = spec.nodes[n].isSwitch;
        for (uint32_t i = 0; i < portsOfNode[n].size(); ++i)
        {
            const uint32_t link = portsOfNode[n][i];
            if (linkUp.empty() || linkUp[link])
            {
                const TopologyLink& l = spec.links[link];
                neighbors[n].push_back(Neighbor{l.a == n ? l.b : l.a, static_cast<uint16_t>(i)});
            }
        }
    }

    std::vector<uint32_t> hosts = spec.Hosts();
    std::vector<NodeRoutes> routes(nNodes);
    std::vector<std::map<std::vector<uint16_t>, uint32_t>> groupIndex(nNodes);
    auto keep = [&](uint32_t n) { return wanted.empty() || wanted[n]; };
    for (uint32_t n = 0; n < nNodes; ++n)
    {
        if (keep(n))
        {
            routes[n].groupOfHost.assign(hosts.size(), 0);
        }
    }
    std::vector<uint32_t> dist(nNodes);
    std::vector<uint16_t> ports; // one buffer for every (destination, node): no allocation each
    std::vector<uint32_t> queue;
    queue.reserve(nNodes);
    for (uint32_t h = 0; h < hosts.size(); ++h)
    {
        uint32_t target = hosts[h];
        dist.assign(nNodes, kInf);
        dist[target] = 0;
        queue.clear();
        queue.push_back(target);
        for (size_t qi = 0; qi < queue.size(); ++qi)
        {
            uint32_t n = queue[qi];
            if (n != target && !isSwitch[n])
            {
                continue; // hosts are endpoints, never transit
            }
            for (const Neighbor& next : neighbors[n])
            {
                if (dist[next.peer] == kInf)
                {
                    dist[next.peer] = dist[n] + 1;
                    queue.push_back(next.peer);
                }
            }
        }
        for (uint32_t n = 0; n < nNodes; ++n)
        {
            if (!keep(n))
            {
                continue;
            }
            ports.clear();
            if (n != target && dist[n] != kInf)
            {
                for (const Neighbor& next : neighbors[n])
                {
                    const uint32_t m = next.peer;
                    if ((isSwitch[m] || m == target) && dist[m] + 1 == dist[n])
                    {
                        ports.push_back(next.port);
                    }
                }
            }
            // find before emplace: emplace would copy the key into a new tree node each time.
            auto it = groupIndex[n].find(ports);
            if (it == groupIndex[n].end())
            {
                it = groupIndex[n].emplace(ports, routes[n].groups.size()).first;
                routes[n].groups.push_back(ports);
            }
            routes[n].groupOfHost[h] = it->second;
        }
    }
    return routes;
}

} // namespace ns3
