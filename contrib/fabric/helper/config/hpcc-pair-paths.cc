#include "config/hpcc-pair-paths.h"

#include <algorithm>
#include <limits>
#include <map>

namespace ns3
{

HpccPairTable::HpccPairTable(const TopologySpec& spec,
                             std::vector<uint32_t> nodeIds,
                             uint32_t payloadBytes)
    : m_spec(spec),
      m_payload(payloadBytes)
{
    const size_t n = spec.nodes.size();
    if (nodeIds.size() != n)
    {
        nodeIds.resize(n);
        for (uint32_t i = 0; i < n; ++i)
        {
            nodeIds[i] = i;
        }
    }
    // nbr2if[a][b]: the last link between a and b wins; neighbours in node-id order.
    std::vector<std::map<uint32_t, Neighbour>> byId(n);
    for (const TopologyLink& l : spec.links)
    {
        uint64_t delayNs = static_cast<uint64_t>(l.delay.GetNanoSeconds());
        uint64_t bw = l.rate.GetBitRate();
        byId[l.a][nodeIds[l.b]] = Neighbour{l.b, delayNs, bw};
        byId[l.b][nodeIds[l.a]] = Neighbour{l.a, delayNs, bw};
    }
    m_neighbours.resize(n);
    for (size_t i = 0; i < n; ++i)
    {
        for (const auto& [id, nb] : byId[i])
        {
            m_neighbours[i].push_back(nb);
        }
    }
    m_byRoot.resize(n);
}

HpccPair
HpccPairTable::Get(uint32_t from, uint32_t root)
{
    std::vector<HpccPair>& pairs = m_byRoot[root];
    if (pairs.empty())
    {
        // third.cc CalculateRoute (223-268) and the pairRtt loop (910-928).
        const size_t n = m_spec.nodes.size();
        std::vector<bool> seen(n, false);
        std::vector<uint64_t> delay(n, 0);
        std::vector<uint64_t> txDelay(n, 0);
        std::vector<uint64_t> bw(n, 0);
        std::vector<uint32_t> queue{root};
        seen[root] = true;
        bw[root] = std::numeric_limits<uint64_t>::max();
        for (size_t i = 0; i < queue.size(); ++i)
        {
            uint32_t now = queue[i];
            for (const Neighbour& nb : m_neighbours[now])
            {
                if (seen[nb.node])
                {
                    continue;
                }
                seen[nb.node] = true;
                delay[nb.node] = delay[now] + nb.delayNs;
                txDelay[nb.node] =
                    txDelay[now] + uint64_t(m_payload) * 1000000000ULL * 8 / nb.bwBps;
                bw[nb.node] = std::min(bw[now], nb.bwBps);
                if (m_spec.nodes[nb.node].isSwitch)
                {
                    queue.push_back(nb.node); // hosts are no transit
                }
            }
        }
        pairs.resize(n);
        for (size_t i = 0; i < n; ++i)
        {
            pairs[i] = HpccPair{delay[i] * 2 + txDelay[i], seen[i] ? bw[i] : 0};
        }
    }
    return pairs[from];
}

uint64_t
HpccPairBdp(const HpccPair& pair)
{
    return static_cast<uint64_t>(static_cast<unsigned __int128>(pair.rttNs) * pair.bwBps /
                                 1000000000ULL / 8);
}

HpccPairMaxima
ComputeHpccPairMaxima(HpccPairTable& table, const TopologySpec& spec)
{
    HpccPairMaxima m;
    std::vector<uint32_t> hosts = spec.Hosts();
    for (uint32_t root : hosts)
    {
        for (uint32_t from : hosts)
        {
            if (from == root)
            {
                continue;
            }
            HpccPair pair = table.Get(from, root);
            if (pair.bwBps == 0)
            {
                continue; // not connected
            }
            m.maxRttNs = std::max(m.maxRttNs, pair.rttNs);
            m.maxBdpBytes = std::max(m.maxBdpBytes, HpccPairBdp(pair));
        }
    }
    // get_nic_rate: the first host (lowest id) and its first link.
    if (!hosts.empty())
    {
        uint32_t first = hosts.front();
        for (const TopologyLink& l : spec.links)
        {
            if (l.a == first || l.b == first)
            {
                m.nicRateBps = l.rate.GetBitRate();
                break;
            }
        }
    }
    return m;
}

uint64_t
HpccStandaloneFctNs(uint64_t size, uint32_t payloadBytes, const HpccPair& pair)
{
    // third.cc:166: the sum is stored in a uint32_t, then multiplied as a 64-bit unsigned.
    uint32_t totalBytes = static_cast<uint32_t>(size + ((size - 1) / payloadBytes + 1) *
                                                           uint64_t(kHpccStandaloneHeaderBytes));
    if (pair.bwBps == 0)
    {
        return pair.rttNs;
    }
    return pair.rttNs + uint64_t(totalBytes) * 8000000000ULL / pair.bwBps;
}

} // namespace ns3
