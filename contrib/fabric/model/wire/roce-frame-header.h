#ifndef FABRIC_ROCE_FRAME_HEADER_H
#define FABRIC_ROCE_FRAME_HEADER_H

#include "icrc-trailer.h"

#include "ns3/header.h"
#include "ns3/mac48-address.h"
#include "ns3/packet.h"

#include <cstdint>

namespace ns3
{

/**
 * \brief Ethernet + IPv4 + UDP + BTH of a RoCEv2 frame, written in one Serialize call.
 *
 * The bytes are exactly those of ns-3's EthernetHeader, Ipv4Header (checksum computed), UdpHeader
 * (checksum 0, valid for IPv4) and BthHeader added one by one, so tshark and those header
 * classes read them unchanged; building a frame with one AddHeader instead of four is what
 * the NIC's per-packet cost is made of.
 *
 * Layout (54 bytes): dst MAC, src MAC, EtherType 0x0800 | IPv4: 0x45, TOS (DSCP << 2 | ECN),
 * total length, id 0, flags/fragment 0, TTL 64, protocol 17, checksum, src, dst | UDP: source
 * port, 4791, length, checksum 0 | BTH (see BthHeader).
 */
class RoceFrameHeader : public Header
{
  public:
    static constexpr uint32_t kSize = 54;

    static TypeId GetTypeId();
    TypeId GetInstanceTypeId() const override;
    uint32_t GetSerializedSize() const override;
    void Serialize(Buffer::Iterator start) const override;
    uint32_t Deserialize(Buffer::Iterator start) override;
    void Print(std::ostream& os) const override;

    Mac48Address srcMac;
    Mac48Address dstMac;
    uint32_t srcIp = 0;
    uint32_t dstIp = 0;
    uint8_t tos = 0; ///< DSCP << 2 | ECN
    uint16_t srcPort = 0;
    uint16_t payloadBytes = 0; ///< bytes after the BTH (extension headers, payload, ICRC)
    uint8_t opcode = 0;
    uint32_t destQp = 0;
    uint32_t psn = 0;
    bool ackRequest = false;
    bool becn = false;   ///< BTH BECN bit
    bool hasInt = false; ///< BTH byte 4 bit 5: an INT stack follows (wire/int-header.h)
};

/// Ethernet + IPv4 + UDP + BTH + ICRC: what a RoCEv2 data frame adds to its payload.
constexpr uint32_t kRoceFrameOverhead = RoceFrameHeader::kSize + kIcrcBytes;

/// Parameters of one RoCEv2 frame to build.
struct RoceFrameSpec
{
    Mac48Address srcMac;
    Mac48Address dstMac;
    uint32_t srcHost = 0;
    uint32_t dstHost = 0;
    uint16_t srcPort = 0; ///< entropy
    uint8_t priority = 0;
    bool ecnCapable = true;
    uint8_t opcode = 0;
    uint32_t destQp = 0;
    uint32_t psn = 0;
    bool ackRequest = false;
    bool becn = false; ///< ECN-Echo on an ACK (RdmaNic::EcnEcho)
    /// \p inner starts (after any RETH or AETH) with an INT stack: set the BTH's INT bit
    bool hasInt = false;
    uint32_t payloadBytes = 0;
};

/// Builds Ethernet + IPv4 (DSCP = priority << 3, ECT(0) when ECN-capable) + UDP 4791 + BTH +
/// payload + ICRC. Extra transport headers (RETH, AETH) are added by the caller before calling
/// with \p inner holding them and the payload.
Ptr<Packet> BuildRoceFrame(const RoceFrameSpec& spec, Ptr<Packet> inner = nullptr);

} // namespace ns3

#endif
