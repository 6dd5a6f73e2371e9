#ifndef FABRIC_CONWEAVE_LOAD_BALANCER_H
#define FABRIC_CONWEAVE_LOAD_BALANCER_H

#include "sim/lazy-uniform-random.h"
#include "switch-stages.h"

#include "ns3/event-id.h"
#include "ns3/nstime.h"
#include "ns3/tag.h"
#include "ns3/traced-callback.h"

#include <cstdint>
#include <deque>
#include <map>
#include <string>
#include <unordered_map>
#include <vector>

namespace ns3
{

class FabricSwitch;

/**
 * \ingroup fabric-switch-pipeline
 * \brief ConWeave's metadata on a data frame between its source and destination ToR: the path,
 * the hop, the epoch and phase, the time it left the source ToR, the time of the TAIL of the
 * phase (the paper's REROUTE / TAIL fields, §3, Fig. 4).
 *
 * Carried as an ns-3 packet tag, as the reference simulator does (conweave-project/
 * conweave-ns3 src/point-to-point/model/conweave-routing.h:55-57, note #B#: the header's few
 * bytes are not modelled on the wire); a pcap shows the frame without them.
 */
class ConWeaveTag : public Tag
{
  public:
    /// The frame's role in its epoch (conweave-routing.h ConWeaveDataTag flags).
    enum Flag : uint8_t
    {
        DATA = 1,        ///< an ordinary frame
        RTT_REQUEST = 2, ///< the first frame of an epoch: the destination ToR replies
        TAIL = 3,        ///< the last frame on the old path: the destination ToR answers CLEAR
    };

    static TypeId GetTypeId();
    TypeId GetInstanceTypeId() const override;
    uint32_t GetSerializedSize() const override;
    void Serialize(TagBuffer i) const override;
    void Deserialize(TagBuffer i) override;
    void Print(std::ostream& os) const override;

