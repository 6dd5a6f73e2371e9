#ifndef FABRIC_SWITCH_H
#define FABRIC_SWITCH_H

#include "ecmp-load-balancer.h"
#include "ecn-mark-stage.h"
#include "link/fabric-net-device.h"
#include "link/frame-codec.h"
#include "pfc-watchdog.h"
#include "shared-buffer-mmu.h"
#include "switch-stages.h"

#include "ns3/event-id.h"
#include "ns3/object.h"
#include "ns3/random-variable-stream.h"
#include "ns3/traced-callback.h"
#include "ns3/type-id.h"

#include <cstdint>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

namespace ns3
{

/**
 * \ingroup fabric-switch-pipeline
 * \brief An output-queued Ethernet/IP switch with a shared buffer and PFC, built as a pipeline
 * of stages (docs/architecture.md).
 *
 * Per frame, with the headers parsed once where the frame was first queued: receive hooks
 * (in-network services such as SHARP take their frames), ingress classification (priority; with
 * HopClassIncrement the next lossless class up), route lookup of the destination host's
 * equal-cost ports and the load balancer's choice among them (LoadBalancer, ECMP by default),
 * admission against the shared-buffer MMU (XOFF upstream when the ingress crosses its threshold,
 * drops counted by reason), egress stages on enqueue (ECN marking), the egress port's queue.
 * When the frame leaves the queue: egress stages on dequeue (C-AQM, ECN on dequeue), buffer
 * release and XON where due. The switch knows no transport: stages read FrameInfo, and the
 * flow a frame's payload belongs to travels with the frame from the NIC that made it.
 */
class FabricSwitch : public Object, public FabricPortOwner
{
  public:
    enum DropReason : uint8_t
    {
        DROP_BUFFER_FULL = 0,
        DROP_HEADROOM_VIOLATION = 1,
        DROP_NO_ROUTE = 2,
        DROP_LINK_DOWN = 3,
        DROP_PFC_WATCHDOG = 4,
        DROP_TRIMMED = 5,         ///< only the payload: packet trimming forwards the header
        DROP_LINK_ERROR = 6,      ///< lost on a working cable (link.loss_rate, events error_rate)
        DROP_EGRESS_STAGE = 7,    ///< an egress stage's DROP verdict without a reason of its own
        DROP_BUFFER_THRESHOLD = 8 ///< lossy: its egress queue's threshold (ABM, LossyAlpha)
    };

    enum WatchdogAction
    {
        WATCHDOG_DROP,   ///< drop what is queued and arrives for the stormed queue, ignore pauses
        WATCHDOG_FORWARD ///< ignore pauses: keep sending (the stuck receiver drops it)
    };

    typedef void (*WatchdogTracedCallback)(uint32_t port, uint8_t priority, bool triggered);

    typedef void (*DropTracedCallback)(uint32_t flowId, uint32_t payloadBytes, uint8_t reason);

    typedef void (*TrimTracedCallback)(uint32_t flowId, uint32_t outPort, uint32_t cutBytes);
    /// An egress stage's MARK verdict: the frame of \p flowId leaving by \p outPort was marked
    /// ECN CE for \p reason (a MarkReason).
    typedef void (*MarkTracedCallback)(uint32_t flowId, uint32_t outPort, uint8_t reason);

    static TypeId GetTypeId();
    FabricSwitch();

    /// Adds a port (in order: port i is the i-th added device).
    /// \p towardHost: the port's cable leads to a host (C-AQM treats those ports apart). By
    /// default it is read off the peer's node, which a distributed run may not have built.
    uint32_t AddPort(Ptr<FabricNetDevice> device, int towardHost = -1);
    /// Forwarding: host index → index into \p groups, each a list of equal-cost ports.
    void SetRoutes(std::vector<uint32_t> groupOfHost, std::vector<std::vector<uint16_t>> groups);

    /// The node of the switch each host (by index) is attached to, shared by every switch of
    /// the fabric (set by the builder).
    void SetLeafOfHost(std::shared_ptr<const std::vector<uint32_t>> leafOfHost)
    {
        m_leafOfHost = std::move(leafOfHost);
    }

