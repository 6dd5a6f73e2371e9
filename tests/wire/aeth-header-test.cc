// Byte-exact tests of the AETH (IBA vol. 1 9.3.5) and its syndrome encodings.

#include "wire-test-util.h"
#include "wire/aeth-header.h"

#include "ns3/packet.h"

#include <gtest/gtest.h>

namespace ns3
{
namespace
{

using wiretest::Bytes;
using wiretest::HeaderBytes;
using wiretest::PacketFromBytes;
using wiretest::RoundTrip;

TEST(AethHeader, AckSyndromes)
{
    EXPECT_EQ(AethHeader::MakeAckSyndrome(), 0x1F); // no end-to-end credits
    EXPECT_EQ(AethHeader::MakeAckSyndrome(0), 0x00);
    EXPECT_EQ(AethHeader::MakeAckSyndrome(5), 0x05);
    EXPECT_EQ(AethHeader::MakeAckSyndrome(0xFF), 0x1F); // only five bits of credit count
}

TEST(AethHeader, RnrNakSyndromes)
{
    EXPECT_EQ(AethHeader::MakeRnrNakSyndrome(0), 0x20);
    EXPECT_EQ(AethHeader::MakeRnrNakSyndrome(0x0E), 0x2E);
    EXPECT_EQ(AethHeader::MakeRnrNakSyndrome(0x1F), 0x3F);
}

TEST(AethHeader, NakSyndromes)
{
    EXPECT_EQ(AethHeader::MakeNakSyndrome(AethHeader::NAK_PSN_SEQUENCE_ERROR), 0x60);
    EXPECT_EQ(AethHeader::MakeNakSyndrome(AethHeader::NAK_INVALID_REQUEST), 0x61);
    EXPECT_EQ(AethHeader::MakeNakSyndrome(AethHeader::NAK_REMOTE_ACCESS_ERROR), 0x62);
    EXPECT_EQ(AethHeader::MakeNakSyndrome(AethHeader::NAK_REMOTE_OPERATIONAL_ERROR), 0x63);
    EXPECT_EQ(AethHeader::MakeNakSyndrome(AethHeader::NAK_INVALID_RD_REQUEST), 0x64);
}

TEST(AethHeader, ClassificationIsExclusive)
{
    AethHeader aeth;
    for (unsigned s = 0; s < 256; ++s)
    {
        aeth.SetSyndrome(static_cast<uint8_t>(s));
        unsigned kind = (s >> 5) & 0x3;
        EXPECT_EQ(aeth.IsAck(), kind == 0) << "syndrome " << s;
        EXPECT_EQ(aeth.IsRnrNak(), kind == 1) << "syndrome " << s;
        EXPECT_EQ(aeth.IsNak(), kind == 3) << "syndrome " << s;
    }
}

TEST(AethHeader, DecodesSyndromeValues)
{
    AethHeader aeth;
    aeth.SetSyndrome(AethHeader::MakeAckSyndrome(9));
    EXPECT_TRUE(aeth.IsAck());
    EXPECT_EQ(aeth.GetCreditCount(), 9);
    aeth.SetSyndrome(AethHeader::MakeRnrNakSyndrome(12));
    EXPECT_TRUE(aeth.IsRnrNak());
    EXPECT_EQ(aeth.GetRnrTimer(), 12);
    aeth.SetSyndrome(AethHeader::MakeNakSyndrome(AethHeader::NAK_REMOTE_ACCESS_ERROR));
    EXPECT_TRUE(aeth.IsNak());
    EXPECT_EQ(aeth.GetNakCode(), AethHeader::NAK_REMOTE_ACCESS_ERROR);
}

TEST(AethHeader, DefaultIsAckWithoutCredits)
{
    AethHeader aeth;
    EXPECT_TRUE(aeth.IsAck());
    EXPECT_EQ(aeth.GetSyndrome(), 0x1F);
    EXPECT_EQ(aeth.GetMsn(), 0u);
    EXPECT_EQ(aeth.GetSerializedSize(), 4u);
}

TEST(AethHeader, Layout)
{
    AethHeader nak;
    nak.SetSyndrome(AethHeader::MakeNakSyndrome(AethHeader::NAK_PSN_SEQUENCE_ERROR));
    nak.SetMsn(0x123456);
    EXPECT_EQ(HeaderBytes(nak), (Bytes{0x60, 0x12, 0x34, 0x56}));

    AethHeader ack;
    ack.SetMsn(0x01ABCDEF); // 24-bit field: the top byte must not reach the syndrome
    EXPECT_EQ(ack.GetMsn(), 0xABCDEFu);
    EXPECT_EQ(HeaderBytes(ack), (Bytes{0x1F, 0xAB, 0xCD, 0xEF}));
}

TEST(AethHeader, RoundTrip)
{
    for (uint8_t syndrome : {uint8_t{0x00}, uint8_t{0x1F}, uint8_t{0x2E}, uint8_t{0x63}})
    {
        AethHeader aeth;
        aeth.SetSyndrome(syndrome);
        aeth.SetMsn(0xFFFFFF - syndrome);
        AethHeader copy = RoundTrip(aeth);
        EXPECT_EQ(copy.GetSyndrome(), syndrome);
        EXPECT_EQ(copy.GetMsn(), aeth.GetMsn());
    }
}

TEST(AethHeader, DecodesWireBytes)
{
    Ptr<Packet> packet = PacketFromBytes({0x61, 0x00, 0x00, 0x2A});
    AethHeader aeth;
    EXPECT_EQ(packet->RemoveHeader(aeth), 4u);
    EXPECT_TRUE(aeth.IsNak());
    EXPECT_EQ(aeth.GetNakCode(), AethHeader::NAK_INVALID_REQUEST);
    EXPECT_EQ(aeth.GetMsn(), 42u);
}

} // namespace
} // namespace ns3
