#include "ub-header.h"

#include "ethernet-ipv4-udp.h"

namespace ns3
{

NS_OBJECT_ENSURE_REGISTERED(UbFrameHeader);
NS_OBJECT_ENSURE_REGISTERED(UbAckHeader);

namespace
{
inline void
Put32(uint8_t* p, uint32_t v)
{
    p[0] = static_cast<uint8_t>(v >> 24);
    p[1] = static_cast<uint8_t>(v >> 16);
    p[2] = static_cast<uint8_t>(v >> 8);
    p[3] = static_cast<uint8_t>(v);
}

inline uint32_t
Get32(const uint8_t* p)
{
    return (uint32_t(p[0]) << 24) | (uint32_t(p[1]) << 16) | (uint32_t(p[2]) << 8) | p[3];
}
} // namespace

uint16_t
UbCci::Encode() const
{
    // Mode 000 (C-AQM) in the top three bits.
    return static_cast<uint16_t>((lastHop ? 0x1000 : 0) | (enabled ? 0x0400 : 0) |
                                 (congested ? 0x0200 : 0) | (increase ? 0x0100 : 0) | hint);
}

UbCci
UbCci::Decode(uint16_t field)
{
    UbCci c;
    c.lastHop = (field & 0x1000) != 0;
    c.enabled = (field & 0x0400) != 0;
    c.congested = (field & 0x0200) != 0;
    c.increase = (field & 0x0100) != 0;
    c.hint = static_cast<uint8_t>(field & 0xFF);
    return c;
}

TypeId
UbFrameHeader::GetTypeId()
{
    static TypeId tid = TypeId("ns3::UbFrameHeader")
                            .SetParent<Header>()
                            .SetGroupName("Fabric")
                            .AddConstructor<UbFrameHeader>();
    return tid;
}

TypeId
UbFrameHeader::GetInstanceTypeId() const
{
    return GetTypeId();
}

uint32_t
UbFrameHeader::GetSerializedSize() const
{
    return kSize;
}

void
UbFrameHeader::Serialize(Buffer::Iterator start) const
{
    uint8_t b[kSize] = {};
    EthernetIpv4Udp outer;
    outer.srcMac = srcMac;
    outer.dstMac = dstMac;
    outer.srcIp = srcIp;
    outer.dstIp = dstIp;
    outer.tos = tos;
    outer.srcPort = entropy;
    outer.dstPort = kUbUdpPort;
    outer.udpPayloadBytes = static_cast<uint16_t>(kUbTransportHeaderBytes + payloadBytes);
    outer.Write(b);
    uint8_t* ub = b + kEthernetIpv4UdpBytes;
    ub[0] = opcode;
    ub[1] = flags;
    ub[2] = static_cast<uint8_t>(cci >> 8);
    ub[3] = static_cast<uint8_t>(cci);
    Put32(ub + 4, message);
    Put32(ub + 8, psn);
    Put32(ub + 12, channel);
    Put32(ub + 16, word);
    start.Write(b, kSize);
}

uint32_t
UbFrameHeader::Deserialize(Buffer::Iterator start)
{
    uint8_t b[kSize];
    start.Read(b, kSize);
    Decode(b);
    return kSize;
}

void
UbFrameHeader::Decode(const uint8_t* b)
{
    EthernetIpv4Udp outer;
    outer.Read(b);
    srcMac = outer.srcMac;
    dstMac = outer.dstMac;
    srcIp = outer.srcIp;
    dstIp = outer.dstIp;
    tos = outer.tos;
    entropy = outer.srcPort;
    payloadBytes = static_cast<uint16_t>(outer.udpPayloadBytes - kUbTransportHeaderBytes);
    const uint8_t* ub = b + kEthernetIpv4UdpBytes;
    opcode = ub[0];
    flags = ub[1];
    cci = static_cast<uint16_t>((ub[2] << 8) | ub[3]);
    message = Get32(ub + 4);
    psn = Get32(ub + 8);
    channel = Get32(ub + 12);
    word = Get32(ub + 16);
}

void
UbFrameHeader::Print(std::ostream& os) const
{
    static const char* const kNames[] =
        {"?", "DATA", "ACK", "READ", "RESPONSE", "LOAD", "STORE", "ATOMIC"};
    os << "UB " << (opcode < 8 ? kNames[opcode] : "?") << " channel=" << channel << " psn=" << psn
       << " message=" << message << " entropy=" << entropy;
}

TypeId
UbAckHeader::GetTypeId()
{
    static TypeId tid = TypeId("ns3::UbAckHeader")
                            .SetParent<Header>()
                            .SetGroupName("Fabric")
                            .AddConstructor<UbAckHeader>();
    return tid;
}

TypeId
UbAckHeader::GetInstanceTypeId() const
{
    return GetTypeId();
}

uint32_t
UbAckHeader::GetSerializedSize() const
{
    return kUbAckExtensionBytes + static_cast<uint32_t>(bitmap.size());
}

uint32_t
UbAckHeader::Decode(const uint8_t* b, uint32_t available)
{
    if (available < kUbAckExtensionBytes)
    {
        return 0;
    }
    uint16_t bits = static_cast<uint16_t>((b[8] << 8) | b[9]);
    uint32_t size = kUbAckExtensionBytes + bits / 8;
    if (available < size)
    {
        return 0;
    }
    uint32_t executed =
        (uint32_t(b[0]) << 24) | (uint32_t(b[1]) << 16) | (uint32_t(b[2]) << 8) | b[3];
    executedMessage = executed == 0 ? kNoMessage : executed - 1;
    congestedCount = b[4];
    increase = (b[5] & 1) != 0;
    hintSum = static_cast<uint16_t>((b[6] << 8) | b[7]);
    bitmap.assign(b + kUbAckExtensionBytes, b + size);
    return size;
}

void
UbAckHeader::Serialize(Buffer::Iterator start) const
{
    start.WriteHtonU32(executedMessage == kNoMessage ? 0 : executedMessage + 1);
    start.WriteU8(congestedCount);
    start.WriteU8(increase ? 1 : 0);
    start.WriteHtonU16(hintSum);
    start.WriteHtonU16(static_cast<uint16_t>(bitmap.size() * 8));
    if (!bitmap.empty())
    {
        start.Write(bitmap.data(), static_cast<uint32_t>(bitmap.size()));
    }
}

uint32_t
UbAckHeader::Deserialize(Buffer::Iterator start)
{
    uint32_t executed = start.ReadNtohU32();
    executedMessage = executed == 0 ? kNoMessage : executed - 1;
    congestedCount = start.ReadU8();
    increase = (start.ReadU8() & 1) != 0;
    hintSum = start.ReadNtohU16();
    uint16_t bits = start.ReadNtohU16();
    bitmap.assign(bits / 8, 0);
    if (!bitmap.empty())
    {
        start.Read(bitmap.data(), static_cast<uint32_t>(bitmap.size()));
    }
    return GetSerializedSize();
}

void
UbAckHeader::Print(std::ostream& os) const
{
    os << "UB-ACK C=" << unsigned(congestedCount) << " I=" << increase << " hint=" << hintSum
       << " sack_bits=" << bitmap.size() * 8;
}

bool
SackBitmap::Reports(uint32_t cumulative, const std::vector<uint8_t>& bitmap, uint32_t psn)
{
    uint32_t offset = psn - cumulative; // modulo 2^32
    if (offset >= 0x80000000u)
    {
        return true; // before the cumulative point
    }
    if (offset == 0)
    {
        return false;
    }
    uint32_t i = offset - 1;
    return i < bitmap.size() * 8 && (bitmap[i / 8] & (0x80 >> (i % 8))) != 0;
}

std::vector<uint32_t>
SackBitmap::Holes(uint32_t cumulative, const std::vector<uint8_t>& bitmap)
{
    std::vector<uint32_t> holes;
    int64_t highest = -1;
    for (uint32_t i = 0; i < bitmap.size() * 8; ++i)
    {
        if (bitmap[i / 8] & (0x80 >> (i % 8)))
        {
            highest = i;
        }
    }
    if (highest < 0)
    {
        return holes;
    }
    holes.push_back(cumulative);
    for (uint32_t i = 0; i < uint32_t(highest); ++i)
    {
        if (!(bitmap[i / 8] & (0x80 >> (i % 8))))
        {
            holes.push_back(cumulative + 1 + i);
        }
    }
    return holes;
}

} // namespace ns3
