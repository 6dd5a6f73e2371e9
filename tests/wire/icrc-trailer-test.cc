// Tests of the RoCEv2 ICRC trailer: byte order, and the CRC itself against a CNP captured
// from real hardware.

#include "wire-test-util.h"
#include "wire/bth-header.h"
#include "wire/icrc-trailer.h"
#include "wire/reth-header.h"

#include "ns3/crc32.h"
#include "ns3/ipv4-header.h"
#include "ns3/packet.h"
#include "ns3/udp-header.h"

#include <gtest/gtest.h>

namespace ns3
{
namespace
{

using wiretest::Bytes;
using wiretest::PacketBytes;
using wiretest::PacketFromBytes;

/**
 * IPv4 datagram of a CNP sent by a Mellanox ConnectX-4 Lx, from the hex dump in Scapy's RoCE
 * tests (test/contrib/roce.uts), Ethernet header removed. The last four bytes are the ICRC the
 * NIC computed.
 */
// clang-format off
const Bytes kHardwareCnp = {
    // IPv4: TOS 0xC2 (DSCP 48, ECN CE), total length 60, DF, TTL 64, UDP
    0x45, 0xC2, 0x00, 0x3C, 0x71, 0x8C, 0x40, 0x00, 0x40, 0x11, 0x91, 0x61,
    0x0A, 0x00, 0x11, 0x01, 0x0A, 0x00, 0x12, 0x01,
    // UDP: 0 -> 4791, length 40, no checksum
    0x00, 0x00, 0x12, 0xB7, 0x00, 0x28, 0x00, 0x00,
    // BTH: CNP, P_Key 0xFFFF, BECN, DestQP 0x118, PSN 0
    0x81, 0x00, 0xFF, 0xFF, 0x40, 0x00, 0x01, 0x18, 0x00, 0x00, 0x00, 0x00,
    // 16 reserved bytes
    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
    // ICRC
    0x82, 0xFD, 0x00, 0x2A,
};
// clang-format on

/// The CRC-32 value whose least-significant-byte-first encoding is 82 FD 00 2A.
constexpr uint32_t kHardwareCnpIcrc = 0x2A00FD82;

TEST(IcrcTrailer, Crc32IsTheEthernetCrc)
{
    // The check value of CRC-32/ISO-HDLC, the CRC of Ethernet and of the ICRC.
    const char* check = "123456789";
    EXPECT_EQ(CRC32Calculate(reinterpret_cast<const uint8_t*>(check), 9), 0xCBF43926u);
}

TEST(IcrcTrailer, SerializesLeastSignificantByteFirst)
{
    Ptr<Packet> packet = Create<Packet>();
    packet->AddTrailer(IcrcTrailer(kHardwareCnpIcrc));
    EXPECT_EQ(PacketBytes(packet), (Bytes{0x82, 0xFD, 0x00, 0x2A}));

    IcrcTrailer copy;
    EXPECT_EQ(packet->RemoveTrailer(copy), 4u);
    EXPECT_EQ(copy.GetIcrc(), kHardwareCnpIcrc);
    EXPECT_EQ(packet->GetSize(), 0u);
}

TEST(IcrcTrailer, DefaultIsZero)
{
    IcrcTrailer icrc;
    EXPECT_EQ(icrc.GetIcrc(), 0u);
    EXPECT_EQ(icrc.GetSerializedSize(), 4u);
    Ptr<Packet> packet = Create<Packet>(10);
    packet->AddTrailer(icrc);
    Bytes bytes = PacketBytes(packet);
    ASSERT_EQ(bytes.size(), 14u);
    EXPECT_EQ(Bytes(bytes.end() - 4, bytes.end()), Bytes(4, 0x00));
}

TEST(IcrcTrailer, TrailerFollowsPayload)
{
    Ptr<Packet> packet = PacketFromBytes({0xAA, 0xBB});
    IcrcTrailer icrc;
    icrc.SetIcrc(0x44332211);
    packet->AddTrailer(icrc);
    EXPECT_EQ(PacketBytes(packet), (Bytes{0xAA, 0xBB, 0x11, 0x22, 0x33, 0x44}));
}

TEST(IcrcTrailer, MatchesHardwareCnp)
{
    EXPECT_EQ(IcrcTrailer::ComputeIcrc(kHardwareCnp.data(), kHardwareCnp.size() - 4),
              kHardwareCnpIcrc);
    Ptr<Packet> packet = PacketFromBytes(kHardwareCnp);
    EXPECT_EQ(IcrcTrailer::ComputeIcrc(packet), kHardwareCnpIcrc);
    IcrcTrailer received;
    packet->RemoveTrailer(received);
    EXPECT_EQ(received.GetIcrc(), kHardwareCnpIcrc);
}

TEST(IcrcTrailer, VariantFieldsAreNotCovered)
{
    // Each of these is rewritten in flight (ECN marking, TTL, checksums, FECN/BECN).
    const size_t variant[] = {1, 8, 10, 11, 20 + 6, 20 + 7, 28 + 4};
    for (size_t offset : variant)
    {
        Bytes changed = kHardwareCnp;
        changed[offset] ^= 0x5A;
        EXPECT_EQ(IcrcTrailer::ComputeIcrc(changed.data(), changed.size() - 4), kHardwareCnpIcrc)
            << "offset " << offset;
    }
}

TEST(IcrcTrailer, InvariantFieldsAreCovered)
{
    // Addresses, ports, lengths, opcode, P_Key, DestQP, PSN and the payload are protected.
    const size_t invariant[] = {2, 4, 9, 12, 16, 20, 22, 24, 28, 30, 33, 39, 50};
    for (size_t offset : invariant)
    {
        Bytes changed = kHardwareCnp;
        changed[offset] ^= 0x01;
        EXPECT_NE(IcrcTrailer::ComputeIcrc(changed.data(), changed.size() - 4), kHardwareCnpIcrc)
            << "offset " << offset;
    }
}

TEST(IcrcTrailer, ComputedOverNs3Headers)
{
    // The intended use: build with a placeholder so the lengths count the ICRC, compute,
    // then swap the trailer.
    Ptr<Packet> packet = Create<Packet>(64);
    RethHeader reth;
    reth.SetDmaLength(64);
    packet->AddHeader(reth);
    BthHeader bth;
    bth.SetOpcode(RoceOpcode::RDMA_WRITE_ONLY);
    bth.SetDestQp(17);
    bth.SetPsn(1000);
    packet->AddHeader(bth);
    packet->AddTrailer(IcrcTrailer());
    UdpHeader udp;
    udp.SetSourcePort(49152);
    udp.SetDestinationPort(kRoceV2UdpPort);
    packet->AddHeader(udp);
    Ipv4Header ip;
    ip.SetSource(Ipv4Address("10.0.0.1"));
    ip.SetDestination(Ipv4Address("10.0.0.2"));
    ip.SetProtocol(17);
    ip.SetTtl(64);
    ip.SetPayloadSize(packet->GetSize());
    ip.EnableChecksum();
    packet->AddHeader(ip);

    uint32_t icrc = IcrcTrailer::ComputeIcrc(packet);
    Bytes bytes = PacketBytes(packet);
    EXPECT_EQ(icrc, IcrcTrailer::ComputeIcrc(bytes.data(), bytes.size() - 4));

    Bytes headersBefore(bytes.begin(), bytes.end() - 4);
    IcrcTrailer trailer;
    packet->RemoveTrailer(trailer);
    trailer.SetIcrc(icrc);
    packet->AddTrailer(trailer);
    Bytes after = PacketBytes(packet);
    EXPECT_EQ(Bytes(after.begin(), after.end() - 4), headersBefore);
    EXPECT_EQ(after[after.size() - 4], icrc & 0xFF);
    EXPECT_EQ(after[after.size() - 1], icrc >> 24);
}

TEST(IcrcTrailerDeathTest, RejectsNonIpv4)
{
    Bytes notIp(60, 0x00);
    EXPECT_DEATH(IcrcTrailer::ComputeIcrc(notIp.data(), 56), "IPv4");
}

} // namespace
} // namespace ns3
