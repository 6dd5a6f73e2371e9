#ifndef FABRIC_UB_NIC_H
#define FABRIC_UB_NIC_H

#include "host/context-cache.h"
#include "host/nic-transport.h"
#include "host/rto-estimator.h"
#include "link/fabric-net-device.h"
#include "link/frame-codec.h"
#include "ub-congestion-control.h"
#include "ub-load-balancer.h"
#include "wire/ub-header.h"

#include "ns3/event-id.h"
#include "ns3/queue-size.h"
#include "ns3/traced-callback.h"

#include <cstdint>
#include <deque>
#include <map>
#include <set>
#include <unordered_map>
#include <unordered_set>
#include <vector>

namespace ns3
{

/**
 * \brief A Unified Bus NIC: Jetty endpoints over shared reliable transport channels.
 *
 * Each flow of the FlowTable is one request (write or send) posted by Jetty \c endpoint of its
 * source host. Requests run on a transport channel, the reliable state toward one target:
 * sequence numbers (PSNs), selective ACKs, retransmission, the congestion window. Attribute
 * Sharing chooses which requests share a channel: every Jetty of the host toward a target
 * (shared, UB's design), one channel per Jetty and target (private, like RC queue pairs), or
 * K groups of Jettys per target. A channel serves its requests packet by packet in turn, so a
 * short request is never queued behind a long one.
 *
 * Sender: a packet may leave while the channel's in-flight bytes stay within its congestion
 * window (strategy object: C-AQM, NSCC or a fixed window) and its PSN within the receiver's
 * OutOfOrderWindow. Each packet takes the entropy its load balancer picks (strategy object:
 * fixed per channel = ECMP, oblivious round-robin spraying, adaptive REPS-like spraying).
 * Loss recovery is selective: a packet is resent when an ACK shows a packet sent ReorderWindow
 * later has arrived while it has not (time-based, so spraying's reordering is not taken for
 * loss), or when it is as old as the channel's retransmission timeout and unacknowledged.
 * Resent packets keep their PSN; receivers drop duplicates. The timeout (RtoMode,
 * docs/models.md#retransmission-timeout) is adaptive by default: RFC 6298 per channel from the
 * ACKs' round trips of packets sent once (Karn), SRTT + 4 RTTVAR floored by MinRto +
 * RtoQueueBound, doubled on every expiry up to RtoMax; fixed: Rto (ns-3-UB's 100 us).
 *
 * Receiver: tracks PSNs per channel (cumulative point + a window of out-of-order arrivals) and
 * ACKs every AckInterval packets (and at once on a gap opening or closing, a message's last
 * packet, a change of the congestion mark or the sender's ACK request, which a sender with
 * AckInterval > 1 sets when its window is full; default 1, as ns-3-UB:
 * docs/models.md#ub-ack-frequency) with the
 * cumulative PSN, a SackBits-bit bitmap and the C-AQM echo. Data is delivered to the
 * application in order per request: packets that arrive ahead of a gap wait in the reorder
 * buffer (ReorderBufferSize bytes per NIC; beyond it they are discarded and resent), traced as
 * "ReorderBuffer". A request executes once all its packets are there and its ordering
 * requirement holds (none; after named predecessors; strict: after every request its Jetty
 * posted earlier to this target); the ACK that follows tells the requester, where it completes.
 * A responder can only order what it receives: a predecessor sent to another target is waited
 * for at the initiator instead (the request is held, without a request slot, until that
 * predecessor completes — a fence).
 *
 * Requests launch no closer than RequestInterval apart (a 322 MHz request pipeline: 6.2 ns), at
 * most MaxInflightRequests at a time; each launch touches its Jetty and channel contexts in the
 * NIC's ContextCacheSize-byte cache, and every miss adds ContextMissPenalty before it starts.
 * Context sizes (docs/models.md#transport-state): Jetty 20 B, channel 56 B (GetPeakStateBytes).
 *
 * Memory transactions (docs/models.md#ub-memory): a READ is one request packet on the
 * requester's channel; once the responder executes it (ordering as above) and its memory has
 * been read (the host path's target stages, then MemoryLatency: docs/models.md#remote-read-stages),
 * the responder sends the data as RESPONSE packets on its own channel toward the requester (window,
 * spraying, SACK and selective resends as for a write), and the READ completes at the requester
 * when every response packet has arrived. Load, store and atomic flows are split into operations (a
 * CacheLineSize line each; 8 bytes for atomics), each a request packet answered by one RESPONSE
 * packet (the line for a load, none for a store, the 8-byte old value for an atomic); at most
 * MaxOutstandingOps operations per NIC are awaiting their response. Operations of one flow commit
 * in index order under strict (SO), in any order otherwise.
 *
 * UNO (FlowRecord::uno, the UB service mode "unreliable, no order"; docs/models.md#ub-uno):
 * such writes run on their own unreliable channel per (target, priority), which takes its turn
 * on the port like any channel but has no window, congestion control, ACK, timeout or resend:
 * its packets get PSNs (traces) and the kFlagUnreliable bit. The target writes each packet on
 * arrival, sends nothing back, and finishes the flow when its last missing packet arrives; the
 * initiator frees the request slot once the last packet is on its port. A lost packet leaves
 * the flow unfinished for good (StuckReason says so). Other requests are never ordered after a
 * UNO one (strict skips them; `after:` may not name them).
 */
class UbNic : public NicTransport
{
  public:
    enum Sharing
    {
        SHARED_PER_TARGET,
        PRIVATE_PER_RELATION,
        GROUPS
    };

