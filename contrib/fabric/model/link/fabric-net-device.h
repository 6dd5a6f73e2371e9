#ifndef FABRIC_NET_DEVICE_H
#define FABRIC_NET_DEVICE_H

#include "credit-flow-control.h"
#include "credit-port.h"
#include "fabric-channel.h"
#include "fabric-frames.h"
#include "fabric-port-owner.h"
#include "frame-codec.h"
#include "frame-fifo.h"
#include "frame-ref.h"
#include "pfc-port.h"
#include "port-faults.h"
#include "port-queues.h"
#include "sim/fabric-now.h"

#include "ns3/callback.h"
#include "ns3/data-rate.h"
#include "ns3/event-id.h"
#include "ns3/mac48-address.h"
#include "ns3/net-device.h"
#include "ns3/nstime.h"
#include "ns3/packet.h"
#include "ns3/queue-size.h"
#include "ns3/simulator.h"
#include "ns3/traced-callback.h"

#include <array>
#include <cstdint>
#include <list>
#include <memory>
#include <string>

namespace ns3
{

/**
 * \ingroup fabric
 * \brief A full-duplex Ethernet port with 8 priority queues and IEEE 802.1Qbb PFC.
 *
 * Transmission: PFC control frames first, then credit frames, then data by strict priority (7
 * highest) or DWRR over the priorities that are not paused and (under credit-based flow control,
 * FlowControl = cbfc) hold the credits their head frame needs (CreditFlowControl). A received PFC
 * frame pauses the named priorities for quanta × 512 bit times at this port's rate (0 quanta
 * resumes); the frame in transmission always finishes. Serialization time counts preamble, SFD, FCS
 * and inter-frame gap (WireOverhead) so link utilization matches a real port.
 *
 * The owner (a switch or host NIC, FabricPortOwner) is told of frames received, a frame leaving
 * an egress queue (for buffer accounting), frames lost, and the port going idle with nothing to
 * send (so a host NIC can pull its next packet instead of flooding the queue). A device with no
 * owner is a plain ns-3 NetDevice: Send() queues a frame, and what arrives goes up through the
 * receive callbacks (Node::AddDevice sets them) with the EtherType as protocol.
 */
class FabricNetDevice : public NetDevice
{
  public:
    enum Scheduler
    {
        STRICT_PRIORITY,
        DWRR
    };

    /// Link-level flow control of the lossless priorities: PFC pauses (the switch's MMU sends
    /// them) or credits (CreditFlowControl, credit frames of wire/credit-update-header.h).
    enum FlowControl
    {
        FLOW_CONTROL_PFC,
        FLOW_CONTROL_CBFC
    };

    typedef void (*PfcTracedCallback)(uint8_t priority, uint16_t quanta);
    typedef void (*FrameTracedCallback)(Ptr<const Packet> frame);
    typedef void (*QueueBytesTracedCallback)(uint8_t priority, uint64_t bytes);

    static TypeId GetTypeId();
    FabricNetDevice();
    ~FabricNetDevice() override;

    void Attach(Ptr<FabricChannel> channel);

    Ptr<FabricChannel> GetFabricChannel() const
    {
        return m_channel;
    }

    Ptr<FabricNetDevice> GetPeer() const;

    /// The switch or host NIC told of frames received, dequeued and lost, and of the port going
    /// idle; it must outlive the port's use (it owns the port). Null: frames are dropped.
    void SetOwner(FabricPortOwner* owner)
    {
        m_owner = owner;
        m_ownerPulls = owner && owner->PullsWhenIdle();
    }

    /// Takes the link down (queued and arriving frames are dropped, reported to the owner's
    /// FrameLost; nothing is sent) or back up.
    void SetLinkUp(bool up);

    /// Queues a data frame on its priority and starts transmission if the port is idle.
    void Enqueue(QueuedFrame&& item);
    /// Sends a PFC frame for one priority ahead of all data (quanta 0 = resume).
    void SendPause(uint8_t priority, uint16_t quanta);

    /// The port's credit state under FlowControl = cbfc (created by Attach); null under PFC.
    /// Connects \p sent and \p received to the PfcSent and PfcReceived trace sources, as
    /// TraceConnectWithoutContext does, without looking the sources up by name.
    void ConnectPfcTraces(const Callback<void, uint8_t, uint16_t>& sent,
                          const Callback<void, uint8_t, uint16_t>& received)
    {
        m_pfcSentTrace.ConnectWithoutContext(sent);
        m_pfcReceivedTrace.ConnectWithoutContext(received);
    }

