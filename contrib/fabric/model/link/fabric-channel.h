#ifndef FABRIC_CHANNEL_H
#define FABRIC_CHANNEL_H

#include "fabric-frames.h"

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
 * Each direction is independent; the channel only adds the propagation delay (given directly or
 * as a cable length at 5 ns/m by the builder). Delivery is scheduled in the receiving node's
 * context so the model can later be cut across MPI ranks at channels.
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
    /// \p sender has just put a frame on the cable (last in its on-wire list): after
    /// \p untilArrival the sender hands it to the peer (FabricNetDevice::HandOverOldest). The
    /// cable is FIFO per direction, so the arrival event needs only the two ends.
    void Transmit(FabricNetDevice* sender, Time untilArrival);

    /// Hands a frame to another MPI rank: (frame, arrival time, peer node id, peer interface
    /// index, flow id, payload bytes).
    typedef Callback<void, Ptr<Packet>, Time, uint32_t, uint32_t, uint32_t, uint32_t> RemoteSender;
    /// Cuts the cable between ranks: the device \p local is simulated here, its peer elsewhere;
    /// frames \p local sends go through \p sender instead of the local event queue.
    void SetRemotePeer(Ptr<FabricNetDevice> local, RemoteSender sender);
    /// Same as Transmit, for a device whose peer is remote (\p arrival from NextArrival).
    void TransmitRemote(const Ptr<Packet>& frame,
                        const FabricNetDevice* sender,
                        Time arrival,
                        uint32_t flowId,
                        uint32_t payload);
    Ptr<FabricNetDevice> GetPeer(Ptr<const FabricNetDevice> device) const;

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
};

} // namespace ns3

#endif
