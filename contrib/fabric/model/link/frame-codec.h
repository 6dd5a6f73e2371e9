#ifndef FABRIC_FRAME_CODEC_H
#define FABRIC_FRAME_CODEC_H

#include "transport-view.h"

#include "ns3/ipv4-address.h"
#include "ns3/packet.h"

#include <cstdint>

namespace ns3
{

/**
 * \brief What a switch or NIC needs to know about a frame, read once per frame.
 *
 * Frames on the wire are real Ethernet / IPv4 / UDP / transport frames (so pcaps decode in
 * Wireshark), but parsing them with ns-3 Header objects at every hop is a large share of a
 * packet simulator's cost. ParseFrame copies the first bytes once and decodes the few fields the
 * data path uses by hand: Ethernet, IPv4 and UDP itself, the header after UDP through the
 * transport view registered for the UDP destination port (link/transport-view.h). The
 * transport part has neutral names; the view that parsed it (\p transport) says what each
 * field holds, in its own header.
 */
struct FrameInfo
{
    // Ordered by size so the struct packs into 40 bytes: it travels with every queued frame.
    uint32_t frameBytes = 0; ///< bytes of the frame as stored (no preamble/IFG)
    // IPv4 (valid when etherType == 0x0800)
    uint32_t srcIp = 0;
    uint32_t dstIp = 0;
    // Transport part (valid when transport != kNoTransport), written by the view.
    uint32_t connection = 0; ///< what the frame belongs to: a queue pair, a message
    uint32_t sequence = 0;   ///< packet sequence number
    uint32_t aux32 = 0;      ///< a transport-specific word (e.g. the header after the base one)
    uint16_t etherType = 0;
    // UDP
    uint16_t srcPort = 0; ///< carries the flow's (or packet's) entropy
    uint16_t dstPort = 0;
    uint16_t aux16 = 0;   ///< a transport-specific half-word (e.g. congestion information)
    uint8_t priority = 0; ///< traffic class: DSCP >> 3 (class selector), 0..7
    uint8_t ecn = 0;      ///< 0 Not-ECT, 1 ECT(1), 2 ECT(0), 3 CE
    uint8_t protocol = 0;
    uint8_t transport = 0; ///< id of the view that parsed the transport part (0: none)
    uint8_t opcode = 0;
    uint8_t flags = 0;
    /// The transport chooses paths by entropy: load balancers hash the UDP source port alone
    /// (set by the transport's view).
    bool entropyOnlyHash = false;
    /// A switch cut this frame's payload (packet trimming): its DSCP says so
    /// (kTrimmedDscpCode); the headers are intact, the payload is gone.
    bool trimmed = false;

    bool IsIpv4() const
    {
        return etherType == 0x0800;
    }

    bool IsEcnCapable() const
    {
        return ecn != 0;
    }
};

static_assert(sizeof(FrameInfo) <= 40, "FrameInfo travels with every queued frame: keep it small");

/// Sizes of the headers in front of every transport header.
constexpr uint32_t kEthernetHeaderBytes = 14;
constexpr uint32_t kIpv4HeaderBytes = 20;
constexpr uint32_t kUdpHeaderBytes = 8;
/// Bytes a minimal Ethernet frame occupies in a buffer (PFC frames: 14 + 46).
constexpr uint32_t kMinFrameBytes = 60;

/// Decodes the fields above; returns false for frames too short to carry them (a transport
/// header too short for its view leaves the frame without one, transport == kNoTransport).
bool ParseFrame(const Ptr<const Packet>& frame, FrameInfo* info);

/// Host addressing: host i (0-based, in topology order) has IPv4 10.0.0.0 + i + 1.
inline uint32_t
HostIp(uint32_t hostIndex)
{
    return 0x0A000001u + hostIndex;
}

/// HostIp as an Ipv4Address (inline: NICs call it for every frame they build).
inline Ipv4Address
HostIpv4(uint32_t hostIndex)
{
    return Ipv4Address(HostIp(hostIndex));
}

/// Inverse of HostIp.
inline uint32_t
HostIndexOfIp(uint32_t ip)
{
    return ip - 0x0A000001u;
}

/// Rewrites the first \p count bytes of \p frame (at most 128) with \p bytes, an edited copy
/// of them: ns-3 packets have no in-place write, so the front is taken off and put back as raw
/// bytes, one copy each way, instead of removing and re-adding Header objects (which read
/// the bytes one at a time and re-encode every field).
void RewriteFrameFront(Packet& frame, const uint8_t* bytes, uint32_t count);

/// Rewrites the IPv4 ECN field of a frame to CE (11), keeping the header checksum valid.
void MarkCongestionExperienced(Ptr<Packet> frame);
/// Rewrites the frame's traffic class (DSCP = priority << 3), keeping ECN and the checksum.
void SetFramePriority(Ptr<Packet> frame, uint8_t priority);

/**
 * Packet trimming (NDP, Handley et al., SIGCOMM 2017; Ultra Ethernet): how a trimmed frame is
 * marked on the wire. No extra byte: the three low bits of its IPv4 DSCP, which are zero in every
 * frame a NIC builds (the priority is DSCP >> 3, a class selector), hold this code, as Ultra
 * Ethernet switches mark a trimmed packet with a configured DSCP.
 */
constexpr uint8_t kTrimmedDscpCode = 1;

/// The IPv4 Identification field of an Ethernet/IPv4 \p frame (a load balancer's in-band field:
/// fabric frames are never fragmented, so nothing else reads it).
uint16_t ReadIpv4Identification(const Ptr<const Packet>& frame);
/// Rewrites it (and the IPv4 header checksum).
void WriteIpv4Identification(Ptr<Packet> frame, uint16_t id);

/// The first \p keepBytes of \p frame (its headers), marked trimmed (kTrimmedDscpCode) at
/// \p priority, with the IPv4 total length of what is left.
Ptr<Packet> TrimFrame(const Ptr<Packet>& frame, uint32_t keepBytes, uint8_t priority);

} // namespace ns3

#endif
