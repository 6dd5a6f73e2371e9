#ifndef FABRIC_POWERTCP_H
#define FABRIC_POWERTCP_H

#include "int-window-control.h"

#include "ns3/queue-size.h"

#include <cstdint>
#include <string>

namespace ns3
{

/**
 * \brief PowerTCP sender (INT variant) of one RoCE queue pair: a window from the normalised
 * power of the most loaded hop.
 *
 * Addanki, Michel and Schmid, "PowerTCP: Pushing the Performance Limits of Datacenter
 * Networks", NSDI 2022, §3 and Algorithm 1 (docs/models.md#powertcp). For every hop i of the
 * echoed INT stack (wire/int-header.h), against the previous ACK's record of the same hop:
 *
 *   q̇_i  = (qlen_i - qlen_i_prev) / Δt_i        queue gradient
 *   µ_i  = Δbytes_i / Δt_i                      transmission rate
 *   Γ_i  = (q̇_i + µ_i) (qlen_i + B_i τ)         power: current x voltage (λ = q̇ + µ)
 *   Γ'   = max_i Γ_i / (B_i² τ)                 normalised by the base power e = B² τ; Δt of it
 *   Γ_n <- (Γ_n (τ - Δt) + Γ' Δt) / τ          smoothed over one base RTT (Δt <= τ)
 *
 * and the window, with W_old the window at the last once-per-RTT update (when the ACK covers
 * the byte that was next to send at the previous update):
 *
 *   W <- γ (W_old / Γ_n + β) + (1 - γ) W,  kept within [MinRate τ, B τ]; rate = W / τ.
 *
 * A hop whose arrival rate q̇ + µ comes out negative (its queue drained faster than it sent)
 * counts as 0. The first ACK, and an ACK whose hop count changed, only record the hops.
 *
 * Defaults and sources (paper = PowerTCP NSDI 2022; ref = the authors' simulator,
 * inet-tub/ns3-datacenter, rdma-hw.cc UpdateRatePower):
 *
 * | Attribute  | Default | Source                                                            |
 * |------------|---------|-------------------------------------------------------------------|
 * | Gamma      | 0.9     | paper's evaluation (γ = 0.9); ref 0.9                             |
 * | Beta       | 0B      | β, additive increase. 0B: 150 Mb/s x τ, the ref's DataRate 150Mbps|
 * | BaseRtt    | 10us    | τ: base RTT (paper §3); 10us as ns3::RdmaNic::BaseRtt             |
 * | MinRate    | 100Mbps | ref m_minRate (as HPCC's simulator)                               |
 */
class PowerTcpCongestionControl : public IntWindowControl
{
  public:
    static TypeId GetTypeId();

    std::string GetName() const override;

    /// Smoothed normalised power Γ_n.
    double GetNormalisedPower() const
    {
        return m_power;
    }

    /// β in bytes (Beta, or its default from τ).
    double GetBetaBytes() const
    {
        return m_betaBytes;
    }

  protected:
    void StartAlgorithm() override;
    /// Γ_i / (B_i² τ) of NORMPOWER in Algorithm 1.
    double HopSignal(const IntHop& hop, const IntHop& prev, double dt) const override;
    /// Γ_n <- (Γ_n (τ - Δt) + Γ' Δt) / τ.
    void Smooth(double peak, double dt) override;
    /// W <- γ (W_old / Γ_n + β) + (1 - γ) W; W_old <- W once per RTT.
    void UpdateWindow(bool newRtt) override;
    /// Γ_n.
    double GetCongestionEstimate() const override;

  private:
    double m_gamma;
    QueueSize m_beta;

    double m_betaBytes = 0;
    double m_wOld = 0;
    double m_power = 1;
};

} // namespace ns3

#endif
