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
 * §4 and Algorithm 1. A completion event is an ACK that completes a Segment of payload (the
 * paper's 16-64 KB chunks); its RTT sample new_rtt drives one update:
 *
 *   new_rtt_diff = new_rtt - prev_rtt;  prev_rtt = new_rtt
 *   rtt_diff     = (1 - Alpha) rtt_diff + Alpha new_rtt_diff          (EWMA)
 *   gradient     = rtt_diff / MinRtt                                   (normalised)
 *   new_rtt < TLow:        rate += AdditiveIncrease                      (no queue: probe)
 *   new_rtt > THigh:       rate *= 1 - Beta (1 - THigh / new_rtt)        (queue too long)
 *   gradient <= 0:         rate += N AdditiveIncrease, N = HaiMultiplier after
 *                          HaiThreshold consecutive such completions (hyper-active increase),
 *                          else N = 1
 *   gradient > 0:          rate *= 1 - Beta gradient                     (queue building)
 *
 * bounded to [MinRate, line rate]. The first completion only records prev_rtt. The QP starts at
 * line rate (the HPCC simulator's TIMELY does too).
 *
 * | Attribute        | Default  | Source                                                   |
 * |------------------|----------|----------------------------------------------------------|
 * | Alpha            | 0.875    | paper (EWMA α); HPCC sim TimelyAlpha                     |
 * | Beta             | 0.8      | paper (β); HPCC sim TimelyBeta                           |
 * | AdditiveIncrease | 10Mbps   | paper (δ = 10 Mb/s, 10G NICs)                            |
 * | TLow             | 50us     | paper; HPCC sim TimelyTLow                               |
 * | THigh            | 500us    | paper; HPCC sim TimelyTHigh                              |
 * | MinRtt           | 20us     | paper (normalisation); HPCC sim TimelyMinRtt             |
 * | HaiThreshold     | 5        | paper Algorithm 1 (N = 5 after five completions)         |
 * | HaiMultiplier    | 5        | paper Algorithm 1                                        |
 * | Segment          | 16KiB    | paper (segments of 16-64 KB per completion)              |
 * | MinRate          | 100Mbps  | HPCC simulator MinRate                                   |
 *
 * The paper's thresholds are for 10 Gb/s hosts with tens of µs of software RTT; a 400 Gb/s
 * fabric with a few µs of base RTT needs them scaled (examples/cc-incast.yaml).
 */
class TimelyCongestionControl : public RoceCongestionControl
{
  public:
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
    /// The latest completion's RTT.
    CcTraceState GetTraceState() const override;

    /// The EWMA of RTT differences, rtt_diff.
    Time GetRttDiff() const;
    /// Completion events seen since Start.
    uint32_t GetCompletions() const;

  private:
    /// One completion event with RTT sample \p rtt.
    void Completion(Time rtt);

    // Attributes
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
};

} // namespace ns3

#endif
