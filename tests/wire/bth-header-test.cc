// Byte-exact tests of the InfiniBand BTH (IBA vol. 1 9.2) as carried by RoCEv2.

#include "wire-test-util.h"
#include "wire/bth-header.h"

#include "ns3/packet.h"

#include <algorithm>
#include <gtest/gtest.h>
#include <iomanip>
#include <iterator>
#include <sstream>

namespace ns3
{
namespace
{

using wiretest::Bytes;
using wiretest::HeaderBytes;
using wiretest::PacketFromBytes;
using wiretest::RoundTrip;

TEST(BthHeader, Constants)
{
    EXPECT_EQ(kRoceV2UdpPort, 4791);
    EXPECT_EQ(RoceOpcode::SEND_FIRST, 0x00);
    EXPECT_EQ(RoceOpcode::SEND_MIDDLE, 0x01);
    EXPECT_EQ(RoceOpcode::SEND_LAST, 0x02);
    EXPECT_EQ(RoceOpcode::SEND_ONLY, 0x04);
    EXPECT_EQ(RoceOpcode::RDMA_WRITE_FIRST, 0x06);
    EXPECT_EQ(RoceOpcode::RDMA_WRITE_MIDDLE, 0x07);
    EXPECT_EQ(RoceOpcode::RDMA_WRITE_LAST, 0x08);
    EXPECT_EQ(RoceOpcode::RDMA_WRITE_ONLY, 0x0A);
    EXPECT_EQ(RoceOpcode::RDMA_READ_REQUEST, 0x0C);
    EXPECT_EQ(RoceOpcode::RDMA_READ_RESPONSE_FIRST, 0x0D);
    EXPECT_EQ(RoceOpcode::RDMA_READ_RESPONSE_MIDDLE, 0x0E);
    EXPECT_EQ(RoceOpcode::RDMA_READ_RESPONSE_LAST, 0x0F);
    EXPECT_EQ(RoceOpcode::RDMA_READ_RESPONSE_ONLY, 0x10);
    EXPECT_EQ(RoceOpcode::ACKNOWLEDGE, 0x11);
    EXPECT_EQ(RoceOpcode::CNP, 0x81);
    EXPECT_EQ(BthHeader().GetSerializedSize(), 12u);
}

TEST(BthHeader, DefaultBytes)
{
    Bytes expected = {0x00, 0x00, 0xFF, 0xFF, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00};
    EXPECT_EQ(HeaderBytes(BthHeader()), expected);
}

TEST(BthHeader, AllFieldsLayout)
{
    BthHeader bth;
    bth.SetOpcode(RoceOpcode::RDMA_WRITE_FIRST);
    bth.SetSolicitedEvent(true);
    bth.SetMigReq(true);
    bth.SetPadCount(3);
    bth.SetPartitionKey(0x8001);
    bth.SetFecn(true);
    bth.SetBecn(true);
    bth.SetDestQp(0xABCDEF);
    bth.SetAckRequest(true);
    bth.SetPsn(0x123456);
    // clang-format off
    Bytes expected = {
        0x06,             // opcode
        0xF0,             // SE=1 M=1 PadCnt=3 TVer=0
        0x80, 0x01,       // P_Key
        0xC0,             // FECN=1 BECN=1 reserved=0
        0xAB, 0xCD, 0xEF, // DestQP
        0x80,             // AckReq=1 reserved=0
        0x12, 0x34, 0x56, // PSN
    };
    // clang-format on
    EXPECT_EQ(HeaderBytes(bth), expected);
}

// Each single-bit field lands on exactly one bit and nowhere else.
TEST(BthHeader, SingleBitPositions)
{
    struct Case
    {
        const char* name;
        void (*set)(BthHeader&);
        size_t byte;
        uint8_t value;
    };

    const Case cases[] = {
        {"SE", [](BthHeader& h) { h.SetSolicitedEvent(true); }, 1, 0x80},
        {"M", [](BthHeader& h) { h.SetMigReq(true); }, 1, 0x40},
        {"PadCnt=1", [](BthHeader& h) { h.SetPadCount(1); }, 1, 0x10},
        {"PadCnt=2", [](BthHeader& h) { h.SetPadCount(2); }, 1, 0x20},
        {"FECN", [](BthHeader& h) { h.SetFecn(true); }, 4, 0x80},
        {"BECN", [](BthHeader& h) { h.SetBecn(true); }, 4, 0x40},
        {"AckReq", [](BthHeader& h) { h.SetAckRequest(true); }, 8, 0x80},
    };
    const Bytes base = HeaderBytes(BthHeader());
    for (const Case& c : cases)
    {
        BthHeader bth;
        c.set(bth);
        Bytes expected = base;
        expected[c.byte] = c.value;
        EXPECT_EQ(HeaderBytes(bth), expected) << c.name;
    }
}

TEST(BthHeader, TwentyFourBitMasking)
{
    BthHeader bth;
    bth.SetPsn(0x01000000);
    EXPECT_EQ(bth.GetPsn(), 0u);
    bth.SetPsn(0xFFFFFFFF);
    EXPECT_EQ(bth.GetPsn(), 0xFFFFFFu);
    bth.SetDestQp(0x12345678);
    EXPECT_EQ(bth.GetDestQp(), 0x345678u);

    // High bits of oversized values must not leak into the flag bytes 4 and 8.
    bth.SetDestQp(0xFF000001);
    bth.SetPsn(0xFF000002);
    Bytes bytes = HeaderBytes(bth);
    EXPECT_EQ(bytes[4], 0x00);
    EXPECT_EQ(bytes[7], 0x01);
    EXPECT_EQ(bytes[8], 0x00);
    EXPECT_EQ(bytes[11], 0x02);
    EXPECT_FALSE(RoundTrip(bth).GetFecn());
    EXPECT_FALSE(RoundTrip(bth).GetAckRequest());
}

TEST(BthHeader, PsnWrapsModulo2To24)
{
    BthHeader bth;
    bth.SetPsn(0xFFFFFF);
    bth.SetPsn(bth.GetPsn() + 1);
    EXPECT_EQ(bth.GetPsn(), 0u);
    // A sender may keep a free-running 32-bit counter; the header carries it modulo 2^24.
    uint32_t counter = (5u << 24) + 42;
    bth.SetPsn(counter);
    EXPECT_EQ(bth.GetPsn(), 42u);
    EXPECT_EQ(RoundTrip(bth).GetPsn(), 42u);
}

TEST(BthHeader, PadCountIsTwoBits)
{
    BthHeader bth;
    bth.SetPadCount(7);
    EXPECT_EQ(bth.GetPadCount(), 3);
    EXPECT_EQ(HeaderBytes(bth)[1], 0x30);
}

TEST(BthHeader, RoundTripAllFields)
{
    for (int flags = 0; flags < 32; ++flags)
    {
        BthHeader bth;
        bth.SetOpcode(static_cast<uint8_t>(0x0A + flags));
        bth.SetSolicitedEvent(flags & 1);
        bth.SetMigReq(flags & 2);
        bth.SetFecn(flags & 4);
        bth.SetBecn(flags & 8);
        bth.SetAckRequest(flags & 16);
        bth.SetPadCount(static_cast<uint8_t>(flags % 4));
        bth.SetPartitionKey(static_cast<uint16_t>(0x7FFF + flags));
        bth.SetDestQp(0xFFFFFF - flags);
        bth.SetPsn(0x800000 + flags);
        BthHeader copy = RoundTrip(bth);
        EXPECT_EQ(copy.GetOpcode(), bth.GetOpcode());
        EXPECT_EQ(copy.GetSolicitedEvent(), bth.GetSolicitedEvent());
        EXPECT_EQ(copy.GetMigReq(), bth.GetMigReq());
        EXPECT_EQ(copy.GetFecn(), bth.GetFecn());
        EXPECT_EQ(copy.GetBecn(), bth.GetBecn());
        EXPECT_EQ(copy.GetAckRequest(), bth.GetAckRequest());
        EXPECT_EQ(copy.GetPadCount(), bth.GetPadCount());
        EXPECT_EQ(copy.GetPartitionKey(), bth.GetPartitionKey());
        EXPECT_EQ(copy.GetDestQp(), bth.GetDestQp());
        EXPECT_EQ(copy.GetPsn(), bth.GetPsn());
    }
}

// BTH of a CNP captured from a Mellanox ConnectX-4 Lx (published with Scapy's RoCE tests).
TEST(BthHeader, DecodesHardwareCnp)
{
    Bytes wire = {0x81, 0x00, 0xFF, 0xFF, 0x40, 0x00, 0x01, 0x18, 0x00, 0x00, 0x00, 0x00};
    Ptr<Packet> packet = PacketFromBytes(wire);
    BthHeader bth;
    EXPECT_EQ(packet->RemoveHeader(bth), 12u);
    EXPECT_EQ(bth.GetOpcode(), RoceOpcode::CNP);
    EXPECT_TRUE(bth.GetBecn());
    EXPECT_FALSE(bth.GetFecn());
    EXPECT_EQ(bth.GetPartitionKey(), 0xFFFF);
    EXPECT_EQ(bth.GetDestQp(), 0x118u);
    EXPECT_EQ(bth.GetPsn(), 0u);
    EXPECT_EQ(HeaderBytes(bth), wire);
}

TEST(BthHeader, ReservedBitsAreIgnoredOnReceipt)
{
    Bytes wire = {0x04, 0x0F, 0xFF, 0xFF, 0x3F, 0x00, 0x00, 0x07, 0x7F, 0x00, 0x00, 0x09};
    Ptr<Packet> packet = PacketFromBytes(wire);
    BthHeader bth;
    packet->RemoveHeader(bth);
    EXPECT_FALSE(bth.GetSolicitedEvent());
    EXPECT_FALSE(bth.GetMigReq());
    EXPECT_EQ(bth.GetPadCount(), 0);
    EXPECT_FALSE(bth.GetFecn());
    EXPECT_FALSE(bth.GetBecn());
    EXPECT_FALSE(bth.GetAckRequest());
    EXPECT_EQ(bth.GetDestQp(), 7u);
    EXPECT_EQ(bth.GetPsn(), 9u);
}

TEST(BthHeader, PrintShowsFieldsAndRestoresStream)
{
    BthHeader bth;
    bth.SetOpcode(RoceOpcode::CNP);
    bth.SetBecn(true);
    bth.SetDestQp(291);
    bth.SetPsn(77);
    std::ostringstream os;
    os << std::setfill('*');
    bth.Print(os);
    os << ' ' << std::setw(5) << 255; // the caller's fill character must survive
    EXPECT_EQ(os.str(),
              "opcode=0x81 se=0 m=0 pad=0 pkey=0xffff fecn=0 becn=1 dqp=291 a=0 psn=77 **255");
}

TEST(BthHeader, OpcodeHelpers)
{
    static_assert(RoceOpcodeHasReth(RoceOpcode::RDMA_WRITE_FIRST), "usable at compile time");
    static_assert(RoceOpcodeHasAeth(RoceOpcode::ACKNOWLEDGE), "usable at compile time");

    const uint8_t withReth[] = {RoceOpcode::RDMA_WRITE_FIRST,
                                RoceOpcode::RDMA_WRITE_ONLY,
                                RoceOpcode::RDMA_WRITE_ONLY_WITH_IMMEDIATE,
                                RoceOpcode::RDMA_READ_REQUEST};
    const uint8_t withAeth[] = {RoceOpcode::RDMA_READ_RESPONSE_FIRST,
                                RoceOpcode::RDMA_READ_RESPONSE_LAST,
                                RoceOpcode::RDMA_READ_RESPONSE_ONLY,
                                RoceOpcode::ACKNOWLEDGE,
                                RoceOpcode::ATOMIC_ACKNOWLEDGE};
    for (unsigned op = 0; op < 256; ++op)
    {
        bool reth = std::find(std::begin(withReth), std::end(withReth), op) != std::end(withReth);
        bool aeth = std::find(std::begin(withAeth), std::end(withAeth), op) != std::end(withAeth);
        EXPECT_EQ(RoceOpcodeHasReth(static_cast<uint8_t>(op)), reth) << "opcode " << op;
        EXPECT_EQ(RoceOpcodeHasAeth(static_cast<uint8_t>(op)), aeth) << "opcode " << op;
    }
}

} // namespace
} // namespace ns3
