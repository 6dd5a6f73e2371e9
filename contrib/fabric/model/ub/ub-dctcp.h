#ifndef FABRIC_UB_DCTCP_H
#define FABRIC_UB_DCTCP_H

#include "ub-congestion-control.h"

#include <cstdint>

namespace ns3
{

/**
 * \file
 * DCTCP (Alizadeh et al., "Data Center TCP (DCTCP)", SIGCOMM 2010, §3.1) on a UB transport
 * channel's window. Switches mark CE above a queue threshold K (switch.ecn, a step:
 * kmin = kmax = K); each ACK echoes the mark of the packet that triggered it.
 *  - alpha, the estimate of the fraction of marked bytes, is updated once per window of data:
 *    alpha <- (1 - g) * alpha + g * F, F = marked bytes / acknowledged bytes over that window
 *    (paper eq. 1; g = 1/16, paper §3.4);
 *  - on a marked ACK the window is cut, at most once per window of data:
 *    W <- W * (1 - alpha / 2) (paper eq. 2), and slow start ends;
 *  - otherwise TCP's growth: slow start (W += acknowledged bytes) until the first cut, then
 *    congestion avoidance, AdditiveIncrease MTUs per window of data (W += MTU * B / W), and
 *    only while the window limits the channel (the bytes in flight before the ACK left no room
 *    for one more full frame: Linux tcp_is_cwnd_limited, RFC 7661 §4.1). A channel its line
 *    rate holds back keeps its window near line rate x RTT instead of growing without bound.
 * The initial window is InitialWindow (0 = 10 MTU, as TCP's IW10 and C-AQM here); alpha starts
 * at InitialAlpha = 1 (the Linux dctcp module's default: the first cut halves).
 * A lost packet halves the window at most once per window of data (TCP's reaction to loss).
 */
class UbDctcp : public UbCongestionControl
{
  public:
    static TypeId GetTypeId();
    UbDctcp();

    void Start(DataRate lineRate, uint32_t mtu) override;

    uint64_t GetWindow() const override
    {
        return static_cast<uint64_t>(m_window);
    }

    UbCci OnSend(uint32_t frameBytes) override;
    void OnAck(const CcFeedback& feedback) override;
    void OnLoss(uint32_t frameBytes) override;

    std::string GetName() const override
    {
        return "dctcp";
    }

    /// alpha, the marked fraction estimate.
    double GetTraceValue() const override
    {
        return m_alpha;
    }

    double GetAlpha() const
    {
        return m_alpha;
    }

    /// The window, the last RTT and alpha.
    CcTraceState GetTraceState() const override
    {
        CcTraceState state = UbCongestionControl::GetTraceState();
        state.alpha = m_alpha;
        return state;
    }

    bool InSlowStart() const
    {
        return m_slowStart;
    }

  private:
    /// A window of data has been acknowledged since the last cut: another may follow.
    bool MayCut() const
    {
        return m_ackedSinceCut >= m_windowAtCut;
    }

    void Cut(double factor);

    double m_g;
    double m_initialAlpha;
    double m_additiveIncrease;
    QueueSize m_initialWindow;

    double m_mtu = 4096;
    double m_minWindow = 0;
    double m_window = 0;
    double m_alpha = 1;
    bool m_slowStart = true;
    double m_observedBytes = 0; ///< acknowledged in the current alpha observation window
    double m_markedBytes = 0;
    double m_observationWindow = 0; ///< its length: the window when it began
    double m_ackedSinceCut = 0;
    double m_windowAtCut = 0;
};

} // namespace ns3

#endif
