// In-band network telemetry on the wire (wire/int-header.h): the hop record's bit layout and
// units, the 44 bytes a RoCE frame gains and where, what the RoCE view and the payload
// function make of it, and a stack stamped hop by hop (at most 5 records).

#include "link/frame-codec.h"
#include "wire/aeth-header.h"
#include "wire/bth-header.h"
#include "wire/icrc-trailer.h"
#include "wire/int-header.h"
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
    spec.srcHost = 2;
    spec.dstHost = 5;
    spec.srcPort = 50000;
    spec.priority = 3;
    spec.opcode = opcode;
    spec.destQp = 0x42;
    spec.psn = 7;
    spec.payloadBytes = payload;
    return spec;
}

/// A data frame as RdmaNic builds it: [RETH | AETH] [INT] payload ICRC behind the BTH.
Ptr<Packet>
DataFrame(uint8_t opcode, uint32_t payload, bool withInt)
{
    Ptr<Packet> inner = Create<Packet>(payload);
    inner->AddTrailer(IcrcTrailer());
    if (withInt)
    {
        inner->AddHeader(IntHeader());
    }
    if (RoceOpcodeHasReth(opcode))
    {
        inner->AddHeader(RethHeader());
    }
    if (RoceOpcodeHasAeth(opcode))
    {
        inner->AddHeader(AethHeader());
    }
    RoceFrameSpec spec = Spec(opcode, payload);
    spec.hasInt = withInt;
    return BuildRoceFrame(spec, inner);
}

std::vector<uint8_t>
Bytes(const Ptr<Packet>& p)
{
    std::vector<uint8_t> b(p->GetSize());
    p->CopyData(b.data(), b.size());
    return b;
}

TEST(IntWire, HopRecordFieldsSitAtTheirBits)
{
    // 4-bit rate code | 24-bit time | 20-bit bytes | 16-bit queue: nibble-aligned, so the
    // word is the fields' hex digits side by side.
    IntHop h;
    h.rateCode = 0x8;
    h.time = 0x123456;
    h.bytes = 0xABCDE;
    h.qlen = 0x1234;
    EXPECT_EQ(h.Encode(), 0x8123456ABCDE1234ull);
    IntHop back = IntHop::Decode(0x8123456ABCDE1234ull);
    EXPECT_EQ(back.rateCode, 0x8);
    EXPECT_EQ(back.time, 0x123456u);
    EXPECT_EQ(back.bytes, 0xABCDEu);
    EXPECT_EQ(back.qlen, 0x1234u);
    // Written big-endian after the 4-byte shim (version 1 << 4, 5 slots, hop count 1).
    IntStack s;
    s.hopCount = 1;
    s.hops[0] = h;
    uint8_t b[kIntHeaderBytes];
    s.Write(b);
    const uint8_t expected[12] = {0x10, 5, 1, 0, 0x81, 0x23, 0x45, 0x6A, 0xBC, 0xDE, 0x12, 0x34};
    for (uint32_t i = 0; i < 12; ++i)
    {
        EXPECT_EQ(b[i], expected[i]) << "byte " << i;
    }
    for (uint32_t i = 12; i < kIntHeaderBytes; ++i)
    {
        EXPECT_EQ(b[i], 0) << "unstamped slot byte " << i;
    }
    EXPECT_EQ(kIntHeaderBytes, 44u); // 4 + 5 x 8
}

TEST(IntWire, StampRoundsToTheRecordUnits)
{
    // 400 Gb/s is code 8 of the table; 20 000 123 ns mod 2^24 (16 777 216) = 3 222 907;
    // 1 000 000 B / 128 = 7812 (7812.5 rounded down); 70 000 B / 256 = 273 (273.4).
    IntHop h = IntHop::Stamp(DataRate("400Gbps"), NanoSeconds(20000123), 1000000, 70000);
    EXPECT_EQ(h.rateCode, 8);
    EXPECT_EQ(h.GetLineRate(), DataRate("400Gbps"));
    EXPECT_EQ(h.time, 3222907u);
    EXPECT_EQ(h.bytes, 7812u);
    EXPECT_EQ(h.qlen, 273u);
    EXPECT_EQ(h.GetQueueBytes(), 273u * 256);
    // A queue beyond 65535 x 256 B saturates instead of wrapping.
    EXPECT_EQ(IntHop::Stamp(DataRate("400Gbps"), Time(0), 0, 64ull << 20).qlen, 0xFFFFu);
    // A rate outside the table has code 0.
    EXPECT_EQ(IntRateCode(DataRate("123Gbps")), 0);
    EXPECT_EQ(IntRateCode(DataRate("100Gbps")), 6);
}

TEST(IntWire, DeltasSurviveTheCountersWrapping)
{
    IntHop a;
    IntHop b;
    a.time = 0xFFFFF0;
    b.time = 0x10; // 16 ns before the wrap + 16 after
    EXPECT_EQ(b.NanosSince(a), 32u);
    a.bytes = 0xFFFFF;
    b.bytes = 1; // two 128-byte units later
    EXPECT_EQ(b.BytesSince(a), 256u);
}

