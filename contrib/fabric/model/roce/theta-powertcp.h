#ifndef FABRIC_THETA_POWERTCP_H
#define FABRIC_THETA_POWERTCP_H

#include "roce-congestion-control.h"

#include <cstdint>
#include <string>

namespace ns3
{

/**
 * \brief θ-PowerTCP sender of one RoCE queue pair: PowerTCP's power estimated from the RTT and
 * its gradient alone, without switch support (no INT).
 *
 * Addanki, Michel and Schmid, "PowerTCP: Pushing the Performance Limits of Datacenter
 * Networks", NSDI 2022, Algorithm 2 (docs/models.md#theta-powertcp). Each ACK brings
 * an RTT sample θ at time t_c; with τ the base RTT:
 *
 *   θ̇ = (θ - θ_prev) / (t_c - t_c_prev)            RTT gradient
 *   Γ  = (θ̇ + 1) θ / τ                             normalised power
 *   Γ_n <- (Γ_n (τ - Δt) + Γ Δt) / τ,   Δt = min(t_c - t_c_prev, τ)
 *
 * The rate R (the window is W = R τ, the pacing rate R) then follows one of two variants
 * (attribute Variant):
 *
 *  - Simulator (default): the authors' simulator, inet-tub/ns3-datacenter, simulator/ns-3.39/
 *    src/point-to-point/model/rdma-hw.cc, UpdateRatePower with PowerTCPdelay (lines 980-1093).
 *    τ is the smallest RTT seen so far, starting from BaseRtt (line 992); the gradient term
 *    θ̇ + 1 is floored at 0.5 (lines 1031-1033); Γ = (θ̇ + 1) θ / (1.05 τ) (lines 1034-1035:
 *    DelayTarget 1.05, an RTT 5% above the base is equilibrium); on every ACK
 *
 *      R = γ (R_c / Γ_n + β) + (1 - γ) R_c                                  (line 1070)
 *
 *    against the reference rate R_c, which takes R once per RTT (lines 1082-1091: when the
 *    ACK passes the byte that was next to send at the last such update).
 *
 *  - Paper: Algorithm 2 as published (transcribed in the authors' Linux module,
 *    inet-tub/powertcp-linux tcp_powertcp.c): θ̇ + 1 floored at 0 only (a power cannot be
 *    negative), no 1.05, Γ_n on every ACK, and the
 *    window only once per RTT: R <- γ (R / Γ_n + β) + (1 - γ) R, the rate in force when the
 *    acknowledged data was sent being the current one (it changes only at these updates).
 *    τ is the smallest RTT seen, as in the simulator (the Linux module uses tcp_min_rtt).
 *
 * R stays within [MinRate, B] (B: the NIC's line rate) and starts at B. The first ACK only
 * records θ and t_c (the simulator reads an uninitialised previous sample there); an ACK at
 * the same instant as the last gives no gradient and is ignored.
 *
 * Defaults and sources (ref = inet-tub/ns3-datacenter, simulator/ns-3.39; burst =
 * examples/PowerTCP/config-burst.txt, the authors' burst experiment):
 *
 * | Attribute   | Default   | Source                                                         |
 * |-------------|-----------|----------------------------------------------------------------|
 * | Variant     | Simulator | what users compare against: the authors' simulator             |
 * | Gamma       | 0.7       | ref rdma-hw.cc:1070 (0.7 / 0.3 in delay mode)                  |
 * | Beta        | 150Mbps   | ref rdma-hw.cc:1070 (DataRate("150Mbps")); the window's β τ    |
 * | DelayTarget | 1.05      | ref rdma-hw.cc:1035 (Simulator variant only)                   |
 * | BaseRtt     | 10us      | τ before the first, smaller RTT sample (ref: the topology's     |
 * |             |           | largest base RTT, maxRtt); 10us as ns3::RdmaNic::BaseRtt       |
 * | MinRate     | 100Mbps   | burst:24 MIN_RATE 100Mb/s                                      |
 */
class ThetaPowerTcpCongestionControl : public RoceCongestionControl
{
  public:
    /// Which rule runs (see the class comment).
    enum Variant
    {
        SIMULATOR, ///< the authors' simulator: floor, 1.05, γ against the reference rate
        PAPER      ///< Algorithm 2 of the paper: once per RTT, γ against the current rate
    };

    static TypeId GetTypeId();

    void Start(DataRate lineRate) override;
    void Stop() override;
    /// R, at most the line rate.
    DataRate GetRate() const override;
    /// Ignored: θ-PowerTCP reacts to RTT samples only.
    void OnCnp() override;
    void OnBytesSent(uint32_t bytes) override;
    void OnAck(const CcFeedback& ack) override;
    /// W = R τ, bytes (at least 1).
    uint64_t GetWindow() const override;
    std::string GetName() const override;
    /// Window, the latest RTT and Γ_n (in the utilisation column).
    CcTraceState GetTraceState() const override;

    /// R, bit/s.
    double GetRateBps() const
    {
        return m_rate;
    }

    /// R_c (Simulator): the rate the next update divides, bit/s.
    double GetReferenceRateBps() const
    {
        return m_rateRef;
    }

    /// Smoothed normalised power Γ_n.
    double GetNormalisedPower() const
    {
        return m_power;
    }

    /// τ: the base RTT in use.
    Time GetBaseRtt() const
    {
        return m_tau;
    }

  private:
    Variant m_variant;
    double m_gamma;
    DataRate m_beta;
    double m_delayTarget;
    Time m_baseRtt;
    DataRate m_minRate;

    double m_lineRate = 0; ///< bit/s
    double m_rate = 0;     ///< R, bit/s
    double m_rateRef = 0;  ///< R_c, bit/s
    double m_power = 1;    ///< Γ_n
    Time m_tau;            ///< τ
    bool m_havePrev = false;
    Time m_prevRtt;
    Time m_prevTime;
    Time m_lastRtt;
    uint64_t m_ackedBytes = 0;
    uint64_t m_lastUpdateSeq = 0;
};

} // namespace ns3

#endif