    const CreditFlowControl* GetCredits() const
    {
        return m_credits ? &m_credits->GetState() : nullptr;
    }

    /// The credit lane of a received frame (its priority when IPv4 and credited), or -1.
    int CreditLaneOf(const FrameInfo& info) const
    {
        return m_credits ? m_credits->LaneOf(info) : -1;
    }

    /// The owner frees the buffer cells of a received frame (counted on arrival) when it leaves
    /// its buffer; the credits go back to the peer at the return interval.
    void FreeCredits(uint8_t lane, uint32_t bytes)
    {
        m_credits->Free(lane, bytes);
    }

    /// Bytes of buffer one credited lane of this port advertises (cells × cell size).
    uint64_t GetCreditReserveBytes() const;

    uint8_t GetCreditLanes() const
    {
        return m_creditLanes;
    }

    uint64_t GetCreditFramesSent() const
    {
        return m_credits ? m_credits->GetFramesSent() : 0;
    }

    uint64_t GetCreditBytesSent() const
    {
        return m_credits ? m_credits->GetBytesSent() : 0;
    }

    /// Times a credited lane's head frame found too few credits (a stall starts).
    uint64_t GetCreditStalls() const
    {
        return m_credits ? m_credits->GetStalls() : 0;
    }

    bool IsPaused(uint8_t priority) const
    {
        return !m_pfc.MaySend(priority, FabricNow());
    }

    /// End of the pause in force on a priority (in the past when not paused).
    Time GetPausedUntil(uint8_t priority) const
    {
        return m_pfc.GetPausedUntil(priority);
    }

    /// Why this port cannot send \p priority now ("" when it can): link down or PFC pause.
    std::string BlockedReason(uint8_t priority) const;

    /// Whether a frame is being serialized right now.
    bool IsBusy() const
    {
        return FabricNow() < m_busyUntil;
    }

    /// The same, at \p now (FabricNow() read by the caller: each read is a call).
    bool IsBusyAt(Time now) const
    {
        return now < m_busyUntil;
    }

    uint64_t GetQueueBytes(uint8_t priority) const
    {
        return m_queues.Bytes(priority);
    }

    uint64_t GetTotalQueueBytes() const
    {
        return m_queues.TotalBytes();
    }

    const FrameFifo<QueuedFrame>& GetQueue(uint8_t priority) const
    {
        return m_queues.Queue(priority);
    }

    DataRate GetDataRate() const
    {
        return m_rate;
    }

    /// Duration of one PFC pause quantum (512 bit times) at this port's rate.
    Time GetPauseQuantum() const;
    /// Serialization time of a frame of \p bytes including WireOverhead.
    Time FrameTxTime(uint32_t bytes) const;

    // Counters for traces and conservation.
    uint64_t GetTxBytes() const
    {
        return m_txBytes;
    }

    uint64_t GetRxBytes() const
    {
        return m_rxBytes;
    }

    uint64_t GetTxFrames() const
    {
        return m_txFrames;
    }

    uint64_t GetPfcFramesSent() const
    {
        return m_pfc.GetFramesSent();
    }

    uint64_t GetTxBytes(uint8_t priority) const
    {
        return m_txBytesPerPriority[priority];
    }

    /// Frames sent by this device that are still propagating, oldest first (the channel holds
    /// them).
    const FrameFifo<WireFrame>& GetOnWire() const;

    /// PFC storm (a NIC that stops draining): keep the peer paused on \p priority, refreshing
    /// the pause before it expires, and drop arriving data of that priority.
    void StartPfcStorm(uint8_t priority);
    void StopPfcStorm();
    /// PFC watchdog actions on this (egress) port: ignore pauses received for a priority, and
    /// drop what is queued or arrives for it.
    void SetPauseIgnored(uint8_t priority, bool ignored);
    void SetPriorityDropping(uint8_t priority, bool dropping);

    /// When the last PFC pause (quanta > 0) for \p priority arrived (-1 ps: never).
    Time GetLastPauseReceived(uint8_t priority) const
    {
        return m_pfc.GetLastPauseReceived(priority);
    }

    /// Start of the current uninterrupted pause of \p priority (meaningful while paused).
    Time GetPausedSince(uint8_t priority) const
    {
        return m_pfc.GetPausedSince(priority);
    }

    /// Fixes the random stream of the loss model (determinism across runs); takes kStreams.
    int64_t AssignStreams(int64_t stream);
    /// Streams AssignStreams takes (a device another rank builds still counts).
    static constexpr int64_t kStreams = 1;

    uint64_t GetLostFrames() const
    {
        return m_faults.GetLostFrames();
    }

