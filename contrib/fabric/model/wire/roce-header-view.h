#ifndef FABRIC_ROCE_HEADER_VIEW_H
#define FABRIC_ROCE_HEADER_VIEW_H

#include "link/frame-codec.h"

#include <cstdint>

namespace ns3
{

/**
 * \file
 * The RoCEv2 view of a frame (link/transport-view.h): what ParseFrame reads from the BTH of a
 * frame to UDP port 4791 (bth-header.h), in FrameInfo's transport part:
 *
 *   opcode      BTH opcode (RoceOpcode)
 *   flags       BTH byte 8: bit 7 AckReq (RoceAckRequested)
 *   connection  DestQP (24 bits): the flow's queue pair
 *   sequence    PSN (24 bits)
 *   aux32       the 4 bytes after the BTH, 0 when the frame ends there: on an ACK the AETH
 *               (syndrome << 24 | MSN), read here so that the sender does not go back to the
 *               packet for them
 *   aux16       BTH byte 4: bit 6 BECN (RoceBecn), bit 7 FECN, bit 5 INT (RoceHasInt: an
 *               INT stack, wire/int-header.h, follows the BTH's extension headers)
 *
 * Load balancers hash RoCE frames on the 5-tuple (entropyOnlyHash false).
 */

/// FrameInfo::transport of a RoCEv2 frame.
constexpr uint8_t kRoceTransport = 1;

inline bool
IsRoceFrame(const FrameInfo& info)
{
    return info.transport == kRoceTransport;
}

/// The BTH's AckReq bit: the responder acknowledges this packet at once.
inline bool
RoceAckRequested(const FrameInfo& info)
{
    return (info.flags & 0x80) != 0;
}

/// The BTH's BECN bit: on an ACK, ECN-Echo for a CE-marked packet it covers (RdmaNic::EcnEcho).
inline bool
RoceBecn(const FrameInfo& info)
{
    return (info.aux16 & 0x40) != 0;
}

/// BTH byte 4 bit 5, reserved in RoCEv2: the frame carries an INT stack (wire/int-header.h)
/// after its extension headers (RETH, AETH), before the payload.
constexpr uint8_t kRoceIntFlag = 0x20;

inline bool
RoceHasInt(const FrameInfo& info)
{
    return (info.aux16 & kRoceIntFlag) != 0;
}

/// Bytes from the frame's start to its INT stack: Ethernet, IPv4, UDP, BTH and the extension
/// headers the opcode has (whether or not the frame has a stack).
uint32_t RoceIntOffset(const FrameInfo& info);

/// Whether a BTH opcode carries message data of a flow (RC SEND/WRITE packets, READ responses).
bool IsRoceDataOpcode(uint8_t opcode);

/// Payload bytes a RoCEv2 frame carries for its flow (extension headers and INT excluded): 0 for a
/// frame without message data or not parsed as RoCE.
uint32_t RoceFlowPayloadBytes(const FrameInfo& info);

} // namespace ns3

#endif
