#ifndef FABRIC_DCTCP_H
#define FABRIC_DCTCP_H

#include "roce-congestion-control.h"

#include "ns3/data-rate.h"
#include "ns3/nstime.h"
#include "ns3/queue-size.h"

#include <cstdint>
#include <string>

namespace ns3
{

/**
 * \brief DCTCP sender of one RoCE queue pair: an ECN-fraction window.
 *
 * Alizadeh et al., "Data Center TCP (DCTCP)", SIGCOMM 2010, §3.1 (the three parts: marking at
 * K, ECN-Echo, the controller), carried over to RoCE as the HPCC ns-3 simulator
 * (alibaba-edu/High-Precision-Congestion-Control, rdma-hw.cc HandleAckDctcp) does: receivers
 * echo CE in the ACK (here the BTH BECN bit, RdmaNic::EcnEcho, which `cc: dctcp` turns on), the
 * "window of data" is everything sent when the previous estimate was taken.
 *
 * - Per ACK: acked += ackedBytes, marked += ackedBytes if the ACK echoes ECN.
 * - Once per window of data (the first ACK beyond the bytes sent at the previous update):
 *   F = marked / acked over that window; alpha <- (1 - g) alpha + g F (paper eq. 1).
 * - ECN-echoed ACK outside CWR: cwnd <- max(MinWindow, cwnd (1 - alpha/2)) (paper eq. 2), then
 *   CWR until everything sent at the cut is acknowledged: at most one cut per RTT.
 * - Otherwise (not in CWR), and only if the window limited the QP since the previous ACK (the
 *   payload outstanding before this ACK had reached cwnd; Linux tcp_is_cwnd_limited, RFC 7661):
 *   congestion avoidance, cwnd += AdditiveIncrease x ackedBytes / cwnd, i.e. AdditiveIncrease
 *   per window acknowledged (one segment per RTT, as TCP's), at most MaxWindow. A QP that its
 *   line rate or pacer limits keeps its window, so a lone flow's window settles at line rate x
 *   RTT instead of growing without bound (and flooding the queue when others join).
 *
 * The window is the paper's mechanism (the HPCC simulator instead cuts a pacing rate and keeps
 * a fixed BDP window); the QP sends at line rate while the window is open, so the switch queue
 * sees the sawtooth of the paper's §3.3 analysis. The marking threshold K is the switch's:
 * `switch.ecn: {kmin: K, kmax: K, pmax: 1}` marks every packet that finds more than K queued.
 *
 * | Attribute        | Default | Source                                                      |
 * |------------------|---------|-------------------------------------------------------------|
 * | G                | 1/16    | paper §3.4 (g = 1/16); HPCC simulator EwmaGain default 1/16 |
 * | InitialAlpha     | 1       | Linux tcp_dctcp dctcp_alpha_on_init = 1024/1024 (cautious)  |
 * | InitialWindow    | 0B      | 0B: line rate x BaseRtt, the HPCC simulator's BDP window    |
 * | BaseRtt          | 4us     | round trip the initial window is sized for (400G star, 30 m |
 * |                  |         | cables: ~2 us propagation + serialisation; set per fabric)  |
 * | AdditiveIncrease | 4096B   | paper: one segment per RTT; one 4 KiB RoCE MTU packet       |
 * | MinWindow        | 4096B   | one packet (the NIC always lets one packet out)             |
 * | MaxWindow        | 0B      | none, as Linux (snd_cwnd_clamp); growth needs a full window |
 */
class DctcpCongestionControl : public RoceCongestionControl
{
  public:
    static TypeId GetTypeId();
    DctcpCongestionControl();
    ~DctcpCongestionControl() override;

    /// cwnd = InitialWindow (or line rate x BaseRtt), alpha = InitialAlpha, no CWR.
    void Start(DataRate lineRate) override;
    void Stop() override;
    /// Line rate: the window, not a pacer, limits the QP.
    DataRate GetRate() const override;
    /// Ignored: DCTCP hears congestion through ECN-echoing ACKs, not CNPs.
    void OnCnp() override;
    void OnBytesSent(uint32_t bytes) override;
    void OnAck(const CcFeedback& ack) override;
    /// cwnd in bytes.
    uint64_t GetWindow() const override;
    /// "dctcp".
    std::string GetName() const override;
    /// Alpha.
    double GetTraceValue() const override;
    /// Alpha, window and the latest RTT sample.
    CcTraceState GetTraceState() const override;

    double GetAlpha() const;
    /// Whether a cut happened and the data sent before it is not all acknowledged yet.
    bool InCwr() const;

  private:
    /// Whether the window stopped the QP at some time since the previous ACK.
    bool WasWindowLimited(const CcFeedback& ack) const;
    // Attributes
    double m_g;
    double m_initialAlpha;
    QueueSize m_initialWindow;
    Time m_baseRtt;
    QueueSize m_additiveIncrease;
    QueueSize m_minWindow;
    QueueSize m_maxWindow;

    // State
    DataRate m_lineRate;
    double m_cwnd{0}; ///< bytes
    double m_alpha{1};
    uint64_t m_ackedTotal{0};   ///< payload bytes acknowledged since Start
    uint64_t m_windowEnd{0};    ///< alpha is next updated once m_ackedTotal passes this
    bool m_firstWindow{true};   ///< no estimate window has begun yet
    uint64_t m_windowAcked{0};  ///< bytes acknowledged in the current estimate window
    uint64_t m_windowMarked{0}; ///< of which ECN-echoed
    bool m_cwr{false};
    uint64_t m_cwrEnd{0}; ///< CWR ends once m_ackedTotal passes this
    Time m_lastRtt;
};

} // namespace ns3

#endif
