#ifndef FABRIC_HPCC_H
#define FABRIC_HPCC_H

#include "int-window-control.h"

#include "ns3/queue-size.h"

#include <cstdint>
#include <string>

namespace ns3
{

/**
 * \brief HPCC sender of one RoCE queue pair: a window from the utilisation the path's INT
 * reports.
 *
 * Li et al., "HPCC: High Precision Congestion Control", SIGCOMM 2019, Algorithm 1
 * (docs/models.md#hpcc). Every data packet carries an INT stack (wire/int-header.h) that each
 * switch egress stamps; the ACK echoes it. On each ACK, for every hop i against the previous
 * ACK's record of the same hop:
 *
 *   txRate_i = Δbytes_i / Δts_i
 *   u_i      = min(qlen_i, qlen_i_prev) / (B_i T) + txRate_i / B_i
 *   u = max_i u_i, τ = Δts of that hop, τ <- min(τ, T)
 *   U <- (1 - τ/T) U + (τ/T) u
 *
 * and the window (W_c is the reference window, updated once per RTT: when the ACK covers the
 * byte that was next to send at the last reference update, lastUpdateSeq):
 *
 *   U >= η or incStage >= MaxStage:  W = W_c / (U/η) + W_AI   (reference update: incStage = 0)
 *   otherwise:                       W = W_c + W_AI           (reference update: incStage++)
 *
 * W is kept within [MinRate T, B T] (B: the NIC's line rate) and paces at R = W / T. The first
 * ACK only records the hops; an ACK whose path reports more than kIntMaxHops hops, or a
 * different hop count than the last, is only recorded too (no rate can be computed from it).
 *
 * Defaults and sources (paper = HPCC SIGCOMM 2019; sim = the authors' ns-3 simulator,
 * alibaba-edu/High-Precision-Congestion-Control, rdma-hw.cc and run.py):
 *
 * | Attribute | Default | Source                                                              |
 * |-----------|---------|---------------------------------------------------------------------|
 * | Eta       | 0.95    | paper §3.3 and §5 (η = 95%); sim U_TARGET 0.95                     |
 * | MaxStage  | 5       | paper §5 (maxStage = 5); sim MI_THRESH 5 (run.py --mi)             |
 * | WAi       | 0B      | 0B: B T / 2500, the sim's RATE_AI = 10 bw/25 Mb/s (bw in Gb/s)     |
 * |           |         | times T; the paper sets W_AI = W_init (1 - η) / N for N flows      |
 * | BaseRtt   | 10us    | T: the fabric's base RTT (paper §3.2); 10us as ns3::RdmaNic::BaseRtt|
 * | MinRate   | 100Mbps | sim m_minRate (MinRate 100Mb/s)                                     |
 * | InitialU  | 1       | sim (hp.u starts at 1)                                              |
 */
class HpccCongestionControl : public IntWindowControl
{
  public:
    static TypeId GetTypeId();

    std::string GetName() const override;

    /// The smoothed utilisation U.
    double GetUtilisation() const
    {
        return m_u;
    }

    /// The reference window W_c, bytes.
    double GetReferenceWindow() const
    {
        return m_wc;
    }

    uint32_t GetIncreaseStage() const
    {
        return m_incStage;
    }

    /// W_AI in bytes (WAi, or its default from the line rate and T).
    double GetWindowAi() const
    {
        return m_wAiBytes;
    }

  protected:
    void StartAlgorithm() override;
    /// u_i of MeasureInflight in Algorithm 1.
    double HopSignal(const IntHop& hop, const IntHop& prev, double dt) const override;
    /// U <- (1 - τ/T) U + (τ/T) u.
    void Smooth(double peak, double dt) override;
    /// ComputeWind of Algorithm 1.
    void UpdateWindow(bool newRtt) override;
    /// U.
    double GetCongestionEstimate() const override;

  private:
    double m_eta;
    uint32_t m_maxStage;
    QueueSize m_wAi;
    double m_initialU;

    double m_wAiBytes = 0;
    double m_wc = 0; ///< W_c, bytes
    double m_u = 1;
    uint32_t m_incStage = 0;
};

} // namespace ns3

#endif
