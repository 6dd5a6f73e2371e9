// Byte-exact tests of the PFC pause payload against IEEE 802.3 Annex 31D / 802.1Qbb.

#include "wire-test-util.h"
#include "wire/pfc-pause-header.h"

#include "ns3/data-rate.h"
#include "ns3/ethernet-header.h"
#include "ns3/mac48-address.h"
#include "ns3/packet.h"

#include <gtest/gtest.h>
#include <sstream>

namespace ns3
{
namespace
{

using wiretest::Bytes;
using wiretest::HeaderBytes;
using wiretest::PacketBytes;
using wiretest::PacketFromBytes;
using wiretest::RoundTrip;

TEST(PfcPauseHeader, ConstantsFollowTheStandard)
{
    EXPECT_EQ(PfcPauseHeader::kEtherType, 0x8808);
    EXPECT_EQ(PfcPauseHeader::kOpcode, 0x0101);
    EXPECT_EQ(PfcPauseHeader::DestinationAddress(), Mac48Address("01:80:c2:00:00:01"));
    EXPECT_EQ(PfcPauseHeader().GetSerializedSize(), 46u);
}

TEST(PfcPauseHeader, DefaultPausesNothing)
{
    PfcPauseHeader pfc;
    EXPECT_TRUE(pfc.IsValid());
    EXPECT_EQ(pfc.GetClassEnableVector(), 0);
    for (uint8_t p = 0; p < 8; ++p)
    {
        EXPECT_FALSE(pfc.IsEnabled(p));
        EXPECT_EQ(pfc.GetPauseQuanta(p), 0);
    }
    Bytes expected(46, 0x00);
    expected[0] = 0x01;
    expected[1] = 0x01;
    EXPECT_EQ(HeaderBytes(pfc), expected);
}

TEST(PfcPauseHeader, PausePriority3ForMaxQuantaBytes)
{
    PfcPauseHeader pfc;
    pfc.SetPauseQuanta(3, 0xFFFF);
    EXPECT_TRUE(pfc.IsEnabled(3));
    EXPECT_EQ(pfc.GetClassEnableVector(), 0x0008);

    // clang-format off
    Bytes expected = {
        0x01, 0x01,             // opcode: PFC
        0x00, 0x08,             // enable vector: reserved octet, then bit 3
        0x00, 0x00, 0x00, 0x00, // time[0], time[1]
        0x00, 0x00, 0xFF, 0xFF, // time[2], time[3]
        0x00, 0x00, 0x00, 0x00, // time[4], time[5]
        0x00, 0x00, 0x00, 0x00, // time[6], time[7]
    };
    // clang-format on
    expected.resize(46, 0x00); // 26 bytes of zero padding
    EXPECT_EQ(HeaderBytes(pfc), expected);
}

TEST(PfcPauseHeader, FullFrameIs60BytesWithoutFcs)
{
    PfcPauseHeader pfc;
    pfc.SetPauseQuanta(3, 0xFFFF);
    Ptr<Packet> frame = Create<Packet>();
    frame->AddHeader(pfc);
    EthernetHeader eth(false);
    eth.SetDestination(PfcPauseHeader::DestinationAddress());
    eth.SetSource(Mac48Address("02:00:00:00:00:01"));
    eth.SetLengthType(PfcPauseHeader::kEtherType);
    frame->AddHeader(eth);

    ASSERT_EQ(frame->GetSize(), 14u + 46u); // 64 bytes on the wire with the 4-byte FCS
    Bytes bytes = PacketBytes(frame);
    Bytes ethernet(bytes.begin(), bytes.begin() + 14);
    // clang-format off
    Bytes expectedEthernet = {0x01, 0x80, 0xC2, 0x00, 0x00, 0x01, // destination
                              0x02, 0x00, 0x00, 0x00, 0x00, 0x01, // source
                              0x88, 0x08};                        // MAC Control
    // clang-format on
    EXPECT_EQ(ethernet, expectedEthernet);
    EXPECT_EQ(bytes[14], 0x01);
    EXPECT_EQ(bytes[15], 0x01);
}

TEST(PfcPauseHeader, SeveralPrioritiesAndResume)
{
    PfcPauseHeader pfc;
    pfc.SetPauseQuanta(0, 0x1234);
    pfc.SetPauseQuanta(7, 0); // enabled with zero time: resume priority 7 (XON)
    EXPECT_EQ(pfc.GetClassEnableVector(), 0x0081);
    EXPECT_TRUE(pfc.IsEnabled(0));
    EXPECT_TRUE(pfc.IsEnabled(7));
    EXPECT_FALSE(pfc.IsEnabled(3));

    Bytes bytes = HeaderBytes(pfc);
    EXPECT_EQ(bytes[2], 0x00);
    EXPECT_EQ(bytes[3], 0x81);
    EXPECT_EQ(bytes[4], 0x12); // time[0], big-endian
    EXPECT_EQ(bytes[5], 0x34);
    EXPECT_EQ(bytes[18], 0x00); // time[7]
    EXPECT_EQ(bytes[19], 0x00);
}

TEST(PfcPauseHeader, EnableVectorReservedOctetIsCleared)
{
    PfcPauseHeader pfc;
    pfc.SetClassEnableVector(0xFF24);
    EXPECT_EQ(pfc.GetClassEnableVector(), 0x0024);
    EXPECT_TRUE(pfc.IsEnabled(2));
    EXPECT_TRUE(pfc.IsEnabled(5));
    EXPECT_FALSE(pfc.IsEnabled(0));
    Bytes bytes = HeaderBytes(pfc);
    EXPECT_EQ(bytes[2], 0x00);
    EXPECT_EQ(bytes[3], 0x24);
}

TEST(PfcPauseHeader, RoundTripKeepsEveryTimer)
{
    PfcPauseHeader pfc;
    for (uint8_t p = 0; p < 8; ++p)
    {
        pfc.SetPauseQuanta(p, static_cast<uint16_t>(0x1111 * (p + 1)));
    }
    pfc.SetClassEnableVector(0x5A); // timers stay on the wire even where not enabled
    PfcPauseHeader copy = RoundTrip(pfc);
    EXPECT_TRUE(copy.IsValid());
    EXPECT_EQ(copy.GetClassEnableVector(), 0x5A);
    for (uint8_t p = 0; p < 8; ++p)
    {
        EXPECT_EQ(copy.GetPauseQuanta(p), pfc.GetPauseQuanta(p)) << "priority " << +p;
        EXPECT_EQ(copy.IsEnabled(p), ((0x5A >> p) & 1) != 0) << "priority " << +p;
    }
}

TEST(PfcPauseHeader, OtherMacControlOpcodeIsNotValid)
{
    // An 802.3x PAUSE (opcode 0x0001, one pause_time) is also a MAC Control frame.
    Bytes pause(46, 0x00);
    pause[1] = 0x01;
    pause[2] = 0xFF;
    pause[3] = 0xFF;
    Ptr<Packet> packet = PacketFromBytes(pause);
    PfcPauseHeader pfc;
    EXPECT_EQ(packet->RemoveHeader(pfc), 46u);
    EXPECT_FALSE(pfc.IsValid());
    EXPECT_EQ(pfc.GetOpcode(), 0x0001);
}

TEST(PfcPauseHeader, QuantaAre512BitTimes)
{
    EXPECT_EQ(PfcPauseHeader::QuantaToTime(1, DataRate("1Gbps")), NanoSeconds(512));
    EXPECT_EQ(PfcPauseHeader::QuantaToTime(100, DataRate("10Gbps")), NanoSeconds(5120));
    EXPECT_EQ(PfcPauseHeader::QuantaToTime(0, DataRate("100Gbps")), Time(0));
    // 65535 quanta at 100 Gb/s = 335.5392 us.
    Time longest = PfcPauseHeader::QuantaToTime(0xFFFF, DataRate("100Gbps"));
    EXPECT_NEAR(longest.GetSeconds(), 65535.0 * 512 / 100e9, 1e-9);
}

TEST(PfcPauseHeader, PrintListsEnabledPriorities)
{
    PfcPauseHeader pfc;
    pfc.SetPauseQuanta(3, 0xFFFF);
    pfc.SetPauseQuanta(6, 0);
    std::ostringstream os;
    pfc.Print(os);
    os << ' ' << 10;
    EXPECT_EQ(os.str(), "opcode=0x0101 enable=0x48 p3=65535 p6=0 10");
}

TEST(PfcPauseHeaderDeathTest, PriorityOutOfRangeAborts)
{
    PfcPauseHeader pfc;
    EXPECT_DEATH(pfc.SetPauseQuanta(8, 1), "out of range");
}

} // namespace
} // namespace ns3