    uint64_t path = 0;    ///< port + 1 of every hop, 16 bits each, hop 0 in the low bits
    uint8_t hop = 0;      ///< the hop whose port the frame last took (0: the source ToR)
    uint8_t phase = 0;    ///< 0 before the reroute of the epoch, 1 after
    uint8_t flag = DATA;  ///< Flag
    uint32_t epoch = 0;   ///< the source ToR's epoch of the flow
    int64_t txTime = 0;   ///< when the source ToR sent it (time steps)
    int64_t tailTime = 0; ///< when the source ToR sent the TAIL of the epoch (0: none yet)
};

/// ConWeave's control frames (RTT_REPLY, CLEAR, NOTIFY) are UDP datagrams to this port, from
/// the destination ToR to the source host's ToR, which takes them.
constexpr uint16_t kConWeaveControlUdpPort = 0xC3E4;
/// Bytes of a control frame (the reference pads its replies to 64 bytes, conweave-routing.cc:265).
constexpr uint32_t kConWeaveControlFrameBytes = 64;

/**
 * \ingroup fabric-switch-pipeline
 * \brief ConWeave (Song et al., "Network Load Balancing with In-network Reordering Support for
 * RDMA", SIGCOMM 2023), as its reference simulator runs it (conweave-project/conweave-ns3,
 * src/point-to-point/model/conweave-routing.cc RouteInput, conweave-voq.cc).
 *
 * Source ToR (the leaf of the sending host), per flow: an epoch starts with an RTT_REQUEST
 * frame (when the flow was idle TxExpiryTime, or the last epoch settled); if no RTT_REPLY comes
 * back within the base RTT + ReplyTimeoutExtra, the next frame is the TAIL of the old path and
 * the later frames take a new path (phase 1): of two paths drawn at random, the first one no
 * NOTIFY has paused (PathPauseTime), else the second, else the old path. A CLEAR (the TAIL
 * arrived) settles the epoch. A path names the out-port of every hop to the destination ToR
 * (conweave-routing.h:276-280), so every switch on the way follows it; frames without ConWeave
 * state (acknowledgements, control frames, traffic within a leaf) take ECMP.
 *
 * Destination ToR: a phase-1 frame that arrives before the TAIL of its epoch waits in a reorder
 * queue (the reference's VOQ) until the TAIL arrives (released 1 ns after it,
 * conweave-routing.cc:817-820) or the queue's timer fires: the phase-0 frames' arrival plus the
 * TAIL's lead at the source (tail time - phase-0 send time) plus ExtraVoqFlushTime, or
 * DefaultVoqWaitingTime + ExtraVoqFlushTime after the first held frame when no phase-0 frame of
 * the epoch was seen (conweave-routing.cc:777-825). It answers RTT_REQUEST with RTT_REPLY, TAIL
 * with CLEAR, and an ECN-marked frame with NOTIFY naming its path.
 *
 * Held frames stay charged to the shared buffer until they leave (HoldInBuffer), as a switch
 * buffer holds them; the reference keeps its VOQs outside its MMU (switch-node.cc:198-214)
 * and admits the frames when it releases them, which HoldInBuffer false approximates (they
 * leave the accounting while they wait and after). Control frames are 64-byte UDP frames at
 * ControlPriority, queued at the destination ToR outside the buffer (as the reference's,
 * switch-node.cc:293-298, and as SHARP's results) and charged to the buffer of every later
 * switch.
 *
 * | attribute | default | source (conweave-project/conweave-ns3) |
 * |---|---|---|
 * | TxExpiryTime | 300 us | run.py:267 (cwh_tx_expiry_time, 2-tier leaf-spine) |
 * | ReplyTimeoutExtra | 4 us | run.py:261 (cwh_extra_reply_deadline) |
 * | PathPauseTime | 16 us | run.py:262 (cwh_path_pause_time) |
 * | ExtraVoqFlushTime | 16 us | run.py:265 (cwh_extra_voq_flush_time, 2-tier) |
 * | DefaultVoqWaitingTime | 200 us | run.py:266 (cwh_default_voq_waiting_time, 2-tier) |
 * | BaseRtt | 0: 2 x cable delay | network-load-balance.cc:1572, 1604, 1640 |
 * | AgingTime | 2 ms | conweave-routing.cc:183 |
 * | MaxReorderQueues | 0: unbounded | the VOQ map has no bound (conweave-routing.h:376) |
 * | HoldInBuffer | true | a switch's buffer (the reference's VOQ: switch-node.cc:198-214) |
 * | ControlPriority | 7 | switch-node.cc:228-232, AckHighPrio 1 (network-load-balance.cc:1445) |
 */
class ConWeaveLoadBalancer : public SwitchLoadBalancer
{
  public:
    /// The control frames (conweave-routing.h ConWeaveReplyTag INIT/TAIL, ConWeaveNotifyTag).
    enum ControlType : uint8_t
    {
        RTT_REPLY = 1,
        CLEAR = 2,
        NOTIFY = 3,
    };

    /// Why a source ToR changed a flow's path.
    enum RerouteReason : uint8_t
    {
        REROUTE_REPLY_TIMEOUT = 0, ///< no RTT_REPLY within base RTT + ReplyTimeoutExtra
        REROUTE_EPOCH_EXPIRY = 1,  ///< the flow was idle TxExpiryTime: a new epoch, a new path
    };

    /// Hops a path can name (a 3-tier fat tree's inter-pod path has 4; so has the reference's).
    static constexpr uint32_t kMaxHops = 4;

    static TypeId GetTypeId();
    ConWeaveLoadBalancer();

    void Install(const FabricSwitch& sw) override;
    uint16_t SelectPort(const FrameInfo& info, const std::vector<uint16_t>& group) override;
    bool SeesFrames() const override;
    uint32_t ForwardFrame(uint32_t inPort,
                          WireFrame& frame,
                          const std::vector<uint16_t>& group) override;
    bool HoldFrame(QueuedFrame& item, uint32_t outPort) override;
    int64_t GetStreamCount() const override;
    int64_t AssignStreams(int64_t stream) override;

