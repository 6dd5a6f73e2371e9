#include "roce-frame-header.h"

#include "bth-header.h"

namespace ns3
{

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
    dstMac.CopyTo(b);
    srcMac.CopyTo(b + 6);
    b[12] = 0x08;
    b[13] = 0x00;
    uint8_t* ip = b + 14;
    uint16_t ipLength = static_cast<uint16_t>(20 + 8 + 12 + payloadBytes);
    ip[0] = 0x45;
    ip[1] = tos;
    ip[2] = ipLength >> 8;
    ip[3] = ipLength & 0xFF;
    ip[8] = 64;
    ip[9] = 17;
    for (int i = 0; i < 4; ++i)
    {
        ip[12 + i] = static_cast<uint8_t>(srcIp >> (24 - 8 * i));
        ip[16 + i] = static_cast<uint8_t>(dstIp >> (24 - 8 * i));
    }
    uint32_t sum = 0;
    for (int i = 0; i < 20; i += 2)
    {
        sum += (uint32_t(ip[i]) << 8) | ip[i + 1];
    }
    while (sum >> 16)
    {
        sum = (sum & 0xFFFF) + (sum >> 16);
    }
    uint16_t checksum = static_cast<uint16_t>(~sum);
    ip[10] = checksum >> 8;
    ip[11] = checksum & 0xFF;
    uint8_t* udp = ip + 20;
    uint16_t udpLength = static_cast<uint16_t>(8 + 12 + payloadBytes);
    udp[0] = srcPort >> 8;
    udp[1] = srcPort & 0xFF;
    udp[2] = kRoceV2UdpPort >> 8;
    udp[3] = kRoceV2UdpPort & 0xFF;
    udp[4] = udpLength >> 8;
    udp[5] = udpLength & 0xFF;
    uint8_t* bth = udp + 8;
    bth[0] = opcode;
    bth[2] = 0xFF; // P_Key 0xFFFF (default partition)
    bth[3] = 0xFF;
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
    dstMac.CopyFrom(b);
    srcMac.CopyFrom(b + 6);
    const uint8_t* ip = b + 14;
    tos = ip[1];
    srcIp = (uint32_t(ip[12]) << 24) | (uint32_t(ip[13]) << 16) | (uint32_t(ip[14]) << 8) | ip[15];
    dstIp = (uint32_t(ip[16]) << 24) | (uint32_t(ip[17]) << 16) | (uint32_t(ip[18]) << 8) | ip[19];
    const uint8_t* udp = ip + 20;
    srcPort = static_cast<uint16_t>((udp[0] << 8) | udp[1]);
    payloadBytes = static_cast<uint16_t>(((udp[4] << 8) | udp[5]) - 20);
    const uint8_t* bth = udp + 8;
    opcode = bth[0];
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

} // namespace ns3