    /// Sharing = groups: how a Jetty uses the K channels of its target's group (the UB
    /// specification's transport-channel group, TPG).
    enum GroupBinding
    {
        BIND_JETTY,  ///< each Jetty bound to one channel of the group (Jetty mod K)
        BIND_REQUEST ///< every Jetty bound to all K; each request takes the next channel in turn
    };

    static constexpr uint32_t kJettyContextBytes = 20;
    static constexpr uint32_t kChannelContextBytes = 56;

    typedef void (*ReorderTracedCallback)(uint32_t flowId, uint32_t packets, uint64_t bytes);
    /// CcWindow: a transport channel's congestion window changed (channel, destination host,
    /// old window bytes, new window bytes).
    typedef void (*CcWindowTracedCallback)(uint32_t channel,
                                           uint32_t dstHost,
                                           uint64_t oldWindow,
                                           uint64_t newWindow);

    static TypeId GetTypeId();
    UbNic();

    void Install(Ptr<FabricHost> host) override;
    /**
     * Gives every flow of \p table that has none its place among its Jetty's requests to its
     * target (FlowRecord::postSeq), as Post would when the flows are posted by StartFlowAt all
     * at once: in (start, flow id) order. Known before the run, every rank of a distributed run
     * agrees on it, which strict ordering at the target needs (a real responder reads it from
     * the channel's message sequence numbers).
     */
    static void AssignPostingOrder(FlowTable& table);
    /// UB has no CNPs: counts as one congestion-marked ACK for the flow's channel.
    void InjectCnp(uint32_t flowId) override;
    std::string AuditTransportState(const FlowTable& flows) const override;
    std::string StuckReason(uint32_t flowId) const override;
    uint64_t GetPeakStateBytes() const override;

    /// Trimmed DATA packets received (packet trimming), each answered by a NACK.
    uint64_t GetTrimmedReceived() const
    {
        return m_trimmedReceived;
    }

    int64_t AssignStreams(int64_t stream) override;

    /// Transport channels this NIC sends on and receives on.
    uint32_t GetSenderChannels() const
    {
        return static_cast<uint32_t>(m_tx.size());
    }

    uint32_t GetReceiverChannels() const
    {
        return static_cast<uint32_t>(m_rx.size());
    }

    uint32_t GetJettys() const
    {
        return static_cast<uint32_t>(m_jettys.size());
    }

    uint64_t GetContextMisses() const
    {
        return m_cache.GetMisses();
    }

    uint64_t GetPeakReorderBytes() const
    {
        return m_peakReorderBytes;
    }

    uint32_t GetPeakReorderPackets() const
    {
        return m_peakReorderPackets;
    }

    uint64_t GetResentPackets() const
    {
        return m_resentPackets;
    }

  protected:
    void DoDispose() override;

  private:
    struct TxPacket
    {
        uint32_t flow = 0;
        uint32_t index = 0;
        uint32_t payload = 0;
        uint32_t frameBytes = 0;
        Time sent;
        bool acked = false;
        bool lost = false; ///< deemed lost, waiting in the resend queue
        bool everSent = false;
        bool resent = false; ///< sent more than once (its `sent` is then out of PSN order)
    };

