#ifndef FABRIC_NSCC_H
#define FABRIC_NSCC_H

#include "ub-congestion-control.h"

#include "ns3/data-rate.h"
#include "ns3/nstime.h"

#include <cstdint>

namespace ns3
{

/**
 * \file
 * NSCC, the Network Signal-based Congestion Control of the Ultra Ethernet 1.0 specification
 * (transport layer, congestion management: NSCC), as a window strategy of a UB transport
 * channel. The behaviour follows the specification's description and the UEC reference
 * simulator (uet-htsim, htsim/sim/uec.cpp: UecSrc::initNsccParams, updateCwndOnAck_NSCC,
 * updateCwndOnNack_NSCC and the functions they call); the code here is written afresh.
 *
 * Signals, per ACK: the ECN echo of the packet that triggered it (switches mark CE with the
 * ordinary ECN curve, switch.ecn), the RTT of the newest packet it acknowledges, and the bytes
 * it newly acknowledges. Queuing delay d = RTT - base RTT, where the base RTT starts at
 * NetworkRtt and follows the smallest RTT seen.
 *
 * Window update per ACK, by quadrant (T = target queuing delay):
 *  - no ECN, d >= T: fair increase: inc += FI * acked (the delay is not this path's
 *    bottleneck, since nothing marked; every flow gains the same per RTT);
 *  - no ECN, d <  T: proportional increase: inc += alpha * acked * (T - d); or, when d stayed
 *    below FastIncreaseDelay for more than a window of acked bytes, fast increase:
 *    W += FastIncreaseScale * a * acked at once;
 *  - ECN,    d >= T: multiplicative decrease, at most once per base RTT:
 *    W *= max(1 - Gamma * (D - T) / D, MaxDecrease), D the averaged delay (only when D > T);
 *  - ECN,    d <  T: no change (the mark is transient or from another hop).
 * Increases accumulate in inc and are applied by the fulfill adjustment, once more than
 * AdjustPackets MTUs have been acknowledged or AdjustPeriod has passed: W += inc / W (i.e. inc
 * is "bytes x bytes per window": FI * W acked over a window gives FI), plus Eta once per
 * AdjustPeriod.
 * Averaged delay: D += DelayWeight * (s - D) per RTT sample, s = d, except s = base RTT / 4
 * when the packet was not marked but d > T (the delay is not trusted without a mark).
 * Quick adapt: every base RTT + T, if in that interval a loss occurred or d exceeded
 * QuickAdaptDelayFactor * T while fewer than (max window >> QuickAdaptGate) bytes were
 * acknowledged, W = max(bytes acknowledged in the interval, one MTU), and the marked ACKs of
 * the bytes then in flight are ignored. A lost packet also takes its size off W.
 * Window bounds: one frame <= W <= MaxWindowBdp * BDP, BDP = base RTT * line rate; the
 * initial window is the maximum.
 *
 * Scaling with link rate and RTT (UEC 1.0 NSCC parameters; initNsccParams of uet-htsim): with
 * the reference BDP = ReferenceRtt * ReferenceRate = 12 us * 100 Gb/s = 150 kB,
 *   a = NetworkRtt * line rate / reference BDP,   b = T / ReferenceRtt,
 *   FI = FairIncrease * MTU * a,   Eta = Eta * MTU * a,
 *   alpha = ProportionalGain * MTU * a * b / T   (bytes per second of delay headroom).
 * Defaults (uet-htsim): FairIncrease 5, ProportionalGain 4, Eta 0.15, FastIncreaseScale 0.25,
 * FastIncreaseDelay 1 us, Gamma 0.8, MaxDecrease 0.5, DelayWeight 0.0125, QuickAdaptGate 3
 * (one eighth), QuickAdaptDelayFactor 4, AdjustPackets 8, AdjustPeriod = NetworkRtt,
 * T = NetworkRtt, or 0.75 x NetworkRtt when the switches trim (TrimmingEnabled, set by
 * switch.trim.enabled; uec.cpp:104-111), MaxWindowBdp 1.5.
 *
 * Differences from uet-htsim, where UB differs from UET: UB ACKs may acknowledge several
 * packets (ub.ack_interval); the ECN echo and RTT are those of the packet that triggered the
 * ACK, applied to all the bytes it acknowledges. A trimmed packet's NACK and the packets the UB
 * NIC deems lost (reorder window or timeout) are handled as UET's NACK.
 */
class NsccCongestionControl : public UbCongestionControl
{
  public:
    /// What the last ACK did (traced and tested).
    enum Quadrant
    {
        NONE = 0,                    ///< no ACK yet, or the ACK was taken by quick adapt
        FAIR_INCREASE = 1,           ///< no ECN, delay >= target
        PROPORTIONAL_INCREASE = 2,   ///< no ECN, delay < target
        MULTIPLICATIVE_DECREASE = 3, ///< ECN, delay >= target
        NO_CHANGE = 4,               ///< ECN, delay < target
        FAST_INCREASE = 5            ///< proportional quadrant with delay near zero for a window
    };

