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
FabricChannel::Transmit(FabricNetDevice* sender, Time untilArrival)
{
    int i = DirectionFrom(sender);
    if (m_context[i] == UINT32_MAX)
    {
        m_context[i] = m_devices[i]->GetNode()->GetId();
    }
    Simulator::ScheduleWithContext(m_context[i],
                                   untilArrival,
                                   &FabricNetDevice::HandOverOldest,
                                   sender,
                                   PeekPointer(m_devices[i]));
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
FabricChannel::TransmitRemote(const Ptr<Packet>& frame,
                              const FabricNetDevice* sender,
                              Time arrival,
                              uint32_t flowId,
                              uint32_t payload)
{
    const Ptr<FabricNetDevice>& peer =
        (PeekPointer(m_devices[0]) == sender) ? m_devices[1] : m_devices[0];
    m_remoteSender(frame, arrival, peer->GetNode()->GetId(), peer->GetIfIndex(), flowId, payload);
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
    m_devices[0] = nullptr;
    m_devices[1] = nullptr;
    Channel::DoDispose();
}

} // namespace ns3
