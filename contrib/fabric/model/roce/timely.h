#ifndef FABRIC_TIMELY_H
#define FABRIC_TIMELY_H

#include "roce-congestion-control.h"

#include "ns3/data-rate.h"
#include "ns3/nstime.h"
#include "ns3/queue-size.h"

#include <cstdint>
#include <string>

namespace ns3
{

/**
 * \brief TIMELY rate control of one RoCE queue pair: the RTT gradient.
 *
 * Mittal et al., "TIMELY: RTT-based Congestion Control for the Datacenter", SIGCOMM 2015,
 * §4 and Algorithm 1. Each update takes an RTT sample new_rtt:
 *
 *   new_rtt_diff = new_rtt - prev_rtt;  prev_rtt = new_rtt
 *   rtt_diff     = (1 - Alpha) rtt_diff + Alpha new_rtt_diff          (EWMA)
 *   gradient     = rtt_diff / MinRtt                                   (normalised)
 *   new_rtt < TLow:        increase                                    (no queue: probe)
 *   new_rtt > THigh:       rate *= 1 - Beta (1 - THigh / new_rtt)        (queue too long)
 *   gradient <= 0:         increase
 *   gradient > 0:          rate *= max(0, 1 - Beta gradient)             (queue building)
 *
 * floored at MinRate, capped at the line rate. The first update only records prev_rtt. The QP
 * starts at line rate. When an update happens and what "increase" adds come in two variants
 * (attribute Variant):
 *
 *  - Paper (default): Algorithm 1. An update per completion event, an ACK that completes a
 *    Segment of payload (the paper's 16-64 KB chunks) or the message's last byte. Below TLow
 *    the rate grows by AdditiveIncrease δ; in the gradient <= 0 branch by N δ, N = HaiMultiplier
 *    once HaiThreshold such completions came in a row (any other branch ends the run), else 1.
 *    The rate is a real number of bit/s.
 *
 *  - Simulator: what the HPCC-family simulators run (alibaba-edu/High-Precision-Congestion-Control
 *    simulation/src/point-to-point/model/rdma-hw.cc:923-993, HandleAckTimely / UpdateRateTimely;
 *    the same code in inet-tub/ns3-datacenter simulator/ns-3.39/src/point-to-point/model/
 *    rdma-hw.cc:1103-1170; line numbers below are ns3-datacenter's). One update per round trip
 *    of data: an ACK updates when its cumulative sequence passes the snd_nxt recorded at the
 *    previous update (lines 1106, 1166-1170); every other ACK does nothing (FastReactTimely is
 *    empty, 1172-1173). The first such ACK only records snd_nxt and its RTT (1116). Every
 *    increase, the new_rtt < TLow rule's too, adds RATE_AI = AdditiveIncrease while fewer than
 *    HaiThreshold increases came since the last decrease, RATE_HAI = HaiMultiplier x
 *    AdditiveIncrease after that (m_incStage, 1139-1150); every decrease resets the count
 *    (1156). The arithmetic is the reference's: the RTT sample (the ACK's echo of the data
 *    packet's send time) in whole nanoseconds, the rate in whole bit/s, a cut truncating
 *    rate x c (ns-3's DataRate * double), then max(MinRate, .) (1153).
 *
 * | Attribute        | Default  | Source                                                   |
 * |------------------|----------|----------------------------------------------------------|
 * | Variant          | Paper    | the published algorithm; simulator: see above            |
 * | Alpha            | 0.875    | paper (EWMA α); HPCC sim TimelyAlpha (rdma-hw.cc:142-146)|
 * | Beta             | 0.8      | paper (β); HPCC sim TimelyBeta (rdma-hw.cc:147-151)      |
 * | AdditiveIncrease | 10Mbps   | paper (δ = 10 Mb/s, 10G NICs); HPCC sim RATE_AI          |
 * | TLow             | 50us     | paper; HPCC sim TimelyTLow (rdma-hw.cc:152-156)          |
 * | THigh            | 500us    | paper; HPCC sim TimelyTHigh (rdma-hw.cc:157-161)         |
 * | MinRtt           | 20us     | paper (normalisation); HPCC sim TimelyMinRtt (162-166)   |
 * | HaiThreshold     | 5        | paper Algorithm 1 (N = 5 after five completions); HPCC   |
 * |                  |          | sim m_incStage < 5 (ns3-datacenter rdma-hw.cc:1140)      |
 * | HaiMultiplier    | 5        | paper Algorithm 1; HPCC sim RATE_HAI / RATE_AI = 5       |
 * |                  |          | (simulation/run.py:133-134)                              |
 * | Segment          | 16KiB    | paper (segments of 16-64 KB per completion); Paper only  |
 * | MinRate          | 100Mbps  | HPCC simulator MinRate                                   |
 *
 * (HPCC sim lines: alibaba-edu/High-Precision-Congestion-Control
 * simulation/src/point-to-point/model/rdma-hw.cc.)
 *
 * The paper's thresholds are for 10 Gb/s hosts with tens of µs of software RTT; a 400 Gb/s
 * fabric with a few µs of base RTT needs them scaled (examples/cc-incast.yaml).
 */
class TimelyCongestionControl : public RoceCongestionControl
{
  public:
    /// When TIMELY updates and how it increases (see the class comment).
    enum Variant
    {
        PAPER,    ///< Algorithm 1: per Segment completion, hyper increase after N gradients <= 0
        SIMULATOR ///< the HPCC simulator: once per RTT of data, every increase counts
    };