    /// The out-port of hop \p hop of \p path (a path holds port + 1 per hop, 0 past its last).
    static uint16_t PortOfHop(uint64_t path, uint32_t hop)
    {
        return static_cast<uint16_t>((path >> (16 * hop)) - 1);
    }

    /// \p path as "p0-p1-...", its ports hop by hop.
    static std::string PathText(uint64_t path);

    /// The paths from this switch to the ToR of host \p host (computed once per ToR).
    const std::vector<uint64_t>& GetPaths(uint32_t host);
    /// The base RTT toward the ToR of \p host (BaseRtt, or derived from the cables).
    Time GetBaseRtt(uint32_t host);
    /// Whether a NOTIFY paused \p path at this (source) ToR now.
    bool IsPathPaused(uint64_t path) const;
    /// The path this source ToR sends flow \p flowId of host \p srcHost on; 0 if unknown.
    uint64_t GetFlowPath(uint32_t flowId, uint32_t srcHost) const;

    // Counters
    uint64_t GetReroutes() const
    {
        return m_reroutes;
    }

    uint64_t GetFlushesByTail() const
    {
        return m_flushesByTail;
    }

    uint64_t GetFlushesByTimeout() const
    {
        return m_flushesByTimeout;
    }

    /// Frames that waited in a reorder queue.
    uint64_t GetHeldFrames() const
    {
        return m_heldFrames;
    }

    /// Out-of-order frames passed on because MaxReorderQueues queues were in use.
    uint64_t GetQueueUnavailable() const
    {
        return m_queueUnavailable;
    }

    uint32_t GetMaxQueueFrames() const
    {
        return m_maxQueueFrames;
    }

    uint64_t GetMaxQueueBytes() const
    {
        return m_maxQueueBytes;
    }

    /// Reorder queues in use at once, at most.
    uint32_t GetMaxQueuesInUse() const
    {
        return m_maxQueuesInUse;
    }

    uint32_t GetQueuesInUse() const
    {
        return static_cast<uint32_t>(m_queues.size());
    }

    /// Control frames this switch sent, of \p type.
    uint64_t GetControlSent(ControlType type) const
    {
        return m_controlSent[type];
    }

    /// Control frames that reached this switch as their source ToR, of \p type.
    uint64_t GetControlReceived(ControlType type) const
    {
        return m_controlReceived[type];
    }

    /// (flow, old path, new path, RerouteReason)
    typedef void (*RerouteTracedCallback)(uint32_t flowId,
                                          uint64_t oldPath,
                                          uint64_t newPath,
                                          uint8_t reason);
    /// A reorder queue's occupancy changed: (queue, flow, frames, bytes).
    typedef void (*ReorderQueueTracedCallback)(uint32_t queue,
                                               uint32_t flowId,
                                               uint32_t frames,
                                               uint64_t bytes);
    /// A control frame reached its flow's source ToR: (ControlType, flow, epoch, path).
    typedef void (*ControlTracedCallback)(uint8_t type,
                                          uint32_t flowId,
                                          uint32_t epoch,
                                          uint64_t path);
    /// A reorder queue was released: (queue, flow, frames, byTail).
    typedef void (*FlushTracedCallback)(uint32_t queue,
                                        uint32_t flowId,
                                        uint32_t frames,
                                        bool byTail);

  protected:
    void DoDispose() override;

  private:
    /// The source ToR's state of a flow (conweave-routing.h conweaveTxState).
    struct TxState
    {
        bool stabilized = true;
        Time active;
        Time replyDeadline; ///< Time::Max(): none pending
        uint32_t epoch = 0;
        uint8_t phase = 0;
        uint64_t path = 0;
        Time tailTime;
    };

    /// The destination ToR's state of a flow (conweave-routing.h conweaveRxState).
    struct RxState
    {
        Time active;
        uint32_t epoch = 1;
        uint8_t phase = 0;
        Time phase0Tx;
        Time phase0Rx;
        bool phase0Seen = false; ///< the reference's phase-0 cache
        Time tailTime;
        bool reordering = false;
    };

