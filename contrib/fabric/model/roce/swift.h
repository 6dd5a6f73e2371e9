#ifndef FABRIC_SWIFT_H
#define FABRIC_SWIFT_H

#include "roce-congestion-control.h"

#include "ns3/data-rate.h"
#include "ns3/nstime.h"
#include "ns3/queue-size.h"

#include <cstdint>
#include <string>

namespace ns3
{

/**
 * \brief Swift window control of one RoCE queue pair: a target delay.
 *
 * Kumar et al., "Swift: Delay is Simple and Effective for Congestion Control in the
 * Datacenter", SIGCOMM 2020, Algorithm 1 and §3.5. The delay is the ACK's RTT sample (NIC
 * timestamps; this model has no host processing delay, so fabric delay = RTT). cwnd is kept
 * in packets of Mtu payload bytes.
 *
 *   target = BaseTarget + hops x PerHopScaling
 *            + clamp(a / sqrt(cwnd) + b, 0, FsRange)                       (§3.5)
 *            with a = FsRange / (1/sqrt(FsMinCwnd) - 1/sqrt(FsMaxCwnd)), b = -a / sqrt(FsMaxCwnd)
 *   delay < target:  cwnd += AdditiveIncrease x acked / cwnd   (cwnd >= 1)
 *                    cwnd += AdditiveIncrease x acked          (cwnd < 1)   acked in packets
 *   otherwise, at most once per RTT (now - last decrease >= delay):
 *                    cwnd *= max(1 - Beta (delay - target) / delay, 1 - MaxMdf)
 *   cwnd clamped to [MinCwnd, MaxCwnd]; below one packet the QP is paced at cwnd / RTT
 *   (Algorithm 1's pacing_delay = rtt / cwnd between packets).
 *
 * Flow scaling raises the target of flows with small windows, so that many flows sharing a
 * bottleneck (each with a small cwnd) get a larger target and fairness improves (§3.5).
 * hops is the number of switches on the QP's path, as the NIC tells it (SetPathHops: the
 * topology's shortest path, which every equal-cost path the fabric routes on shares; the paper
 * reads it from the IP TTL of the ACKed packet, htsim from the route, htsim/sim/swift.cpp:792,
 * where it counts links, one more than switches). A non-zero Hops attribute overrides it; a QP
 * whose NIC knows no path counts 1 (a star).
 *
 * | Attribute        | Default | Source                                                     |
 * |------------------|---------|------------------------------------------------------------|
 * | BaseTarget       | 5us     | §3.5 defines it as the least target giving full use of one |
 * |                  |         | hop with few flows; no value published. Chosen: a few µs   |
 * |                  |         | above the sub-µs base RTT of this simulator's 400G star     |
 * | PerHopScaling    | 1us     | §3.5 h; chosen to match BaseTarget's scale                 |
 * | Hops             | 0       | 0: the QP's path (1 switch on a star); >0: fixed           |
 * | FsRange          | 5us     | §3.5 fs_range; chosen = BaseTarget                         |
 * | FsMinCwnd        | 0.1     | packets; value of public reimplementations (htsim)         |
 * | FsMaxCwnd        | 100     | packets; value of public reimplementations (htsim)         |
 * | AdditiveIncrease | 1       | packets per RTT (Algorithm 1 ai; htsim 1)                  |
 * | Beta             | 0.8     | Algorithm 1 beta; htsim 0.8                                |
 * | MaxMdf           | 0.5     | Algorithm 1 max_mdf; htsim 0.5                             |
 * | MinCwnd          | 0.001   | packets; paper (cwnd below 1 packet, paced); htsim        |
 * | MaxCwnd          | 0B      | 0B: line rate x (BaseTarget + hops x PerHopScaling)        |
 * | Mtu              | 4096    | payload bytes per packet; the scenario sets host.mtu       |
 */
class SwiftCongestionControl : public RoceCongestionControl
{
  public:
    static TypeId GetTypeId();
    SwiftCongestionControl();
    ~SwiftCongestionControl() override;

    /// cwnd = MaxCwnd: the QP starts at line rate, as the other RoCE algorithms do.
    void Start(DataRate lineRate) override;
    void Stop() override;
    /// Line rate while cwnd >= 1 packet; cwnd / RTT below.
    DataRate GetRate() const override;
    /// Ignored: Swift reacts to delay only.
    void OnCnp() override;
    void OnBytesSent(uint32_t bytes) override;
    void OnAck(const CcFeedback& ack) override;
    /// cwnd in bytes (at least 1).
    uint64_t GetWindow() const override;
    /// "swift".
    std::string GetName() const override;
    /// Window and the latest delay.
    CcTraceState GetTraceState() const override;

    /// Switches on the QP's path (before Start).
    void SetPathHops(uint32_t switches) override;
    /// The hops the target is scaled by: Hops if set, else the path's, else 1.
    uint32_t GetHops() const;
    /// Target delay for the current cwnd.
    Time GetTargetDelay() const;
    /// cwnd in packets.
    double GetCwndPackets() const;

  private:
    // Attributes
    Time m_baseTarget;
    Time m_perHop;
    uint32_t m_hops;
    uint32_t m_pathHops = 0; ///< switches on the QP's path (0: unknown)
    Time m_fsRange;
    double m_fsMinCwnd;
    double m_fsMaxCwnd;
    double m_ai;
    double m_beta;
    double m_maxMdf;
    double m_minCwnd;
    QueueSize m_maxCwndAttr;
    uint32_t m_mtu;

    // State
    DataRate m_lineRate;
    double m_maxCwnd{1}; ///< packets
    double m_cwnd{1};    ///< packets
    Time m_lastDelay;
    Time m_lastDecrease;
    bool m_decreased{false}; ///< a decrease happened since Start
};

} // namespace ns3

#endif