    static TypeId GetTypeId();
    TimelyCongestionControl();
    ~TimelyCongestionControl() override;

    void Start(DataRate lineRate) override;
    void Stop() override;
    DataRate GetRate() const override;
    /// Ignored: TIMELY reacts to RTT only.
    void OnCnp() override;
    void OnBytesSent(uint32_t bytes) override;
    void OnAck(const CcFeedback& ack) override;
    /// "timely".
    std::string GetName() const override;
    /// The latest update's RTT.
    CcTraceState GetTraceState() const override;

    /// The EWMA of RTT differences, rtt_diff.
    Time GetRttDiff() const;
    /// Updates (Paper: completion events; Simulator: once-per-RTT points) since Start, the
    /// first one, which only records its RTT, included.
    uint32_t GetCompletions() const;

  private:
    /// Paper: one completion event with RTT sample \p rtt.
    void Completion(Time rtt);
    /// Simulator: HandleAckTimely (ns3-datacenter rdma-hw.cc:1103-1111).
    void SimulatorAck(const CcFeedback& ack);
    /// Simulator: UpdateRateTimely (ns3-datacenter rdma-hw.cc:1112-1170) for an ACK past the
    /// recorded snd_nxt, with RTT \p rttNs and the sender's snd_nxt \p sndNxt.
    void SimulatorUpdate(int64_t rttNs, uint64_t sndNxt);

    // Attributes
    Variant m_variant;
    double m_alpha;
    double m_beta;
    DataRate m_additiveIncrease;
    Time m_tLow;
    Time m_tHigh;
    Time m_minRtt;
    uint32_t m_haiThreshold;
    uint32_t m_haiMultiplier;
    QueueSize m_segment;
    DataRate m_minRate;

    // State
    double m_lineRate{0}; ///< bit/s
    double m_rate{0};     ///< bit/s
    double m_rttDiff{0};  ///< seconds
    Time m_prevRtt;
    Time m_lastRtt;
    uint32_t m_negativeRun{0}; ///< consecutive completions with gradient <= 0
    uint32_t m_completions{0};
    uint64_t m_segmentBytes{0}; ///< acknowledged towards the next completion

    // Simulator state (the reference's qp->tmly, rdma-queue-pair.cc)
    uint64_t m_curRate{0};       ///< m_curRate, bit/s
    uint64_t m_lineRateBps{0};   ///< m_max_rate, bit/s
    uint64_t m_ackedBytes{0};    ///< cumulative payload acknowledged: the ACK's sequence
    uint64_t m_lastUpdateSeq{0}; ///< snd_nxt at the last update
    int64_t m_lastRttNs{0};      ///< lastRtt: the RTT of the last update, ns
    double m_rttDiffNs{0};       ///< rttDiff, ns
    uint32_t m_incStage{0};      ///< increases since the last decrease
};

} // namespace ns3

#endif
