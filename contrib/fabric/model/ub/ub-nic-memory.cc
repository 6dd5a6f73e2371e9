// UbNic's memory transactions: READ, load, store and atomic requests and their responses
// (docs/models.md#ub-memory). The request travels on the requester's transport channel like a
// write; the responder answers on its own channel toward the requester, whose window,
// spraying, selective ACKs and resends carry the responses as they carry a write's data.

#include "ub-header-view.h"
#include "ub-nic.h"

#include "ns3/log.h"
#include "ns3/simulator.h"

#include <algorithm>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("UbNicMemory");

bool
UbNic::PerOperation(const FlowRecord& f)
{
    return f.verb == RdmaVerb::LOAD || f.verb == RdmaVerb::STORE || f.verb == RdmaVerb::ATOMIC;
}

uint32_t
UbNic::RequestPackets(const FlowRecord& f) const
{
    switch (f.verb)
    {
    case RdmaVerb::READ:
        return f.bytes > 0 ? 1 : 0;
    case RdmaVerb::ATOMIC:
        return static_cast<uint32_t>((f.bytes + kUbAtomicResultBytes - 1) / kUbAtomicResultBytes);
    case RdmaVerb::LOAD:
    case RdmaVerb::STORE: {
        uint64_t line = m_cacheLine.GetValue();
        return static_cast<uint32_t>((f.bytes + line - 1) / line);
    }
    default:
        return PacketsOf(f);
    }
}

uint32_t
UbNic::ResponsePackets(const FlowRecord& f) const
{
    return f.verb == RdmaVerb::READ ? PacketsOf(f) : RequestPackets(f);
}

uint32_t
UbNic::DataBytesOf(MessageKind kind, const FlowRecord& f, uint32_t index) const
{
    auto slice = [&f, index](uint64_t unit) {
        uint64_t begin = uint64_t(index) * unit;
        return static_cast<uint32_t>(std::min<uint64_t>(unit, f.bytes - begin));
    };
    switch (f.verb)
    {
    case RdmaVerb::READ:
        return kind == MessageKind::RESPONSE ? PayloadOf(f, index) : 0;
    case RdmaVerb::LOAD:
        return kind == MessageKind::RESPONSE ? slice(m_cacheLine.GetValue()) : 0;
    case RdmaVerb::STORE:
        return kind == MessageKind::REQUEST ? slice(m_cacheLine.GetValue()) : 0;
    case RdmaVerb::ATOMIC:
        return kind == MessageKind::RESPONSE ? slice(kUbAtomicResultBytes) : 0;
    default:
        return PayloadOf(f, index);
    }
}

uint32_t
UbNic::WireBytesOf(MessageKind kind, const FlowRecord& f, uint32_t dataBytes)
{
    if (kind == MessageKind::REQUEST && f.verb == RdmaVerb::ATOMIC)
    {
        return kUbAtomicOperandBytes; // operands, not flow data
    }
    return dataBytes;
}

uint8_t
UbNic::OpcodeOf(MessageKind kind, const FlowRecord& f)
{
    if (kind == MessageKind::RESPONSE)
    {
        return UbOpcode::RESPONSE;
    }
    if (kind == MessageKind::WRITE)
    {
        return UbOpcode::DATA;
    }
    switch (f.verb)
    {
    case RdmaVerb::READ:
        return UbOpcode::READ;
    case RdmaVerb::LOAD:
        return UbOpcode::LOAD;
    case RdmaVerb::STORE:
        return UbOpcode::STORE;
    default:
        return UbOpcode::ATOMIC;
    }
}

bool
UbNic::WaitsForOpSlot(uint32_t flowId) const
{
    if (m_maxOutstandingOps == 0 || m_opsOutstanding < m_maxOutstandingOps)
    {
        return false;
    }
    auto it = m_messages.find(flowId);
    return it != m_messages.end() && it->second.kind == MessageKind::REQUEST &&
           PerOperation(m_flows->Get(flowId));
}

// ---------------------------------------------------------------------------------------------
// Responder

void
UbNic::ReceiveOperation(RxChannel& rc,
                        uint64_t key,
                        const UbFrameHeader& h,
                        uint32_t payload,
                        bool congested)
{
    uint32_t flowId = h.message;
    RxMessage& m = m_rxMessages[flowId];
    uint32_t offset = h.psn - rc.cumulative;
    if (h.word >= m.packets || m.op[h.word] != OP_ABSENT)
    {
        m_flows->Discarded(flowId, payload);
        if (h.word < m.packets)
        {
            m_flows->Get(flowId).spuriousBytes += payload; // the operation already arrived
        }
        return;
    }
    AcceptPsn(rc, offset);
    if (payload > 0) // a store's line
    {
        m_flows->Delivered(flowId, payload, congested);
    }
    m.op[h.word] = OP_ACCESSING;
    Simulator::Schedule(TargetMemoryLatency() + m_memoryLatency,
                        &UbNic::OperationAccessed,
                        this,
                        flowId,
                        h.word);
    // Each operation is its own message: acknowledge at once (its PSN frees the requester's
    // window; the response, not this ACK, completes it).
    SendAck(rc, UbAckHeader::kNoMessage);
}

void
UbNic::OperationAccessed(uint32_t flowId, uint32_t op)
{
    RxMessage& m = m_rxMessages[flowId];
    m.op[op] = OP_READY;
    m.readyOps.push_back(op);
    CommitOperations(flowId);
}

