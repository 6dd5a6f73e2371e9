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
 *   λ_i  = q̇_i + µ_i                           arrival rate ("current")
 *   Γ_i  = λ_i (qlen_i + B_i τ) / (B_i² τ)      power over the base power e = B² τ
 *   Γ'   = max_i Γ_i, Δt of that hop (at most τ)
 *   Γ_n <- (Γ_n (τ - Δt) + Γ' Δt) / τ          smoothed over one base RTT
 *
 * The window rule comes in two variants (attribute Variant):
 *
 *  - Simulator (default): what the authors' simulator runs (inet-tub/ns3-datacenter,
 *    simulator/ns-3.39/src/point-to-point/model/rdma-hw.cc, UpdateRatePower, lines 980-1093).
 *    λ is floored at half the line rate (lines 1020-1022), the smoothed power is divided by the
 *    target utilisation η (line 1064), and γ weighs the reference window W_c, which moves only
 *    once per RTT (lines 1082-1087; every other ACK is a "fast react" against the same W_c):
 *
 *      W = γ (W_c η / Γ_n + β) + (1 - γ) W_c,   once per RTT: W_c <- W        (line 1065)
 *
 *  - Paper: Algorithm 1 as published. λ = max(0, q̇ + µ), no η, and γ weighs the current
 *    window on every ACK, W_old being the window when the acknowledged data was sent (here:
 *    the window set at the last once-per-RTT point, as the authors' Linux module does,
 *    inet-tub/powertcp-linux powertcp.c update_old/get_cwnd):
 *
 *      W <- γ (W_old / Γ_n + β) + (1 - γ) W
 *
 *    Applied on every ACK, the (1 - γ) term decays within a round trip: W follows
 *    W_old / Γ_n + β almost at once.
 *
 * W stays within [MinRate τ, B τ] and paces at W / τ. The first ACK, and an ACK whose hop
 * count changed, only record the hops (the authors' simulator compares its first ACK with an
 * all-zero record instead).
 *
 * Defaults and sources (ref = inet-tub/ns3-datacenter, simulator/ns-3.39; rdma-hw.cc unless
 * named; burst = examples/PowerTCP/config-burst.txt, the authors' burst experiment):
 *
 * | Attribute | Default   | Source                                                           |
 * |-----------|-----------|------------------------------------------------------------------|
 * | Variant   | Simulator | what users compare against: the authors' simulator               |
 * | Gamma     | 0.9       | ref rdma-hw.cc:1065 (0.9 / 0.1); paper §4 (γ = 0.9)              |
 * | Eta       | 0.95      | ref m_targetUtil, burst:36 U_TARGET 0.95 (Simulator variant only) |
 * | Beta      | 0B        | 0B: 150 Mb/s x τ, ref rdma-hw.cc:1065 (DataRate("150Mbps"))      |
 * | BaseRtt   | 10us      | τ: base RTT (ref: the topology's largest, maxRtt); 10us as       |
 * |           |           | ns3::RdmaNic::BaseRtt                                            |
 * | MinRate   | 100Mbps   | ref m_minRate, burst:24 MIN_RATE 100Mb/s                         |
 */
class PowerTcpCongestionControl : public IntWindowControl
{
  public:
    /// Which window rule runs (see the class comment).
    enum Variant
    {
        SIMULATOR, ///< the authors' simulator: η, λ >= B/2, γ against the reference window
        PAPER      ///< Algorithm 1 of the paper: γ against the current window on every ACK
    };

    static TypeId GetTypeId();

    std::string GetName() const override;

    /// The window W_c (Simulator) or W_old (Paper) the next update divides, bytes.
    double GetReferenceWindow() const
    {
        return m_wOld;
    }

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
    /// Γ_i / (B_i² τ) of NORMPOWER in Algorithm 1 (λ floored at B/2 in the Simulator variant).
    double HopSignal(const IntHop& hop, const IntHop& prev, double dt) const override;
    /// Γ_n <- (Γ_n (τ - Δt) + Γ' Δt) / τ.
    void Smooth(double peak, double dt) override;
    /// The variant's window rule.
    void UpdateWindow(bool newRtt) override;
    bool MeasuresFirstAck() const override;
    /// Γ_n.
    double GetCongestionEstimate() const override;

  private:
    Variant m_variant;
    double m_gamma;
    double m_eta;
    QueueSize m_beta;

    double m_betaBytes = 0;
    double m_wOld = 0;
    double m_power = 1;
};

} // namespace ns3

#endif