    /// The node of the switch host \p host is attached to; UINT32_MAX when unknown.
    uint32_t GetLeafOfHost(uint32_t host) const
    {
        return m_leafOfHost && host < m_leafOfHost->size() ? (*m_leafOfHost)[host] : UINT32_MAX;
    }

    /// Fixes the random streams of the stages (ECN marking first, then the load balancer and
    /// the other egress stages in order); determinism across runs. Call after Initialize().
    int64_t AssignStreams(int64_t stream);
    /// How many streams AssignStreams takes (a switch another rank simulates still counts).
    int64_t GetStreamCount();

    uint32_t GetNPorts() const
    {
        return static_cast<uint32_t>(m_ports.size());
    }

    Ptr<FabricNetDevice> GetPort(uint32_t i) const
    {
        return m_ports[i];
    }

    /// Whether port \p i leads to a host (C-AQM treats such ports apart).
    bool IsPortTowardHost(uint32_t i) const;

    uint32_t GetHashSalt() const
    {
        return m_hashSalt;
    }

    Ptr<SharedBufferMmu> GetMmu() const
    {
        return m_mmu;
    }

    /// The egress port a frame with this header would take (for tests and path tracing).
    uint32_t SelectEgressPort(const FrameInfo& info);

    /// The equal-cost ports toward host \p host (empty: no route). A load balancer that
    /// follows whole paths (ConWeave) reads the tables of the switches along them.
    const std::vector<uint16_t>& GetRouteGroup(uint32_t host) const;

    /// Queues \p item, which the load balancer held (SwitchLoadBalancer::HoldFrame), on
    /// \p outPort: the egress stages on enqueue, then the port's queue. It is charged to the
    /// shared buffer as when it was admitted, unless UnchargeHeld took it out.
    void EnqueueHeld(QueuedFrame&& item, uint32_t outPort);
    /// Takes \p item, which the load balancer holds, out of the shared buffer (and frees the
    /// credits it held): it waits, and later leaves by \p outPort, uncharged, as a frame the
    /// switch originated (ConWeave's reorder queues as its reference simulator keeps them).
    void UnchargeHeld(QueuedFrame& item, uint32_t outPort);

    /**
     * A multi-port NIC modelled as a switch node binds a queue pair to one of its ports: frames
     * whose connection (RoCE: the destination QP, which is the flow id, on data and on ACKs
     * alike) is \p connection leave by entry \p index (mod its size) of the equal-cost group
     * toward their destination, instead of by the load balancer. Ports in a group are in
     * ascending order, so on the control server's NIC index j is the port to rail j
     * (docs/models.md#shared-interface).
     */
    void BindConnectionToPort(uint32_t connection, uint16_t index)
    {
        m_boundConnections[connection] = index;
        m_plainEcmp = false;
    }

    EcnCurve GetEcnCurve(uint32_t port) const
    {
        return m_ecnStage->GetCurve(port);
    }

    /// Appends an egress stage (after those the attributes chose); call before Initialize().
    void AddEgressStage(Ptr<EgressStage> stage);

    /// The first egress stage of type T, or null.
    template <class T>
    Ptr<T> GetEgressStage() const
    {
        for (const Ptr<EgressStage>& s : m_egressStages)
        {
            if (Ptr<T> t = DynamicCast<T>(s))
            {
                return t;
            }
        }
        return nullptr;
    }

    Ptr<SwitchLoadBalancer> GetLoadBalancer() const
    {
        return m_loadBalancer;
    }

    /// Registers an in-network service (an Object implementing SwitchReceiveHook).
    template <class T>
    void AddReceiveHook(Ptr<T> service)
    {
        m_receiveHookObjects.push_back(service);
        m_receiveHooks.push_back(PeekPointer(service));
    }