    struct HeldFrame
    {
        QueuedFrame item;
        uint32_t outPort;
    };

    /// A reorder queue (the reference's ConWeaveVOQ) of one flow.
    struct ReorderQueue
    {
        uint32_t index = 0; ///< which of the ToR's queues
        uint32_t flowId = kNoFlow;
        uint64_t key = 0; ///< FlowKey
        std::deque<HeldFrame> frames;
        uint64_t bytes = 0;
        EventId flush;
        bool byTail = false; ///< the pending flush was set by the TAIL
    };

    struct LeafPaths
    {
        std::vector<uint64_t> paths;
        Time baseRtt;
    };

    static uint64_t FlowKey(uint32_t flowId, uint32_t srcIp)
    {
        return (uint64_t(flowId) << 32) | srcIp;
    }

    /// Whether host \p host hangs off this switch (its route is one port toward a host).
    bool IsLocalHost(uint32_t host) const;
    uint16_t Ecmp(const FrameInfo& info, const std::vector<uint16_t>& group) const;
    const LeafPaths& PathsToLeafOf(uint32_t host);
    /// The source ToR's work on a data frame entering the fabric here; its first port.
    uint32_t SourceToR(WireFrame& frame, const std::vector<uint16_t>& group);
    /// The destination ToR's work on a frame of \p flow; true: hold it.
    bool DestinationToR(QueuedFrame& item, uint32_t outPort, ConWeaveTag& tag);
    /// A control frame addressed to this switch (the source ToR of its flow).
    void ReceiveControl(WireFrame& frame);
    void SendControl(ControlType type,
                     const FrameInfo& data,
                     uint32_t flowId,
                     const ConWeaveTag& t);
    /// Sets (or moves) the flush timer of \p q to \p at.
    void ScheduleFlush(ReorderQueue& q, Time at, bool byTail);
    void Flush(uint64_t key);
    /// Forgets the state of flows idle AgingTime (at most once per AgingTime).
    void Age(Time now);

    FabricSwitch* m_switch = nullptr;
    std::vector<bool> m_towardHost; ///< by port
    std::unordered_map<uint32_t, LeafPaths> m_leafPaths;
    std::unordered_map<uint64_t, TxState> m_tx;
    std::unordered_map<uint64_t, RxState> m_rx;
    std::map<uint64_t, ReorderQueue> m_queues; ///< by flow key
    std::vector<bool> m_queueIndexUsed;
    std::unordered_map<uint64_t, Time> m_pausedUntil; ///< by path
    Time m_lastAging;
    LazyUniformRandom m_random;

    // Attributes
    Time m_txExpiryTime;
    Time m_replyTimeoutExtra;
    Time m_pathPauseTime;
    Time m_extraVoqFlushTime;
    Time m_defaultVoqWaitingTime;
    Time m_baseRtt;
    Time m_agingTime;
    uint32_t m_maxReorderQueues;
    bool m_holdInBuffer;
    uint8_t m_controlPriority;

    uint64_t m_reroutes = 0;
    uint64_t m_flushesByTail = 0;
    uint64_t m_flushesByTimeout = 0;
    uint64_t m_heldFrames = 0;
    uint64_t m_queueUnavailable = 0;
    uint32_t m_maxQueueFrames = 0;
    uint64_t m_maxQueueBytes = 0;
    uint32_t m_maxQueuesInUse = 0;
    uint64_t m_controlSent[4] = {0, 0, 0, 0};
    uint64_t m_controlReceived[4] = {0, 0, 0, 0};

    TracedCallback<uint32_t, uint64_t, uint64_t, uint8_t> m_rerouteTrace;
    TracedCallback<uint32_t, uint32_t, uint32_t, uint64_t> m_queueTrace;
    TracedCallback<uint32_t, uint32_t, uint32_t, bool> m_flushTrace;
    TracedCallback<uint8_t, uint32_t, uint32_t, uint64_t> m_controlTrace;
};

} // namespace ns3

#endif
