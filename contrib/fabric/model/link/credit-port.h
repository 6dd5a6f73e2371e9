#ifndef FABRIC_CREDIT_PORT_H
#define FABRIC_CREDIT_PORT_H

#include "credit-flow-control.h"
#include "fabric-frames.h"
#include "port-queues.h"

#include "ns3/event-id.h"
#include "ns3/mac48-address.h"
#include "ns3/nstime.h"
#include "ns3/packet.h"

#include <cstdint>

namespace ns3
{

class FabricNetDevice;

/**
 * \ingroup fabric
 * \brief Credit-based flow control (FlowControl = cbfc) at one port: the credit state
 * (CreditFlowControl) and the credit frames that move it.
 *
 * Sender: the head frame of a credited lane leaves only while the port holds the credits its
 * cells need (MaySend; the start of each stall is counted); credits come back in the peer's
 * UPDATE and SYNC frames. Receiver: a frame of a credited lane holds its cells from arrival
 * until the owner frees them; freed credits go back in an UPDATE at once (ReturnInterval 0) or
 * at most one per ReturnInterval. Recovery from lost credit frames (SyncInterval > 0): a SYNC
 * with the cumulative returns follows the last UPDATE by one interval, and a sender stalled a
 * whole interval without a credit asks for one (REQUEST).
 *
 * Credit frames are MAC control: the port sends them after PFC frames and before data. When a
 * credit frame becomes due, or credits arrive, the port is asked to transmit.
 */
class CreditPort
{
  public:
    /// The credits of \p device, whose data queues are \p queues: \p cells cells of
    /// \p cellBytes per credited lane (\p laneMask), or for all lanes together when \p shared.
    CreditPort(FabricNetDevice* device,
               const PortQueues& queues,
               uint32_t cellBytes,
               uint32_t cells,
               uint8_t laneMask,
               bool shared);
    ~CreditPort();
    CreditPort(const CreditPort&) = delete;
    CreditPort& operator=(const CreditPort&) = delete;

    void SetReturnInterval(Time interval)
    {
        m_returnInterval = interval;
    }

    void SetSyncInterval(Time interval)
    {
        m_syncInterval = interval;
    }

    const CreditFlowControl& GetState() const
    {
        return m_state;
    }

    /// The credit lane of a frame (its priority when IPv4 and credited), or -1.
    int LaneOf(const FrameInfo& info) const
    {
        return info.IsIpv4() && m_state.IsCredited(info.priority) ? info.priority : -1;
    }

    /// Whether priority \p p's head frame may go as far as credits are concerned (counts the
    /// start of a stall when not).
    bool MaySend(uint8_t p)
    {
        const QueuedFrame& head = m_queues.Queue(p).front();
        if (!head.hasInfo || !head.info.IsIpv4() || !m_state.IsCredited(head.info.priority) ||
            m_state.CanSend(head.info.priority, head.bytes))
        {
            return true;
        }
        StallStarts(p);
        return false;
    }

    /// A data frame leaves: it spends the credits of its lane, if credited.
    void Consume(const QueuedFrame& item)
    {
        if (item.hasInfo && item.info.IsIpv4() && m_state.IsCredited(item.info.priority))
        {
            m_state.Consume(item.info.priority, item.bytes);
        }
    }

    /// Whether a credit frame (SYNC, UPDATE, REQUEST) is due.
    bool FrameWanted() const
    {
        return m_syncWanted || m_updateWanted || m_requestWanted;
    }

    /// The credit frame due, from \p source, counted as sent; null when an earlier frame
    /// carried what it would have.
    Ptr<Packet> BuildFrame(Mac48Address source);

    /// A credit frame arrived (Ethernet header first).
    void Receive(Ptr<Packet> frame);

    /// A frame of credited lane \p lane arrived: it takes its cells.
    void Hold(uint8_t lane, uint32_t bytes)
    {
        m_state.Hold(lane, bytes);
    }

    /// The cells of a held frame left the buffer: return them to the peer.
    void Free(uint8_t lane, uint32_t bytes);

    /// A frame lost on arrival: its credits come free at once (the buffer never held it).
    void Discard(WireFrame& wire);

    uint64_t GetFramesSent() const
    {
        return m_framesSent;
    }

    uint64_t GetBytesSent() const
    {
        return m_bytesSent;
    }

    uint64_t GetStalls() const
    {
        return m_stalls;
    }

    /// Cancels the pending events (the port is being disposed of).
    void Cancel();

  private:
    /// Priority \p p's head frame found too few credits: count the stall once, and watch for
    /// credits that never come.
    void StallStarts(uint8_t p);
    /// A credit came free: return it now (ReturnInterval 0) or at the end of the interval.
    void ScheduleReturn();
    void ReturnDue();
    void SyncDue();
    /// Sender side: still stalled with no credit for a whole SyncInterval: ask for a SYNC.
    void RequestCheck();
    /// A credit frame is due or credits arrived: the port tries to send.
    void Wake();

    FabricNetDevice* m_device;
    const PortQueues& m_queues;
    CreditFlowControl m_state;
    Time m_returnInterval;
    Time m_syncInterval;
    bool m_updateWanted = false;
    bool m_syncWanted = false;
    bool m_requestWanted = false;
    uint8_t m_stalledMask = 0; ///< lanes whose head frame waits for credits
    Time m_lastArrival;        ///< when the last credit frame arrived
    EventId m_returnEvent;
    EventId m_syncEvent;
    EventId m_requestEvent;
    uint64_t m_framesSent = 0;
    uint64_t m_bytesSent = 0;
    uint64_t m_stalls = 0;
};

} // namespace ns3

#endif
