#ifndef FABRIC_TRANSPORT_VIEW_H
#define FABRIC_TRANSPORT_VIEW_H

#include <cstdint>

namespace ns3
{

struct FrameInfo;

/**
 * \file
 * Transport header views: how ParseFrame reads the header that follows UDP without knowing any
 * transport.
 *
 * A transport registers, for the UDP destination port its frames carry, a small function that
 * decodes the few fields a stage needs (a NIC's receive path, an egress stage such as C-AQM)
 * into FrameInfo's transport part: opcode, flags, connection, sequence, aux32, aux16 and
 * entropyOnlyHash. ParseFrame copies the frame's first bytes once, reads Ethernet, IPv4 and
 * UDP, and hands the bytes after UDP to the view of that port; the link and the switch never
 * name a transport field. What each field means is the view's: see its header.
 *
 * Views register themselves while the fabric library loads (TransportViewRegistration, a
 * static object in the view's .cc, which also defines the functions its transport calls, so the
 * view is linked wherever the transport is), so every program that links the library parses
 * every transport. The table lives next to ParseFrame (link/frame-codec.cc), which reads it per
 * frame. Each view defines its id next to its parser (docs/architecture.md lists them);
 * registration rejects a second view with the same id or port.
 */

/// FrameInfo::transport of a frame no view parsed (not UDP, no view for its port, too short).
constexpr uint8_t kNoTransport = 0;
/// At most this many views, and this many bytes after UDP that a view may read.
constexpr uint32_t kMaxTransportViews = 4;
constexpr uint32_t kMaxTransportViewBytes = 32;

/**
 * Decodes a transport header into \p info's transport part.
 * \param header the first byte after the UDP header
 * \param available bytes at \p header (at most the view's bytesNeeded; fewer when the frame is
 *        shorter)
 * \return false when \p available is too short for the header: the frame then has no view
 *         (FrameInfo::transport stays kNoTransport)
 */
using TransportViewParser = bool (*)(const uint8_t* header, uint32_t available, FrameInfo* info);

/**
 * Makes ParseFrame call \p parse for UDP frames to \p udpPort and set FrameInfo::transport to
 * \p id when it returns true. \p bytesNeeded is the most the parser reads after UDP (the
 * bytes ParseFrame copies). Aborts, naming the view, on a second view for the same port or id,
 * id kNoTransport, more than kMaxTransportViews views or bytesNeeded above
 * kMaxTransportViewBytes: these are programming errors, found when the library loads.
 */
void RegisterTransportView(uint16_t udpPort,
                           TransportViewParser parse,
                           uint32_t bytesNeeded,
                           uint8_t id);

/**
 * Where a frame's in-band telemetry stack (wire/int-header.h) starts, in bytes from the frame's
 * first byte, for a switch to stamp; 0 when the frame carries none to stamp (no stack, or a
 * stack echoed back to its sender). Reads only \p info, which the transport's view filled.
 */
using TelemetryLocator = uint32_t (*)(const FrameInfo& info);

/**
 * Makes TelemetryOffset ask \p locate about frames of view \p id (registered before, in the
 * same translation unit: a TransportViewRegistration with a locator does both). Aborts when no
 * view has that id.
 */
void RegisterTelemetryLocator(uint8_t id, TelemetryLocator locate);

/// The telemetry stack offset of a parsed frame (TelemetryLocator), 0 for none: what an INT
/// stamping stage asks without knowing the transport.
uint32_t TelemetryOffset(const FrameInfo& info);

/// Big-endian readers for parsers.
inline uint16_t
ReadBe16(const uint8_t* p)
{
    return static_cast<uint16_t>((p[0] << 8) | p[1]);
}

inline uint32_t
ReadBe32(const uint8_t* p)
{
    return (uint32_t(p[0]) << 24) | (uint32_t(p[1]) << 16) | (uint32_t(p[2]) << 8) | p[3];
}

/// Registers a view while the library loads: a namespace-scope object in the view's .cc.
struct TransportViewRegistration
{
    TransportViewRegistration(uint16_t udpPort,
                              TransportViewParser parse,
                              uint32_t bytesNeeded,
                              uint8_t id,
                              TelemetryLocator locate = nullptr)
    {
        RegisterTransportView(udpPort, parse, bytesNeeded, id);
        if (locate)
        {
            RegisterTelemetryLocator(id, locate);
        }
    }
};

} // namespace ns3

#endif
