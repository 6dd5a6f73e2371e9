#ifndef FABRIC_RDMA_NIC_H
#define FABRIC_RDMA_NIC_H

#include "host/context-cache.h"
#include "host/nic-transport.h"
#include "host/rto-estimator.h"
#include "link/fabric-net-device.h"
#include "link/frame-codec.h"
#include "roce-congestion-control.h"

#include "ns3/event-id.h"
#include "ns3/object.h"
#include "ns3/queue-size.h"
#include "ns3/traced-callback.h"

#include <algorithm>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

namespace ns3
{

/**
 * \brief A RoCEv2 NIC with reliable-connection queue pairs, loss recovery and DCQCN.
 *
 * Each flow of the FlowTable is one message (RDMA WRITE or SEND) on its own RC queue pair, QP
 * number = flow id on both ends. The sender segments the message into MTU packets with 24-bit
 * PSNs (starting at a per-QP offset, so wraparound happens in ordinary runs), paces each QP at
 * the rate its congestion control allows and serves QPs round-robin, one frame at a time,
 * pulled by the port (the NIC never exceeds line rate). Messages launch no closer than
 * RequestInterval apart and at most MaxInflightRequests are outstanding per NIC.
 *
 * Per-QP state is O(window), not O(message) (docs/models.md#transport-state): packets are
 * numbered with 64-bit indices; the wire carries index + start PSN modulo 2^24 (the BTH PSN),
 * and each end reads a PSN back as the index nearest its own reference (the sender's first
 * unacknowledged packet, the receiver's next expected one), which is exact while a sender has
 * fewer than 2^23 packets outstanding (NextPacket holds it below). Send timestamps and the
 * selective-repeat bits live in rings indexed by packet index modulo a power of two that grows
 * with the packets in flight; both ends release them when the message is done.
 *
 * OrderedMessages: the messages of one connection (destination, priority) run on one QP, and
 * so share its congestion control (created and started at the connection's first message,
 * stopped when the NIC is torn down), its pacing, its window (counted over the connection's
 * unacknowledged payload) and the receiver's CNP interval; the second message starts at the
 * rate and window the first left. Without it every message is a QP of its own, with its own.
 *
 * The receiver accepts in order, ACKs every AckInterval packets and on the last one, NAKs a
 * PSN gap once, discards duplicates, and (DCQCN notification point) answers CE-marked packets
 * with at most one CNP per QP per CnpInterval. With EcnEcho it also sets the BTH BECN bit of
 * the ACK (or NAK) that covers a CE-marked packet: the per-ACK ECN feedback DCTCP needs.
 *
 * RDMA READ: the flow's src posts a READ request (BTH + RETH) to dst, whose NIC answers with
 * READ RESPONSE packets paced by its own congestion control (the data sender reacts to CNPs).
 * The responses are the acknowledgement: on a gap or a timeout the requester re-issues the
 * request from the first missing PSN (go-back-N, as RC READ recovery works on real NICs), and
 * the message completes at the requester when the last response arrives.
 *
 * Slow receivers (docs/models.md#slot-release): a SEND consumes one of ReceiveSlots posted receive
 * buffers from its first packet until the host has processed its completion
 * (CompletionProcessingTime each, one at a time). A SEND that finds no free buffer is refused
 * with an RNR NAK; the sender waits RnrDelay and resumes from that PSN. Backpressure thus reaches
 * the sender and nothing grows without bound.
 *
 * Loss recovery (attribute Recovery):
 *  - go-back-N: on a NAK or a timeout resend everything from the first unacknowledged PSN; the
 *    receiver discards packets after a gap (what commodity RoCE NICs do);
 *  - selective repeat (IRN-style): the receiver keeps out-of-order packets; its NAK carries the
 *    cumulative ACK point in the BTH PSN and the out-of-order PSN that triggered it in the AETH
 *    MSN; the sender resends only packets neither acknowledged nor reported received, and
 *    keeps at most Window bytes beyond the first unacknowledged packet.
 * Rate window (attributes RateWindow, RateWindowScaled; docs/models.md#rate-window): the HPCC
 * simulator's NIC window for every congestion control (config.txt HAS_WIN, GLOBAL_T, VAR_WIN;
 * alibaba-edu/High-Precision-Congestion-Control simulation/scratch/third.cc:138,
 * simulation/src/point-to-point/model/rdma-queue-pair.cc:116-137, qbb-net-device.cc:106): a QP
 * sends a new packet only while its unacknowledged payload is below W, where W is the base
 * bandwidth-delay product of the topology's longest host pair (global) or of the QP's own pair
 * (pair), with RateWindowScaled W x current rate / line rate (integer, at least 1 byte). It
 * applies beside the congestion control's own window: the smaller binds. Default off (the
 * reference's third.cc:61-62 default is HAS_WIN 1, GLOBAL_T 1, VAR_WIN 0; off keeps runs as they
 * were).
 *
 * Retransmission timeout (attribute RtoMode, docs/models.md#retransmission-timeout):
 *  - adaptive (default): RFC 6298 per QP (host/rto-estimator.h): SRTT and RTTVAR from the ACKs'
 *    round trips (Karn: none from a packet that may have been sent twice), RTO = SRTT +
 *    4 RTTVAR, at least MinRto + RtoQueueBound (the worst queueing a lossless class allows,
 *    which no estimate sees coming), doubled on every expiry up to RtoMax. READ requesters wait
 *    that floor, doubled per consecutive expiry, for the next response;
 *  - fixed (the model before): RtoLow while at most RtoLowThreshold packets are outstanding
 *    (the tail of a message, where a NAK cannot come), RtoHigh otherwise (IRN's values).
 */
class RdmaNic : public NicTransport
{
  public:
    /// CcRate: the rate a QP paces at changed (flow, old rate, new rate).
    typedef void (*CcRateTracedCallback)(uint32_t flowId, DataRate oldRate, DataRate newRate);

