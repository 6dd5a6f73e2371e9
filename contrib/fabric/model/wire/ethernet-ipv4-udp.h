#ifndef FABRIC_ETHERNET_IPV4_UDP_H
#define FABRIC_ETHERNET_IPV4_UDP_H

#include "ns3/mac48-address.h"

#include <cstdint>

namespace ns3
{

/// Bytes of Ethernet (14) + IPv4 without options (20) + UDP (8).
constexpr uint32_t kEthernetIpv4UdpBytes = 42;

/// The outer headers every fabric transport frame (RoCEv2, Unified Bus) carries.
/// Writes the header checksum of the IPv4 header at \p ip (20 bytes, no options; RFC 791,
/// RFC 1071), computed over the header with the checksum field zeroed.
void WriteIpv4Checksum(uint8_t* ip);

struct EthernetIpv4Udp
{
    Mac48Address srcMac;
    Mac48Address dstMac;
    uint32_t srcIp = 0;
    uint32_t dstIp = 0;
    uint8_t tos = 0; ///< DSCP << 2 | ECN
    uint16_t srcPort = 0;
    uint16_t dstPort = 0;
    uint16_t udpPayloadBytes = 0; ///< bytes after the UDP header

    /// Writes the 42 bytes exactly as ns-3's EthernetHeader, Ipv4Header (checksum computed)
    /// and UdpHeader (checksum 0, valid for IPv4) would, so tshark and those classes read them.
    void Write(uint8_t* b) const;
    /// Reads them back (what Write wrote).
    void Read(const uint8_t* b);
};

} // namespace ns3

#endif
