#include "frame-codec.h"

#include "wire/aeth-header.h"
#include "wire/bth-header.h"
#include "wire/icrc-trailer.h"
#include "wire/reth-header.h"
#include "wire/roce-frame-header.h"
#include "wire/ub-header.h"

#include "ns3/ethernet-header.h"
#include "ns3/ipv4-header.h"
#include "ns3/udp-header.h"

namespace ns3
{

namespace
{
constexpr uint32_t kParseBytes =
    kEthernetHeaderBytes + kIpv4HeaderBytes + kUdpHeaderBytes + kBthBytes;
/// Also the 4 bytes after the BTH (an ACK's AETH), when the frame has them.
constexpr uint32_t kParseBytesWithAeth = kParseBytes + 4;

inline uint16_t
Be16(const uint8_t* p)
{
    return static_cast<uint16_t>((p[0] << 8) | p[1]);
}

inline uint32_t
Be32(const uint8_t* p)
{
    return (uint32_t(p[0]) << 24) | (uint32_t(p[1]) << 16) | (uint32_t(p[2]) << 8) | p[3];
}

inline uint32_t
Be24(const uint8_t* p)
{
    return (uint32_t(p[0]) << 16) | (uint32_t(p[1]) << 8) | p[2];
}
} // namespace

bool
ParseFrame(const Ptr<const Packet>& frame, FrameInfo* info)
{
    uint8_t b[kParseBytesWithAeth];
    uint32_t size = frame->GetSize();
    info->frameBytes = size;
    uint32_t n = frame->CopyData(b, size < kParseBytesWithAeth ? size : kParseBytesWithAeth);
    if (n < kEthernetHeaderBytes)
    {
        return false;
    }
    info->etherType = Be16(b + 12);
    info->isRoce = false;
    info->isUb = false;
    info->entropyOnlyHash = false;
    if (info->etherType != 0x0800)
    {
        return true;
    }
    if (n < kEthernetHeaderBytes + kIpv4HeaderBytes + kUdpHeaderBytes)
    {
        return false;
    }
    const uint8_t* ip = b + kEthernetHeaderBytes;
    uint8_t tos = ip[1];
    info->priority = static_cast<uint8_t>((tos >> 2) >> 3);
    info->ecn = tos & 0x3;
    info->protocol = ip[9];
    info->srcIp = Be32(ip + 12);
    info->dstIp = Be32(ip + 16);
    const uint8_t* udp = ip + kIpv4HeaderBytes;
    info->srcPort = Be16(udp);
    info->dstPort = Be16(udp + 2);
    if (info->protocol == 17 && info->dstPort == kRoceV2UdpPort && n >= kParseBytes)
    {
        const uint8_t* bth = udp + kUdpHeaderBytes;
        info->isRoce = true;
        info->opcode = bth[0];
        info->destQp = Be24(bth + 5);
        info->ackRequest = (bth[8] & 0x80) != 0;
        info->psn = Be24(bth + 9);
        info->afterBth = n >= kParseBytesWithAeth ? Be32(bth + kBthBytes) : 0;
    }
    else if (info->protocol == 17 && info->dstPort == kUbUdpPort && n >= kParseBytes)
    {
        // The first 12 bytes of the UB transport header: opcode, flags, CCI, message, PSN.
        const uint8_t* ub = udp + kUdpHeaderBytes;
        info->isUb = true;
        info->entropyOnlyHash = true;
        info->opcode = ub[0];
        info->ubFlags = ub[1];
        info->cci = Be16(ub + 2);
        info->destQp = Be32(ub + 4);
        info->psn = Be32(ub + 8);
    }
    return true;
}

bool
IsRoceDataOpcode(uint8_t opcode)
{
    return opcode <= RoceOpcode::RDMA_WRITE_ONLY_WITH_IMMEDIATE ||
           (opcode >= RoceOpcode::RDMA_READ_RESPONSE_FIRST &&
            opcode <= RoceOpcode::RDMA_READ_RESPONSE_ONLY);
}

uint32_t
FlowPayloadBytes(const FrameInfo& info)
{
    if (info.isUb)
    {
        return info.opcode == UbOpcode::DATA && info.frameBytes > kUbFrameOverhead
                   ? info.frameBytes - kUbFrameOverhead
                   : 0;
    }
    if (!info.isRoce || !IsRoceDataOpcode(info.opcode))
    {
        return 0;
    }
    uint32_t extra = RoceOpcodeHasReth(info.opcode) ? RethHeader::kSize : 0;
    extra += RoceOpcodeHasAeth(info.opcode) ? AethHeader::kSize : 0;
    uint32_t overhead = kRoceFrameOverhead + extra;
    return info.frameBytes > overhead ? info.frameBytes - overhead : 0;
}

Ipv4Address
HostIpv4(uint32_t hostIndex)
{
    return Ipv4Address(0x0A000001u + hostIndex);
}

Ptr<Packet>
BuildRoceFrame(const RoceFrameSpec& spec, Ptr<Packet> inner)
{
    Ptr<Packet> p = inner ? inner : Create<Packet>(spec.payloadBytes);
    if (!inner)
    {
        p->AddTrailer(IcrcTrailer());
    }
    RoceFrameHeader h;
    h.srcMac = spec.srcMac;
    h.dstMac = spec.dstMac;
    h.srcIp = HostIpv4(spec.srcHost).Get();
    h.dstIp = HostIpv4(spec.dstHost).Get();
    h.tos = static_cast<uint8_t>((spec.priority << 5) | (spec.ecnCapable ? 0x2 : 0x0));
    h.srcPort = spec.srcPort;
    h.payloadBytes = static_cast<uint16_t>(p->GetSize());
    h.opcode = spec.opcode;
    h.destQp = spec.destQp & 0xFFFFFF;
    h.psn = spec.psn & 0xFFFFFF;
    h.ackRequest = spec.ackRequest;
    p->AddHeader(h);
    return p;
}

void
MarkCongestionExperienced(Ptr<Packet> frame)
{
    EthernetHeader eth(false);
    frame->RemoveHeader(eth);
    Ipv4Header ip;
    ip.EnableChecksum();
    frame->RemoveHeader(ip);
    ip.SetEcn(Ipv4Header::ECN_CE);
    frame->AddHeader(ip);
    frame->AddHeader(eth);
}

} // namespace ns3

namespace ns3
{

void
SetFramePriority(Ptr<Packet> frame, uint8_t priority)
{
    EthernetHeader eth(false);
    frame->RemoveHeader(eth);
    Ipv4Header ip;
    ip.EnableChecksum();
    frame->RemoveHeader(ip);
    ip.SetDscp(static_cast<Ipv4Header::DscpType>(priority << 3));
    frame->AddHeader(ip);
    frame->AddHeader(eth);
}

} // namespace ns3
