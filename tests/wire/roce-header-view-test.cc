// The RoCEv2 view (wire/roce-header-view.h): what ParseFrame reads from the BTH and the word
// after it, and the payload a frame carries for its flow.

#include "link/frame-codec.h"
#include "wire/aeth-header.h"
#include "wire/bth-header.h"
#include "wire/ethernet-ipv4-udp.h"
#include "wire/icrc-trailer.h"
#include "wire/reth-header.h"
#include "wire/roce-frame-header.h"
#include "wire/roce-header-view.h"

#include "ns3/packet.h"

#include <gtest/gtest.h>
#include <vector>

namespace ns3
{
namespace
{

RoceFrameSpec
Spec(uint8_t opcode, uint32_t payload)
{
    RoceFrameSpec spec;
    spec.srcMac = Mac48Address("02:00:00:00:00:01");
    spec.dstMac = Mac48Address("02:00:00:00:00:02");
    spec.srcHost = 6;
    spec.dstHost = 1;
    spec.srcPort = 51234;
    spec.priority = 3;
    spec.opcode = opcode;
    spec.destQp = 0xABCDEF;
    spec.psn = 0xFFFFFE;
    spec.payloadBytes = payload;
    return spec;
}

TEST(RoceHeaderView, ReadsTheBthIntoTheTransportPart)
{
    RoceFrameSpec spec = Spec(RoceOpcode::RDMA_WRITE_MIDDLE, 1000);
    spec.ackRequest = true;
    FrameInfo info;
    ASSERT_TRUE(ParseFrame(BuildRoceFrame(spec), &info));
    EXPECT_TRUE(IsRoceFrame(info));
    EXPECT_EQ(info.transport, kRoceTransport);
    EXPECT_EQ(info.opcode, RoceOpcode::RDMA_WRITE_MIDDLE);
    EXPECT_EQ(info.connection, 0xABCDEFu); // the destination QP
    EXPECT_EQ(info.sequence, 0xFFFFFEu);   // the PSN
    EXPECT_TRUE(RoceAckRequested(info));
    EXPECT_EQ(info.flags, 0x80); // BTH byte 8: AckReq, reserved bits 0
    EXPECT_EQ(info.aux32, 0u);   // the first payload bytes (zeros), not an AETH
    EXPECT_EQ(info.aux16, 0u);
    EXPECT_FALSE(info.entropyOnlyHash); // RoCE frames hash the 5-tuple
    EXPECT_EQ(info.srcIp, HostIp(6));
    EXPECT_EQ(info.dstIp, HostIp(1));
    EXPECT_EQ(info.priority, 3);
    EXPECT_EQ(info.ecn, 2);
    // 1000 B of payload in 14 + 20 + 8 + 12 + 1000 + 4 stored bytes.
    EXPECT_EQ(info.frameBytes, 1058u);
    EXPECT_EQ(RoceFlowPayloadBytes(info), 1000u);

    spec.ackRequest = false;
    ASSERT_TRUE(ParseFrame(BuildRoceFrame(spec), &info));
    EXPECT_FALSE(RoceAckRequested(info));
}

TEST(RoceHeaderView, AnAckCarriesItsAethInAux32)
{
    // ACK: BTH + AETH (syndrome 0x1F: ACK, no credit count; MSN 0x123456) + ICRC.
    Ptr<Packet> inner = Create<Packet>(0);
    inner->AddTrailer(IcrcTrailer());
    AethHeader aeth;
    aeth.SetSyndrome(0x1F);
    aeth.SetMsn(0x123456);
    inner->AddHeader(aeth);
    FrameInfo info;
    ASSERT_TRUE(ParseFrame(BuildRoceFrame(Spec(RoceOpcode::ACKNOWLEDGE, 0), inner), &info));
    EXPECT_TRUE(IsRoceFrame(info));
    EXPECT_EQ(info.opcode, RoceOpcode::ACKNOWLEDGE);
    EXPECT_EQ(info.aux32, 0x1F123456u);
    EXPECT_EQ(info.frameBytes, 62u);
    EXPECT_EQ(RoceFlowPayloadBytes(info), 0u); // an ACK carries no message data
}

TEST(RoceHeaderView, PayloadExcludesTheRethAndAethItFollows)
{
    // WRITE FIRST: BTH + RETH (16) + payload + ICRC.
    Ptr<Packet> write = Create<Packet>(4096);
    write->AddTrailer(IcrcTrailer());
    write->AddHeader(RethHeader());
    FrameInfo info;
    ASSERT_TRUE(ParseFrame(BuildRoceFrame(Spec(RoceOpcode::RDMA_WRITE_FIRST, 0), write), &info));
    EXPECT_EQ(info.frameBytes, 58u + 16 + 4096);
    EXPECT_EQ(RoceFlowPayloadBytes(info), 4096u);
    // READ RESPONSE FIRST: BTH + AETH (4) + payload + ICRC.
    Ptr<Packet> response = Create<Packet>(2048);
    response->AddTrailer(IcrcTrailer());
    response->AddHeader(AethHeader());
    ASSERT_TRUE(
        ParseFrame(BuildRoceFrame(Spec(RoceOpcode::RDMA_READ_RESPONSE_FIRST, 0), response), &info));
    EXPECT_EQ(RoceFlowPayloadBytes(info), 2048u);
    // A CNP is no data.
    ASSERT_TRUE(ParseFrame(BuildRoceFrame(Spec(RoceOpcode::CNP, 16)), &info));
    EXPECT_EQ(RoceFlowPayloadBytes(info), 0u);
}

TEST(RoceHeaderView, DataOpcodes)
{
    for (uint8_t op = RoceOpcode::SEND_FIRST; op <= RoceOpcode::RDMA_WRITE_ONLY_WITH_IMMEDIATE;
         ++op)
    {
        EXPECT_TRUE(IsRoceDataOpcode(op)) << unsigned(op);
    }
    EXPECT_FALSE(IsRoceDataOpcode(RoceOpcode::RDMA_READ_REQUEST));
    for (uint8_t op = RoceOpcode::RDMA_READ_RESPONSE_FIRST;
         op <= RoceOpcode::RDMA_READ_RESPONSE_ONLY;
         ++op)
    {
        EXPECT_TRUE(IsRoceDataOpcode(op)) << unsigned(op);
    }
    EXPECT_FALSE(IsRoceDataOpcode(RoceOpcode::ACKNOWLEDGE));
    EXPECT_FALSE(IsRoceDataOpcode(RoceOpcode::ATOMIC_ACKNOWLEDGE));
    EXPECT_FALSE(IsRoceDataOpcode(RoceOpcode::CNP));
}

TEST(RoceHeaderView, ATruncatedBthIsNoRoceFrame)
{
    // Ethernet + IPv4 + UDP to 4791 and 11 of the BTH's 12 bytes: no view; a frame that ends
    // right after the BTH is RoCE, with no word after it.
    for (uint32_t after : {11u, 12u})
    {
        std::vector<uint8_t> b(kEthernetIpv4UdpBytes + after, 0);
        EthernetIpv4Udp outer;
        outer.srcIp = HostIp(0);
        outer.dstIp = HostIp(1);
        outer.dstPort = kRoceV2UdpPort;
        outer.udpPayloadBytes = static_cast<uint16_t>(after);
        outer.Write(b.data());
        uint8_t* bth = b.data() + kEthernetIpv4UdpBytes;
        bth[0] = RoceOpcode::SEND_ONLY;
        bth[5] = 0x01; // QP 0x010000 when the BTH is whole
        FrameInfo info;
        ASSERT_TRUE(ParseFrame(Create<Packet>(b.data(), b.size()), &info));
        EXPECT_EQ(info.dstPort, kRoceV2UdpPort);
        if (after == 11)
        {
            EXPECT_FALSE(IsRoceFrame(info));
            EXPECT_EQ(RoceFlowPayloadBytes(info), 0u);
        }
        else
        {
            EXPECT_TRUE(IsRoceFrame(info));
            EXPECT_EQ(info.connection, 0x010000u);
            EXPECT_EQ(info.aux32, 0u);
        }
    }
}

} // namespace
} // namespace ns3
