#include "sharp-header.h"

#include <cstring>

namespace ns3
{

Ptr<Packet>
SharpHeader::Build(const EthernetIpv4Udp& outerIn, uint32_t payloadBytes) const
{
    const uint32_t valueBytes = static_cast<uint32_t>(values.size() * 4);
    const uint32_t payload = std::max(payloadBytes, valueBytes);
    std::vector<uint8_t> b(kEthernetIpv4UdpBytes + kSize + valueBytes);
    EthernetIpv4Udp outer = outerIn;
    outer.dstPort = kSharpUdpPort;
    outer.udpPayloadBytes = static_cast<uint16_t>(kSize + payload);
    outer.Write(b.data());
    uint8_t* h = b.data() + kEthernetIpv4UdpBytes;
    h[0] = opcode;
    h[1] = 0;
    h[2] = group >> 8;
    h[3] = group & 0xFF;
    for (int i = 0; i < 4; ++i)
    {
        h[4 + i] = (reduction >> (24 - 8 * i)) & 0xFF;
        h[8 + i] = (packet >> (24 - 8 * i)) & 0xFF;
    }
    h[12] = sender >> 8;
    h[13] = sender & 0xFF;
    h[14] = (values.size() >> 8) & 0xFF;
    h[15] = values.size() & 0xFF;
    for (size_t i = 0; i < values.size(); ++i)
    {
        uint32_t bits;
        std::memcpy(&bits, &values[i], 4);
        for (int k = 0; k < 4; ++k)
        {
            h[kSize + 4 * i + k] = (bits >> (8 * k)) & 0xFF; // little endian
        }
    }
    Ptr<Packet> p = Create<Packet>(b.data(), static_cast<uint32_t>(b.size()));
    if (payload > valueBytes)
    {
        p->AddAtEnd(Create<Packet>(payload - valueBytes));
    }
    return p;
}

bool
SharpHeader::Parse(const Ptr<const Packet>& frame)
{
    uint8_t fixed[kEthernetIpv4UdpBytes + kSize];
    if (frame->GetSize() < sizeof fixed || frame->CopyData(fixed, sizeof fixed) != sizeof fixed)
    {
        return false;
    }
    EthernetIpv4Udp outer;
    outer.Read(fixed);
    if (outer.dstPort != kSharpUdpPort)
    {
        return false;
    }
    const uint8_t* h = fixed + kEthernetIpv4UdpBytes;
    opcode = h[0];
    group = static_cast<uint16_t>((h[2] << 8) | h[3]);
    reduction = packet = 0;
    for (int i = 0; i < 4; ++i)
    {
        reduction = (reduction << 8) | h[4 + i];
        packet = (packet << 8) | h[8 + i];
    }
    sender = static_cast<uint16_t>((h[12] << 8) | h[13]);
    uint32_t n = (uint32_t(h[14]) << 8) | h[15];
    values.assign(n, 0.0f);
    if (n > 0)
    {
        std::vector<uint8_t> all(sizeof fixed + 4 * n);
        if (frame->CopyData(all.data(), static_cast<uint32_t>(all.size())) != all.size())
        {
            return false;
        }
        for (uint32_t i = 0; i < n; ++i)
        {
            const uint8_t* v = all.data() + sizeof fixed + 4 * i;
            uint32_t bits = uint32_t(v[0]) | (uint32_t(v[1]) << 8) | (uint32_t(v[2]) << 16) |
                            (uint32_t(v[3]) << 24);
            std::memcpy(&values[i], &bits, 4);
        }
    }
    return true;
}

} // namespace ns3
