#ifndef FABRIC_UB_CONGESTION_CONTROL_H
#define FABRIC_UB_CONGESTION_CONTROL_H

#include "host/congestion-control.h"

#include "ns3/data-rate.h"
#include "ns3/nstime.h"
#include "ns3/object.h"
#include "ns3/queue-size.h"

#include <cstdint>
#include <limits>
#include <string>

namespace ns3
{

/// What one UB ACK tells the sender's congestion control: the one feedback struct of every
/// transport (host/congestion-control.h).
using UbAckFeedback = CcFeedback;
/// What cc.csv prints (docs/models.md#ub-cc-trace): the one trace struct of every transport.
using UbCcTraceState = CcTraceState;

/**
 * \brief Window-based congestion control that only a UB transport channel runs.
 *
 * The channel may have at most GetWindow() bytes of frames in flight (sent, neither
 * acknowledged nor deemed lost); UINT64_MAX: unlimited. OnSend fills the CCI field of every
 * DATA packet. The interface is FabricCongestionControl's; the window is required here.
 */
class UbCongestionControl : public FabricCongestionControl
{
  public:
    static TypeId GetTypeId();
    void Start(DataRate lineRate, uint32_t mtu) override = 0;
    uint64_t GetWindow() const override = 0;
    UbCci OnSend(uint32_t frameBytes) override = 0;
    void OnAck(const CcFeedback& feedback) override = 0;
    /// Only a UbNic runs it.
    bool ServesEveryTransport() const final;

    /// Everything cc.csv shows; by default the window (none when unlimited) and the last RTT.
    CcTraceState GetTraceState() const override;
};

/// No congestion control: a fixed window (0 = unlimited, line rate).
class UbFixedWindow : public UbCongestionControl
{
  public:
    static TypeId GetTypeId();

    void Start(DataRate lineRate, uint32_t mtu) override
    {
    }

    uint64_t GetWindow() const override;

    UbCci OnSend(uint32_t frameBytes) override
    {
        return UbCci();
    }

    void OnAck(const CcFeedback& feedback) override
    {
    }

    std::string GetName() const override
    {
        return "none";
    }

  private:
    QueueSize m_window;
};

} // namespace ns3

#endif
