#include "roce-frame-header.h"

#include "bth-header.h"
#include "ethernet-ipv4-udp.h"
#include "link/frame-codec.h"

namespace ns3
{

namespace
{
constexpr uint16_t kBthSize = 12;
}

NS_OBJECT_ENSURE_REGISTERED(RoceFrameHeader);

TypeId
RoceFrameHeader::GetTypeId()
{
    static TypeId tid = TypeId("ns3::RoceFrameHeader")
                            .SetParent<Header>()
                            .SetGroupName("Fabric")
                            .AddConstructor<RoceFrameHeader>();
    return tid;
}

TypeId
RoceFrameHeader::GetInstanceTypeId() const
{
    return GetTypeId();
}

uint32_t
RoceFrameHeader::GetSerializedSize() const
{
    return kSize;
}

void
RoceFrameHeader::Serialize(Buffer::Iterator start) const
{
    uint8_t b[kSize] = {};
    EthernetIpv4Udp outer;
    outer.srcMac = srcMac;
    outer.dstMac = dstMac;
    outer.srcIp = srcIp;
    outer.dstIp = dstIp;
    outer.tos = tos;
    outer.srcPort = srcPort;
    outer.dstPort = kRoceV2UdpPort;
    outer.udpPayloadBytes = static_cast<uint16_t>(kBthSize + payloadBytes);
    outer.Write(b);
    uint8_t* bth = b + kEthernetIpv4UdpBytes;
    bth[0] = opcode;
    bth[2] = 0xFF; // P_Key 0xFFFF (default partition)
    bth[3] = 0xFF;
    // FECN 0x80, BECN 0x40 (IBA 9.2), the rest reserved in RoCEv2; 0x20 marks an INT stack.
    bth[4] = static_cast<uint8_t>((becn ? 0x40 : 0) | (hasInt ? 0x20 : 0));
    bth[5] = static_cast<uint8_t>(destQp >> 16);
    bth[6] = static_cast<uint8_t>(destQp >> 8);
    bth[7] = static_cast<uint8_t>(destQp);
    bth[8] = ackRequest ? 0x80 : 0;
    bth[9] = static_cast<uint8_t>(psn >> 16);
    bth[10] = static_cast<uint8_t>(psn >> 8);
    bth[11] = static_cast<uint8_t>(psn);
    start.Write(b, kSize);
}

uint32_t
RoceFrameHeader::Deserialize(Buffer::Iterator start)
{
    uint8_t b[kSize];
    start.Read(b, kSize);
    EthernetIpv4Udp outer;
    outer.Read(b);
    srcMac = outer.srcMac;
    dstMac = outer.dstMac;
    srcIp = outer.srcIp;
    dstIp = outer.dstIp;
    tos = outer.tos;
    srcPort = outer.srcPort;
    payloadBytes = static_cast<uint16_t>(outer.udpPayloadBytes - kBthSize);
    const uint8_t* bth = b + kEthernetIpv4UdpBytes;
    opcode = bth[0];
    becn = (bth[4] & 0x40) != 0;
    hasInt = (bth[4] & 0x20) != 0;
    destQp = (uint32_t(bth[5]) << 16) | (uint32_t(bth[6]) << 8) | bth[7];
    ackRequest = (bth[8] & 0x80) != 0;
    psn = (uint32_t(bth[9]) << 16) | (uint32_t(bth[10]) << 8) | bth[11];
    return kSize;
}

void
RoceFrameHeader::Print(std::ostream& os) const
{
    os << "RoCEv2 opcode=" << unsigned(opcode) << " qp=" << destQp << " psn=" << psn;
}

Ptr<Packet>
BuildRoceFrame(const RoceFrameSpec& spec, Ptr<Packet> inner)
{
    Ptr<Packet> p = inner ? inner : ZeroPayloadWithIcrc(spec.payloadBytes);
    RoceFrameHeader h;
    h.srcMac = spec.srcMac;
    h.dstMac = spec.dstMac;
    h.srcIp = HostIp(spec.srcHost);
    h.dstIp = HostIp(spec.dstHost);
    h.tos = static_cast<uint8_t>((spec.priority << 5) | (spec.ecnCapable ? 0x2 : 0x0));
    h.srcPort = spec.srcPort;
    h.payloadBytes = static_cast<uint16_t>(p->GetSize());
    h.opcode = spec.opcode;
    h.destQp = spec.destQp & 0xFFFFFF;
    h.psn = spec.psn & 0xFFFFFF;
    h.ackRequest = spec.ackRequest;
    h.becn = spec.becn;
    h.hasInt = spec.hasInt;
    p->AddHeader(h);
    return p;
}

} // namespace ns3