    /// Called by the channel when a frame has fully arrived at this port: loss, link state,
    /// storm drops, PFC and credit frames, then the owner.
    void ReceiveFromCable(WireFrame& wire);

    /// A frame from a peer simulated by another MPI rank, with the flow and payload its sender
    /// recorded (what the channel holds for a local peer).
    void ReceiveFromRemote(Ptr<Packet> frame, uint32_t flowId, uint32_t payload);

    /// Marks the peer as simulated by another rank (set by the channel).
    void SetPeerRemote(bool remote)
    {
        m_peerRemote = remote;
    }

    bool IsPeerRemote() const
    {
        return m_peerRemote;
    }

    /// A frame sent to a remote peer: flow, payload and when it arrives there.
    using RemoteWireFrame = ns3::RemoteWireFrame;

    /// Frames sent to a remote peer, oldest first; those with arrival > now are still on the
    /// cable (the channel holds them).
    const FrameFifo<RemoteWireFrame>& GetRemoteOnWire() const;

    /// Data frames that have arrived and are still in the receive pipeline (RxLatency), oldest
    /// first: in flight, not yet seen by the owner.
    const std::list<WireFrame>& GetRxPipeline() const
    {
        return m_rxPipeline;
    }

    /// GetIfIndex without the virtual call (the owner's port index; stages ask per frame).
    uint32_t GetPortIndex() const
    {
        return m_ifIndex;
    }

    // NetDevice
    void SetIfIndex(const uint32_t index) override;
    uint32_t GetIfIndex() const override;
    Ptr<Channel> GetChannel() const override;
    void SetAddress(Address address) override;
    Address GetAddress() const override;

    Mac48Address GetMacAddress() const
    {
        return m_address;
    }

    bool SetMtu(const uint16_t mtu) override;
    uint16_t GetMtu() const override;
    bool IsLinkUp() const override;
    void AddLinkChangeCallback(Callback<void> callback) override;
    bool IsBroadcast() const override;
    Address GetBroadcast() const override;
    bool IsMulticast() const override;
    Address GetMulticast(Ipv4Address multicastGroup) const override;
    Address GetMulticast(Ipv6Address addr) const override;
    bool IsPointToPoint() const override;
    bool IsBridge() const override;
    bool Send(Ptr<Packet> packet, const Address& dest, uint16_t protocolNumber) override;
    bool SendFrom(Ptr<Packet> packet,
                  const Address& source,
                  const Address& dest,
                  uint16_t protocolNumber) override;
    Ptr<Node> GetNode() const override;
    void SetNode(Ptr<Node> node) override;
    bool NeedsArp() const override;
    void SetReceiveCallback(NetDevice::ReceiveCallback cb) override;
    void SetPromiscReceiveCallback(NetDevice::PromiscReceiveCallback cb) override;
    bool SupportsSendFrom() const override;

  protected:
    void DoDispose() override;

  private:
    friend class CreditPort; // asks the port to transmit when a credit frame is due

    void TryTransmit();
    /// \p now: FabricNow(), which the caller has read already (time does not move within
    /// an event, and each Now() is a call through the simulator).
    void StartTransmission(WireFrame&& wire, uint32_t bytes, Time now);
    void TransmitComplete(uint32_t generation);
    /// Schedules TransmitComplete after \p delay as the current completion event.
    void ScheduleComplete(Time delay);

    /// Picks the next data priority to serve, or -1 when every non-empty queue is paused or
    /// waits for credits.
    int SelectPriority(Time now)
    {
        return m_queues.Select([this, now](uint8_t p) {
            return m_pfc.MaySend(p, now) && (!m_credits || m_credits->MaySend(p));
        });
    }

    /// Whether a credit frame is due (under cbfc).
    bool CreditFrameWanted() const
    {
        return m_credits && m_credits->FrameWanted();
    }

    /// Hands a received data frame to the owner, through the receive pipeline (RxLatency).
    /// Inline: without a pipeline (switches, NICs without a host path) it costs one compare.
    void ToOwner(WireFrame& wire)
    {
        if (!m_rxLatency.IsStrictlyPositive())
        {
            m_owner->FrameReceived(this, wire);
            return;
        }
        EnterRxPipeline(wire);
    }

    void EnterRxPipeline(WireFrame& wire);
    /// The oldest frame in the receive pipeline reaches the owner.
    void LeaveRxPipeline();
    void ScheduleResumeCheck();
    void StormRefresh();
    void DropQueue(uint8_t priority);

