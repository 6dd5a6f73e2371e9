#ifndef FABRIC_SWITCH_STAGES_H
#define FABRIC_SWITCH_STAGES_H

#include "link/fabric-frames.h"

#include "ns3/object.h"

#include <cstdint>
#include <stdexcept>
#include <vector>

namespace ns3
{

class EgressStage;
class FabricNetDevice;
class FabricSwitch;

/**
 * \defgroup fabric-switch-pipeline Switch pipeline
 * \ingroup fabric
 *
 * FabricSwitch runs every frame through the same stages (docs/architecture.md draws them):
 * receive hooks (in-network services take their frames), ingress classification (priority;
 * the flow id came with the frame), forwarding (route lookup, then the load balancer picks
 * among equal-cost ports), egress stages on admission (packet trimming), MMU admission (shared
 * buffer, PFC), egress stages on enqueue (hop class, ECN, ...), the port's scheduler, egress
 * stages on dequeue, buffer release. Each stage returns a StageVerdict that the switch carries
 * out. The load balancer and egress stages are ns-3 Objects chosen by the switch's attributes;
 * none of them, nor the switch, knows a transport: they read FrameInfo, which the frame's
 * parser filled once.
 */

/**
 * \ingroup fabric-switch-pipeline
 * \brief A switch attribute names a stage that cannot be built (no such TypeId, or not a stage
 * of that kind); thrown when the switch builds its pipeline.
 */
class SwitchStageError : public std::runtime_error
{
  public:
    using std::runtime_error::runtime_error;
};

/**
 * \ingroup fabric-switch-pipeline
 * \brief Forwarding strategy: which of a destination's equal-cost ports a frame leaves by.
 *
 * Called once per frame and hop with a group of at least two ports. A strategy may read the
 * switch's port state (queue depth, pause state through FabricSwitch::GetPort) and keep tables of
 * its own (per flowlet, per destination); it must be deterministic given its random streams.
 */
class SwitchLoadBalancer : public Object
{
  public:
    static TypeId GetTypeId();

    /// Binds the strategy to its switch (called once, before the first frame).
    virtual void Install(const FabricSwitch& sw);
    /// The port (an element of \p group, size >= 2) a frame with headers \p info leaves by.
    virtual uint16_t SelectPort(const FrameInfo& info, const std::vector<uint16_t>& group) = 0;
    /// An egress stage the strategy needs on its switch (CONGA measures and stamps frames as
    /// they leave), run after every other stage; null for none (the default).
    virtual Ptr<EgressStage> CreateCompanionStage();
    /// Random streams the strategy takes (known before Install: a switch another rank
    /// simulates still counts them).
    virtual int64_t GetStreamCount() const;
    /// Fixes the strategy's random streams; returns GetStreamCount().
    virtual int64_t AssignStreams(int64_t stream);

    /// Whether the strategy handles the frames themselves (ForwardFrame and HoldFrame, for
    /// every IPv4 frame) rather than choosing by headers alone (SelectPort): ConWeave, which
    /// tags frames with their path, takes control frames addressed to it and holds frames to
    /// put them back in order. False by default.
    virtual bool SeesFrames() const;
    /// With SeesFrames: the port \p frame, arrived on \p inPort, leaves by, among \p group (the
    /// destination's equal-cost ports, possibly one; never empty); the strategy may tag the
    /// frame. kFrameTaken: the strategy took the frame (a control frame addressed to it); it
    /// is not forwarded. The default returns SelectPort's choice (group[0] for one port).
    virtual uint32_t ForwardFrame(uint32_t inPort,
                                  WireFrame& frame,
                                  const std::vector<uint16_t>& group);
    /// With SeesFrames: \p item, admitted to the shared buffer and bound for \p outPort, is
    /// about to join its egress queue. True: the strategy keeps it (charged to the buffer
    /// unless it calls FabricSwitch::UnchargeHeld) and hands it back later with
    /// FabricSwitch::EnqueueHeld. False by default.
    virtual bool HoldFrame(QueuedFrame& item, uint32_t outPort);
};

/// SwitchLoadBalancer::ForwardFrame: the strategy took the frame.
constexpr uint32_t kFrameTaken = 0xFFFFFFFEu;

/**
 * \ingroup fabric-switch-pipeline
 * \brief What an egress stage decides for a frame, with the reason, as ns-3's QueueDisc
 * returns from DoEnqueue and reports through Mark(item, reason) and DropBeforeEnqueue(item,
 * reason). The switch carries it out, counts it and fires its Mark or Drop trace source.
 */
/// Why a stage asked for an ECN mark (the reason of FabricSwitch's Mark trace source).
enum MarkReason : uint8_t
{
    MARK_ECN_CURVE = 0, ///< RED-style Kmin/Kmax/Pmax curve of the egress queue (EcnMarkStage)
};

struct StageVerdict
{
    enum Action : uint8_t
    {
        PASS, ///< the frame goes on (a stage may still have rewritten its own header field)
        MARK, ///< the switch sets ECN CE on the frame (an ECN-capable one), then it goes on
        DROP, ///< on enqueue only: the switch discards the frame and frees its buffer
        TRIM, ///< on admission only: the stage cut the frame's payload; its header goes on
    };

