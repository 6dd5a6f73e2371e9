#ifndef FABRIC_FRAMES_H
#define FABRIC_FRAMES_H

#include "frame-codec.h"
#include "frame-ref.h"

#include "ns3/data-rate.h"
#include "ns3/nstime.h"

#include <cstdint>

namespace ns3
{

/**
 * \defgroup fabric Fabric
 *
 * ns3-fabric: a packet-level model of lossless datacenter fabrics (shared-buffer switches with
 * PFC and ECN, RoCEv2 and Unified Bus NICs, collectives). docs/architecture.md draws the data
 * path; docs/models.md gives the analytic models the code and the validation use.
 */

/// Number of traffic classes (IEEE 802.1Q priorities) every port has.
constexpr uint8_t kFabricPriorities = 8;
/// Marks a frame that did not enter through a switch port (host-originated, control).
constexpr uint16_t kNoIngressPort = 0xFFFF;
/// Marks a frame that belongs to no traced flow (ACKs, CNPs, PFC).
constexpr uint32_t kNoFlow = 0xFFFFFFFF;

/// Time to send \p bits at \p rate in whole picoseconds, without floating point. Serialization
/// rounds up (a frame never leaves faster than the line allows); senders pacing below line rate
/// round down.
Time BitsAtRate(uint64_t bits, DataRate rate, bool roundUp);

/// A frame waiting in an egress queue, with what the owner needs when it leaves.
struct QueuedFrame
{
    FrameRef frame;
    uint32_t bytes = 0;               ///< frame bytes (buffer occupancy)
    uint32_t payloadBytes = 0;        ///< application bytes, for per-flow conservation
    uint32_t flowId = kNoFlow;        ///< flow the payload belongs to
    uint16_t inPort = kNoIngressPort; ///< switch ingress port, for MMU release
    uint8_t priority = 0;             ///< egress queue
    uint8_t ingressPriority = 0;      ///< class charged at ingress (differs with hop classes)
    /// Whether \p info describes \p frame's headers: set by whoever queues the frame, else by
    /// Enqueue (false only for a frame too short to parse). Whoever rewrites a header of a
    /// queued frame (ECN, priority, C-AQM) updates \p info with it, so that no later hop has to
    /// read the headers out of the packet again (that read is a cache miss per hop).
    bool hasInfo = false;
    /// Credit-based flow control: the frame holds the credits of its ingress (port, lane)
    /// (ingressPriority) until it leaves the switch, which then frees them.
    bool holdsCredit = false;
    /// The sender's NIC sent the payload within the flow's first base BDP (ABM's unscheduled
    /// packets: inet-tub/ns3-datacenter simulator/ns-3.39/src/point-to-point/model/
    /// rdma-hw.cc:567-583, UnSchedTag); switches copy it with flowId, AbmMmuPolicy reads it.
    bool unscheduled = false;
    FrameInfo info;
};

/// A frame on the cable (the channel keeps it until the peer has it), then handed to the
/// receiving port's owner. The flow and payload the sending NIC recorded travel with the frame,
/// so no hop derives them from transport headers.
struct WireFrame
{
    FrameRef frame;
    uint32_t flowId = kNoFlow; ///< flow the payload belongs to (kNoFlow: control)
    uint32_t payloadBytes = 0; ///< application bytes, for per-flow conservation
    /// Whether \p info describes the frame: the sender's parsed headers, or parsed on arrival;
    /// false only for a frame too short to parse (owners ignore those).
    bool hasInfo = false;
    bool unscheduled = false; ///< QueuedFrame::unscheduled, carried across the cable
    FrameInfo info;
};

// Every queue and cable holds these by value: the unscheduled mark took padding, not room.
static_assert(sizeof(QueuedFrame) <= 72, "QueuedFrame sits in every egress queue: keep it small");
static_assert(sizeof(WireFrame) <= 64, "WireFrame sits on every cable: keep it small");

/// A frame sent to a peer that another MPI rank simulates: what conservation needs of it (its
/// flow, its payload) and when it arrives there.
struct RemoteWireFrame
{
    Time arrival;
    uint32_t flowId;
    uint32_t payload;
};

} // namespace ns3

#endif
