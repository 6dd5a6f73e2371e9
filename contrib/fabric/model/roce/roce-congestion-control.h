#ifndef FABRIC_ROCE_CONGESTION_CONTROL_H
#define FABRIC_ROCE_CONGESTION_CONTROL_H

#include "host/congestion-control.h"

#include "ns3/data-rate.h"
#include "ns3/nstime.h"
#include "ns3/object.h"

#include <cmath>
#include <limits>
#include <string>

namespace ns3
{

/// What one ACK tells a RoCE sender's congestion control (RdmaNic::ReceiveAck): the one
/// feedback struct of every transport (host/congestion-control.h).
using RoceAckFeedback = CcFeedback;
/// What cc.csv prints: the one trace struct of every transport.
using RoceCcTraceState = CcTraceState;

/**
 * \brief Congestion control that only a RoCE queue pair (the reaction point) runs.
 *
 * The NIC asks GetRate() before pacing each packet of the QP and GetWindow() before sending a
 * new one (a window-limited QP stops while its unacknowledged payload reaches the window), and
 * reports what happens: bytes sent, CNPs received, ACKs (CcFeedback: RTT sample, ECN echo,
 * bytes acknowledged and in flight, INT). The interface is FabricCongestionControl's; this
 * class adds the RoCE-only entry points: the path's hop count and Start without an MTU.
 * Strategy objects chosen by the scenario's `cc` key (docs/architecture.md, "Adding a
 * congestion control").
 */
class RoceCongestionControl : public FabricCongestionControl
{
  public:
    static TypeId GetTypeId();
    ~RoceCongestionControl() override;

    /// The QP's path crosses \p switches switches (its hop count; the NIC tells it before
    /// Start). Only algorithms that scale by the path use it (Swift); the default ignores it.
    virtual void SetPathHops(uint32_t switches);
    /// SetPathHops(Sender().pathHops), then Start(lineRate).
    void Start(DataRate lineRate, uint32_t mtu) final;
    /// The QP starts sending on a port of \p lineRate.
    virtual void Start(DataRate lineRate) = 0;
    /// The QP is done: cancel timers.
    void Stop() override = 0;
    /// Rate at which the QP may send now (never above the line rate).
    DataRate GetRate() const override = 0;
    /// A CNP for this QP arrived.
    void OnCnp() override = 0;
    /// The QP put \p bytes (whole frames) on the wire.
    void OnBytesSent(uint32_t bytes) override = 0;
    /// Only an RdmaNic runs it.
    bool ServesEveryTransport() const final;
    /// Everything cc.csv shows; by default the rate, alpha = GetTraceValue() and the window.
    CcTraceState GetTraceState() const override;
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
