#ifndef FABRIC_CONGESTION_CONTROL_H
#define FABRIC_CONGESTION_CONTROL_H

#include "wire/int-header.h"
#include "wire/ub-header.h"

#include "ns3/data-rate.h"
#include "ns3/nstime.h"
#include "ns3/object.h"

#include <cstdint>
#include <limits>
#include <string>

namespace ns3
{

/**
 * \file
 * The one congestion-control interface of the fabric's transports (docs/architecture.md,
 * "Adding a congestion control"): a RoCE queue pair (RdmaNic) and a Unified Bus transport
 * channel (UbNic) each own one FabricCongestionControl, tell it the same events in the same
 * structs, and cc.csv prints the one CcTraceState it returns. What only one NIC has (RoCE's
 * CNP, UB's CCI field on every DATA packet, INT telemetry) are virtual hooks with neutral
 * defaults. An algorithm that runs on both NICs (DCTCP) derives from FabricCongestionControl
 * directly; one that needs one NIC's signals derives from RoceCongestionControl or
 * UbCongestionControl, which only the matching NIC accepts.
 */

/// What the NIC that owns a sender tells its congestion control before Start.
struct CcSender
{
    DataRate lineRate;     ///< of the port the sender leaves by
    uint32_t mtu = 0;      ///< payload bytes of a full packet
    uint32_t pathHops = 0; ///< switches on the path to the data's sink (RoCE; 0: unknown)
    /// A full packet in the units of the window and of CcFeedback's byte counts: RoCE counts
    /// payload (the MTU), UB frames (MTU plus the UB headers).
    uint32_t packetBytes = 0;
    /// How the NIC applies GetWindow(): false, a new packet leaves while the bytes outstanding
    /// are below the window (RdmaNic::WindowOpen, HPCC's rule); true, only when the whole
    /// packet fits in it (UbNic::NextPsn).
    bool packetMustFit = false;
    /// Whether the NIC paces the sender at GetRate() (RoCE). A UB channel is sent by its window
    /// alone; cc.csv then shows window / RTT as its rate.
    bool paced = false;
};

/// What one ACK (or NACK) tells the sender's congestion control: the union of what the NICs
/// report. A field a NIC does not have keeps its default.
struct CcFeedback
{
    /// Send-to-ACK time of the newest packet the ACK covers (RoCE: of its last transmission);
    /// 0: the ACK carries no sample.
    Time rtt;
    uint64_t ackedBytes = 0;    ///< bytes newly acknowledged (CcSender::packetBytes units)
    uint64_t inflightBytes = 0; ///< bytes sent and not yet acknowledged (nor lost), after it
    /// This ACK acknowledges the message's last byte (RoCE; nothing in flight does not mean
    /// that: a paced QP empties its pipe between packets).
    bool messageDone = false;
    /// ECN-Echo: a packet the ACK covers arrived CE-marked (RoCE: the BTH BECN bit, set by
    /// receivers whose RdmaNic::EcnEcho is true; UB: the triggering packet was marked CE or C).
    bool ecnEcho = false;
    /// The INT stack the receiver echoed (wire/int-header.h). Only when the sender's congestion
    /// control UsesInt(); otherwise, and for an ACK without one, hasTelemetry is false.
    bool hasTelemetry = false;
    IntStack telemetry;
    /// UB's C-AQM echo: packets marked congested since the last ACK (C).
    uint8_t congestedCount = 0;
    bool increase = false; ///< UB's C-AQM echo: an increase request came back granted (I)
    uint32_t hintSum = 0;  ///< UB's C-AQM echo: the sum of granted hints (hint units)
};

/// What cc.csv prints for one sender (a column is left empty where its field is unset).
struct CcTraceState
{
    /// Rate the sender may send at, bit/s. NaN: none (a window-only sender), and cc.csv shows
    /// windowBytes x 8 / rtt when it has both.
    double rate = std::numeric_limits<double>::quiet_NaN();
    double alpha = std::numeric_limits<double>::quiet_NaN();       ///< DCQCN, DCTCP
    uint64_t windowBytes = 0;                                      ///< 0: no window
    Time rtt;                                                      ///< 0: no RTT kept
    double utilisation = std::numeric_limits<double>::quiet_NaN(); ///< INT U, NSCC delay ratio
    /// DCQCN's target rate Rt in bit/s: the rate fast recovery closes on (NaN: no target).
    double targetRate = std::numeric_limits<double>::quiet_NaN();
};

/**
 * \brief Congestion control of one sender (a RoCE queue pair or a UB transport channel): a
 * strategy object chosen by the scenario's `cc` key.
 *
 * The NIC calls Start(CcSender) when the sender starts; then, per packet, GetWindow()
 * (a sender stops while its outstanding bytes reach the window; 0 or UINT64_MAX: no window),
 * GetRate() when it paces, OnSend for the CCI a UB DATA packet carries and OnBytesSent; per
 * ACK Acknowledge (which keeps the RTT sample and calls OnAck); OnLoss for a packet deemed
 * lost, OnCnp for a RoCE CNP; Stop when the sender is done. Implementations keep their own
 * timers.
 */
class FabricCongestionControl : public Object
{
  public:
    static TypeId GetTypeId();
    ~FabricCongestionControl() override;