TEST(IntWire, FrameGainsTheStackAfterTheExtensionHeaders)
{
    const uint32_t payload = 4096;

    struct Case
    {
        uint8_t opcode;
        uint32_t extension; // RETH 16, AETH 4, none 0
    };

    for (Case c : {Case{RoceOpcode::SEND_MIDDLE, 0},
                   Case{RoceOpcode::RDMA_WRITE_FIRST, 16},
                   Case{RoceOpcode::RDMA_READ_RESPONSE_FIRST, 4}})
    {
        Ptr<Packet> plain = DataFrame(c.opcode, payload, false);
        Ptr<Packet> tele = DataFrame(c.opcode, payload, true);
        // 14 + 20 + 8 + 12 (Ethernet, IPv4, UDP, BTH) + extension + payload + 4 (ICRC), and
        // 4 + 5 x 8 = 44 more with the stack.
        EXPECT_EQ(plain->GetSize(), 54 + c.extension + payload + 4) << int(c.opcode);
        EXPECT_EQ(tele->GetSize(), 54 + c.extension + 44 + payload + 4) << int(c.opcode);
        FrameInfo pi;
        FrameInfo ti;
        ASSERT_TRUE(ParseFrame(plain, &pi));
        ASSERT_TRUE(ParseFrame(tele, &ti));
        EXPECT_FALSE(RoceHasInt(pi));
        EXPECT_TRUE(RoceHasInt(ti));
        // The flow's payload is the same with or without telemetry.
        EXPECT_EQ(RoceFlowPayloadBytes(pi), payload);
        EXPECT_EQ(RoceFlowPayloadBytes(ti), payload);
        // The stack starts right after the extension header; switches stamp data frames.
        EXPECT_EQ(RoceIntOffset(ti), 54 + c.extension);
        EXPECT_EQ(TelemetryOffset(ti), 54 + c.extension);
        EXPECT_EQ(TelemetryOffset(pi), 0u);
        std::vector<uint8_t> b = Bytes(tele);
        EXPECT_EQ(b[42 + 4], 0x20);            // BTH byte 4: the INT bit alone
        EXPECT_EQ(b[54 + c.extension], 0x10);  // version 1
        EXPECT_EQ(b[54 + c.extension + 1], 5); // slots
        EXPECT_EQ(b[54 + c.extension + 2], 0); // no hop yet
    }
}

TEST(IntWire, AckEchoIsAfterTheAethAndNotStamped)
{
    IntStack echo;
    echo.hopCount = 2;
    echo.hops[0] = IntHop::Decode(0x6000001000020003ull);
    echo.hops[1] = IntHop::Decode(0x8000004000050006ull);
    Ptr<Packet> inner = Create<Packet>();
    inner->AddTrailer(IcrcTrailer());
    inner->AddHeader(IntHeader(echo));
    AethHeader aeth;
    aeth.SetSyndrome(AethHeader::MakeAckSyndrome());
    aeth.SetMsn(9);
    inner->AddHeader(aeth);
    RoceFrameSpec spec = Spec(RoceOpcode::ACKNOWLEDGE, 0);
    spec.hasInt = true;
    Ptr<Packet> ack = BuildRoceFrame(spec, inner);
    // 54 + AETH 4 + INT 44 + ICRC 4: an ACK grows from 62 to 106 bytes.
    EXPECT_EQ(ack->GetSize(), 106u);
    FrameInfo info;
    ASSERT_TRUE(ParseFrame(ack, &info));
    EXPECT_TRUE(RoceHasInt(info));
    EXPECT_EQ(info.aux32 & 0xFFFFFF, 9u); // the AETH is still where the view reads it
    EXPECT_EQ(TelemetryOffset(info), 0u); // an echo: switches leave it alone
    EXPECT_EQ(RoceFlowPayloadBytes(info), 0u);
    std::vector<uint8_t> b = Bytes(ack);
    IntStack read;
    ASSERT_TRUE(read.Read(b.data() + RoceIntOffset(info)));
    EXPECT_EQ(read.hopCount, 2);
    EXPECT_EQ(read.hops[0].Encode(), 0x6000001000020003ull);
    EXPECT_EQ(read.hops[1].Encode(), 0x8000004000050006ull);
}

TEST(IntWire, EveryHopAddsOneRecordUpToFiveAndTheFrameKeepsItsSize)
{
    Ptr<Packet> frame = DataFrame(RoceOpcode::SEND_MIDDLE, 1000, true);
    const uint32_t size = frame->GetSize(); // 54 + 44 + 1000 + 4
    ASSERT_EQ(size, 1102u);
    const uint32_t offset = 54;
    for (uint32_t hop = 0; hop < 7; ++hop)
    {
        uint8_t front[offset + kIntHeaderBytes];
        ASSERT_EQ(frame->CopyData(front, sizeof(front)), sizeof(front));
        PushIntHop(front + offset, IntHop::Decode(0x6000000000000000ull | (hop + 1)));
        RewriteFrameFront(*frame, front, sizeof(front));
        EXPECT_EQ(frame->GetSize(), size) << "the sender reserved every slot";
        std::vector<uint8_t> b = Bytes(frame);
        IntStack s;
        ASSERT_TRUE(s.Read(b.data() + offset));
        EXPECT_EQ(s.hopCount, hop + 1);
        EXPECT_EQ(s.RecordedHops(), std::min(hop + 1, 5u));
        EXPECT_EQ(s.Complete(), hop + 1 <= 5);
        for (uint32_t i = 0; i < s.RecordedHops(); ++i)
        {
            EXPECT_EQ(s.hops[i].qlen, i + 1) << "hop " << i << " keeps its own record";
        }
        FrameInfo info;
        ASSERT_TRUE(ParseFrame(frame, &info));
        EXPECT_EQ(RoceFlowPayloadBytes(info), 1000u);
    }
}

} // namespace
} // namespace ns3
