#ifndef FABRIC_SHARP_HEADER_H
#define FABRIC_SHARP_HEADER_H

#include "ethernet-ipv4-udp.h"

#include "ns3/packet.h"

#include <cstdint>
#include <vector>

namespace ns3
{

/// UDP destination port of SHARP-style in-network reduction frames (RoCEv2 is 4791, UB 4792).
constexpr uint16_t kSharpUdpPort = 4793;

/**
 * \brief The SHARP-style reduction header (our own format), after Ethernet / IPv4 / UDP 4793.
 *
 * \verbatim
   byte  0     opcode: 1 CONTRIB (member or child switch -> parent: a (partial) contribution),
                       2 RESULT  (parent -> children: the reduced values),
                       3 ACK     (child -> parent: the RESULT of this packet arrived)
   byte  1     flags (0)
   bytes 2-3   group: the aggregation tree (big endian)
   bytes 4-7   reduction: which reduction of the group (big endian)
   bytes 8-11  packet: index of this packet within the reduction (big endian)
   bytes 12-13 sender: member rank (from hosts) or 0xFFFF (from a switch)
   bytes 14-15 values: number of float32 values that follow (big endian)
   then        values x float32 (IEEE 754, little endian), then zero padding up to the
               packet's modelled payload size (ACKs carry no payload)
   \endverbatim
 * The IPv4 source is the sender (a host, or 0.0.0.0 for a switch), the destination the member
 * the frame is for (RESULT) or 255.255.255.255 (CONTRIB/ACK, consumed by the next switch up).
 * DSCP carries the traffic class as for RoCE. No ICRC: the frames never leave the fabric.
 */
struct SharpHeader
{
    enum Opcode : uint8_t
    {
        CONTRIB = 1,
        RESULT = 2,
        ACK = 3
    };

    static constexpr uint32_t kSize = 16;

    uint8_t opcode = CONTRIB;
    uint16_t group = 0;
    uint32_t reduction = 0;
    uint32_t packet = 0;
    uint16_t sender = 0xFFFF;
    std::vector<float> values;

    /// Builds the frame: outer headers + this header + values + zero padding so that the UDP
    /// payload after the SHARP header is max(payloadBytes, 4 * values) bytes.
    Ptr<Packet> Build(const EthernetIpv4Udp& outer, uint32_t payloadBytes) const;
    /// Parses a frame built by Build (false when it is not a SHARP frame).
    bool Parse(const Ptr<const Packet>& frame);

    /// Bytes of a frame with \p payloadBytes of payload.
    static uint32_t FrameBytes(uint32_t payloadBytes)
    {
        return kEthernetIpv4UdpBytes + kSize + payloadBytes;
    }
};

} // namespace ns3

#endif
