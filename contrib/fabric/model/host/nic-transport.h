#ifndef FABRIC_NIC_TRANSPORT_H
#define FABRIC_NIC_TRANSPORT_H

#include "congestion-control.h"
#include "fabric-host.h"
#include "flow-table.h"
#include "frequency.h"
#include "host-path.h"
#include "host-transport.h"
#include "request-launcher.h"
#include "rto-estimator.h"

#include "ns3/fatal-error.h"
#include "ns3/object-factory.h"
#include "ns3/type-id.h"

#include <cstdint>
#include <functional>
#include <set>
#include <string>
#include <utility>
#include <vector>

namespace ns3
{

/**
 * \brief What the RoCE and the Unified Bus NICs (RdmaNic, UbNic) share: the attributes both
 * have, the host and its ports, the request pipeline (RequestLauncher), the round-robin of
 * senders on each port and the bookkeeping of scripted losses and completed requests.
 *
 * A sender is what a NIC serves on a port in turn: a queue pair (RoCE) or a transport channel
 * (UB), named by a number the NIC chooses. The host's port scheduler (FabricHost) asks for a
 * frame when a port is idle; OfferFrame gives each sender of the port's rotation its turn
 * through OfferTurn, starting after the one that sent last.
 *
 * Both NICs have the host path stages of a remote request (docs/models.md#remote-read-stages,
 * HostPathStages): submission before the request pipeline (StartFlowAt), the NIC pipelines on
 * their ports (RxLatency), the target's memory access (TargetMemoryLatency) and the completion
 * stages before the application hears of a request (CompleteRequest); all 0 by default.
 *
 * The shared attributes are registered on each NIC's own TypeId (AddNicAttributes), not on
 * this one: ns-3.37's Config::SetDefault only finds the attributes a TypeId declares itself,
 * and the two NICs keep their own defaults (RequestInterval, CongestionControl), so that
 * ns3::RdmaNic::X and ns3::UbNic::X stay independent.
 */
class NicTransport : public HostTransport, public HostPortClient
{
  public:
    static TypeId GetTypeId();

    /// Retransmission timeout (attribute RtoMode, docs/models.md#retransmission-timeout).
    enum RtoMode
    {
        RTO_FIXED,   ///< the NIC's fixed timer(s): RoCE RtoLow / RtoHigh (IRN), UB Rto
        RTO_ADAPTIVE ///< RFC 6298 per QP or channel, floored by MinRto + RtoQueueBound
    };

    /// What a NIC's shared attributes default to and accept.
    struct AttributeDefaults
    {
        /// The NIC's request rate (docs/models.md#concurrency-limits).
        Time requestInterval;
        /// Created for each sender.
        TypeId congestionControl;
        /// What a CongestionControl type must derive from.
        TypeId congestionControlBase;
        /// The types the model has, for the help text.
        std::string congestionControlChoices;
    };

    /// Adds Mtu, AckInterval, RequestInterval, MaxInflightRequests, CongestionControl and the
    /// host path stages (AddHostPathAttributes) to \p tid (a NicTransport subclass) and
    /// returns it.
    static TypeId AddNicAttributes(TypeId tid, const AttributeDefaults& defaults);

    /// The host interface stages this NIC applies (docs/models.md#remote-read-stages), as its
    /// attributes give them.
    HostPathStages GetHostPath() const;

    /// How many switches the path to a host index crosses (the fabric's builder knows the
    /// topology; a NIC does not). Without it every path counts one switch (a star).
    using PathHopsFunction = std::function<uint32_t(uint32_t host)>;
    void SetPathHops(PathHopsFunction pathHops);
    /// Switches on the path to host index \p host (1 when no function was set).
    uint32_t PathHopsTo(uint32_t host) const;

    /// RtoMode adaptive: the smallest RTO, MinRto + RtoQueueBound.
    Time RtoFloor() const
    {
        return m_minRto + m_rtoQueueBound;
    }

    /// A new sender's estimator (adaptive) with the NIC's floor and maximum.
    RtoEstimator NewRtoEstimator() const
    {
        return RtoEstimator(RtoFloor(), m_maxRto);
    }

    /// Takes over the ports of \p host and its flows; the request pipeline launches through
    /// Launch.
    void Install(Ptr<FabricHost> host) override;
    /// Posts the flow (Post) at its start time, or now if that has passed.
    void StartFlowAt(uint32_t flowId) override;
    void LoseFirstTransmission(uint32_t flowId, uint32_t index) override;

    uint32_t GetMtu() const
    {
        return m_mtu;
    }

  protected:
    /// Whether a sender has taken its turn on a port.
    enum class Turn
    {
        IDLE, ///< nothing to send until an ACK or a timeout: it leaves the port's rotation
        WAIT, ///< something to send, not now (paused, paced, control frames first)
        SENT  ///< it queued one frame on the port
    };

    /// The senders of one host port: the host's port scheduler asks for their frames.
    struct Port
    {
        Ptr<FabricNetDevice> device;
        std::vector<uint32_t> senders; ///< senders with something to send, round-robin
        size_t next = 0;
    };

    void DoDispose() override;

    /// The flow's start time has come: queue it for launch, or hold it.
    virtual void Post(uint32_t flowId) = 0;
    /// The request pipeline starts \p flowId now (its request slot is taken).
    virtual void Launch(uint32_t flowId) = 0;
    /// Sender \p sender's turn on \p port: queue one frame if it may, else say why not (a sender
    /// that could send later lowers \p wake to when).
    /// Whether a sender that becomes active while the last one to send was the last of the
    /// rotation is served before that one's next frame (true) or after a whole turn (false,
    /// the default). RdmaNic::ServeNewQpFirst.
    virtual bool ServesNewSenderFirst() const;
    virtual Turn OfferTurn(uint32_t sender, const FabricNetDevice& port, Time now, Time* wake) = 0;

