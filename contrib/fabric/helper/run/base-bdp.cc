#include "run/base-bdp.h"

namespace ns3
{

BaseBdp::BaseBdp(const TopologySpec& topo, uint32_t payloadBytes)
    : m_topo(topo),
      m_hosts(m_topo.Hosts()),
      m_table(std::make_unique<HpccPairTable>(m_topo, std::vector<uint32_t>(), payloadBytes))
{
}

HpccPair
BaseBdp::Between(uint32_t src, uint32_t dst)
{
    if (src == dst)
    {
        return HpccPair();
    }
    // third.cc:910-921: pairRtt[i][j] is node i in the search rooted at host j.
    return m_table->Get(m_hosts[src], m_hosts[dst]);
}

uint64_t
BaseBdp::RttNs(uint32_t src, uint32_t dst)
{
    return Between(src, dst).rttNs;
}

uint64_t
BaseBdp::Bdp(uint32_t src, uint32_t dst)
{
    return HpccPairBdp(Between(src, dst));
}

uint64_t
BaseBdp::MaxBdp()
{
    if (!m_haveMaxima)
    {
        m_maxima = ComputeHpccPairMaxima(*m_table, m_topo);
        m_haveMaxima = true;
    }
    return m_maxima.maxBdpBytes;
}

uint64_t
BaseBdp::MaxRttNs()
{
    MaxBdp();
    return m_maxima.maxRttNs;
}

} // namespace ns3
