#ifndef FABRIC_SWITCH_H
#define FABRIC_SWITCH_H

#include "sharp-aggregator.h" // SHARP hook (collectives)
#include "ecn-marker.h"
#include "shared-buffer-mmu.h"

#include "link/fabric-net-device.h"
#include "link/frame-codec.h"
#include "ub/caqm.h"

#include "ns3/event-id.h"
#include "ns3/object.h"
#include "ns3/random-variable-stream.h"
#include "ns3/traced-callback.h"

#include <cstdint>
#include <vector>

namespace ns3
{

/**
 * \brief An output-queued Ethernet/IP switch with a shared buffer, PFC, ECN and ECMP.
 *
 * Per frame: parse once, look up the destination host's equal-cost port group, pick a port by
 * a salted hash of the 5-tuple (the UDP source port carries a flow's or a packet's entropy, so
 * the same hash serves ECMP and packet spraying), admit against the shared-buffer MMU
 * (XOFF upstream when the ingress crosses its threshold), mark ECN, enqueue on the egress port.
 * When the frame leaves the egress queue its buffer is released and XON sent where due.
 */
class FabricSwitch : public Object, public FabricPortOwner
{
  public:
    enum EcnMarkPoint
    {
        MARK_ON_ENQUEUE,
        MARK_ON_DEQUEUE
    };
    enum DropReason : uint8_t
    {
        DROP_BUFFER_FULL = 0,
        DROP_HEADROOM_VIOLATION = 1,
        DROP_NO_ROUTE = 2,
        DROP_LINK_DOWN = 3,
        DROP_PFC_WATCHDOG = 4
    };
    enum WatchdogAction
    {
        WATCHDOG_DROP,   ///< drop what is queued and arrives for the stormed queue, ignore pauses
        WATCHDOG_FORWARD ///< ignore pauses: keep sending (the stuck receiver drops it)
    };
    typedef void (*WatchdogTracedCallback)(uint32_t port, uint8_t priority, bool triggered);

    typedef void (*DropTracedCallback)(uint32_t flowId, uint32_t payloadBytes, uint8_t reason);

    static TypeId GetTypeId();
    FabricSwitch();

    /// Adds a port (in order: port i is the i-th added device).
    /// \p towardHost: the port's cable leads to a host (C-AQM treats those ports apart). By
    /// default it is read off the peer's node, which a distributed run may not have built.
    uint32_t AddPort(Ptr<FabricNetDevice> device, int towardHost = -1);
    /// Sizes the MMU and per-port state; call after the last AddPort.
    void Initialize();
    /// Forwarding: host index → index into \p groups, each a list of equal-cost ports.
    void SetRoutes(std::vector<uint32_t> groupOfHost, std::vector<std::vector<uint16_t>> groups);
    /// Fixes the random stream used for ECN marking (determinism across runs).
    int64_t AssignStreams(int64_t stream);
    /// How many streams AssignStreams takes (a switch another rank simulates still counts).
    int64_t GetStreamCount() const { return 1 + (m_caqmEnabled ? 1 : 0); }

    uint32_t GetNPorts() const { return static_cast<uint32_t>(m_ports.size()); }
    Ptr<FabricNetDevice> GetPort(uint32_t i) const { return m_ports[i]; }
    Ptr<SharedBufferMmu> GetMmu() const { return m_mmu; }
    /// The egress port a frame with this header would take (for tests and path tracing).
    uint32_t SelectEgressPort(const FrameInfo& info) const;
    EcnCurve GetEcnCurve(uint32_t port) const { return m_ecn[port]; }

    // Counters
    uint64_t GetDroppedBytes() const { return m_droppedBytes; }
    uint64_t GetDroppedFrames() const { return m_droppedFrames; }
    uint64_t GetHeadroomViolationBytes() const { return m_headroomViolationBytes; }
    uint64_t GetHeadroomViolationFrames() const { return m_headroomViolationFrames; }
    uint64_t GetEcnMarkedFrames() const { return m_ecnMarked; }
    uint64_t GetMaxQueueBytes(uint32_t port) const { return m_maxQueueBytes[port]; }
    uint64_t GetMaxBufferUsed() const { return m_maxBufferUsed; }
    uint64_t GetWatchdogTriggers() const { return m_watchdogTriggers; }
    /// The C-AQM agent (null unless attribute Caqm is set).
    Ptr<CaqmSwitch> GetCaqm() const { return m_caqm; }
    /// SHARP in-network reduction (collectives): UDP 4793 frames go to this aggregator.
    void SetSharpAggregator(Ptr<SharpAggregator> sharp) { m_sharp = sharp; }
    Ptr<SharpAggregator> GetSharpAggregator() const { return m_sharp; }

