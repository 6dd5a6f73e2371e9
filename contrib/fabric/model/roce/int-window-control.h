#ifndef FABRIC_INT_WINDOW_CONTROL_H
#define FABRIC_INT_WINDOW_CONTROL_H

#include "roce-congestion-control.h"

#include <cstdint>

namespace ns3
{

/**
 * \brief Skeleton of a RoCE sender whose window W follows the INT stack echoed on every ACK
 * (wire/int-header.h): HPCC (hpcc.h) and PowerTCP (powertcp.h).
 *
 * What the algorithms share: W starts at the line-rate window B T (B: the NIC's line rate,
 * T: BaseRtt) and stays within [MinRate T, B T]; the QP paces at W / T, capped at B. On each ACK
 * carrying a complete stack, every hop is compared with the previous ACK's record of the same
 * hop; the largest per-hop signal, with the Δt of that hop (at most T), is smoothed into the
 * algorithm's congestion estimate, and the window is recomputed. Once per RTT (when the ACK
 * covers the byte that was next to send at the last such update) the update also moves the
 * algorithm's reference window. The first ACK, and an ACK whose hop count differs from the
 * last, only record the hops: no rate can be computed from them.
 *
 * The subclass registers BaseRtt and MinRate among its own attributes (ns-3.37's
 * Config::SetDefault does not look in a parent TypeId), with accessors to the members here.
 */
class IntWindowControl : public RoceCongestionControl
{
  public:
    static TypeId GetTypeId();

    /// W = B T, the algorithm's own state from StartAlgorithm.
    void Start(DataRate lineRate) override;
    void Stop() override;
    /// W / T, at most the line rate.
    DataRate GetRate() const override;
    /// Ignored: these algorithms react to INT only (switches may still mark ECN).
    void OnCnp() override;
    void OnBytesSent(uint32_t bytes) override;
    void OnAck(const CcFeedback& ack) override;
    /// W in bytes (at least 1).
    uint64_t GetWindow() const override;
    /// True: every data packet carries an INT stack.
    bool UsesInt() const override;
    /// Window, the latest RTT and the congestion estimate (in the utilisation column).
    CcTraceState GetTraceState() const override;

    /// The window W, bytes.
    double GetWindowBytes() const
    {
        return m_w;
    }

  protected:
    /// Bytes sent at \p bitsPerSecond during \p t (in whole nanoseconds, so that round rates
    /// and times give exact windows).
    static double BytesIn(double bitsPerSecond, Time t);

    /// Resets the algorithm's state at Start, once the line rate and window bounds are set.
    virtual void StartAlgorithm() = 0;
    /// The congestion signal of one hop over the \p dt seconds since \p prev (both records of
    /// a hop with a known line rate).
    virtual double HopSignal(const IntHop& hop, const IntHop& prev, double dt) const = 0;
    /// Smooths \p peak, the largest hop signal of this ACK, measured over \p dt seconds
    /// (at most T), into the congestion estimate.
    virtual void Smooth(double peak, double dt) = 0;
    /// Recomputes m_w within [m_minWindow, m_maxWindow]; \p newRtt: the once-per-RTT update
    /// of the reference window is due.
    virtual void UpdateWindow(bool newRtt) = 0;
    /// The congestion estimate traced in the utilisation column.
    virtual double GetCongestionEstimate() const = 0;
    /// Whether the first ACK with telemetry is measured against hop records of zeros, as the
    /// PowerTCP authors' simulator does (its qp->hp.hop[] starts zeroed and UpdateRatePower has
    /// no first-RTT case: inet-tub/ns3-datacenter rdma-hw.cc:1005-1012), instead of only being
    /// recorded (HPCC's first RTT, rdma-hw.cc:801-806). Default false.
    virtual bool MeasuresFirstAck() const;

    // Attributes, registered by the subclass
    Time m_baseRtt;     ///< T
    DataRate m_minRate; ///< floor of W / T

    // State
    double m_lineRate = 0;  ///< B of the NIC, bit/s
    double m_maxWindow = 0; ///< B T, bytes
    double m_minWindow = 0; ///< MinRate T, bytes
    double m_w = 0;         ///< W, bytes

  private:
    /// Feeds the largest hop signal of \p now against m_prev to Smooth; false when no hop
    /// gives a sample.
    bool Measure(const IntStack& now);

    uint64_t m_ackedBytes = 0;    ///< cumulative: the ACK's sequence, in payload bytes
    uint64_t m_lastUpdateSeq = 0; ///< snd_nxt at the last once-per-RTT update
    bool m_havePrev = false;      ///< m_prev holds the last ACK's hops
    IntStack m_prev;
    Time m_lastRtt;
};

} // namespace ns3

#endif
