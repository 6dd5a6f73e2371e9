#ifndef FABRIC_PORT_OWNER_H
#define FABRIC_PORT_OWNER_H

namespace ns3
{

class FabricNetDevice;
struct QueuedFrame;
struct WireFrame;

/**
 * \brief What a port (FabricNetDevice) tells the switch or host NIC that owns it.
 *
 * An interface rather than ns-3 Callbacks because the port calls its owner for every frame it
 * receives and every frame it dequeues: a Callback costs two std::function calls and a
 * Ptr<FabricNetDevice> copy per call, about 6 % of the instructions per packet-hop
 * (bench/PROFILE.md).
 */
class FabricPortOwner
{
  public:
    virtual ~FabricPortOwner() = default;

    /// A frame has arrived with its parsed headers (frame.info, valid when frame.hasInfo) and
    /// the flow and payload its sender recorded; the owner may keep the packet by moving from
    /// frame.frame.
    virtual void FrameReceived(FabricNetDevice* port, WireFrame& frame) = 0;

    /// A frame leaves an egress queue for the wire (buffer accounting). A header rewritten
    /// here must be rewritten in item.info too.
    virtual void FrameDequeued(FabricNetDevice* port, QueuedFrame& item)
    {
    }

    /// A frame lost on this port: flushed from a queue (link down, a watchdog dropping its
    /// priority), or arriving on a dead cable or to a stuck NIC (then only flowId, payloadBytes
    /// and bytes are set).
    virtual void FrameLost(FabricNetDevice* port, const QueuedFrame& item)
    {
    }

    /// Whether the owner keeps received frames in a buffer and frees them later (a switch:
    /// FabricNetDevice::FreeCredits when a frame leaves its egress queue), or consumes them on
    /// arrival (a host NIC). Credit-based flow control returns credits accordingly.
    virtual bool BuffersReceivedFrames() const
    {
        return false;
    }

    /// Whether the owner feeds the port one frame at a time from PortIdle (a host NIC pacing
    /// its queue pairs) rather than queueing everything at once (a switch).
    virtual bool PullsWhenIdle() const
    {
        return false;
    }

    /// The port is idle with nothing to send: the owner may Enqueue its next frame (which
    /// starts at once).
    virtual void PortIdle(FabricNetDevice* port)
    {
    }
};

} // namespace ns3

#endif
