#include "rto-estimator.h"

#include <algorithm>

namespace ns3
{

RtoEstimator::RtoEstimator(Time floor, Time max, Time granularity)
    : m_floorPs(floor.GetPicoSeconds()),
      m_maxPs(std::max(max.GetPicoSeconds(), floor.GetPicoSeconds())),
      m_granularityPs(granularity.GetPicoSeconds())
{
}

void
RtoEstimator::Sample(Time rtt)
{
    int64_t r = std::max<int64_t>(0, rtt.GetPicoSeconds());
    if (!m_hasSample)
    {
        // RFC 6298 §2.2
        m_srttPs = r;
        m_rttvarPs = r / 2;
        m_hasSample = true;
    }
    else
    {
        // RFC 6298 §2.3, β = 1/4 and α = 1/8; RTTVAR first, with the SRTT before this sample.
        int64_t err = m_srttPs > r ? m_srttPs - r : r - m_srttPs;
        m_rttvarPs = (3 * m_rttvarPs + err) / 4;
        m_srttPs = (7 * m_srttPs + r) / 8;
    }
    m_backoffs = 0; // a valid sample recomputes the RTO (Karn's backoff ends)
}

void
RtoEstimator::Backoff()
{
    if (GetRto().GetPicoSeconds() < m_maxPs)
    {
        ++m_backoffs;
    }
}

Time
RtoEstimator::GetRto() const
{
    int64_t rto = m_floorPs; // §2.1: the initial RTO (here the floor)
    if (m_hasSample)
    {
        rto = m_srttPs + std::max(m_granularityPs, 4 * m_rttvarPs); // §2.2, §2.3
        rto = std::max(rto, m_floorPs);                             // §2.4
    }
    rto = std::min(rto, m_maxPs); // §2.5
    for (uint32_t i = 0; i < m_backoffs && rto < m_maxPs; ++i)
    {
        rto = std::min(2 * rto, m_maxPs); // §5.5
    }
    return PicoSeconds(rto);
}

} // namespace ns3