  protected:
    void DoDispose() override;

  private:
    // FabricPortOwner
    void FrameReceived(FabricNetDevice* device, FrameRef& frame) override;
    void FrameDequeued(FabricNetDevice* device, QueuedFrame& item) override;
    /// A frame lost to a failed link: release its buffer (if it was queued here) and count it.
    void FrameLost(FabricNetDevice* device, const QueuedFrame& item) override;
    void ReleaseBuffer(uint32_t inPort, uint8_t priority, uint32_t bytes);
    /// Marks CE on \p frame (and in \p info) with the port's RED probability.
    void MaybeMarkEcn(uint32_t port, const FrameRef& frame, FrameInfo& info,
                      uint64_t queueBytes);
    void SendXoff(uint32_t port, uint8_t priority);
    void RefreshPause(uint32_t port, uint8_t priority);
    void Drop(const FrameInfo& info, uint8_t reason);
    /// PFC watchdog: a lossless egress queue paused and unable to send for the detection time
    /// is a storm victim; act on it; restore once no pause has come for the restore time.
    void WatchdogCheck();
    /// At the exact end of a queue's detection time: trigger if it is still stuck in the same
    /// pause without having sent.
    void WatchdogDeadline(uint32_t port, uint8_t priority);

    std::vector<Ptr<FabricNetDevice>> m_ports;
    std::vector<int> m_portTowardHost; ///< by port: 1, 0, or -1 (ask the peer's node)
    std::vector<uint32_t> m_groupOfHost;
    std::vector<std::vector<uint16_t>> m_groups;
    Ptr<SharedBufferMmu> m_mmu;
    Ptr<SharpAggregator> m_sharp; ///< SHARP hook: null unless a collective uses it
    Ptr<UniformRandomVariable> m_rng;
    std::vector<EcnCurve> m_ecn;
    std::vector<EventId> m_pauseRefresh; ///< per (port, priority)
    std::vector<std::pair<uint32_t, uint8_t>> m_resumeScratch;
    std::vector<uint64_t> m_maxQueueBytes;

    // Attributes
    uint32_t m_hashSalt;
    bool m_ecnEnabled;
    QueueSize m_kmin;
    QueueSize m_kmax;
    double m_pmax;
    EcnMarkPoint m_markPoint;

    uint64_t m_droppedBytes = 0;
    uint64_t m_droppedFrames = 0;
    uint64_t m_headroomViolationBytes = 0;
    uint64_t m_headroomViolationFrames = 0;
    uint64_t m_ecnMarked = 0;
    uint64_t m_maxBufferUsed = 0;
    uint64_t m_watchdogTriggers = 0;

    bool m_hopClassIncrement;
    bool m_caqmEnabled;
    Ptr<CaqmSwitch> m_caqm;
    /// Grants or refuses the C-AQM request of a UB DATA frame leaving \p port.
    void ApplyCaqm(Ptr<FabricNetDevice> device, QueuedFrame& item);
    bool m_watchdogEnabled;
    Time m_watchdogDetection;
    Time m_watchdogRestore;
    WatchdogAction m_watchdogAction;
    struct WatchdogState
    {
        uint64_t txAtPause = 0; ///< bytes sent when the pending deadline was armed
        Time pausedSince;       ///< the pause the pending deadline belongs to
        bool triggered = false;
        EventId deadline;
    };
    std::vector<WatchdogState> m_watchdog; ///< per (port, priority)
    EventId m_watchdogEvent;

    TracedCallback<uint32_t, uint32_t, uint8_t> m_dropTrace;
    TracedCallback<uint32_t, uint8_t, bool> m_watchdogTrace;
};

/// The ECMP hash, mixed with a per-switch salt (exposed for tests): the 5-tuple for RoCE and
/// other IP frames; for Unified Bus frames the entropy value (UDP source port) alone, so that
/// a UB sender chooses paths by choosing entropies.
uint32_t FabricFlowHash(const FrameInfo& info, uint32_t salt);

} // namespace ns3

#endif