    static TypeId GetTypeId();
    NsccCongestionControl();

    void Start(DataRate lineRate, uint32_t mtu) override;

    /// The window to the nearest byte (the products of the formulas are not exact in binary).
    uint64_t GetWindow() const override
    {
        return static_cast<uint64_t>(m_window + 0.5);
    }

    UbCci OnSend(uint32_t frameBytes) override;
    void OnAck(const CcFeedback& feedback) override;
    void OnLoss(uint32_t frameBytes) override;

    std::string GetName() const override
    {
        return "nscc";
    }

    /// The averaged queuing delay D, in microseconds.
    double GetTraceValue() const override;

    /// The window, the last RTT and D / T (1: the averaged delay is at the target).
    CcTraceState GetTraceState() const override;

    Quadrant GetLastQuadrant() const
    {
        return m_quadrant;
    }

    Time GetTargetDelay() const
    {
        return m_target;
    }

    Time GetBaseRtt() const
    {
        return m_baseRtt;
    }

    Time GetAverageDelay() const
    {
        return m_avgDelay;
    }

    /// Increase accumulated since the last fulfill adjustment (bytes x bytes).
    double GetPendingIncrease() const
    {
        return m_pendingIncrease;
    }

    uint64_t GetMaxWindow() const
    {
        return static_cast<uint64_t>(m_maxWindow + 0.5);
    }

    /// The scaled constants (bytes; alpha in bytes per second).
    double GetFairIncreaseBytes() const
    {
        return m_fi;
    }

    double GetAlpha() const
    {
        return m_alphaScaled;
    }

    double GetEtaBytes() const
    {
        return m_etaScaled;
    }

    double GetScaleA() const
    {
        return m_scaleA;
    }

  private:
    void SetBaseRtt(Time rtt);
    void UpdateAverageDelay(Time delay, bool marked);
    /// Returns true when this ACK is taken by quick adapt (or ignored after one).
    bool QuickAdapt(bool loss, bool marked, Time delay);
    void ProportionalIncrease(double acked, Time delay);
    void MultiplicativeDecrease();
    void FulfillAdjustment();
    void Clamp();

    // Attributes
    Time m_networkRtt;
    Time m_targetAttr;
    bool m_trimmingEnabled;
    DataRate m_referenceRate;
    Time m_referenceRtt;
    double m_fairIncrease;
    double m_proportionalGain;
    double m_eta;
    double m_fastIncreaseScale;
    Time m_fastIncreaseDelay;
    double m_gamma;
    double m_maxDecrease;
    double m_delayWeight;
    uint32_t m_quickAdaptGate;
    double m_quickAdaptDelayFactor;
    uint32_t m_adjustPackets;
    Time m_adjustPeriodAttr;
    double m_maxWindowBdp;
    QueueSize m_initialWindow;

    // Derived at Start
    DataRate m_lineRate;
    double m_mtu = 4096;    ///< payload MTU (the MSS of the scaling formulas)
    double m_minWindow = 0; ///< one full frame
    Time m_target;
    Time m_adjustPeriod;
    double m_scaleA = 1;
    double m_fi = 0;
    double m_alphaScaled = 0; ///< bytes per second
    double m_etaScaled = 0;

    // State
    double m_window = 0;
    double m_maxWindow = 0;
    Time m_baseRtt;
    Time m_avgDelay;
    double m_pendingIncrease = 0;
    double m_receivedSinceAdjust = 0;
    Time m_lastAdjust;
    Time m_lastDecrease;
    double m_fastCount = 0;
    bool m_fastIncreasing = false;
    double m_inflight = 0;
    double m_achieved = 0; ///< bytes acknowledged in the current quick-adapt interval
    Time m_quickAdaptEnd;
    bool m_quickAdaptTriggered = false;
    bool m_quickAdaptStarted = false; ///< the first interval has no history to judge
    double m_bytesToIgnore = 0;
    double m_bytesIgnored = 0;
    Quadrant m_quadrant = NONE;
};

} // namespace ns3

#endif
