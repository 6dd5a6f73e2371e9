#ifndef FABRIC_DCTCP_H
#define FABRIC_DCTCP_H

#include "congestion-control.h"

#include "ns3/data-rate.h"
#include "ns3/nstime.h"
#include "ns3/queue-size.h"

#include <cstdint>
#include <string>

namespace ns3
{

/**
 * \brief DCTCP sender of one RoCE queue pair or one UB transport channel: an ECN-fraction
 * window, the same class under both NICs (`cc: dctcp`).
 *
 * Alizadeh et al., "Data Center TCP (DCTCP)", SIGCOMM 2010, §3.1 (the three parts: marking at
 * K, ECN-Echo, the controller), as RFC 8257 §3.3 specifies the sender. Receivers echo CE in
 * the ACK (RoCE: the BTH BECN bit, RdmaNic::EcnEcho, which `cc: dctcp` turns on; UB: the ACK's
 * ECN bit); the "window of data" is everything sent when the previous estimate was taken, as
 * in the HPCC ns-3 simulator's RoCE DCTCP (alibaba-edu/High-Precision-Congestion-Control,
 * rdma-hw.cc HandleAckDctcp). Bytes are the NIC's window units (CcSender::packetBytes: RoCE
 * payload, UB frames).
 *
 * - Per ACK: acked += ackedBytes, marked += ackedBytes if the ACK echoes ECN (RFC 8257 §3.3
 *   steps 1-3).
 * - Once per window of data (the first ACK beyond the bytes sent at the previous update, RFC
 *   8257 steps 4-8: WindowEnd = SND.NXT): F = marked / acked over that window; alpha <- (1 - g)
 *   alpha + g F (paper eq. 1).
 * - ECN-echoed ACK outside CWR: cwnd <- max(MinWindow, cwnd (1 - alpha/2)) (paper eq. 2, RFC
 *   8257 step 9), then CWR until everything sent at the cut is acknowledged: at most one cut
 *   per window of data (RFC 3168 §6.1.2).
 * - A packet deemed lost outside CWR (UB: reorder window or timeout; RoCE's go-back-N does not
 *   report one): cwnd <- max(MinWindow, cwnd / 2), then CWR likewise (RFC 8257 §3.5: loss as
 *   conventional TCP, RFC 5681).
 * - Otherwise (not in CWR), and only if the window limited the sender since the previous ACK
 *   (Linux tcp_is_cwnd_limited, RFC 7661 §4.1; the NIC's rule, CcSender::packetMustFit: RoCE
 *   sends while the outstanding payload is below cwnd, so it was limited when that payload
 *   before the ACK reached cwnd; UB sends a frame only if it fits, so it was limited when one
 *   more frame would not have): congestion avoidance, cwnd += AdditiveIncrease x ackedBytes /
 *   cwnd, i.e. AdditiveIncrease per window acknowledged (one segment per RTT, as TCP's), at
 *   most MaxWindow. A sender that its line rate or pacer limits keeps its window, so a lone
 *   flow's window settles at line rate x RTT instead of growing without bound.
 *
 * No slow start: a sender starts at InitialWindow (by default line rate x BaseRtt, the HPCC
 * simulator's BDP window) and sends at line rate while the window is open, so the switch queue
 * sees the sawtooth of the paper's §3.3 analysis. The marking threshold K is the switch's:
 * `switch.ecn: {kmin: K, kmax: K, pmax: 1}` marks every packet that finds more than K queued.
 *
 * | Attribute        | Default | Source                                                      |
 * |------------------|---------|-------------------------------------------------------------|
 * | G                | 1/16    | paper §3.4 (g = 1/16); RFC 8257 §4.2; HPCC simulator        |
 * |                  |         | EwmaGain default 1/16                                       |
 * | InitialAlpha     | 1       | Linux tcp_dctcp dctcp_alpha_on_init = 1024/1024 (cautious)  |
 * | InitialWindow    | 0B      | 0B: line rate x BaseRtt, the HPCC simulator's BDP window    |
 * | BaseRtt          | 4us     | round trip the initial window is sized for (400G star, 30 m |
 * |                  |         | cables: ~2 us propagation + serialisation; set per fabric)  |
 * | AdditiveIncrease | 0B      | 0B: one MTU; paper: one segment per RTT                     |
 * | MinWindow        | 0B      | 0B: one full packet (the NIC always lets one packet out)    |
 * | MaxWindow        | 0B      | none, as Linux (snd_cwnd_clamp); growth needs a full window |
 */
class DctcpCongestionControl : public FabricCongestionControl
{
  public:
    static TypeId GetTypeId();
    DctcpCongestionControl();
    ~DctcpCongestionControl() override;

    using FabricCongestionControl::Start;
    /// cwnd = InitialWindow (or line rate x BaseRtt), alpha = InitialAlpha, no CWR.
    void Start(DataRate lineRate, uint32_t mtu) override;
    /// Line rate: the window, not a pacer, limits the sender.
    DataRate GetRate() const override;
    void OnAck(const CcFeedback& ack) override;
    void OnLoss(uint32_t frameBytes) override;
    /// cwnd in bytes.
    uint64_t GetWindow() const override;
    /// "dctcp".
    std::string GetName() const override;
    /// Alpha.
    double GetTraceValue() const override;

    double GetAlpha() const;
    /// Whether a cut happened and the data sent before it is not all acknowledged yet.
    bool InCwr() const;

  private:
    /// Whether the window stopped the sender at some time since the previous ACK.
    bool WasWindowLimited(const CcFeedback& ack) const;
    /// cwnd <- max(MinWindow, cwnd x factor), then CWR until what is sent now is acknowledged.
    void Cut(double factor);

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
    double m_increase{0}; ///< bytes per window acknowledged
    double m_floor{0};    ///< bytes: the smallest window
    double m_packet{0};   ///< bytes of one full packet, when the NIC needs room for it
    double m_cwnd{0};     ///< bytes
    double m_alpha{1};
    uint64_t m_ackedTotal{0};   ///< bytes acknowledged since Start
    uint64_t m_sentTotal{0};    ///< SND.NXT as of the last ACK: acknowledged + in flight
    uint64_t m_windowEnd{0};    ///< alpha is next updated once m_ackedTotal passes this
    bool m_firstWindow{true};   ///< no estimate window has begun yet
    uint64_t m_windowAcked{0};  ///< bytes acknowledged in the current estimate window
    uint64_t m_windowMarked{0}; ///< of which ECN-echoed
    bool m_cwr{false};
    uint64_t m_cwrEnd{0}; ///< CWR ends once m_ackedTotal passes this
};

} // namespace ns3

#endif
