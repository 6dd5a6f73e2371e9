#ifndef FABRIC_ROCE_CONGESTION_CONTROL_H
#define FABRIC_ROCE_CONGESTION_CONTROL_H

#include "wire/int-header.h"

#include "ns3/data-rate.h"
#include "ns3/nstime.h"
#include "ns3/object.h"

#include <cmath>
#include <limits>
#include <string>

namespace ns3
{

/// What one ACK tells the sender's congestion control (RdmaNic::ReceiveAck).
struct RoceAckFeedback
{
    /// Now minus the last transmission of the newest packet the ACK covers: the RTT sample
    /// TIMELY and Swift use (NIC timestamps; a retransmitted packet gives its resend's RTT).
    Time rtt;
    uint64_t ackedBytes = 0;    ///< payload bytes newly acknowledged by this ACK
    uint64_t inflightBytes = 0; ///< payload bytes sent and not yet acknowledged, after it
    /// This ACK acknowledges the message's last byte (nothing in flight does not mean that: a
    /// paced QP empties its pipe between packets).
    bool messageDone = false;
    /// The ACK's BTH BECN bit: a packet it covers arrived CE-marked (set by receivers whose
    /// RdmaNic::EcnEcho is true; DCTCP's ECN-Echo, InfiniBand's BECN).
    bool ecnEcho = false;
    /// The INT stack the receiver echoed (wire/int-header.h): the hops the acknowledged
    /// packet's path reported. Only when the QP's congestion control UsesInt(); otherwise,
    /// and for an ACK without one, hasTelemetry is false.
    bool hasTelemetry = false;
    IntStack telemetry;
};

/// Algorithm state cc.csv prints beside the rate (columns left empty where unset).
struct RoceCcTraceState
{
    double alpha = std::numeric_limits<double>::quiet_NaN();       ///< DCQCN, DCTCP
    uint64_t windowBytes = 0;                                      ///< 0: no window
    Time rtt;                                                      ///< 0: no RTT kept
    double utilisation = std::numeric_limits<double>::quiet_NaN(); ///< INT-derived U
    /// DCQCN's target rate Rt in bit/s: the rate fast recovery closes on (NaN: no target).
    double targetRate = std::numeric_limits<double>::quiet_NaN();
};

/**
 * \brief Congestion control of one RoCE queue pair (the reaction point).
 *
 * The NIC asks GetRate() before pacing each packet of the QP and GetWindow() before sending a
 * new one (a window-limited QP stops while its unacknowledged payload reaches the window), and
 * reports what happens: bytes sent, CNPs received, ACKs (RoceAckFeedback: RTT sample, ECN
 * echo, bytes acknowledged and in flight). Implementations keep their own timers. Strategy
 * objects chosen by the scenario's `cc` key (docs/architecture.md, "Adding a congestion
 * control").
 */
class RoceCongestionControl : public Object
{
  public:
    static TypeId GetTypeId();
    ~RoceCongestionControl() override;

    /// The QP's path crosses \p switches switches (its hop count; the NIC tells it before
    /// Start). Only algorithms that scale by the path use it (Swift); the default ignores it.
    virtual void SetPathHops(uint32_t switches);
    /// The QP starts sending on a port of \p lineRate.
    virtual void Start(DataRate lineRate) = 0;
    /// The QP is done: cancel timers.
    virtual void Stop() = 0;
    /// Rate at which the QP may send now (never above the line rate).
    virtual DataRate GetRate() const = 0;
    /// A CNP for this QP arrived.
    virtual void OnCnp() = 0;
    /// The QP put \p bytes (whole frames) on the wire.
    virtual void OnBytesSent(uint32_t bytes) = 0;
    /// An ACK that acknowledges new data arrived.
    virtual void OnAck(const RoceAckFeedback& ack);
    /// Payload bytes the QP may have unacknowledged; 0 = no window (rate only).
    virtual uint64_t GetWindow() const;
    /// Whether the algorithm reads in-band telemetry: the NIC then reserves an INT stack in
    /// every data packet of the QP, switches stamp it and receivers echo it
    /// (RoceAckFeedback::telemetry).
    virtual bool UsesInt() const;
    /// Short name for traces ("none", "dcqcn").
    virtual std::string GetName() const = 0;
    /// Algorithm state worth tracing next to the rate (DCQCN: alpha); NaN when none.
    virtual double GetTraceValue() const;
    /// Everything cc.csv shows; by default alpha = GetTraceValue() and the window.
    virtual RoceCcTraceState GetTraceState() const;
};

/// Line rate, no reaction: the "cc: none" baseline.
class NoCongestionControl : public RoceCongestionControl
{
  public:
    static TypeId GetTypeId();
    void Start(DataRate lineRate) override;
    void Stop() override;
    DataRate GetRate() const override;
    void OnCnp() override;
    void OnBytesSent(uint32_t bytes) override;
    std::string GetName() const override;

  private:
    DataRate m_lineRate;
};

} // namespace ns3

#endif
