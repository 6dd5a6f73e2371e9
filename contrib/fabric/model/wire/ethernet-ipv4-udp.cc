#include "ethernet-ipv4-udp.h"

namespace ns3
{

void
WriteIpv4Checksum(uint8_t* ip)
{
    ip[10] = 0;
    ip[11] = 0;
    uint32_t sum = 0;
    for (uint32_t i = 0; i < 20; i += 2)
    {
        sum += (uint32_t(ip[i]) << 8) | ip[i + 1];
    }
    // Ten 16-bit words sum below 2^20: two folds bring the carries back into 16 bits.
    sum = (sum & 0xFFFF) + (sum >> 16);
    sum = (sum & 0xFFFF) + (sum >> 16);
    uint16_t checksum = static_cast<uint16_t>(~sum);
    ip[10] = static_cast<uint8_t>(checksum >> 8);
    ip[11] = static_cast<uint8_t>(checksum);
}

void
EthernetIpv4Udp::Write(uint8_t* b) const
{
    dstMac.CopyTo(b);
    srcMac.CopyTo(b + 6);
    b[12] = 0x08;
    b[13] = 0x00;
    uint8_t* ip = b + 14;
    uint16_t ipLength = static_cast<uint16_t>(20 + 8 + udpPayloadBytes);
    ip[0] = 0x45;
    ip[1] = tos;
    ip[2] = ipLength >> 8;
    ip[3] = ipLength & 0xFF;
    ip[4] = ip[5] = ip[6] = ip[7] = 0;
    ip[8] = 64;
    ip[9] = 17;
    for (int i = 0; i < 4; ++i)
    {
        ip[12 + i] = static_cast<uint8_t>(srcIp >> (24 - 8 * i));
        ip[16 + i] = static_cast<uint8_t>(dstIp >> (24 - 8 * i));
    }
    WriteIpv4Checksum(ip);
    uint8_t* udp = ip + 20;
    uint16_t udpLength = static_cast<uint16_t>(8 + udpPayloadBytes);
    udp[0] = srcPort >> 8;
    udp[1] = srcPort & 0xFF;
    udp[2] = dstPort >> 8;
    udp[3] = dstPort & 0xFF;
    udp[4] = udpLength >> 8;
    udp[5] = udpLength & 0xFF;
    udp[6] = udp[7] = 0;
}

void
EthernetIpv4Udp::Read(const uint8_t* b)
{
    dstMac.CopyFrom(b);
    srcMac.CopyFrom(b + 6);
    const uint8_t* ip = b + 14;
    tos = ip[1];
    srcIp = (uint32_t(ip[12]) << 24) | (uint32_t(ip[13]) << 16) | (uint32_t(ip[14]) << 8) | ip[15];
    dstIp = (uint32_t(ip[16]) << 24) | (uint32_t(ip[17]) << 16) | (uint32_t(ip[18]) << 8) | ip[19];
    const uint8_t* udp = ip + 20;
    srcPort = static_cast<uint16_t>((udp[0] << 8) | udp[1]);
    dstPort = static_cast<uint16_t>((udp[2] << 8) | udp[3]);
    udpPayloadBytes = static_cast<uint16_t>(((udp[4] << 8) | udp[5]) - 8);
}

} // namespace ns3