    /// What a sender-side message carries.
    enum class MessageKind : uint8_t
    {
        WRITE,   ///< a write or send: DATA packets, completed by the execution notice
        REQUEST, ///< a memory request (READ, loads, stores, atomics): completed by responses
        RESPONSE ///< a responder's answer: packets released as the request executes
    };

    struct TxMessage
    {
        MessageKind kind = MessageKind::WRITE;
        std::deque<uint32_t> ready; ///< RESPONSE: released packets not yet sent
        bool queued = false;        ///< RESPONSE: in its channel's active list
        bool answered = false;      ///< REQUEST: every response has arrived
        uint32_t channel = 0;
        uint32_t packets = 0;
        uint32_t nextIndex = 0; ///< next packet never sent
        uint32_t acked = 0;     ///< packets acknowledged
        uint32_t lastPsn = 0;   ///< PSN of its last packet (once sent)
        Time allAckedAt;        ///< when its last packet was acknowledged
        bool done = false;
    };

    struct TxChannel
    {
        uint32_t id = 0;
        uint32_t dst = 0;
        uint32_t port = 0;
        uint8_t priority = 0;
        bool ecnCapable = true;
        uint32_t una = 0;             ///< first PSN not acknowledged
        uint32_t nextPsn = 0;         ///< next PSN to assign
        std::deque<TxPacket> packets; ///< PSNs una .. nextPsn-1
        std::deque<uint32_t> resend;  ///< PSNs deemed lost
        std::deque<uint32_t> active;  ///< requests with packets never sent, in turn
        uint64_t inflight = 0;        ///< frame bytes sent, neither acknowledged nor lost
        Ptr<FabricCongestionControl> cc;
        Ptr<UbLoadBalancer> lb;
        EventId rto;
        RtoEstimator rtoEstimate; ///< RtoMode adaptive: SRTT, RTTVAR, backoff
        uint32_t openMessages = 0;
        bool unreliable = false; ///< UNO: no window, CC (cc is null), ACK or resend
    };

    struct RxChannel
    {
        uint32_t src = 0;
        uint32_t channel = 0;
        uint32_t port = 0;
        uint8_t priority = 0;
        uint32_t cumulative = 0;    ///< first PSN not received
        std::deque<uint8_t> beyond; ///< beyond[i]: PSN cumulative + 1 + i received
        uint32_t sinceAck = 0;
        uint32_t congested = 0; ///< C-AQM echo accumulators
        bool increase = false;
        uint32_t hintSum = 0;
        uint16_t lastEntropy = 0;
        bool lastCongested = false;
    };

    struct RxMessage
    {
        uint32_t packets = 0;
        uint32_t nextInOrder = 0;
        std::vector<uint8_t> got;
        uint32_t heldPackets = 0;
        uint64_t heldBytes = 0;
        bool complete = false;
        bool executed = false;
        uint64_t rxChannel = 0;
        std::vector<uint32_t> waitFor; ///< requests that must execute first
        // Load, store and atomic flows: one state per operation.
        std::vector<uint8_t> op;        ///< OpState
        std::vector<uint32_t> readyOps; ///< READY, not committed (orders other than strict)
        uint32_t nextCommit = 0;        ///< strict: the next operation to commit
        uint32_t committed = 0;
    };

    /// A memory operation at its responder.
    enum OpState : uint8_t
    {
        OP_ABSENT,    ///< its request has not arrived
        OP_ACCESSING, ///< arrived, memory access under way (MemoryLatency)
        OP_READY,     ///< accessed, waiting for its ordering
        OP_COMMITTED  ///< executed: its response is released
    };

    /// A memory request's responses at its requester.
    struct RxResponses
    {
        uint32_t packets = 0;
        uint32_t received = 0;
        std::vector<uint8_t> got;
    };