    /// What the NIC calls when the sender starts: keeps \p sender (Sender()), then
    /// Start(sender.lineRate, sender.mtu).
    void Start(const CcSender& sender);

    /// The sender starts sending on a port of \p lineRate with packets of \p mtu payload bytes.
    virtual void Start(DataRate lineRate, uint32_t mtu) = 0;
    /// The sender is done: cancel timers.
    virtual void Stop();
    /// Bytes the sender may have outstanding; 0 (or UINT64_MAX): no window.
    virtual uint64_t GetWindow() const;
    /// Rate at which a paced sender may send now (never above the line rate); by default the
    /// line rate.
    virtual DataRate GetRate() const;
    /// A DATA packet of \p frameBytes leaves: the CCI it carries (UB; RoCE has no such field).
    virtual UbCci OnSend(uint32_t frameBytes);
    /// The sender put \p bytes (whole frames) on the wire (RoCE).
    virtual void OnBytesSent(uint32_t bytes);
    /// An ACK that acknowledges new data (or, UB, reports congestion) arrived.
    virtual void OnAck(const CcFeedback& ack);
    /// A sent packet of \p frameBytes was deemed lost (UB: reorder window or timeout).
    virtual void OnLoss(uint32_t frameBytes);
    /// A CNP for this sender arrived (RoCE).
    virtual void OnCnp();
    /// Whether the algorithm reads in-band telemetry: the RoCE NIC then reserves an INT stack
    /// in every data packet of the QP, switches stamp it and receivers echo it
    /// (CcFeedback::telemetry).
    virtual bool UsesInt() const;
    /// Whether any NIC may run it; RoceCongestionControl and UbCongestionControl say no, and
    /// only their own NIC accepts them.
    virtual bool ServesEveryTransport() const;
    /// Short name for traces ("none", "dcqcn").
    virtual std::string GetName() const = 0;
    /// Algorithm state worth tracing (DCQCN, DCTCP: alpha); NaN when none.
    virtual double GetTraceValue() const;
    /// Everything cc.csv shows. By default: the rate when the NIC paces, alpha =
    /// GetTraceValue(), the window (none when 0 or UINT64_MAX) and the last RTT sample.
    virtual CcTraceState GetTraceState() const;

    /// What the NIC calls per ACK: keeps its RTT sample (LastRtt), then OnAck.
    void Acknowledge(const CcFeedback& ack)
    {
        if (ack.rtt.IsStrictlyPositive())
        {
            m_lastRtt = ack.rtt;
        }
        OnAck(ack);
    }

    /// The RTT sample of the last ACK that carried one (0: none yet).
    Time LastRtt() const
    {
        return m_lastRtt;
    }

    /// What the NIC told Start.
    const CcSender& Sender() const
    {
        return m_sender;
    }

  protected:
    /// The window (0 or UINT64_MAX: none) as cc.csv's window_bytes (0: empty).
    static uint64_t TracedWindow(uint64_t window)
    {
        return window == std::numeric_limits<uint64_t>::max() ? 0 : window;
    }

  private:
    CcSender m_sender;
    Time m_lastRtt;
};

} // namespace ns3

#endif
