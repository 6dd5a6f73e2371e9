#ifndef FABRIC_ROCE_CONGESTION_CONTROL_H
#define FABRIC_ROCE_CONGESTION_CONTROL_H

#include "ns3/data-rate.h"
#include "ns3/nstime.h"
#include "ns3/object.h"

#include <string>

namespace ns3
{

/**
 * \brief Rate-based congestion control of one RoCE queue pair (the reaction point).
 *
 * The NIC asks GetRate() before pacing each packet of the QP and reports what happens to it:
 * bytes sent, CNPs received, ACKs (with the RTT sample they give). Implementations keep their
 * own timers. Strategy objects chosen by the scenario's `cc` key: none (line rate), dcqcn; the
 * ACK hook leaves room for RTT- or INT-driven algorithms (TIMELY, HPCC).
 */
class RoceCongestionControl : public Object
{
  public:
    static TypeId GetTypeId();
    ~RoceCongestionControl() override;

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
    /// An ACK arrived; \p rtt is the time since the acknowledged packet was sent.
    virtual void OnAck(Time rtt);
    /// Short name for traces ("none", "dcqcn").
    virtual std::string GetName() const = 0;
    /// Algorithm state worth tracing next to the rate (DCQCN: alpha); NaN when none.
    virtual double GetTraceValue() const;
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