    /// Removes the head of queue \p priority (tracing the queue's new bytes).
    QueuedFrame TakeHead(uint8_t priority)
    {
        QueuedFrame item = m_queues.TakeHead(priority);
        m_queueBytesTrace(priority, m_queues.Bytes(priority));
        return item;
    }

    /// A frame that arrived but is lost (dead cable, bit error, stuck NIC): tell the owner.
    void ReportLost(const WireFrame& wire);

    // Attribute accessors of the parts.
    void SetScheduler(Scheduler scheduler)
    {
        m_queues.SetDwrr(scheduler == DWRR);
    }

    Scheduler GetScheduler() const
    {
        return m_queues.IsDwrr() ? DWRR : STRICT_PRIORITY;
    }

    void SetDwrrQuantum(uint32_t bytes)
    {
        m_queues.SetDwrrQuantum(bytes);
    }

    uint32_t GetDwrrQuantum() const
    {
        return m_queues.GetDwrrQuantum();
    }

    void SetLossRate(double rate)
    {
        m_faults.SetLossRate(rate);
    }

    double GetLossRate() const
    {
        return m_faults.GetLossRate();
    }

    void SetCreditReturnInterval(Time interval);

    Time GetCreditReturnInterval() const
    {
        return m_creditReturnInterval;
    }

    void SetCreditSyncInterval(Time interval);

    Time GetCreditSyncInterval() const
    {
        return m_creditSyncInterval;
    }

    // What the data path reads for every frame, together at the front of the object: at a
    // thousand hosts and more a port's fields are rarely still in the cache when its next frame
    // comes, and spread over the whole object they cost five or six cache misses per frame.
    FabricPortOwner* m_owner = nullptr;
    std::unique_ptr<CreditPort> m_credits; ///< FlowControl = cbfc only
    /// End of the current frame's serialization. The completion event is only scheduled when
    /// something waits for it (a queued frame, a host that pulls): an idle switch port that
    /// forwards one frame costs one event per hop, not two.
    Time m_busyUntil;
    Time m_rxLatency; ///< RxLatency: pipelines before the owner sees a frame
    uint64_t m_rxBytes = 0;
    uint64_t m_txBytes = 0;
    uint64_t m_txFrames = 0;
    bool m_ownerPulls = false; ///< m_owner->PullsWhenIdle(), asked once
    bool m_peerRemote = false;
    /// Whether m_completeEvent is still to run (what m_completeEvent.IsRunning() says: it is
    /// only cancelled on dispose), kept here because EventId::IsRunning() costs a few hundred
    /// instructions through the simulator; m_completeGeneration tells the latest completion
    /// event from an earlier one it replaced.
    bool m_completePending = false;
    uint32_t m_completeGeneration = 0;
    Ptr<FabricChannel> m_channel;
    PortFaults m_faults; ///< link state, bit errors, priorities dropped
    TracedCallback<Ptr<const Packet>> m_snifferTrace;
    TracedCallback<uint8_t, uint64_t> m_queueBytesTrace;
    EventId m_completeEvent;
    PfcPort m_pfc;       ///< pauses received, pauses sent, storms
    PortQueues m_queues; ///< the eight data queues, the PFC queue and their scheduler

    Ptr<Node> m_node;
    Mac48Address m_address;
    uint32_t m_ifIndex = 0;
    uint16_t m_mtu = 9000;
    DataRate m_rate;
    uint32_t m_wireOverhead = 24;
    /// Frames inside them, oldest first. A list, not the FrameFifo the queues use, so that this
    /// rare path does not change how the compiler inlines the queues' hot operations.
    std::list<WireFrame> m_rxPipeline;

    // Credit attributes, read when Attach creates the credit state.
    FlowControl m_flowControl = FLOW_CONTROL_PFC;
    QueueSize m_creditCell;
    QueueSize m_creditBuffer;
    uint8_t m_creditLanes = 0x08;
    bool m_creditShared = false;
    Time m_creditReturnInterval;
    Time m_creditSyncInterval;

    std::array<uint64_t, kFabricPriorities> m_txBytesPerPriority{};

    NetDevice::ReceiveCallback m_rxCallback;
    NetDevice::PromiscReceiveCallback m_promiscCallback;
    TracedCallback<> m_linkChangeCallbacks; ///< AddLinkChangeCallback: on every change
    /// A frame for a device without a fabric owner: up through ns-3's receive callbacks.
    void DeliverUp(const WireFrame& wire);

    TracedCallback<uint8_t, uint16_t> m_pfcReceivedTrace;
    TracedCallback<uint8_t, uint16_t> m_pfcSentTrace;
};

} // namespace ns3

#endif