    void Post(uint32_t flowId) override;
    /// Whether the channel's window or the receiver's out-of-order window keeps another full
    /// packet from leaving now (the packet just sent then requests an ACK).
    bool WindowBlockedAfterSend(TxChannel& ch) const;
    /// Whether a request waits at its initiator for predecessors sent to other targets.
    bool Fenced(const FlowRecord& f) const;
    /// Whether an ordering predecessor of \p f (after, strict or relaxed) has not finished.
    bool OrderedAfterUnfinished(const FlowRecord& f) const;
    void Launch(uint32_t flowId) override;
    void Activate(uint32_t flowId);
    uint32_t ChannelFor(const FlowRecord& f);
    // The channel's turn on its port (sender = channel id).
    Turn OfferTurn(uint32_t channel, const FabricNetDevice& port, Time now, Time* wake) override;
    /// PSN the channel would send now (a resend first, then a new packet), or -1.
    int64_t NextPsn(TxChannel& ch);
    void SendData(TxChannel& ch, uint32_t psn);
    /// Builds the DATA frame of packet \p index of \p flowId (entropy from the channel's load
    /// balancer) and hands it to the channel's port.
    void EnqueueData(const TxChannel& ch,
                     uint32_t flowId,
                     uint32_t index,
                     uint32_t psn,
                     uint32_t payload,
                     uint8_t flags,
                     uint16_t cci);
    void ReceiveFrame(FabricNetDevice* device, WireFrame& received) override;
    void ReceiveData(const FrameInfo& info, const UbFrameHeader& h);
    void ReceiveAck(const UbFrameHeader& h, const UbAckHeader& ack);
    void SendAck(RxChannel& rc, uint32_t executed);
    /// The same ACK, naming the PSN of a DATA packet that arrived trimmed (the sender resends
    /// it at once).
    void SendAck(RxChannel& rc, uint32_t executed, uint32_t trimmedPsn);
    /// A DATA packet arrived trimmed (a switch cut its payload): NACK it at once (NDP).
    void ReceiveTrimmed(const FrameInfo& info, const UbFrameHeader& h);
    /// The receive state of the channel \p h arrived on, created on its first packet.
    RxChannel& RxChannelOf(const FrameInfo& info, const UbFrameHeader& h);
    void MarkAcked(TxChannel& ch, TxPacket& pkt);
    void DeclareLost(TxChannel& ch, uint32_t psn);
    void ArmRto(TxChannel& ch);

    /// The channel's retransmission timeout now (Rto, or its estimator's).
    Time ChannelRto(const TxChannel& ch) const
    {
        return m_rtoMode == RTO_ADAPTIVE ? ch.rtoEstimate.GetRto() : m_rto;
    }

    /// Resends a fully acknowledged request's last packet with its old PSN, so that the
    /// responder repeats its execution notice.
    void SendProbe(TxChannel& ch, uint32_t flowId);
    void RtoExpired(uint32_t channel);
    /// Whether request \p flowId still waits for a predecessor it is ordered behind (it is then
    /// on the waiting list).
    bool WaitForPredecessors(uint32_t flowId, const RxMessage& m);
    void TryExecute(uint32_t flowId);
    void Execute(uint32_t flowId);
    void Complete(uint32_t flowId);
    /// Requests fenced behind one that has completed join the launch queue.
    void ReleaseHeldRequests() override;
    void TraceReorder(uint32_t flowId, const RxMessage& m);
    /// Records PSN cumulative + \p offset as received on \p rc.
    static void AcceptPsn(RxChannel& rc, uint32_t offset);
    /// Notes the C-AQM / ECN marks of an arriving packet for the next ACK; returns whether it
    /// arrived congestion-marked.
    /// \p markChanged: whether the mark differs from the channel's previous packet.
    static bool NoteCongestion(RxChannel& rc,
                               const FrameInfo& info,
                               const UbFrameHeader& h,
                               bool* markChanged);

