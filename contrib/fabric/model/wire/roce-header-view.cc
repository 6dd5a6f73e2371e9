#include "roce-header-view.h"

#include "aeth-header.h"
#include "bth-header.h"
#include "int-header.h"
#include "reth-header.h"
#include "roce-frame-header.h"

namespace ns3
{

namespace
{
/// The BTH and the 4 bytes after it (an ACK's AETH).
constexpr uint32_t kRoceViewBytes = BthHeader::kSize + AethHeader::kSize;

bool
ParseBth(const uint8_t* bth, uint32_t available, FrameInfo* info)
{
    if (available < BthHeader::kSize)
    {
        return false;
    }
    info->opcode = bth[0];
    info->flags = bth[8];
    // DestQP is bytes 5-7 and the PSN bytes 9-11: the low 24 bits of the words at 4 and 8.
    info->connection = ReadBe32(bth + 4) & 0xFFFFFF;
    info->sequence = ReadBe32(bth + 8) & 0xFFFFFF;
    info->aux32 = available >= kRoceViewBytes ? ReadBe32(bth + BthHeader::kSize) : 0;
    info->aux16 = bth[4]; // FECN/BECN
    return true;
}

uint32_t
ExtensionBytes(uint8_t opcode)
{
    return (RoceOpcodeHasReth(opcode) ? RethHeader::kSize : 0) +
           (RoceOpcodeHasAeth(opcode) ? AethHeader::kSize : 0);
}

/// Switches stamp the INT stack of data packets; an ACK's is an echo, left as it is.
uint32_t
LocateRoceInt(const FrameInfo& info)
{
    return RoceHasInt(info) && IsRoceDataOpcode(info.opcode) ? RoceIntOffset(info) : 0;
}

const TransportViewRegistration g_roceView(kRoceV2UdpPort,
                                           ParseBth,
                                           kRoceViewBytes,
                                           kRoceTransport,
                                           LocateRoceInt);
} // namespace

uint32_t
RoceIntOffset(const FrameInfo& info)
{
    return RoceFrameHeader::kSize + ExtensionBytes(info.opcode);
}

bool
IsRoceDataOpcode(uint8_t opcode)
{
    return opcode <= RoceOpcode::RDMA_WRITE_ONLY_WITH_IMMEDIATE ||
           (opcode >= RoceOpcode::RDMA_READ_RESPONSE_FIRST &&
            opcode <= RoceOpcode::RDMA_READ_RESPONSE_ONLY);
}

uint32_t
RoceFlowPayloadBytes(const FrameInfo& info)
{
    if (!IsRoceFrame(info) || !IsRoceDataOpcode(info.opcode))
    {
        return 0;
    }
    uint32_t overhead = kRoceFrameOverhead + ExtensionBytes(info.opcode);
    overhead += RoceHasInt(info) ? kIntHeaderBytes : 0;
    return info.frameBytes > overhead ? info.frameBytes - overhead : 0;
}

} // namespace ns3