    /// The first receive hook of type T, or null.
    template <class T>
    Ptr<T> GetReceiveHook() const
    {
        for (const Ptr<Object>& o : m_receiveHookObjects)
        {
            if (Ptr<T> t = DynamicCast<T>(o))
            {
                return t;
            }
        }
        return nullptr;
    }

    // Counters
    uint64_t GetDroppedBytes() const
    {
        return m_droppedBytes;
    }

    uint64_t GetDroppedFrames() const
    {
        return m_droppedFrames;
    }

    uint64_t GetHeadroomViolationBytes() const
    {
        return m_headroomViolationBytes;
    }

    uint64_t GetHeadroomViolationFrames() const
    {
        return m_headroomViolationFrames;
    }

    uint64_t GetEcnMarkedFrames() const
    {
        return m_ecnStage->GetMarkedFrames();
    }

    uint64_t GetMaxQueueBytes(uint32_t port) const
    {
        return m_maxQueueBytes[port];
    }

    uint64_t GetMaxBufferUsed() const
    {
        return m_maxBufferUsed;
    }

    uint64_t GetWatchdogTriggers() const
    {
        return m_watchdogTriggers;
    }

    bool IsTrimEnabled() const
    {
        return m_trimEnabled;
    }

    /// Frames whose payload packet trimming cut (their headers went on).
    uint64_t GetTrimmedFrames() const
    {
        return m_trimmedFrames;
    }

    /// Bytes packet trimming cut (the payloads; the headers went on).
    uint64_t GetTrimmedBytes() const
    {
        return m_trimmedBytes;
    }

  protected:
    /// Sizes the MMU and per-port state and installs the stages: after the last AddPort
    /// (Initialize()).
    void DoInitialize() override;
    void DoDispose() override;

  private:
    /// Creates the load balancer and egress stages the attributes name (once).
    void BuildPipeline();
    /// BuildPipeline, then binds the load balancer to this switch (once).
    void InstallLoadBalancer();
    /// Forwarding: the destination's equal-cost group, then the load balancer's choice;
    /// UINT32_MAX when there is no route.
    uint32_t Route(const FrameInfo& info);
    // FabricPortOwner
    void FrameReceived(FabricNetDevice* device, WireFrame& frame) override;
    /// Admits and queues a received frame; true when it is queued still holding the credits of
    /// its ingress lane (\p credited: it arrived holding them).
    bool Forward(FabricNetDevice* device, WireFrame& frame, bool credited);
    /// Forwarding by a load balancer that sees frames (SwitchLoadBalancer::SeesFrames):
    /// Route's group, the balancer's ForwardFrame; UINT32_MAX without a route, kFrameTaken.
    uint32_t RouteFrame(uint32_t inPort, WireFrame& frame);
    /// The egress stages on enqueue, then \p outPort's queue, for a frame the buffer admitted;
    /// false when a stage dropped it (its buffer is then released).
    bool EnqueueAdmitted(QueuedFrame&& item, uint32_t outPort);

    bool BuffersReceivedFrames() const override
    {
        return true;
    }

    void FrameDequeued(FabricNetDevice* device, QueuedFrame& item) override;
    /// A frame lost to a failed link: release its buffer (if it was queued here) and count it.
    void FrameLost(FabricNetDevice* device, const QueuedFrame& item) override;
    /// \p outPort: the egress port the frame was admitted for; \p sent: it left by it.
    void ReleaseBuffer(uint32_t inPort,
                       uint8_t priority,
                       uint32_t bytes,
                       uint32_t outPort,
                       bool sent);
    void SendXoff(uint32_t port, uint8_t priority);
    void RefreshPause(uint32_t port, uint8_t priority);
    void Drop(const WireFrame& frame, uint8_t reason);
    /// Asks the admission stages (packet trimming: TrimStage) about \p frame bound for
    /// \p outPort; true when one cut its payload, which is then counted and traced (Trim, and
    /// Drop with the verdict's reason).
    bool AdmissionStagesTrim(WireFrame& frame, uint32_t outPort, bool bufferFull);
    /// Carries out a stage's MARK verdict: ECN CE in the frame and its parsed headers, and the
    /// Mark trace.
    void MarkCe(QueuedFrame& item, uint32_t outPort, uint8_t reason);

