// UbNic, the UB service mode UNO (unreliable, no order; docs/models.md#ub-uno): a write on an
// unreliable transport channel, with no window, congestion control, ACK, timeout or resend.

#include "sim/fabric-now.h"
#include "ub-header-view.h"
#include "ub-nic.h"

#include "ns3/simulator.h"

namespace ns3
{

void
UbNic::SendUnreliable(TxChannel& ch)
{
    // The next packet of the request whose turn it is; requests take turns packet by packet
    // as on a reliable channel.
    uint32_t flowId = ch.active.front();
    ch.active.pop_front();
    TxMessage& m = m_messages[flowId];
    FlowRecord& f = m_flows->Get(flowId);
    uint32_t index = m.nextIndex++;
    uint32_t psn = ch.nextPsn++; // numbered for traces; nobody acknowledges it
    bool last = m.nextIndex == m.packets;
    if (!last)
    {
        ch.active.push_back(flowId);
    }
    uint32_t payload = PayloadOf(f, index);
    f.sentBytes += payload;
    uint8_t flags = static_cast<uint8_t>(UbFrameHeader::kFlagUnreliable |
                                         (last ? UbFrameHeader::kFlagLast : 0));
    EnqueueData(ch, flowId, index, psn, payload, flags, 0); // CCI 0: no C-AQM on UNO
    if (last)
    {
        m.lastPsn = psn;
        // After this turn, not within it: launching the next request may serve this port.
        Simulator::ScheduleNow(&UbNic::FinishUnreliableSend, this, flowId);
    }
}

void
UbNic::FinishUnreliableSend(uint32_t flowId)
{
    // The initiator can know no more than that the request has left: its slot is free. The
    // flow finishes at the target (ReceiveUnreliable), if every packet gets there.
    TxMessage& m = m_messages[flowId];
    m.done = true;
    m_tx[m.channel].openMessages--;
    FreeRequestSlot();
}

void
UbNic::ReceiveUnreliable(const FrameInfo& info, const UbFrameHeader& h)
{
    uint32_t flowId = h.message;
    FlowRecord& f = m_flows->Get(flowId);
    uint32_t payload = UbFlowPayloadBytes(info);
    if (info.trimmed || LoseScripted(flowId, h.word, payload))
    {
        return; // a trimmed UNO packet is a loss (its payload counted dropped where it was cut)
    }
    if (f.finished)
    {
        m_flows->Discarded(flowId, payload); // (no sender repeats a packet; kept for safety)
        return;
    }
    UnoArrivals& a = m_unoRx[flowId];
    if (a.got.empty())
    {
        a.got.assign(PacketsOf(f), 0);
    }
    if (h.word >= a.got.size() || a.got[h.word])
    {
        m_flows->Discarded(flowId, payload);
        return;
    }
    // Written where it belongs at once: no reorder buffer, no ordering, no ACK.
    a.got[h.word] = 1;
    bool congested = info.ecn == 3 || UbCci::Decode(h.cci).congested;
    m_flows->Delivered(flowId, payload, congested);
    if (++a.received == a.got.size())
    {
        // Only the target can tell that every packet is there: the flow finishes here.
        f.executed = FabricNow();
        m_unoRx.erase(flowId);
        m_flows->Completed(flowId);
    }
}

} // namespace ns3
