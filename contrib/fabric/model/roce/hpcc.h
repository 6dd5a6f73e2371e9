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
 * This is the authors' simulator's HpccCongestionControl with MULTI_RATE 0 (one U per QP),
 * FAST_REACT 1 (every ACK recomputes W against W_c) and SAMPLE_FEEDBACK 0: alibaba-edu/
 * High-Precision-Congestion-Control, simulation/src/point-to-point/model/rdma-hw.cc,
 * HandleAckHp (lines 744-752) and UpdateRateHp (754-913): u_i at line 800, the EWMA of U at
 * 827-829, the multiplicative / additive step at 830-838, the bounds at 839-842, W_c and the
 * stage committed once per RTT at 892-896, the next update point at 908-911. The simulator keeps a
 * rate R and sizes the window W = B T R / B_max (rdma-queue-pair.cc GetWin, VAR_WIN 1); here W is
 * the state and R = W / T, the same law.
 *
 * Defaults and sources (sim = that repository; run.py: simulation/run.py, the script the
 * authors' evaluation runs, which overrides scratch/third.cc's and rdma-hw.cc's defaults):
 *
 * | Attribute | Default | Source                                                              |
 * |-----------|---------|---------------------------------------------------------------------|
 * | Eta       | 0.95    | run.py:71 (--utgt 95) -> U_TARGET, run.py:40; paper §5 (η = 95%)   |
 * | MaxStage  | 0       | run.py:72 (--mi, default 0) -> MI_THRESH, run.py:41: a             |
 * |           |         | multiplicative step toward η on every update. (rdma-hw.cc:113 and  |
 * |           |         | third.cc:63 default to 5; run.py overrides them.)                  |
 * | WAi       | 0B      | 0B: B T / 2500 = RATE_AI x T, RATE_AI = 10 bw/25 Mb/s for a NIC of |
 * |           |         | bw Gb/s (run.py:112 ai = 10 * bw / 25 -> RATE_AI, run.py:26)       |
 * | BaseRtt   | 10us    | T: the fabric's base RTT (paper §3.2; sim: the topology's largest   |
 * |           |         | base RTT, third.cc:910-930); 10us as ns3::RdmaNic::BaseRtt          |
 * | MinRate   | 1Gbps   | run.py:28 MIN_RATE 1000Mb/s (third.cc:56's 100Mb/s is overridden)  |
 * | InitialU  | 1       | sim rdma-queue-pair.cc:49 (hp.u = 1)                                |
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