    enum Recovery
    {
        GO_BACK_N,
        SELECTIVE_REPEAT
    };

    /// Attribute RateWindow: whose base bandwidth-delay product bounds every QP (HAS_WIN 0,
    /// HAS_WIN 1 with GLOBAL_T 1, HAS_WIN 1 with GLOBAL_T 0).
    enum RateWindowMode
    {
        RATE_WINDOW_OFF,
        RATE_WINDOW_GLOBAL,
        RATE_WINDOW_PAIR
    };

    /// The base bandwidth-delay product in bytes from this NIC's host to host \p dstHost (the
    /// reference's pairBdp), or with \p dstHost = kAllHosts the largest over every pair of
    /// hosts of the topology (maxBdp).
    using BaseBdpFunction = std::function<uint64_t(uint32_t dstHost)>;
    static constexpr uint32_t kAllHosts = UINT32_MAX;

    static TypeId GetTypeId();
    RdmaNic();

    /// Size of one RC queue-pair context on the NIC (docs/models.md#transport-state).
    static constexpr uint64_t kQpContextBytes = 512;

    /// As if a CNP had arrived for the sending QP (validates the reaction point in isolation).
    void InjectCnp(uint32_t flowId) override;

    std::string AuditTransportState(const FlowTable& flows) const override
    {
        return AuditQueuePairs(flows);
    }

    /// Every message runs on its own QP (OrderedMessages: its connection's), whose context is
    /// counted to the end of the run.
    uint64_t GetPeakStateBytes() const override
    {
        return (m_senders.size() + m_receivers.size()) * kQpContextBytes;
    }

    uint32_t GetMaxReceiveSlotsInUse() const
    {
        return m_maxSlotsInUse;
    }

    /// QP contexts the launches found outside the on-chip cache (ContextCacheSize).
    uint64_t GetContextMisses() const
    {
        return m_cache.GetMisses();
    }

    /// Trimmed data packets received (packet trimming), each answered by a NAK.
    uint64_t GetTrimmedReceived() const
    {
        return m_trimmedReceived;
    }

    uint64_t GetRnrNaksSent() const
    {
        return m_rnrNaks;
    }

