#ifndef FABRIC_RTO_ESTIMATOR_H
#define FABRIC_RTO_ESTIMATOR_H

#include "ns3/nstime.h"

#include <cstdint>

namespace ns3
{

/**
 * \brief The retransmission timer of RFC 6298 ("Computing TCP's Retransmission Timer"), §2 and
 * §5, for a transport's round-trip samples (docs/models.md#retransmission-timeout).
 *
 * - §2.1: until the first sample the RTO is the floor (RFC 6298: 1 s, a value for the Internet;
 *   here the floor already covers the worst queueing the fabric allows, see below);
 * - §2.2: the first sample R sets SRTT = R, RTTVAR = R/2;
 * - §2.3: every later sample R' sets RTTVAR = (1 - β) RTTVAR + β |SRTT - R'| (with the old SRTT)
 *   and then SRTT = (1 - α) SRTT + α R', α = 1/8, β = 1/4;
 *   RTO = SRTT + max(G, K·RTTVAR), K = 4, G the clock granularity;
 * - §2.4: an RTO below the floor is rounded up to it (RFC 6298: 1 s);
 * - §2.5: an RTO above the maximum is cut to it;
 * - §5.5: on expiry the RTO doubles (bounded by the maximum) and stays backed off until the next
 *   valid sample, which recomputes it from SRTT and RTTVAR (Karn and Partridge, SIGCOMM 1987).
 *
 * Karn's rule (§3: no sample from a retransmitted packet) is the caller's: it passes only samples
 * of packets sent once. Times are kept in picoseconds, exact integers; α and β are powers of two,
 * so the arithmetic is shifts of integer picoseconds, truncated.
 *
 * The floor the NICs use is MinRto + QueueBound (RdmaNic and UbNic attributes): the first term
 * is the RTO a lightly loaded fabric would need (IRN's RTO_low, Mittal et al., SIGCOMM 2018,
 * §3.2), the second the worst queueing a lossless class allows on a path, which the estimator
 * cannot see coming (an incast raises the RTT from microseconds to milliseconds within one RTT).
 */
class RtoEstimator
{
  public:
    RtoEstimator() = default;

    /// \p floor: the smallest RTO (§2.4); \p max: the largest (§2.5); \p granularity: G of §2.2.
    RtoEstimator(Time floor, Time max, Time granularity = Time(0));

    /// A round-trip sample of a packet sent once (Karn's rule is the caller's); clears the
    /// backoff.
    void Sample(Time rtt);

    /// The timer expired: the RTO doubles, up to the maximum (§5.5).
    void Backoff();

    /// The RTO now: the floor before any sample, SRTT + max(G, 4 RTTVAR) bounded by the floor
    /// and the maximum, doubled once per expiry since the last sample.
    Time GetRto() const;

    bool HasSample() const
    {
        return m_hasSample;
    }

    Time GetSrtt() const
    {
        return PicoSeconds(m_srttPs);
    }

    Time GetRttvar() const
    {
        return PicoSeconds(m_rttvarPs);
    }

    uint32_t GetBackoffs() const
    {
        return m_backoffs;
    }

  private:
    int64_t m_floorPs = 0;
    int64_t m_maxPs = INT64_MAX;
    int64_t m_granularityPs = 0;
    int64_t m_srttPs = 0;
    int64_t m_rttvarPs = 0;
    bool m_hasSample = false;
    uint32_t m_backoffs = 0;
};

} // namespace ns3

#endif