    /// Requests held back until another completes (UB fences) may join the launch queue now.
    virtual void ReleaseHeldRequests()
    {
    }

    /// Queues a posted request for launch (at once if the interval and a request slot allow).
    void QueueRequest(uint32_t flowId);
    /// The request \p flowId is complete at the NIC that posted it: after the host path's
    /// completion stages the application hears of it and its request slot goes to the next
    /// request waiting.
    void CompleteRequest(uint32_t flowId);

    /// The host path's memory access at a responder (DMA read or on-chip bus, then DRAM)
    /// before a response may leave.
    Time TargetMemoryLatency() const
    {
        return m_hostPath.TargetMemory();
    }

    /// A request slot is free: requests held behind a finished one and the next waiting
    /// request may launch.
    void FreeRequestSlot();

    /// Puts \p sender in the rotation of \p port (once) and asks the host to serve the port.
    void ActivateSender(uint32_t port, uint32_t sender);

    /// Studies: whether packet \p index of \p flowId is to be lost on arrival here; if so it is
    /// counted as a fabric drop of \p payload bytes.
    bool LoseScripted(uint32_t flowId, uint32_t index, uint32_t payload)
    {
        // Checked for every packet received; scripted losses are rare (studies only).
        return !m_loseOnce.empty() && LoseScriptedPacket(flowId, index, payload);
    }

    /// A new congestion control for one sender, of the CongestionControl type: a \p Family
    /// (the NIC's own RoceCongestionControl or UbCongestionControl) or one that serves every
    /// transport (DCTCP).
    template <class Family>
    Ptr<FabricCongestionControl> CreateCongestionControl() const
    {
        ObjectFactory factory;
        factory.SetTypeId(m_ccType);
        Ptr<FabricCongestionControl> cc = factory.Create<FabricCongestionControl>();
        if (!cc || (!cc->ServesEveryTransport() && !DynamicCast<Family>(cc)))
        {
            NS_FATAL_ERROR(GetInstanceTypeId().GetName()
                           << "::CongestionControl: " << m_ccType.GetName() << " is not a "
                           << Family::GetTypeId().GetName());
        }
        return cc;
    }

    /// Queues \p frame on \p port; \p flowId and \p payload say which flow's bytes it carries,
    /// \p unscheduled whether they are within its first base BDP (QueuedFrame::unscheduled).
    void EnqueueFrame(uint32_t port,
                      const Ptr<Packet>& frame,
                      uint8_t priority,
                      uint32_t flowId = kNoFlow,
                      uint32_t payload = 0,
                      bool unscheduled = false);

    /// Packets of the message of \p f (MTU-sized, the last one shorter).
    uint32_t PacketsOf(const FlowRecord& f) const
    {
        return static_cast<uint32_t>((f.bytes + m_mtu - 1) / m_mtu);
    }

    /// Payload bytes of packet \p index of \p f.
    uint32_t PayloadOf(const FlowRecord& f, uint32_t index) const;
    /// Why \p port cannot send \p priority now ("" when it can), for StuckReason.
    std::string PortBlockedReason(uint32_t port, uint8_t priority) const;

    // Attributes (AddNicAttributes)
    uint32_t m_mtu;
    uint32_t m_ackInterval;
    Time m_requestInterval;
    uint32_t m_maxInflightRequests;
    Time m_completionPollInterval; ///< 0: slots free as requests complete
    uint32_t m_completionPollBatch = 1;
    TypeId m_ccType;
    RtoMode m_rtoMode;
    Time m_minRto;
    Time m_rtoQueueBound;
    Time m_maxRto;
    PathHopsFunction m_pathHops;
    // Host path stages (docs/models.md#remote-read-stages), gathered in m_hostPath at Install
    Time m_postTime;
    Time m_descriptorBuildTime;
    Time m_doorbellTime;
    Time m_descriptorFetchTime;
    Time m_submitBusTime;
    Time m_sequenceTime;
    uint32_t m_pipelineCycles = 0;
    Frequency m_pipelineClock;
    Time m_targetDmaReadTime;
    Time m_targetBusTime;
    Time m_dramTime;
    Time m_payloadWriteTime;
    Time m_completionWriteTime;
    Time m_completionBusTime;
    Time m_cqPollTime;
    Time m_libraryPollTime;
    HostPathStages m_hostPath;

    Ptr<FabricHost> m_host;
    Ptr<FlowTable> m_flows;
    uint32_t m_hostIndex = 0;
    std::vector<Port> m_ports;
    RequestLauncher m_launcher; ///< launch interval and in-flight slots

  private:
    /// Adds the host path stage attributes to \p tid.
    static TypeId AddHostPathAttributes(TypeId tid);
    /// The submission stages are over: the request reaches the NIC's request pipeline.
    void Submitted(uint32_t flowId);
    /// The completion stages are over: the application hears of it, its slot is free.
    void ReportCompletion(uint32_t flowId);

    /// LoseScripted once a loss is scripted at all.
    bool LoseScriptedPacket(uint32_t flowId, uint32_t index, uint32_t payload);

    // HostPortClient: the senders of the port in turn, one frame at a time.
    bool OfferFrame(uint32_t port, Time now, Time* wake) final;
    void LoseFrame(FabricNetDevice* port, const QueuedFrame& item) final;

    std::set<std::pair<uint32_t, uint32_t>> m_loseOnce; ///< (flow, packet index) to lose
};

} // namespace ns3

#endif