    /// NAKs (PSN sequence error or trimmed packet; RNR NAKs are GetRnrNaksSent) this NIC sent
    /// as a responder: with go-back-N, one per gap in the PSNs it received.
    uint64_t GetNaksSent() const
    {
        return m_naksSent;
    }

    /// Data packets (WRITE/SEND packets, READ responses) this NIC sent again: a PSN below the
    /// highest it had sent (their bytes are FlowRecord::retransmittedBytes).
    uint64_t GetRetransmittedPackets() const
    {
        return m_retransmittedPackets;
    }

    /// End-of-run audit of the queue pairs this NIC sends or receives for: returns "" when
    /// every finished message is fully acknowledged by the sender and fully received in order
    /// by the receiver, else what is inconsistent. \p finished tells a flow's completion.
    std::string AuditQueuePairs(const FlowTable& flows) const;
    std::string StuckReason(uint32_t flowId) const override;

    Recovery GetRecovery() const
    {
        return m_recovery;
    }

    RateWindowMode GetRateWindowMode() const
    {
        return m_rateWindow;
    }

    /// Where RateWindow global / pair reads its base bandwidth-delay products (the scenario
    /// runner computes them from the topology as the reference does: run/base-bdp.h). A QP
    /// reads it once, when it starts.
    void SetBaseBdp(BaseBdpFunction baseBdp);

    /// The rate window of the sending QP \p flowId now in payload bytes (0: none, or no such
    /// QP): RateWindow's base, scaled by rate / line rate with RateWindowScaled.
    uint64_t GetRateWindow(uint32_t flowId) const;
    /// The window the sending QP \p flowId obeys now: the smaller of its congestion control's
    /// and the rate window (0: none).
    uint64_t GetEffectiveWindow(uint32_t flowId) const;
    /// Payload the sending QP \p flowId has sent and not yet had acknowledged (what its windows
    /// bound; 0: no such QP).
    uint64_t GetInflightBytes(uint32_t flowId) const;

    /// First PSN of a QP (a function of its number, so wraparound is exercised).
    static uint32_t InitialPsn(uint32_t qp);

    /// The BTH PSN is 24 bits (InfiniBand Architecture Specification Vol. 1, chapter 9, base
    /// transport header).
    static constexpr uint32_t kPsnMask = 0xFFFFFF;
    /// A sender keeps fewer packets than half the PSN space unacknowledged, so each PSN names
    /// one packet near either end's reference (the specification's RC responder likewise reads
    /// the half of the PSN space behind the expected PSN as duplicates, the other half as ahead).
    static constexpr uint64_t kMaxOutstandingPackets = (uint64_t(1) << 23) - 1;

    /// PSN on the wire of packet \p index of a message whose first packet is \p startPsn.
    static uint32_t PsnOf(uint32_t startPsn, uint64_t index)
    {
        return static_cast<uint32_t>((startPsn + index) & kPsnMask);
    }

    /// Packet index that \p psn names, read as the one within 2^23 of the \p reference index
    /// (24-bit serial-number arithmetic); negative when that is before the message's start.
    static int64_t IndexNear(uint32_t psn, uint32_t startPsn, uint64_t reference)
    {
        uint32_t d = (psn - PsnOf(startPsn, reference)) & kPsnMask;
        int64_t delta = d >= (uint32_t(1) << 23) ? int64_t(d) - (int64_t(1) << 24) : int64_t(d);
        return static_cast<int64_t>(reference) + delta;
    }

    /// Bytes of per-packet state the sender of \p flowId holds now (send timestamps,
    /// selective-repeat bits and resend list): O(packets in flight), 0 once it is done.
    uint64_t SenderStateBytes(uint32_t flowId) const;
    /// Bytes of per-packet state the receiver of \p flowId holds now (selective repeat's
    /// out-of-order bits): O(reorder window), 0 once the message is complete.
    uint64_t ReceiverStateBytes(uint32_t flowId) const;

  protected:
    void DoDispose() override;

  private:
    /// OrderedMessages: the QP of one connection, whose state its messages share.
    struct ConnectionQp
    {
        Ptr<FabricCongestionControl> cc; ///< started at the first message, stopped at DoDispose
        Time nextSend;                   ///< pacing: the QP's next frame not before this
    };

