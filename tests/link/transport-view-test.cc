// ParseFrame reads the header after UDP only through the view registered for the frame's UDP
// destination port (link/transport-view.h). A toy view, registered the way the RoCE and UB views
// are (a static object, here in the test program rather than the library), shows what
// ParseFrame hands a view and what it does with the answer.

#include "link/frame-codec.h"
#include "link/transport-view.h"
#include "wire/bth-header.h"
#include "wire/ethernet-ipv4-udp.h"

#include "ns3/packet.h"

#include <gtest/gtest.h>
#include <vector>

namespace ns3
{
namespace
{

constexpr uint16_t kToyPort = 31337;
constexpr uint8_t kToyTransport = 200;
/// The toy header: opcode (1), flags (1), connection (4, big-endian); a 6-byte view.
constexpr uint32_t kToyHeaderBytes = 6;

uint32_t g_toyAvailable = 0; ///< what the last call was handed

bool
ParseToy(const uint8_t* header, uint32_t available, FrameInfo* info)
{
    g_toyAvailable = available;
    if (available < kToyHeaderBytes)
    {
        return false;
    }
    info->opcode = header[0];
    info->flags = header[1];
    info->connection = ReadBe32(header + 2);
    info->entropyOnlyHash = true;
    return true;
}

const TransportViewRegistration g_toyView(kToyPort, ParseToy, kToyHeaderBytes, kToyTransport);

/// An Ethernet + IPv4 + UDP frame to \p dstPort with \p after bytes after the UDP header.
Ptr<Packet>
UdpFrame(uint16_t dstPort, const std::vector<uint8_t>& after, uint8_t protocol = 17)
{
    std::vector<uint8_t> b(kEthernetIpv4UdpBytes + after.size());
    EthernetIpv4Udp outer;
    outer.srcMac = Mac48Address("02:00:00:00:00:01");
    outer.dstMac = Mac48Address("02:00:00:00:00:02");
    outer.srcIp = HostIp(4);
    outer.dstIp = HostIp(9);
    outer.tos = (5 << 5) | 2; // class 5, ECT(0)
    outer.srcPort = 50001;
    outer.dstPort = dstPort;
    outer.udpPayloadBytes = static_cast<uint16_t>(after.size());
    outer.Write(b.data());
    b[14 + 9] = protocol; // (the checksum no longer matches for protocol != 17: not read here)
    std::copy(after.begin(), after.end(), b.begin() + kEthernetIpv4UdpBytes);
    return Create<Packet>(b.data(), b.size());
}

TEST(TransportView, ParseFrameHandsTheBytesAfterUdpToThePortsView)
{
    FrameInfo info;
    ASSERT_TRUE(
        ParseFrame(UdpFrame(kToyPort, {0x42, 0x81, 0xDE, 0xAD, 0xBE, 0xEF, 7, 7, 7}), &info));
    EXPECT_EQ(info.transport, kToyTransport);
    EXPECT_EQ(info.opcode, 0x42);
    EXPECT_EQ(info.flags, 0x81);
    EXPECT_EQ(info.connection, 0xDEADBEEFu);
    EXPECT_TRUE(info.entropyOnlyHash);
    // The generic fields, read by ParseFrame itself.
    EXPECT_EQ(info.frameBytes, 42u + 9);
    EXPECT_EQ(info.srcIp, HostIp(4));
    EXPECT_EQ(info.dstIp, HostIp(9));
    EXPECT_EQ(info.srcPort, 50001);
    EXPECT_EQ(info.dstPort, kToyPort);
    EXPECT_EQ(info.protocol, 17);
    EXPECT_EQ(info.priority, 5);
    EXPECT_EQ(info.ecn, 2);
    // The view is handed what was copied: all 9 bytes after UDP are within the copy (the RoCE
    // view reads 16), so the view sees them all.
    EXPECT_EQ(g_toyAvailable, 9u);
}

TEST(TransportView, ViewsSeeAtMostTheBytesTheLongestViewNeeds)
{
    // ParseFrame copies once, up to the end of the longest registered view: the RoCE view's
    // BTH (12) and AETH (4), 16 bytes. A view is handed no more than that.
    FrameInfo info;
    std::vector<uint8_t> after(40, 0);
    after[0] = 0x42;
    ASSERT_TRUE(ParseFrame(UdpFrame(kToyPort, after), &info));
    EXPECT_EQ(info.transport, kToyTransport);
    EXPECT_EQ(g_toyAvailable, 16u);
    EXPECT_EQ(info.frameBytes, 42u + 40);
}

TEST(TransportView, AHeaderTooShortForItsViewLeavesTheFrameWithoutOne)
{
    FrameInfo info;
    ASSERT_TRUE(ParseFrame(UdpFrame(kToyPort, {0x42, 0x81, 0xDE}), &info));
    EXPECT_EQ(g_toyAvailable, 3u);
    EXPECT_EQ(info.transport, kNoTransport);
    EXPECT_FALSE(info.entropyOnlyHash);
    EXPECT_EQ(info.dstPort, kToyPort); // UDP is still read
}

TEST(TransportView, OnlyUdpFramesToTheViewsPortReachIt)
{
    // No view on this port.
    FrameInfo info;
    info.entropyOnlyHash = true; // whatever an earlier frame left
    info.transport = kToyTransport;
    ASSERT_TRUE(ParseFrame(UdpFrame(kToyPort + 1, {0x42, 0x81, 0xDE, 0xAD, 0xBE, 0xEF}), &info));
    EXPECT_EQ(info.transport, kNoTransport);
    EXPECT_FALSE(info.entropyOnlyHash);
    EXPECT_EQ(info.dstPort, kToyPort + 1);
    // The view's port, but not UDP (protocol 6).
    g_toyAvailable = 12345;
    FrameInfo tcp;
    ASSERT_TRUE(ParseFrame(UdpFrame(kToyPort, {0x42, 0x81, 0xDE, 0xAD, 0xBE, 0xEF}, 6), &tcp));
    EXPECT_EQ(tcp.transport, kNoTransport);
    EXPECT_EQ(tcp.protocol, 6);
    EXPECT_EQ(g_toyAvailable, 12345u); // never called
}

TEST(TransportView, RegistrationRejectsASecondViewForAPortOrAnId)
{
    EXPECT_DEATH(RegisterTransportView(kToyPort, ParseToy, 4, 201), "clashes with view 200");
    EXPECT_DEATH(RegisterTransportView(kRoceV2UdpPort, ParseToy, 4, 202),
                 "clashes with view 1 \\(UDP port 4791\\)");
    EXPECT_DEATH(RegisterTransportView(31338, ParseToy, 4, kToyTransport), "clashes");
    EXPECT_DEATH(RegisterTransportView(31338, ParseToy, 4, kNoTransport), "an id other than 0");
    EXPECT_DEATH(RegisterTransportView(31338, ParseToy, kMaxTransportViewBytes + 1, 203),
                 "more than the 32");
}

} // namespace
} // namespace ns3