    Action action = PASS;
    /// MARK: a FabricSwitch::MarkReason; DROP and TRIM (the payload): a FabricSwitch::DropReason.
    uint8_t reason = 0;

    static StageVerdict Pass()
    {
        return {};
    }

    static StageVerdict Mark(uint8_t reason)
    {
        return {MARK, reason};
    }

    static StageVerdict Drop(uint8_t reason)
    {
        return {DROP, reason};
    }

    static StageVerdict Trim(uint8_t reason)
    {
        return {TRIM, reason};
    }
};

/**
 * \ingroup fabric-switch-pipeline
 * \brief A step every frame passes through on an egress port: on enqueue, on dequeue, or both.
 *
 * Active queue management (RED/ECN), congestion feedback (C-AQM), telemetry stamping and the
 * like. A stage that rewrites a header rewrites item.info with it (QueuedFrame::info) so that
 * later hops need not parse the packet again. Stages run in the order the switch holds them.
 */
class EgressStage : public Object
{
  public:
    static TypeId GetTypeId();

    /// Binds the stage to its switch after the last port was added (size per-port state here).
    virtual void Install(const FabricSwitch& sw);
    /// Whether OnAdmission / OnEnqueue / OnDequeue do anything (the switch skips the call
    /// otherwise).
    virtual bool RunsOnAdmission() const;
    virtual bool RunsOnEnqueue() const;
    virtual bool RunsOnDequeue() const;
    /// \p frame is routed to \p out and the shared buffer is about to admit it (\p bufferFull:
    /// it just refused it, for want of room): pass it, or cut its payload in place and return
    /// TRIM (the buffer then admits the header). The first stage that trims wins.
    virtual StageVerdict OnAdmission(const FabricNetDevice& out, WireFrame& frame, bool bufferFull);
    /// \p item is about to join the egress queue of \p port, which holds \p queueBytes of its
    /// priority before it: pass, mark or drop it. Later stages see a marked frame marked and
    /// do not see a dropped one.
    virtual StageVerdict OnEnqueue(FabricNetDevice& port, QueuedFrame& item, uint64_t queueBytes);
    /// \p item has left the egress queue of \p port for the wire (it is no longer counted in
    /// the queue): pass or mark it (it is on its way: a DROP counts as PASS).
    virtual StageVerdict OnDequeue(FabricNetDevice& port, QueuedFrame& item);
    /// Random streams the stage takes (known before Install: a switch another rank simulates
    /// still counts them).
    virtual int64_t GetStreamCount() const;
    /// Fixes the stage's random streams; returns GetStreamCount().
    virtual int64_t AssignStreams(int64_t stream);
};

/**
 * \ingroup fabric-switch-pipeline
 * \brief An in-network service on a switch (SHARP aggregation): takes the frames it claims
 * before forwarding; they are not forwarded.
 */
class SwitchReceiveHook
{
  public:
    virtual ~SwitchReceiveHook() = default;
    /// Whether the frame with headers \p info is addressed to this service.
    virtual bool Claims(const FrameInfo& info) const = 0;
    /// The claimed frame, arrived on \p port.
    virtual void Receive(FabricNetDevice* port, WireFrame& frame) = 0;
};

} // namespace ns3

#endif
