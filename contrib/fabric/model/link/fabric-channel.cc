#include "fabric-channel.h"

#include "fabric-net-device.h"

#include "ns3/log.h"
#include "ns3/node.h"
#include "ns3/simulator.h"

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("FabricChannel");
NS_OBJECT_ENSURE_REGISTERED(FabricChannel);

TypeId
FabricChannel::GetTypeId()
{
    static TypeId tid = TypeId("ns3::FabricChannel")
                            .SetParent<Channel>()
                            .SetGroupName("Fabric")
                            .AddConstructor<FabricChannel>()
                            .AddAttribute("Delay",
                                          "Propagation delay of the cable (5 ns per metre).",
                                          TimeValue(NanoSeconds(150)),
                                          MakeTimeAccessor(&FabricChannel::m_delay),
                                          MakeTimeChecker(Time(0)))
                            .AddAttribute("AddedDelay",
                                          "Extra one-way delay on top of Delay, in both "
                                          "directions: a fault (a retimer, a long detour) set "
                                          "by `events: degrade` and cleared by `restore`.",
                                          TimeValue(Time(0)),
                                          MakeTimeAccessor(&FabricChannel::m_addedDelay),
                                          MakeTimeChecker(Time(0)));
    return tid;
}

FabricChannel::FabricChannel() = default;

void
FabricChannel::Attach(Ptr<FabricNetDevice> device)
{
    NS_ABORT_MSG_IF(m_nDevices >= 2, "a FabricChannel connects exactly two devices");
    m_devices[m_nDevices++] = device;
}

Time
FabricChannel::NextArrival(const FabricNetDevice* sender, Time now, Time txTime)
{
    int i = DirectionFrom(sender);
    Time arrival = now + txTime + m_delay + m_addedDelay;
    if (arrival < m_lastArrival[i])
    {
        arrival = m_lastArrival[i]; // the delay was just lowered: no overtaking on the cable
    }
    m_lastArrival[i] = arrival;
    return arrival;
}

void
FabricChannel::Transmit(const FabricNetDevice* sender, WireFrame&& wire, Time untilArrival)
{
    int i = DirectionFrom(sender);
    m_onWire[i].push_back(std::move(wire));
    if (m_context[i] == UINT32_MAX)
    {
        m_context[i] = m_devices[i]->GetNode()->GetId();
    }
    Simulator::ScheduleWithContext(m_context[i], untilArrival, &FabricChannel::Arrive, this, i);
}

void
FabricChannel::Arrive(int i)
{
    WireFrame wire = std::move(m_onWire[i].front());
    m_onWire[i].pop_front();
    m_devices[i]->ReceiveFromCable(wire);
}

void
FabricChannel::SetRemotePeer(Ptr<FabricNetDevice> local, RemoteSender sender)
{
    NS_ABORT_MSG_IF(m_nDevices != 2 || (m_devices[0] != local && m_devices[1] != local),
                    "SetRemotePeer: the device is not on this channel");
    m_remoteSender = sender;
    local->SetPeerRemote(true);
}

void
FabricChannel::TransmitRemote(const FabricNetDevice* sender,
                              const WireFrame& wire,
                              Time arrival,
                              Time now)
{
    int i = DirectionFrom(sender);
    // Remember the frame until it would have arrived, so that conservation still finds it on
    // the cable at the end of the run.
    FrameFifo<RemoteWireFrame>& onWire = m_remoteOnWire[i];
    while (!onWire.empty() && onWire.front().arrival <= now)
    {
        onWire.pop_front();
    }
    onWire.push_back(RemoteWireFrame{arrival, wire.flowId, wire.payloadBytes});
    const Ptr<FabricNetDevice>& peer = m_devices[i];
    m_remoteSender(wire.frame.Get(),
                   arrival,
                   peer->GetNode()->GetId(),
                   peer->GetIfIndex(),
                   wire.flowId,
                   wire.payloadBytes);
}

Ptr<FabricNetDevice>
FabricChannel::GetPeer(Ptr<const FabricNetDevice> device) const
{
    return (m_devices[0] == device) ? m_devices[1] : m_devices[0];
}

std::size_t
FabricChannel::GetNDevices() const
{
    return m_nDevices;
}

Ptr<NetDevice>
FabricChannel::GetDevice(std::size_t i) const
{
    return m_devices[i];
}

void
FabricChannel::DoDispose()
{
    for (int i = 0; i < 2; ++i)
    {
        m_onWire[i].clear();
        m_remoteOnWire[i].clear();
        m_devices[i] = nullptr;
    }
    Channel::DoDispose();
}

} // namespace ns3
