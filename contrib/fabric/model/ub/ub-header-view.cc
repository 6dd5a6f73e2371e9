#include "ub-header-view.h"

#include "wire/ub-header.h"

namespace ns3
{

namespace
{
/// Opcode, flags, CCI, message, PSN: the first 12 bytes of the transport header.
constexpr uint32_t kUbViewBytes = 12;

bool
ParseUbHeader(const uint8_t* ub, uint32_t available, FrameInfo* info)
{
    if (available < kUbViewBytes)
    {
        return false;
    }
    info->opcode = ub[0];
    info->flags = ub[1];
    info->aux16 = ReadBe16(ub + 2);
    info->connection = ReadBe32(ub + 4);
    info->sequence = ReadBe32(ub + 8);
    info->aux32 = 0;
    info->entropyOnlyHash = true;
    return true;
}

const TransportViewRegistration g_ubView(kUbUdpPort, ParseUbHeader, kUbViewBytes, kUbTransport);
} // namespace

uint32_t
UbFlowPayloadBytes(const FrameInfo& info)
{
    return IsUbFrame(info) && info.opcode == UbOpcode::DATA && info.frameBytes > kUbFrameOverhead
               ? info.frameBytes - kUbFrameOverhead
               : 0;
}

} // namespace ns3
