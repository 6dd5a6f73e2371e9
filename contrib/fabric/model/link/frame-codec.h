#ifndef FABRIC_FRAME_CODEC_H
#define FABRIC_FRAME_CODEC_H

#include "ns3/ipv4-address.h"
#include "ns3/mac48-address.h"
#include "ns3/packet.h"

#include <cstdint>

namespace ns3
{

/**
 * \brief What a switch or NIC needs to know about a frame, read once per hop.
 *
 * Frames on the wire are real Ethernet / IPv4 / UDP / BTH frames (so pcaps decode in Wireshark),
 * but parsing them with ns-3 Header objects at every hop is a large share of a packet
 * simulator's cost. ParseFrame copies the first 54 bytes once and decodes the few fields the
 * data path uses by hand.
 */
struct FrameInfo
{
    // Ordered by size so the struct packs into 44 bytes: it travels with every queued frame.
    uint32_t frameBytes = 0; ///< bytes of the frame as stored (no preamble/IFG)
    // IPv4 (valid when etherType == 0x0800)
    uint32_t srcIp = 0;
    uint32_t dstIp = 0;
    // BTH (valid when dstPort == 4791)
    uint32_t destQp = 0;
    uint32_t psn = 0;
    /// RoCE: the 4 bytes after the BTH: on an ACK, the AETH (syndrome << 24 | MSN), read here
    /// so that the sender does not go back to the packet for them.
    uint32_t afterBth = 0;
    uint16_t etherType = 0;
    // UDP
    uint16_t srcPort = 0; ///< carries the flow's (or packet's) entropy
    uint16_t dstPort = 0;
    uint16_t cci = 0;     ///< UB: congestion control information
    uint8_t priority = 0; ///< traffic class: DSCP >> 3 (class selector), 0..7
    uint8_t ecn = 0;      ///< 0 Not-ECT, 1 ECT(1), 2 ECT(0), 3 CE
    uint8_t protocol = 0;
    uint8_t opcode = 0;
    bool isRoce = false;
    bool ackRequest = false;
    // UB transport header (valid when dstPort == 4792): opcode, destQp (= the message, i.e.
    // the flow), psn, cci and these
    bool isUb = false;
    uint8_t ubFlags = 0;
    /// The transport chooses paths by entropy: load balancers hash the UDP source port alone
    /// (set by the parser for Unified Bus frames).
    bool entropyOnlyHash = false;

    bool IsIpv4() const
    {
        return etherType == 0x0800;
    }

    bool IsEcnCapable() const
    {
        return ecn != 0;
    }
};

/// Sizes of the fixed headers every RoCEv2 data frame carries.
constexpr uint32_t kEthernetHeaderBytes = 14;
constexpr uint32_t kIpv4HeaderBytes = 20;
constexpr uint32_t kUdpHeaderBytes = 8;
constexpr uint32_t kBthBytes = 12;
constexpr uint32_t kIcrcBytes = 4;
/// Ethernet + IPv4 + UDP + BTH + ICRC: what a RoCEv2 data frame adds to its payload.
constexpr uint32_t kRoceFrameOverhead =
    kEthernetHeaderBytes + kIpv4HeaderBytes + kUdpHeaderBytes + kBthBytes + kIcrcBytes;
/// Bytes a minimal Ethernet frame occupies in a buffer (PFC frames: 14 + 46).
constexpr uint32_t kMinFrameBytes = 60;

/// Whether a BTH opcode carries message data of a flow (RC SEND/WRITE packets, READ responses).
bool IsRoceDataOpcode(uint8_t opcode);
/// Payload bytes a frame carries for its flow: RoCE data (extension headers excluded) and UB
/// DATA frames; 0 for any other frame.
uint32_t FlowPayloadBytes(const FrameInfo& info);
/// Ethernet + IPv4 + UDP + UB transport header + ICRC: what a UB DATA frame adds to its payload.
constexpr uint32_t kUbFrameOverhead =
    kEthernetHeaderBytes + kIpv4HeaderBytes + kUdpHeaderBytes + 20 + kIcrcBytes;

/// Decodes the fields above; returns false for frames too short to carry them.
bool ParseFrame(const Ptr<const Packet>& frame, FrameInfo* info);

/// Host addressing: host i (0-based, in topology order) has IPv4 10.0.0.0 + i + 1.
Ipv4Address HostIpv4(uint32_t hostIndex);

/// Inverse of HostIpv4 on the raw 32-bit address.
inline uint32_t
HostIndexOfIp(uint32_t ip)
{
    return ip - 0x0A000001u;
}

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
    uint32_t payloadBytes = 0;
};

/// Builds Ethernet + IPv4 (DSCP = priority << 3, ECT(0) when ECN-capable) + UDP 4791 + BTH +
/// payload + ICRC. Extra transport headers (RETH, AETH) are added by the caller before calling
/// with \p inner holding them and the payload.
Ptr<Packet> BuildRoceFrame(const RoceFrameSpec& spec, Ptr<Packet> inner = nullptr);

/// Rewrites the IPv4 ECN field of a frame to CE (11), keeping the header checksum valid.
void MarkCongestionExperienced(Ptr<Packet> frame);
/// Rewrites the frame's traffic class (DSCP = priority << 3), keeping ECN and the checksum.
void SetFramePriority(Ptr<Packet> frame, uint8_t priority);

} // namespace ns3

#endif
