// Switches edit frames in place (link/frame-codec.h): CE marking, the hop-class DSCP, CONGA's
// IPv4 identification and the C-AQM CCI are written into a copy of the front bytes, which then
// replaces the front. ns-3's own Ipv4Header and UbFrameHeader decode the result: the field
// changed, the IPv4 checksum is valid, and every other byte of the frame is what it was.

#include "link/frame-codec.h"
#include "wire/ub-header.h"

#include "ns3/ethernet-header.h"
#include "ns3/ipv4-header.h"
#include "ns3/packet.h"
#include "ns3/udp-header.h"

#include <gtest/gtest.h>
#include <vector>

namespace ns3
{
namespace
{

/// Ethernet / IPv4 (checksum on, ECT(0), DSCP 24) / UDP / 100 payload bytes.
Ptr<Packet>
MakeFrame()
{
    std::vector<uint8_t> payload(100);
    for (size_t i = 0; i < payload.size(); ++i)
    {
        payload[i] = static_cast<uint8_t>(i * 7 + 1);
    }
    Ptr<Packet> p = Create<Packet>(payload.data(), payload.size());
    UdpHeader udp;
    udp.SetSourcePort(49152);
    udp.SetDestinationPort(4791);
    p->AddHeader(udp);
    Ipv4Header ip;
    ip.EnableChecksum();
    ip.SetSource(Ipv4Address("10.0.0.1"));
    ip.SetDestination(Ipv4Address("10.0.0.2"));
    ip.SetProtocol(17);
    ip.SetPayloadSize(p->GetSize());
    ip.SetTtl(64);
    ip.SetIdentification(0x1234);
    ip.SetDscp(Ipv4Header::DSCP_CS3);
    ip.SetEcn(Ipv4Header::ECN_ECT0);
    p->AddHeader(ip);
    EthernetHeader eth(false);
    eth.SetLengthType(0x0800);
    p->AddHeader(eth);
    return p;
}

std::vector<uint8_t>
Bytes(const Ptr<const Packet>& p)
{
    std::vector<uint8_t> b(p->GetSize());
    p->CopyData(b.data(), b.size());
    return b;
}

/// The IPv4 header of \p frame as ns-3 decodes it, checksum verified.
Ipv4Header
DecodeIp(const Ptr<const Packet>& frame)
{
    Ptr<Packet> copy = frame->Copy();
    EthernetHeader eth(false);
    copy->RemoveHeader(eth);
    Ipv4Header ip;
    ip.EnableChecksum();
    copy->RemoveHeader(ip);
    return ip;
}

/// Every byte outside the IPv4 bytes [first, last] and the checksum (IP bytes 10-11) is equal.
void
ExpectOnlyIpBytesChanged(const std::vector<uint8_t>& before,
                         const std::vector<uint8_t>& after,
                         uint32_t first,
                         uint32_t last)
{
    ASSERT_EQ(before.size(), after.size());
    for (uint32_t i = 0; i < before.size(); ++i)
    {
        uint32_t ipByte = i - kEthernetHeaderBytes;
        bool mayChange = i >= kEthernetHeaderBytes &&
                         ((ipByte >= first && ipByte <= last) || ipByte == 10 || ipByte == 11);
        if (!mayChange)
        {
            EXPECT_EQ(before[i], after[i]) << "byte " << i;
        }
    }
}

TEST(FrameRewrite, CeMarkKeepsDscpAndChecksum)
{
    Ptr<Packet> frame = MakeFrame();
    std::vector<uint8_t> before = Bytes(frame);
    MarkCongestionExperienced(frame);
    Ipv4Header ip = DecodeIp(frame);
    EXPECT_TRUE(ip.IsChecksumOk());
    EXPECT_EQ(ip.GetEcn(), Ipv4Header::ECN_CE);
    EXPECT_EQ(ip.GetDscp(), Ipv4Header::DSCP_CS3);
    ExpectOnlyIpBytesChanged(before, Bytes(frame), 1, 1);
    // The checksum is the one ns-3 computes for the same header.
    Ipv4Header reference = DecodeIp(MakeFrame());
    reference.SetEcn(Ipv4Header::ECN_CE);
    Ptr<Packet> encoded = Create<Packet>();
    reference.EnableChecksum();
    encoded->AddHeader(reference);
    std::vector<uint8_t> expected = Bytes(encoded);
    std::vector<uint8_t> got = Bytes(frame);
    EXPECT_EQ(got[kEthernetHeaderBytes + 10], expected[10]);
    EXPECT_EQ(got[kEthernetHeaderBytes + 11], expected[11]);
}

TEST(FrameRewrite, PriorityKeepsEcn)
{
    Ptr<Packet> frame = MakeFrame();
    std::vector<uint8_t> before = Bytes(frame);
    SetFramePriority(frame, 5);
    Ipv4Header ip = DecodeIp(frame);
    EXPECT_TRUE(ip.IsChecksumOk());
    EXPECT_EQ(ip.GetDscp(), Ipv4Header::DSCP_CS5);
    EXPECT_EQ(ip.GetEcn(), Ipv4Header::ECN_ECT0);
    ExpectOnlyIpBytesChanged(before, Bytes(frame), 1, 1);
}

TEST(FrameRewrite, Ipv4Identification)
{
    Ptr<Packet> frame = MakeFrame();
    std::vector<uint8_t> before = Bytes(frame);
    WriteIpv4Identification(frame, 0xBEEF);
    EXPECT_EQ(ReadIpv4Identification(frame), 0xBEEF);
    Ipv4Header ip = DecodeIp(frame);
    EXPECT_TRUE(ip.IsChecksumOk());
    EXPECT_EQ(ip.GetIdentification(), 0xBEEF);
    ExpectOnlyIpBytesChanged(before, Bytes(frame), 4, 5);
}

TEST(FrameRewrite, FrontOfUbFrame)
{
    // A UB DATA frame whose CCI a C-AQM switch rewrites (bytes 2-3 of the transport header).
    UbFrameHeader h;
    h.srcIp = 0x0A000001;
    h.dstIp = 0x0A000002;
    h.opcode = UbOpcode::DATA;
    h.cci = 0x0102;
    h.message = 7;
    h.psn = 9;
    h.payloadBytes = 64;
    Ptr<Packet> frame = Create<Packet>(64);
    frame->AddHeader(h);
    std::vector<uint8_t> front = Bytes(frame);
    front.resize(kEthernetIpv4UdpBytes + 4);
    front[kEthernetIpv4UdpBytes + 2] = 0xA5;
    front[kEthernetIpv4UdpBytes + 3] = 0x5A;
    uint32_t size = frame->GetSize();
    RewriteFrameFront(*frame, front.data(), static_cast<uint32_t>(front.size()));
    EXPECT_EQ(frame->GetSize(), size);
    UbFrameHeader out;
    frame->RemoveHeader(out);
    EXPECT_EQ(out.cci, 0xA55A);
    EXPECT_EQ(out.message, 7u);
    EXPECT_EQ(out.psn, 9u);
    EXPECT_EQ(out.opcode, UbOpcode::DATA);
}

} // namespace
} // namespace ns3
