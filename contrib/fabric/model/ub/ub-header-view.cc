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
    // The flow's data: a write/send's DATA, a READ's or load's response, a store's line. An
    // atomic's operands and result are counted by the NIC, not here: operands are not data
    // (the result is, 8 B in a RESPONSE frame).
    bool data = info.opcode == UbOpcode::DATA || info.opcode == UbOpcode::RESPONSE ||
                info.opcode == UbOpcode::STORE;
    return IsUbFrame(info) && data && info.frameBytes > kUbFrameOverhead
               ? info.frameBytes - kUbFrameOverhead
               : 0;
}

} // namespace ns3
