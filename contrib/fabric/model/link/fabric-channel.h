#ifndef FABRIC_CHANNEL_H
#define FABRIC_CHANNEL_H

#include "fabric-frames.h"
#include "frame-fifo.h"

#include "ns3/channel.h"
#include "ns3/nstime.h"
#include "ns3/packet.h"

namespace ns3
{

class FabricNetDevice;

/**
 * \ingroup fabric
 * \brief A full-duplex cable between two FabricNetDevices.
 *
 * Each direction is independent and FIFO. A frame the sending port puts on the cable stays in
 * the channel (GetOnWire) until its last bit has arrived, after serialization and the
 * propagation delay (given directly or as a cable length at 5 ns/m by the builder); the channel
 * then hands it to the receiving port, in the receiving node's context. A cable cut between MPI
 * ranks (SetRemotePeer) hands the frame to the other rank at once and remembers its flow,
 * payload and arrival time until then (GetRemoteOnWire), so that conservation still finds it.
 */
class FabricChannel : public Channel
{
  public:
    static TypeId GetTypeId();
    FabricChannel();

    void Attach(Ptr<FabricNetDevice> device);
    /// When a frame \p sender starts sending at \p now, taking \p txTime to serialize, has fully
    /// arrived at the peer: after the cable's delay (Delay + AddedDelay), and never before the
    /// frame sent ahead of it in that direction (a cable does not reorder; this only binds right
    /// after AddedDelay was lowered). Call once per frame, in sending order.
    Time NextArrival(const FabricNetDevice* sender, Time now, Time txTime);
    /// \p sender puts \p wire on the cable: after \p untilArrival the channel hands it to the
    /// peer (FabricNetDevice::ReceiveFromCable). The cable is FIFO per direction, so the arrival
    /// event needs only the direction.
    void Transmit(const FabricNetDevice* sender, WireFrame&& wire, Time untilArrival);

    /// Hands a frame to another MPI rank: (frame, arrival time, peer node id, peer interface
    /// index, flow id, payload bytes).
    typedef Callback<void, Ptr<Packet>, Time, uint32_t, uint32_t, uint32_t, uint32_t> RemoteSender;
    /// Cuts the cable between ranks: the device \p local is simulated here, its peer elsewhere;
    /// frames \p local sends go through \p sender instead of the local event queue.
    void SetRemotePeer(Ptr<FabricNetDevice> local, RemoteSender sender);
    /// Same as Transmit at \p now, for a device whose peer is remote (\p arrival from
    /// NextArrival): the frame goes to the other rank at once.
    void TransmitRemote(const FabricNetDevice* sender,
                        const WireFrame& wire,
                        Time arrival,
                        Time now);
    Ptr<FabricNetDevice> GetPeer(Ptr<const FabricNetDevice> device) const;

    /// Frames \p sender put on the cable that have not fully arrived, oldest first.
    const FrameFifo<WireFrame>& GetOnWire(const FabricNetDevice* sender) const
    {
        return m_onWire[DirectionFrom(sender)];
    }

    /// Frames \p sender sent to a remote peer, oldest first; those with arrival > now are still
    /// on the cable.
    const FrameFifo<RemoteWireFrame>& GetRemoteOnWire(const FabricNetDevice* sender) const
    {
        return m_remoteOnWire[DirectionFrom(sender)];
    }

    /// The cable's one-way delay now: its propagation delay plus any added by a fault event.
    Time GetDelay() const
    {
        return m_delay + m_addedDelay;
    }

    std::size_t GetNDevices() const override;
    Ptr<NetDevice> GetDevice(std::size_t i) const override;

  protected:
    void DoDispose() override;

  private:
    /// The oldest frame travelling towards device \p i has fully arrived: hand it over.
    void Arrive(int i);

    /// Direction index of frames sent by \p sender: the index of the receiving device.
    int DirectionFrom(const FabricNetDevice* sender) const
    {
        return PeekPointer(m_devices[0]) == sender ? 1 : 0;
    }

    Time m_delay;
    Time m_addedDelay; ///< a fault's extra delay (events: degrade ... delay), 0 normally
    /// Arrival of the last frame sent in each direction (indexed like m_devices by receiver).
    Time m_lastArrival[2];
    Ptr<FabricNetDevice> m_devices[2];
    uint32_t m_nDevices = 0;
    /// Node id of each device (the delivery context), read at the first transmission.
    uint32_t m_context[2] = {UINT32_MAX, UINT32_MAX};
    RemoteSender m_remoteSender;
    /// Frames on the cable towards each device (indexed like m_devices by receiver), oldest
    /// first.
    FrameFifo<WireFrame> m_onWire[2];
    /// Frames sent towards each device from this rank to another (a cut cable), oldest first.
    FrameFifo<RemoteWireFrame> m_remoteOnWire[2];
};

} // namespace ns3

#endif