    // Memory transactions (ub-nic-memory.cc)
    /// Load, store, atomic: one request and one response per operation.
    static bool PerOperation(const FlowRecord& f);
    uint32_t RequestPackets(const FlowRecord& f) const;
    uint32_t ResponsePackets(const FlowRecord& f) const;
    /// Flow data bytes of packet \p index of a message of \p kind (what the flow table counts).
    uint32_t DataBytesOf(MessageKind kind, const FlowRecord& f, uint32_t index) const;
    /// Payload bytes on the wire of such a packet (an atomic request also carries operands).
    static uint32_t WireBytesOf(MessageKind kind, const FlowRecord& f, uint32_t dataBytes);
    static uint8_t OpcodeOf(MessageKind kind, const FlowRecord& f);
    /// Whether the request at the head of a channel's turn waits for an operation slot.
    bool WaitsForOpSlot(uint32_t flowId) const;
    /// Responder: a load/store/atomic request packet arrived (its PSN is new).
    void ReceiveOperation(RxChannel& rc,
                          uint64_t key,
                          const UbFrameHeader& h,
                          uint32_t payload,
                          bool congested);
    void OperationAccessed(uint32_t flowId, uint32_t op);
    /// Commits what the flow's ordering allows; the last commit executes the flow.
    void CommitOperations(uint32_t flowId);
    /// Responder: lets response packet \p index of \p flowId go (after MemoryLatency for a READ).
    void ReleaseResponse(uint32_t flowId, uint32_t index);
    void ReleaseReadResponse(uint32_t flowId);
    /// Requester: a RESPONSE packet arrived.
    void ReceiveResponse(const FrameInfo& info, const UbFrameHeader& h);
    /// Responder: every response packet of \p m is acknowledged.
    void FinishResponse(TxMessage& m);

    // UNO, the unreliable service mode
    /// Sends the next packet of the unreliable channel's turn (no window, no resend).
    void SendUnreliable(TxChannel& ch);
    /// The last packet of a UNO request is on its port: its request slot is free.
    void FinishUnreliableSend(uint32_t flowId);
    /// Target: a UNO packet arrived; written at once, never acknowledged.
    void ReceiveUnreliable(const FrameInfo& info, const UbFrameHeader& h);

    /// A UNO request at its target: which packets have arrived.
    struct UnoArrivals
    {
        std::vector<uint8_t> got;
        uint32_t received = 0;
    };

    std::unordered_map<uint32_t, UnoArrivals> m_unoRx;

    static uint64_t RxKey(uint32_t src, uint32_t channel)
    {
        return (uint64_t(src) << 32) | channel;
    }

    // Attributes (and those of NicTransport)
    Sharing m_sharing;
    uint32_t m_groups;
    GroupBinding m_groupBinding;
    uint32_t m_sackBits;
    uint32_t m_outOfOrderWindow;
    Time m_rto;
    Time m_reorderWindow;
    QueueSize m_reorderBufferSize;
    TypeId m_lbType;
    QueueSize m_contextCacheSize;
    Time m_contextMissPenalty;
    QueueSize m_cacheLine;
    Time m_memoryLatency;
    uint32_t m_maxOutstandingOps;
    uint32_t m_opsOutstanding = 0;     ///< operations sent, response not yet arrived
    std::deque<uint32_t> m_opsBlocked; ///< flows waiting for an operation slot
    std::unordered_map<uint32_t, RxResponses> m_rxResponses;

    std::deque<TxChannel> m_tx; ///< a deque: references stay valid as channels are added
    std::map<std::tuple<uint32_t, uint32_t, uint8_t>, uint32_t> m_channelOf; ///< (group, dst, prio)
    std::unordered_map<uint32_t, TxMessage> m_messages;
    std::unordered_map<uint64_t, RxChannel> m_rx;
    std::unordered_map<uint32_t, RxMessage> m_rxMessages;
    std::unordered_set<uint32_t> m_executed;
    std::vector<uint32_t> m_waiting; ///< complete requests waiting for predecessors
    std::set<uint16_t> m_jettys;
    ContextCache m_cache;
    std::vector<uint32_t> m_fenced; ///< posted, waiting for predecessors to other targets
    std::map<std::pair<uint16_t, uint32_t>, uint32_t> m_postCount; ///< per (Jetty, target)
    uint64_t m_reorderBytes = 0;
    uint64_t m_peakReorderBytes = 0;
    uint32_t m_reorderPackets = 0;
    uint32_t m_peakReorderPackets = 0;
    uint64_t m_resentPackets = 0;
    uint64_t m_trimmedReceived = 0; ///< trimmed DATA packets received (each NACKed at once)
    int64_t m_stream = -1;

    TracedCallback<uint32_t, uint32_t, uint64_t> m_reorderTrace;
    TracedCallback<uint32_t, uint32_t, uint64_t, uint64_t> m_ccWindowTrace;
    /// Feeds \p fb to the channel's congestion control and traces a window change.
    void TellCc(TxChannel& ch, const CcFeedback& fb);
    /// Traces the channel's window when it is no longer \p before.
    void TraceWindow(const TxChannel& ch, uint64_t before);
};

} // namespace ns3

#endif