void
UbNic::CommitOperations(uint32_t flowId)
{
    RxMessage& m = m_rxMessages[flowId];
    if (WaitForPredecessors(flowId, m))
    {
        return;
    }
    const FlowRecord& f = m_flows->Get(flowId);
    std::vector<uint32_t> commit;
    if (f.order == uint8_t(UbOrder::STRICT))
    {
        // SO: in index order; a stalled operation holds back every later one.
        while (m.nextCommit < m.packets && m.op[m.nextCommit] == OP_READY)
        {
            commit.push_back(m.nextCommit++);
        }
    }
    else
    {
        commit.swap(m.readyOps);
    }
    for (uint32_t op : commit)
    {
        if (m.op[op] != OP_READY)
        {
            continue;
        }
        m.op[op] = OP_COMMITTED;
        m.committed++;
        ReleaseResponse(flowId, op);
    }
    if (m.committed == m.packets && !m.executed)
    {
        m.complete = true;
        Execute(flowId); // later requests ordered behind this flow may go
    }
}

void
UbNic::ReleaseReadResponse(uint32_t flowId)
{
    uint32_t packets = ResponsePackets(m_flows->Get(flowId));
    for (uint32_t i = 0; i < packets; ++i)
    {
        ReleaseResponse(flowId, i);
    }
}

void
UbNic::ReleaseResponse(uint32_t flowId, uint32_t index)
{
    const FlowRecord& f = m_flows->Get(flowId);
    auto [it, fresh] = m_messages.try_emplace(flowId);
    TxMessage& m = it->second;
    if (fresh)
    {
        // The answer goes on this host's channel toward the requester.
        FlowRecord back = f;
        back.dst = f.src;
        m.kind = MessageKind::RESPONSE;
        m.channel = ChannelFor(back);
        m.packets = ResponsePackets(f);
        m_tx[m.channel].openMessages++;
    }
    TxChannel& ch = m_tx[m.channel];
    m.ready.push_back(index);
    if (!m.queued)
    {
        m.queued = true;
        ch.active.push_back(flowId);
    }
    ActivateSender(ch.port, ch.id);
}

void
UbNic::FinishResponse(TxMessage& m)
{
    if (!m.done)
    {
        m.done = true;
        m_tx[m.channel].openMessages--;
    }
}

// ---------------------------------------------------------------------------------------------
// Requester

void
UbNic::ReceiveResponse(const FrameInfo& info, const UbFrameHeader& h)
{
    uint32_t flowId = h.message;
    const FlowRecord& f = m_flows->Get(flowId);
    auto mit = m_messages.find(flowId);
    if (f.src != m_hostIndex || mit == m_messages.end() || mit->second.kind != MessageKind::REQUEST)
    {
        return; // not a request of this NIC
    }
    uint32_t payload = UbFlowPayloadBytes(info);
    RxChannel& rc = RxChannelOf(info, h);
    if (LoseScripted(flowId, h.word, payload))
    {
        return;
    }
    bool markChanged = false; // operations are ACKed one by one (no coalescing to cut short)
    bool congested = NoteCongestion(rc, info, h, &markChanged);
    uint32_t offset = h.psn - rc.cumulative;
    bool duplicate = offset >= 0x80000000u ||
                     (offset > 0 && offset - 1 < rc.beyond.size() && rc.beyond[offset - 1]);
    if (duplicate || offset >= m_outOfOrderWindow)
    {
        m_flows->Discarded(flowId, payload);
        if (duplicate)
        {
            m_flows->Get(flowId).spuriousBytes += payload; // its original was delivered
            SendAck(rc, UbAckHeader::kNoMessage);          // the responder may have missed the ACK
        }
        return;
    }
    auto [rit, fresh] = m_rxResponses.try_emplace(flowId);
    RxResponses& r = rit->second;
    if (fresh)
    {
        r.packets = ResponsePackets(f);
        r.got.assign(r.packets, 0);
    }
    if (h.word >= r.packets || r.got[h.word])
    {
        m_flows->Discarded(flowId, payload);
        if (h.word < r.packets)
        {
            m_flows->Get(flowId).spuriousBytes += payload; // the response already arrived
        }
        return;
    }
    // Response data goes straight to its address: no reorder buffer, whatever the order.
    AcceptPsn(rc, offset);
    if (payload > 0)
    {
        m_flows->Delivered(flowId, payload, congested);
    }
    r.got[h.word] = 1;
    r.received++;
    if (PerOperation(f))
    {
        // The operation's slot is free: a flow waiting for one takes its turn again.
        m_opsOutstanding--;
        if (!m_opsBlocked.empty())
        {
            uint32_t next = m_opsBlocked.front();
            m_opsBlocked.pop_front();
            TxChannel& ch = m_tx[m_messages[next].channel];
            ch.active.push_back(next);
            ActivateSender(ch.port, ch.id);
        }
    }
    rc.sinceAck++;
    if (rc.sinceAck >= m_ackInterval || !rc.beyond.empty() || (h.flags & UbFrameHeader::kFlagLast))
    {
        SendAck(rc, UbAckHeader::kNoMessage);
    }
    if (r.received == r.packets)
    {
        m_messages[flowId].answered = true;
        Complete(flowId);
    }
}

} // namespace ns3