    struct SenderQp
    {
        uint32_t flow = 0;
        DataRate pacedRate{0ULL}; ///< the CC's rate when last read (CcRate traces changes)
        bool usesInt = false;     ///< data packets reserve an INT stack (cc->UsesInt())
        uint32_t port = 0;
        uint64_t packets = 0; ///< message length in packets
        uint32_t startPsn = 0;
        uint64_t nextIndex = 0;   ///< next new packet to send (go-back-N rewinds it)
        uint64_t una = 0;         ///< first unacknowledged packet
        uint64_t highestSent = 0; ///< one past the highest packet ever sent
        // Packets [una, highestSent) in rings of a power-of-two size: packet i at i & (size-1)
        // (SlotsFor grows them; Complete frees them).
        std::vector<Time> sentAt;     ///< last transmission of each packet (RTT samples)
        std::vector<uint8_t> sacked;  ///< selective repeat: reported received out of order
        std::deque<uint64_t> resend;  ///< selective repeat: packets to send again
        uint64_t scannedTo = 0;       ///< selective repeat: NAK ranges already queued
        ConnectionQp* conn = nullptr; ///< OrderedMessages: the connection's shared QP state
        uint64_t rateWindowBase = 0;  ///< RateWindow: the base BDP (the reference's m_win)
        /// Packets [0, unscheduled) start within the first base BDP (line rate x BaseRtt) of
        /// the message: QueuedFrame::unscheduled (rdma-hw.cc:567-583).
        uint64_t unscheduled = 0;
        Time nextSend;
        bool launched = false;
        bool done = false;
        bool responder = false; ///< READ: this QP sends responses, the requester recovers
        Ptr<FabricCongestionControl> cc;
        // Retransmission timer, re-armed lazily: an ACK only moves rtoDeadline; the one pending
        // event (rto, due at rtoEventAt) reschedules itself to the deadline when it fires early.
        // Every ACK used to cancel and insert an event (7 % of all scheduler inserts).
        EventId rto;
        Time rtoDeadline;
        Time rtoEventAt;
        bool rtoArmed = false;    ///< the timer is logically running
        bool rtoPending = false;  ///< an RtoExpired event is in the scheduler
        RtoEstimator rtoEstimate; ///< RtoMode adaptive: SRTT, RTTVAR, backoff
        /// Karn's rule: packets below this index may have been sent twice (their ACKs give no
        /// RTT sample); highestSent when the last retransmission began.
        uint64_t karnBelow = 0;
    };

    struct ReceiverQp
    {
        uint64_t packets = 0;
        uint32_t startPsn = 0;
        uint64_t expected = 0; ///< next in-order packet index
        /// Selective repeat: out-of-order packets held, [expected, expected + size) in a ring
        /// of a power-of-two size (packet i at i & (size-1)); freed when the message is complete.
        std::vector<uint8_t> received;
        bool nakSent = false;
        uint32_t unacked = 0;
        Time lastCnp = Time(-1);
        bool cnpSent = false;
        EventId readTimeout;       ///< READ requester: re-request when responses stop
        uint32_t readBackoffs = 0; ///< READ requester: expiries since the last response
        bool holdsSlot = false;    ///< SEND: a receive buffer is held for this message
        bool rnrSent = false;      ///< an RNR NAK is outstanding for the current attempt
        bool ceSinceAck = false;   ///< EcnEcho: a CE-marked packet arrived since the last ACK
        bool hasInt = false;       ///< the latest data packet carried an INT stack: ACKs echo it
        IntStack intEcho;          ///< that stack, as the switches stamped it
    };

    void Post(uint32_t flowId) override;
    void Launch(uint32_t flowId) override;
    // The QP's turn on its port (sender = QP number = flow id); one that is paused or paced
    // reports when it may send.
    bool ServesNewSenderFirst() const override;
    Turn OfferTurn(uint32_t flowId, const FabricNetDevice& port, Time now, Time* wake) override;
    /// Packet index the QP would send now, or -1.
    int64_t NextPacket(SenderQp& qp);
    void SendData(SenderQp& qp, uint64_t index);

