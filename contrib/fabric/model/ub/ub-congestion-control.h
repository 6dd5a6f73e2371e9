#ifndef FABRIC_UB_CONGESTION_CONTROL_H
#define FABRIC_UB_CONGESTION_CONTROL_H

#include "wire/ub-header.h"

#include "ns3/data-rate.h"
#include "ns3/nstime.h"
#include "ns3/object.h"
#include "ns3/queue-size.h"

#include <cstdint>
#include <limits>
#include <string>

namespace ns3
{

/// What one UB ACK tells the sender's congestion control.
struct UbAckFeedback
{
    uint8_t congestedCount = 0; ///< C: packets marked since the last ACK
    bool increase = false;      ///< I: an increase request came back granted
    uint32_t hintSum = 0;       ///< sum of granted hints (hint units)
    Time rtt;                   ///< send-to-ACK time of the newest packet this ACK covers
    bool ecnEcho = false;       ///< the packet that triggered the ACK arrived marked (CE or C)
    uint64_t ackedBytes = 0;    ///< frame bytes this ACK newly acknowledges
    uint64_t inflightBytes = 0; ///< frame bytes still in flight after this ACK
};

/// Channel state cc.csv prints (columns left empty where unset; docs/models.md#ub-cc-trace).
struct UbCcTraceState
{
    /// Bytes the channel may have in flight; 0: unlimited.
    uint64_t windowBytes = 0;
    /// DCTCP's estimate of the marked fraction.
    double alpha = std::numeric_limits<double>::quiet_NaN();
    /// NSCC: averaged queuing delay over the target delay.
    double utilisation = std::numeric_limits<double>::quiet_NaN();
    /// RTT sample of the last ACK that carried one; 0: none yet.
    Time rtt;
};

/**
 * \brief Window-based congestion control of one UB transport channel (a strategy object).
 *
 * The channel may have at most GetWindow() bytes of frames in flight (sent, neither
 * acknowledged nor deemed lost). OnSend fills the CCI field of every DATA packet.
 */
class UbCongestionControl : public Object
{
  public:
    static TypeId GetTypeId();
    virtual void Start(DataRate lineRate, uint32_t mtu) = 0;
    virtual uint64_t GetWindow() const = 0;
    virtual UbCci OnSend(uint32_t frameBytes) = 0;
    virtual void OnAck(const UbAckFeedback& feedback) = 0;

    /// What the NIC calls per ACK: keeps its RTT sample for traces, then OnAck.
    void Acknowledge(const UbAckFeedback& feedback);

    /// A sent frame was deemed lost (reorder window or timeout); most strategies ignore it.
    virtual void OnLoss(uint32_t frameBytes)
    {
    }

    virtual std::string GetName() const = 0;

    /// A strategy's own state for traces (NaN: none).
    virtual double GetTraceValue() const;

    /// Everything cc.csv shows; by default the window (0 when unlimited) and the last RTT.
    virtual UbCcTraceState GetTraceState() const;

  private:
    Time m_lastRtt; ///< of the last ACK that carried one
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

    void OnAck(const UbAckFeedback& feedback) override
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
