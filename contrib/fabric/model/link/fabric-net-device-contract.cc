// The ns-3 NetDevice contract of FabricNetDevice: addresses, MTU, link state callbacks, and
// Send(), which queues an Ethernet frame (what arrives for a device with no fabric owner goes up
// through the receive callbacks: FabricNetDevice::DeliverUp). The fabric itself does not use
// ns-3's IP stack, so this is a thin compatibility path and addresses are plain MACs.

#include "fabric-net-device.h"

#include "ns3/ethernet-header.h"
#include "ns3/node.h"

namespace ns3
{

void
FabricNetDevice::SetIfIndex(const uint32_t index)
{
    m_ifIndex = index;
}

uint32_t
FabricNetDevice::GetIfIndex() const
{
    return m_ifIndex;
}

Ptr<Channel>
FabricNetDevice::GetChannel() const
{
    return m_channel;
}

void
FabricNetDevice::SetAddress(Address address)
{
    m_address = Mac48Address::ConvertFrom(address);
}

Address
FabricNetDevice::GetAddress() const
{
    return m_address;
}

bool
FabricNetDevice::SetMtu(const uint16_t mtu)
{
    m_mtu = mtu;
    return true;
}

uint16_t
FabricNetDevice::GetMtu() const
{
    return m_mtu;
}

bool
FabricNetDevice::IsLinkUp() const
{
    return m_channel != nullptr && m_faults.IsLinkUp();
}

void
FabricNetDevice::AddLinkChangeCallback(Callback<void> callback)
{
    m_linkChangeCallbacks.ConnectWithoutContext(callback);
}

bool
FabricNetDevice::IsBroadcast() const
{
    return true;
}

Address
FabricNetDevice::GetBroadcast() const
{
    return Mac48Address::GetBroadcast();
}

bool
FabricNetDevice::IsMulticast() const
{
    return false;
}

Address
FabricNetDevice::GetMulticast(Ipv4Address multicastGroup) const
{
    return Mac48Address::GetMulticast(multicastGroup);
}

Address
FabricNetDevice::GetMulticast(Ipv6Address addr) const
{
    return Mac48Address::GetMulticast(addr);
}

bool
FabricNetDevice::IsPointToPoint() const
{
    return true;
}

bool
FabricNetDevice::IsBridge() const
{
    return false;
}

bool
FabricNetDevice::Send(Ptr<Packet> packet, const Address& dest, uint16_t protocolNumber)
{
    EthernetHeader eth(false);
    eth.SetSource(m_address);
    eth.SetDestination(Mac48Address::ConvertFrom(dest));
    eth.SetLengthType(protocolNumber);
    packet->AddHeader(eth);
    QueuedFrame item;
    item.bytes = packet->GetSize();
    item.frame = packet;
    Enqueue(std::move(item));
    return true;
}

bool
FabricNetDevice::SendFrom(Ptr<Packet> packet,
                          const Address& source,
                          const Address& dest,
                          uint16_t protocolNumber)
{
    return Send(packet, dest, protocolNumber);
}

Ptr<Node>
FabricNetDevice::GetNode() const
{
    return m_node;
}

void
FabricNetDevice::SetNode(Ptr<Node> node)
{
    m_node = node;
}

bool
FabricNetDevice::NeedsArp() const
{
    return false;
}

void
FabricNetDevice::SetReceiveCallback(NetDevice::ReceiveCallback cb)
{
    m_rxCallback = cb;
}

void
FabricNetDevice::SetPromiscReceiveCallback(NetDevice::PromiscReceiveCallback cb)
{
    m_promiscCallback = cb;
}

bool
FabricNetDevice::SupportsSendFrom() const
{
    return false;
}

} // namespace ns3