    /// Packets of the message of \p f (64-bit: PacketsOf truncates beyond 2^32).
    uint64_t MessagePackets(const FlowRecord& f) const
    {
        return (f.bytes + m_mtu - 1) / m_mtu;
    }

    /// Payload bytes of packet \p index of \p f.
    uint32_t PacketPayload(const FlowRecord& f, uint64_t index) const
    {
        return static_cast<uint32_t>(std::min<uint64_t>(m_mtu, f.bytes - index * m_mtu));
    }

    /// SenderQp::unscheduled of a QP sending by \p port.
    uint64_t UnscheduledPackets(uint32_t port) const;

    /// The sender's rings hold packets [una, \p index]: grown (a power of two) if they must.
    static void SlotsFor(SenderQp& qp, uint64_t index, bool selective);

    /// Selective repeat: packet \p i (una <= i < highestSent) was reported received.
    static bool Sacked(const SenderQp& qp, uint64_t i)
    {
        return !qp.sacked.empty() && i >= qp.una && i < qp.highestSent &&
               qp.sacked[i & (qp.sacked.size() - 1)];
    }

    /// Selective repeat: receiver \p rq holds packet \p i (at or beyond the expected one).
    static bool Received(const ReceiverQp& rq, uint64_t i)
    {
        return !rq.received.empty() && i >= rq.expected && i - rq.expected < rq.received.size() &&
               rq.received[i & (rq.received.size() - 1)];
    }

    /// Selective repeat: records packet \p i (> expected) as held, growing the ring.
    static void MarkReceived(ReceiverQp& rq, uint64_t i);
    /// The receiver's index for \p psn (expected as the reference); UINT64_MAX when before 0.
    static uint64_t ReceiverIndex(const ReceiverQp& rq, uint32_t psn);
    /// Payload sent and not acknowledged: of \p qp's message, or (OrderedMessages) of every
    /// message of its connection (the flight of the QP they share).
    uint64_t InflightBytes(const SenderQp& qp) const;
    /// ACKs every packet of \p rq received in order so far (PSN of the last one).
    void AckInOrder(uint32_t port,
                    uint32_t dstHost,
                    uint32_t qpn,
                    ReceiverQp& rq,
                    uint8_t priority);
    void SendControl(uint32_t port,
                     uint32_t dstHost,
                     uint32_t qp,
                     uint8_t opcode,
                     uint32_t psn,
                     uint8_t syndrome,
                     uint32_t msn,
                     uint8_t priority,
                     bool becn = false,
                     const IntStack* echo = nullptr);
    /// Payload bytes of packets [from, to) of the QP's message.
    uint64_t PayloadBetween(const SenderQp& qp, uint64_t from, uint64_t to) const;
    /// A new congestion control for a QP sending on \p port towards host \p dataSink, told its
    /// path's hops and started at the port's rate.
    Ptr<FabricCongestionControl> StartCongestionControl(uint32_t port, uint32_t dataSink) const;
    /// Whether the QP's congestion window (and the rate window) lets it send a new packet now.
    bool WindowOpen(const SenderQp& qp) const;
    /// RateWindow of \p qp now (0: none).
    uint64_t RateWindowOf(const SenderQp& qp) const;
    /// The smaller of the congestion control's window and the rate window (0: none).
    uint64_t EffectiveWindow(const SenderQp& qp) const;
    void ReceiveFrame(FabricNetDevice* device, WireFrame& received) override;
    void ReceiveData(const FrameInfo& info);
    /// A data packet arrived trimmed (packet trimming): NAK it at once.
    void ReceiveTrimmed(const FrameInfo& info);
    void ReceiveAck(const FrameInfo& info,
                    uint8_t syndrome,
                    uint32_t msn,
                    const IntStack* telemetry);

    /// The INT stack the ReceiverQp's ACKs echo (null: its data carried none).
    static const IntStack* EchoOf(const ReceiverQp& rq)
    {
        return rq.hasInt ? &rq.intEcho : nullptr;
    }

