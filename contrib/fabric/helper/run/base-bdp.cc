#include "run/base-bdp.h"

#include <algorithm>

namespace ns3
{

BaseBdp::BaseBdp(const TopologySpec& topo, uint32_t payloadBytes)
    : m_topo(topo),
      m_payload(payloadBytes),
      m_nHosts(static_cast<uint32_t>(m_topo.Hosts().size())),
      m_paths(std::make_unique<BasePaths>(m_topo))
{
}

BaseBdp::Pair
BaseBdp::Between(uint32_t src, uint32_t dst)
{
    Pair p;
    if (src == dst)
    {
        return p;
    }
    std::vector<PathLink> path = m_paths->Between(src, dst);
    if (path.empty())
    {
        return p;
    }
    uint64_t delayNs = 0;
    uint64_t txDelayNs = 0;
    uint64_t bottleneck = UINT64_MAX;
    for (const PathLink& l : path)
    {
        uint64_t bps = l.rate.GetBitRate();
        // third.cc:249-251: delay and one payload's serialization per hop, integer ns each.
        delayNs += static_cast<uint64_t>(l.delay.GetPicoSeconds()) / 1000;
        txDelayNs += uint64_t(m_payload) * 1000000000ULL * 8 / bps;
        bottleneck = std::min(bottleneck, bps);
    }
    // third.cc:919-921: rtt = delay x 2 + txDelay, bdp = rtt x bw / 1e9 / 8.
    p.rttNs = delayNs * 2 + txDelayNs;
    p.bdp = static_cast<uint64_t>(static_cast<unsigned __int128>(p.rttNs) * bottleneck /
                                  1000000000ULL / 8);
    return p;
}

uint64_t
BaseBdp::RttNs(uint32_t src, uint32_t dst)
{
    return Between(src, dst).rttNs;
}

uint64_t
BaseBdp::Bdp(uint32_t src, uint32_t dst)
{
    return Between(src, dst).bdp;
}

void
BaseBdp::ComputeMaxima()
{
    if (m_haveMaxima)
    {
        return;
    }
    m_haveMaxima = true;
    // Source by source: BasePaths keeps one source's search at a time.
    for (uint32_t src = 0; src < m_nHosts; ++src)
    {
        for (uint32_t dst = 0; dst < m_nHosts; ++dst)
        {
            Pair p = Between(src, dst);
            m_maxBdp = std::max(m_maxBdp, p.bdp);
            m_maxRttNs = std::max(m_maxRttNs, p.rttNs);
        }
    }
}

uint64_t
BaseBdp::MaxBdp()
{
    ComputeMaxima();
    return m_maxBdp;
}

uint64_t
BaseBdp::MaxRttNs()
{
    ComputeMaxima();
    return m_maxRttNs;
}

} // namespace ns3
