#ifndef FABRIC_UB_HEADER_VIEW_H
#define FABRIC_UB_HEADER_VIEW_H

#include "link/frame-codec.h"

#include <cstdint>

namespace ns3
{

/**
 * \file
 * The Unified Bus view of a frame (link/transport-view.h): what ParseFrame reads from the first
 * 12 bytes of the UB transport header of a frame to UDP port 4792 (wire/ub-header.h), in
 * FrameInfo's transport part:
 *
 *   opcode      UbOpcode
 *   flags       header byte 1 (UbFrameHeader::kFlagLast, kFlagAckRequest, ordering, kFlagResend)
 *   connection  the message: the request (flow) the packet belongs to
 *   sequence    the transport channel's PSN (32 bits)
 *   aux16       the CCI, congestion-control information (UbCci; C-AQM switches rewrite it)
 *   aux32       0
 *
 * UB senders spray by entropy (the UDP source port), so the view sets entropyOnlyHash.
 */

/// FrameInfo::transport of a Unified Bus frame.
constexpr uint8_t kUbTransport = 2;

inline bool
IsUbFrame(const FrameInfo& info)
{
    return info.transport == kUbTransport;
}

/// Payload bytes a UB frame carries for its flow: those of a DATA frame, 0 for any other frame.
uint32_t UbFlowPayloadBytes(const FrameInfo& info);

} // namespace ns3

#endif
