// Byte-exact tests of the RETH (IBA vol. 1 9.3.3) and the CNP padding (RoCEv2 annex A17).

#include "wire-test-util.h"
#include "wire/bth-header.h"
#include "wire/cnp-padding-header.h"
#include "wire/reth-header.h"

#include "ns3/packet.h"

#include <gtest/gtest.h>

namespace ns3
{
namespace
{

using wiretest::Bytes;
using wiretest::HeaderBytes;
using wiretest::PacketBytes;
using wiretest::PacketFromBytes;
using wiretest::RoundTrip;

TEST(RethHeader, Layout)
{
    RethHeader reth;
    reth.SetVirtualAddress(0x0102030405060708);
    reth.SetRemoteKey(0x090A0B0C);
    reth.SetDmaLength(0x0D0E0F10);
    // clang-format off
    Bytes expected = {0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08,  // VA
                      0x09, 0x0A, 0x0B, 0x0C,                          // R_Key
                      0x0D, 0x0E, 0x0F, 0x10};                         // DMA length
    // clang-format on
    EXPECT_EQ(HeaderBytes(reth), expected);
}

TEST(RethHeader, DefaultIsZero)
{
    RethHeader reth;
    EXPECT_EQ(reth.GetSerializedSize(), 16u);
    EXPECT_EQ(HeaderBytes(reth), Bytes(16, 0x00));
}

TEST(RethHeader, RoundTrip)
{
    RethHeader reth;
    reth.SetVirtualAddress(0xFFFFFFFFFFFFFFF0);
    reth.SetRemoteKey(0xDEADBEEF);
    reth.SetDmaLength(0xFFFFFFFF);
    RethHeader copy = RoundTrip(reth);
    EXPECT_EQ(copy.GetVirtualAddress(), 0xFFFFFFFFFFFFFFF0);
    EXPECT_EQ(copy.GetRemoteKey(), 0xDEADBEEFu);
    EXPECT_EQ(copy.GetDmaLength(), 0xFFFFFFFFu);
}

TEST(CnpPaddingHeader, SixteenZeroBytes)
{
    CnpPaddingHeader padding;
    EXPECT_EQ(padding.GetSerializedSize(), 16u);
    EXPECT_EQ(HeaderBytes(padding), Bytes(16, 0x00));
    RoundTrip(padding);
}

TEST(CnpPaddingHeader, NonZeroReservedBytesAreSkipped)
{
    Bytes wire(16, 0xA5);
    wire.push_back(0x42); // whatever follows must stay in the packet
    Ptr<Packet> packet = PacketFromBytes(wire);
    CnpPaddingHeader padding;
    EXPECT_EQ(packet->RemoveHeader(padding), 16u);
    EXPECT_EQ(PacketBytes(packet), Bytes{0x42});
}

TEST(CnpPaddingHeader, CnpBodyMatchesHardware)
{
    // BTH and padding of the ConnectX-4 Lx CNP in icrc-trailer-test.cc: 28 bytes before ICRC.
    BthHeader bth;
    bth.SetOpcode(RoceOpcode::CNP);
    bth.SetBecn(true);
    bth.SetDestQp(0x118);
    Ptr<Packet> cnp = Create<Packet>();
    cnp->AddHeader(CnpPaddingHeader());
    cnp->AddHeader(bth);
    Bytes expected = {0x81, 0x00, 0xFF, 0xFF, 0x40, 0x00, 0x01, 0x18, 0x00, 0x00, 0x00, 0x00};
    expected.resize(28, 0x00);
    EXPECT_EQ(PacketBytes(cnp), expected);
}

} // namespace
} // namespace ns3