    void ReceiveCnp(const FrameInfo& info);
    void ReceiveReadRequest(const FrameInfo& info);
    /// READ requester: ask for the message from packet \p index on.
    void SendReadRequest(uint32_t flowId, uint64_t index);
    void ReadTimeout(uint32_t flowId);

    /// Host that sends the data of a flow (dst for READ) and host that receives it.
    static uint32_t DataSource(const FlowRecord& f)
    {
        return f.verb == RdmaVerb::READ ? f.dst : f.src;
    }

    static uint32_t DataSink(const FlowRecord& f)
    {
        return f.verb == RdmaVerb::READ ? f.src : f.dst;
    }

    /// The host finished processing one completion: its receive buffer is free again.
    void CompletionProcessed();
    void ArmRto(SenderQp& qp);
    void RtoExpired(uint32_t flowId);

    /// A retransmission of packets below highestSent begins: their ACKs are ambiguous (Karn).
    static void NoteRetransmission(SenderQp& qp)
    {
        qp.karnBelow = std::max(qp.karnBelow, qp.highestSent);
    }

    /// READ requester: how long to wait for the next response.
    Time ReadRto(const ReceiverQp& rq) const;
    void Complete(SenderQp& qp);
    /// The message is done at the NIC that posted it (in order per connection when
    /// OrderedMessages): completion and a free request slot.
    void FinishMessage(uint32_t flowId);
    /// OrderedMessages: the message's last packet left for the first time; the next message
    /// of its connection may start.
    void LastPacketSent(uint32_t flowId);

    uint32_t PortToward(uint32_t dstHost, uint16_t entropy) const;

    // Attributes (and those of NicTransport)
    Recovery m_recovery;
    Time m_cnpInterval;
    uint8_t m_cnpPriority;
    Time m_rtoLow;
    Time m_rtoHigh;
    uint32_t m_rtoLowThreshold;
    QueueSize m_window;
    bool m_serveNewQpFirst = false; ///< ServeNewQpFirst
    Time m_baseRtt;
    uint32_t m_receiveSlots;
    Time m_completionTime;
    Time m_rnrDelay;
    bool m_ecnEcho;
    RateWindowMode m_rateWindow;
    bool m_rateWindowScaled;
    BaseBdpFunction m_baseBdp;
    uint32_t m_slotsInUse = 0;
    uint32_t m_maxSlotsInUse = 0;
    uint32_t m_completionsQueued = 0; ///< waiting for (or in) host processing
    Time m_processorFreeAt;           ///< when the host finishes the completions queued so far
    uint64_t m_rnrNaks = 0;
    uint64_t m_naksSent = 0;             ///< sequence-error and trimmed NAKs sent
    uint64_t m_retransmittedPackets = 0; ///< data packets sent again
    uint64_t m_trimmedReceived = 0;      ///< trimmed data packets received (each NAKed at once)

    std::unordered_map<uint32_t, SenderQp> m_senders;
    std::unordered_map<uint32_t, ReceiverQp> m_receivers;
    bool m_orderedMessages;
    /// On-chip QP context cache (docs/models.md#context-cache): a message's launch touches the
    /// context of its RC connection (destination, priority); a miss delays its start.
    QueueSize m_contextCacheSize;
    Time m_contextMissPenalty;
    ContextCache m_cache;
    /// OrderedMessages: per (destination, priority) connection, its messages not yet completed
    std::map<std::pair<uint32_t, uint8_t>, std::deque<uint32_t>> m_connections;
    std::unordered_map<uint32_t, std::pair<uint32_t, uint8_t>> m_connectionOf;
    /// OrderedMessages: each connection's QP state shared by its messages (sender side)
    std::map<std::pair<uint32_t, uint8_t>, ConnectionQp> m_connectionQps;
    /// OrderedMessages, receiver side: when each connection's (source, priority) QP last sent
    /// a CNP (the notification point limits CNPs per QP)
    std::map<std::pair<uint32_t, uint8_t>, Time> m_connectionLastCnp;
    std::set<uint32_t> m_allSent;
    std::set<uint32_t> m_finishedOnConnection;
    TracedCallback<uint32_t, DataRate, DataRate> m_ccRateTrace;
};

} // namespace ns3

#endif
