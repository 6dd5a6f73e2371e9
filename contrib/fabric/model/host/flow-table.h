#ifndef FABRIC_FLOW_TABLE_H
#define FABRIC_FLOW_TABLE_H

#include "ns3/callback.h"
#include "ns3/data-rate.h"
#include "ns3/nstime.h"
#include "ns3/object.h"

#include <cstdint>
#include <string>
#include <vector>

namespace ns3
{

/// The RDMA operation that moves a flow's bytes (raw flows are sent as SENDs).
enum class RdmaVerb : uint8_t
{
    SEND,
    WRITE,
    READ,   ///< src reads from dst: the data moves dst → src
    LOAD,   ///< UB: cache-line loads from dst's memory (data dst → src), one request per line
    STORE,  ///< UB: cache-line stores into dst's memory, one request per line
    ATOMIC, ///< UB: 8-byte atomic operations at dst (fetch-add / compare-swap), 8 B back each
};

/// Parses "send", "write", "read", "load", "store", "atomic"; returns false for anything else.
bool ParseRdmaVerb(const std::string& text, RdmaVerb* verb);

/// Whether the flow's data moves from dst to src (the requester reads it).
inline bool
DataToRequester(RdmaVerb verb)
{
    return verb == RdmaVerb::READ || verb == RdmaVerb::LOAD || verb == RdmaVerb::ATOMIC;
}

/// Whether the verb is a UB memory transaction (a request answered by responses).
inline bool
IsUbMemoryVerb(RdmaVerb verb)
{
    return verb == RdmaVerb::READ || verb == RdmaVerb::LOAD || verb == RdmaVerb::STORE ||
           verb == RdmaVerb::ATOMIC;
}

/// One flow of a run: what the workload asked for and what happened to its bytes.
struct FlowRecord
{
    uint32_t id = 0;
    uint32_t src = 0; ///< host index
    uint32_t dst = 0; ///< host index
    uint8_t priority = 0;
    uint64_t bytes = 0; ///< bytes the application asked to send
    Time start;         ///< when the flow was posted
    DataRate rate;      ///< 0 = line rate
    /// Scripted rate changes: (time after start, new rate); the last one reached applies.
    std::vector<std::pair<Time, DataRate>> rateSchedule;
    Time period; ///< > 0: periodic bursts, sending only during the first onTime
    Time onTime; ///< of every period (raw flows)
    bool ecnCapable = true;
    uint16_t entropy = 0;  ///< UDP source port of its frames
    bool reliable = false; ///< a transport recovers drops; raw flows end when every byte is
                           ///< delivered or dropped
    /// UB service mode UNO (unreliable, no order): no ACK, no resend, no window; the flow
    /// finishes at its target when every packet has arrived, never on drops (so \c reliable
    /// stays set: the flow table does not end it on delivered + dropped bytes).
    bool uno = false;
    RdmaVerb verb = RdmaVerb::SEND;
    // Unified Bus requests
    uint16_t endpoint = 0;         ///< Jetty of the source host that posts it
    uint8_t order = 0;             ///< UbOrder: 0 none, 1 after the flows in \c after, 2 strict
    std::vector<uint32_t> after;   ///< flows that must execute first (order 1)
    uint32_t postSeq = UINT32_MAX; ///< UB: place among its Jetty's requests to its target
    // Sender side
    uint64_t sentBytes = 0;          ///< payload bytes put on the wire (retransmissions included)
    uint64_t retransmittedBytes = 0; ///< of sentBytes, bytes sent again
    Time launch;                     ///< when the NIC started the message (after rate limits)
    uint64_t cnpsReceived = 0;
    Ptr<Object> cc; ///< for traces: the RoCE QP's or the UB channel's congestion control
    // Fabric
    uint64_t droppedBytes = 0;
    // Receiver side
    uint64_t deliveredBytes = 0; ///< unique payload bytes accepted by the receiver
    uint64_t discardedBytes = 0; ///< arrived but thrown away: duplicates, go-back-N out-of-order
    /// Of discardedBytes, copies of payload the receiver already had: a retransmission whose
    /// original was delivered (spurious; a lossless fabric should have none).
    uint64_t spuriousBytes = 0;
    uint64_t ecnMarkedFrames = 0;
    Time firstRx;
    Time lastRx;
    Time executed; ///< UB: when the target executed the request (ordering satisfied)
    // Host path stages (docs/models.md#remote-read-stages), when the NIC has any
    bool stagesTraced = false; ///< submitted and answered are set (requests.csv)
    Time submitted;            ///< reached the NIC's request pipeline (submission stages over)
    Time answered;             ///< done at the NIC (last response or ACK), before completion
    bool finished = false;
    Time finish;
};

/**
 * \brief The flows of one run. A per-run object (not global state): the sender host, the
 * fabric (drops) and the receiver host each update their own fields of a record.
 */
class FlowTable : public Object
{
  public:
    static TypeId GetTypeId();

    uint32_t Add(FlowRecord record); ///< assigns and returns the id

    FlowRecord& Get(uint32_t id)
    {
        return m_flows[id];
    }

    const FlowRecord& Get(uint32_t id) const
    {
        return m_flows[id];
    }

    bool Contains(uint32_t id) const
    {
        return id < m_flows.size();
    }

    uint32_t GetN() const
    {
        return static_cast<uint32_t>(m_flows.size());
    }

    const std::vector<FlowRecord>& All() const
    {
        return m_flows;
    }

    /// Receiver side: payload of a flow arrived.
    void Delivered(uint32_t id, uint32_t payloadBytes, bool ecnMarked);
    /// Receiver side: payload arrived but was discarded (duplicate or out of order).
    void Discarded(uint32_t id, uint32_t payloadBytes);
    /// Sender side of a reliable flow: the last byte is acknowledged.
    void Completed(uint32_t id);
    /// Fabric: payload of a flow was dropped (ids of no flow, e.g. control frames, are ignored).
    void Dropped(uint32_t id, uint32_t payloadBytes);

    /// Same, with the signature of FabricSwitch's "Drop" trace source (reason unused here).
    void DroppedForReason(uint32_t id, uint32_t payloadBytes, uint8_t reason)
    {
        Dropped(id, payloadBytes);
    }

    uint32_t GetFinishedCount() const
    {
        return m_finished;
    }

    /// Called once when every flow has delivered all its bytes.
    void SetAllFinishedCallback(Callback<void> cb)
    {
        m_allFinished = cb;
    }

    /// Adds a listener called when one flow finishes (in the order added), before the
    /// all-finished check, so that a workload that posts dependent flows (collectives) can add
    /// them first.
    void AddFlowFinishedCallback(Callback<void, uint32_t> cb)
    {
        m_flowFinished.push_back(cb);
    }

  private:
    void CheckFinished(FlowRecord& f);
    void MarkFinished(FlowRecord& f);

    std::vector<FlowRecord> m_flows;
    uint32_t m_finished = 0;
    Callback<void> m_allFinished;
    std::vector<Callback<void, uint32_t>> m_flowFinished;
};

} // namespace ns3

#endif