    std::vector<Ptr<FabricNetDevice>> m_ports;
    std::vector<int> m_portTowardHost; ///< by port: 1, 0, or -1 (ask the peer's node)
    std::vector<uint32_t> m_groupOfHost;
    std::shared_ptr<const std::vector<uint32_t>> m_leafOfHost;
    std::vector<std::vector<uint16_t>> m_groups;
    std::unordered_map<uint32_t, uint16_t> m_boundConnections; ///< BindConnectionToPort
    Ptr<SharedBufferMmu> m_mmu;
    Ptr<SwitchLoadBalancer> m_loadBalancer;
    bool m_ecmp = false;          ///< m_loadBalancer is exactly EcmpLoadBalancer (Route inlines it)
    bool m_plainEcmp = false;     ///< m_ecmp and no bound connection: Route's one-test fast path
    bool m_lbSeesFrames = false;  ///< m_loadBalancer->SeesFrames(): RouteFrame and HoldFrame
    Ptr<EcnMarkStage> m_ecnStage; ///< always built (it owns the first random stream)
    std::vector<Ptr<EgressStage>> m_egressStages; ///< in order: ECN, C-AQM, the rest
    std::vector<EgressStage*> m_onAdmission;      ///< the stages that act before admission
    std::vector<EgressStage*> m_onEnqueue;        ///< the stages that act on enqueue
    std::vector<EgressStage*> m_onDequeue;        ///< and on dequeue
    std::vector<Ptr<Object>> m_receiveHookObjects;
    std::vector<SwitchReceiveHook*> m_receiveHooks; ///< the same, as hooks
    bool m_pipelineBuilt = false;
    std::vector<EventId> m_pauseRefresh; ///< per (port, priority)
    std::vector<std::pair<uint32_t, uint8_t>> m_resumeScratch;
    std::vector<uint64_t> m_maxQueueBytes;

    // Attributes
    uint32_t m_hashSalt;
    TypeId m_loadBalancerType;
    bool m_ecnEnabled;
    std::string m_ecnSpeedMap; ///< EcnSpeedMap
    QueueSize m_kmin;
    QueueSize m_kmax;
    double m_pmax;
    EcnMarkStage::MarkPoint m_markPoint;
    std::string m_transportStages;   ///< TransportStages: comma-separated TypeId names
    std::string m_extraEgressStages; ///< EgressStages: comma-separated TypeId names

    uint64_t m_droppedBytes = 0;
    uint64_t m_droppedFrames = 0;
    uint64_t m_headroomViolationBytes = 0;
    uint64_t m_headroomViolationFrames = 0;
    uint64_t m_maxBufferUsed = 0;
    uint64_t m_watchdogTriggers = 0;
    uint64_t m_trimmedFrames = 0;
    uint64_t m_trimmedBytes = 0;

    bool m_trimEnabled;
    QueueSize m_trimThreshold;
    uint8_t m_trimPriority;

    bool m_hopClassIncrement;
    /// RoCE ACK/NAK/CNP frames leave in the highest-priority queue (ns3::AckPriorityStage);
    /// default off, as conweave-project/conweave-ns3 switch-node.cc:31 (AckHighPrio 0)
    bool m_ackHighPriority;
    bool m_caqmEnabled;
    bool m_watchdogEnabled;
    Time m_watchdogDetection;
    Time m_watchdogRestore;
    WatchdogAction m_watchdogAction;

    std::unique_ptr<PfcWatchdog> m_watchdog; ///< with PfcWatchdog: the switch's watchdog

    TracedCallback<uint32_t, uint32_t, uint8_t> m_dropTrace;
    TracedCallback<uint32_t, uint8_t, bool> m_watchdogTrace;
    TracedCallback<uint32_t, uint32_t, uint32_t> m_trimTrace;
    TracedCallback<uint32_t, uint32_t, uint8_t> m_markTrace;
};

} // namespace ns3

#endif
