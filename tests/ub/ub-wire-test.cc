// Unified Bus frames on the wire (model/wire/ub-header.h): header round trips, the CCI bit
// layout of the specification's mode 000, the selective-ACK bitmap (incl. PSN wraparound),
// what ParseFrame reads from a UB frame, and a Wireshark decode of a UB frame in a pcap.
// Expected values come from the layout documented in ub-header.h, not from the code's output.

#include "../test-files.h"
#include "../wire/wire-test-util.h"
#include "link/frame-codec.h"
#include "ub/ub-header-view.h"
#include "wire/icrc-trailer.h"
#include "wire/roce-header-view.h"
#include "wire/ub-header.h"

#include "ns3/nstime.h"
#include "ns3/pcap-file-wrapper.h"
#include "ns3/trace-helper.h"

#include <cstdio>
#include <gtest/gtest.h>
#include <sstream>
#include <string>
#include <unistd.h>
#include <vector>

namespace ns3
{
namespace
{

using wiretest::Bytes;
using wiretest::HeaderBytes;
using wiretest::RoundTrip;

const Mac48Address kMacA("02:00:00:00:00:0a");
const Mac48Address kMacB("02:00:00:00:00:0b");

UbFrameHeader
SampleData(uint32_t payload)
{
    UbFrameHeader h;
    h.srcMac = kMacA;
    h.dstMac = kMacB;
    h.srcIp = HostIpv4(2).Get();
    h.dstIp = HostIpv4(5).Get();
    h.tos = static_cast<uint8_t>((3 << 5) | 2); // priority 3 (DSCP 24), ECT(0)
    h.entropy = 50123;
    h.payloadBytes = static_cast<uint16_t>(payload + kIcrcBytes);
    h.opcode = UbOpcode::DATA;
    h.flags = UbFrameHeader::kFlagLast | UbFrameHeader::kFlagResend;
    h.SetOrder(UbOrder::STRICT);
    h.cci = 0x1734;
    h.message = 0xA1B2C3D4;
    h.psn = 0xFFFFFFFE;
    h.channel = 0x01020304;
    h.word = 0x00000007;
    return h;
}

TEST(UbWire, FrameHeaderRoundTripAndByteLayout)
{
    UbFrameHeader h = SampleData(1000);
    EXPECT_EQ(h.GetSerializedSize(), 42u + 20u); // Ethernet 14 + IPv4 20 + UDP 8 + UB 20
    UbFrameHeader back = RoundTrip(h);
    EXPECT_EQ(back.srcMac, h.srcMac);
    EXPECT_EQ(back.dstMac, h.dstMac);
    EXPECT_EQ(back.srcIp, h.srcIp);
    EXPECT_EQ(back.dstIp, h.dstIp);
    EXPECT_EQ(back.tos, h.tos);
    EXPECT_EQ(back.entropy, h.entropy);
    EXPECT_EQ(back.payloadBytes, h.payloadBytes);
    EXPECT_EQ(back.opcode, UbOpcode::DATA);
    EXPECT_EQ(back.flags, h.flags);
    EXPECT_EQ(back.GetOrder(), UbOrder::STRICT);
    EXPECT_EQ(back.cci, 0x1734);
    EXPECT_EQ(back.message, 0xA1B2C3D4u);
    EXPECT_EQ(back.psn, 0xFFFFFFFEu);
    EXPECT_EQ(back.channel, 0x01020304u);
    EXPECT_EQ(back.word, 7u);

    Bytes b = HeaderBytes(h);
    ASSERT_EQ(b.size(), 62u);
    // UDP: source port = entropy, destination 4792, length = 8 + 20 + payloadBytes.
    EXPECT_EQ((b[34] << 8) | b[35], 50123);
    EXPECT_EQ((b[36] << 8) | b[37], 4792);
    EXPECT_EQ((b[38] << 8) | b[39], 8 + 20 + 1004);
    // UB header from byte 42: opcode, flags (last 0x80 | strict 2<<4 | resend 0x01), CCI, ...
    EXPECT_EQ(b[42], 0x01);
    EXPECT_EQ(b[43], 0x80 | 0x20 | 0x01);
    EXPECT_EQ(b[UbFrameHeader::kCciOffset], 0x17);
    EXPECT_EQ(b[UbFrameHeader::kCciOffset + 1], 0x34);
    EXPECT_EQ(std::vector<uint8_t>(b.begin() + 46, b.begin() + 62),
              (std::vector<uint8_t>{0xA1,
                                    0xB2,
                                    0xC3,
                                    0xD4,
                                    0xFF,
                                    0xFF,
                                    0xFF,
                                    0xFE,
                                    0x01,
                                    0x02,
                                    0x03,
                                    0x04,
                                    0x00,
                                    0x00,
                                    0x00,
                                    0x07}));
}

TEST(UbWire, OrderFlagKeepsTheOtherFlags)
{
    UbFrameHeader h;
    h.flags =
        UbFrameHeader::kFlagLast | UbFrameHeader::kFlagAckRequest | UbFrameHeader::kFlagResend;
    for (UbOrder o : {UbOrder::NONE, UbOrder::AFTER, UbOrder::STRICT, UbOrder::NONE})
    {
        h.SetOrder(o);
        EXPECT_EQ(h.GetOrder(), o);
        EXPECT_EQ(h.flags & 0xC1, 0xC1);
        EXPECT_EQ((h.flags >> 4) & 3, uint8_t(o));
    }
}

TEST(UbWire, AckHeaderRoundTrip)
{
    UbAckHeader a;
    a.executedMessage = 41;
    a.congestedCount = 200;
    a.increase = true;
    a.hintSum = 0xBEEF;
    a.bitmap = {0x80, 0x01, 0xAA, 0x55};
    // 10 bytes of extension + 32 bits of bitmap.
    EXPECT_EQ(a.GetSerializedSize(), 14u);
    UbAckHeader back = RoundTrip(a);
    EXPECT_EQ(back.executedMessage, 41u);
    EXPECT_EQ(back.congestedCount, 200);
    EXPECT_TRUE(back.increase);
    EXPECT_EQ(back.hintSum, 0xBEEF);
    EXPECT_EQ(back.bitmap, a.bitmap);
    Bytes b = HeaderBytes(a);
    // executed message + 1 = 42, big-endian; bitmap size in bits = 32.
    EXPECT_EQ(std::vector<uint8_t>(b.begin(), b.begin() + 10),
              (std::vector<uint8_t>{0, 0, 0, 42, 200, 1, 0xBE, 0xEF, 0, 32}));

    UbAckHeader none;
    EXPECT_EQ(none.executedMessage, UbAckHeader::kNoMessage);
    Bytes nb = HeaderBytes(none);
    ASSERT_EQ(nb.size(), 10u);
    EXPECT_EQ(nb[0] | nb[1] | nb[2] | nb[3], 0); // "none" is 0 on the wire
    EXPECT_EQ(RoundTrip(none).executedMessage, UbAckHeader::kNoMessage);
    EXPECT_TRUE(RoundTrip(none).bitmap.empty());
}

TEST(UbWire, CciBitLayoutOfModeZero)
{
    // Mode:3 | Loc:1 | reserved:1 | En:1 | C:1 | I:1 | Hint:8 (bit 15 first).
    UbCci c;
    EXPECT_EQ(c.Encode(), 0x0000);
    c.lastHop = true;
    EXPECT_EQ(c.Encode(), 1 << 12);
    c = UbCci();
    c.enabled = true;
    EXPECT_EQ(c.Encode(), 1 << 10);
    c = UbCci();
    c.congested = true;
    EXPECT_EQ(c.Encode(), 1 << 9);
    c = UbCci();
    c.increase = true;
    EXPECT_EQ(c.Encode(), 1 << 8);
    c = UbCci();
    c.hint = 0xA5;
    EXPECT_EQ(c.Encode(), 0xA5);
    c.lastHop = c.enabled = c.congested = c.increase = true;
    c.hint = 0xFF;
    uint16_t all = c.Encode();
    EXPECT_EQ(all, 0x1000 | 0x0400 | 0x0200 | 0x0100 | 0xFF);
    EXPECT_EQ(all >> 13, 0);    // mode 000
    EXPECT_EQ(all & 0x0800, 0); // reserved bit stays 0

    UbCci d = UbCci::Decode(0x1000 | 0x0200 | 0x3C);
    EXPECT_TRUE(d.lastHop);
    EXPECT_FALSE(d.enabled);
    EXPECT_TRUE(d.congested);
    EXPECT_FALSE(d.increase);
    EXPECT_EQ(d.hint, 0x3C);
    // Every combination survives Encode/Decode.
    for (uint32_t bits = 0; bits < 16; ++bits)
    {
        UbCci e;
        e.lastHop = bits & 1;
        e.enabled = bits & 2;
        e.congested = bits & 4;
        e.increase = bits & 8;
        e.hint = static_cast<uint8_t>(bits * 17);
        UbCci f = UbCci::Decode(e.Encode());
        EXPECT_EQ(f.lastHop, e.lastHop);
        EXPECT_EQ(f.enabled, e.enabled);
        EXPECT_EQ(f.congested, e.congested);
        EXPECT_EQ(f.increase, e.increase);
        EXPECT_EQ(f.hint, e.hint);
    }
}

std::vector<uint8_t>
EncodeSet(uint32_t cumulative, uint32_t bits, const std::vector<uint32_t>& received)
{
    return SackBitmap::Encode(cumulative, bits, [&received](uint32_t psn) {
        for (uint32_t r : received)
        {
            if (r == psn)
            {
                return true;
            }
        }
        return false;
    });
}

TEST(UbWire, SackBitmapEncodeReportsHoles)
{
    // cumulative 100: bit i is PSN 101 + i. Received 102 (i=1), 105 (i=4), 116 (i=15), and
    // 117 (i=16) which lies beyond a 16-bit bitmap.
    std::vector<uint8_t> bm = EncodeSet(100, 16, {102, 105, 116, 117});
    ASSERT_EQ(bm.size(), 2u);
    EXPECT_EQ(bm[0], 0x40 | 0x08); // i=1 -> 0x80>>1, i=4 -> 0x80>>4
    EXPECT_EQ(bm[1], 0x01);        // i=15 -> byte 1, 0x80>>7

    EXPECT_TRUE(SackBitmap::Reports(100, bm, 99)); // below the cumulative point
    EXPECT_TRUE(SackBitmap::Reports(100, bm, 0));
    EXPECT_FALSE(SackBitmap::Reports(100, bm, 100)); // the cumulative PSN itself is missing
    EXPECT_FALSE(SackBitmap::Reports(100, bm, 101));
    EXPECT_TRUE(SackBitmap::Reports(100, bm, 102));
    EXPECT_TRUE(SackBitmap::Reports(100, bm, 105));
    EXPECT_TRUE(SackBitmap::Reports(100, bm, 116));
    EXPECT_FALSE(SackBitmap::Reports(100, bm, 117)); // beyond the bitmap: not reported

    // Holes: 100, then 101..115 minus 102 and 105 (not 117+: maybe still in flight).
    std::vector<uint32_t> expected = {100, 101, 103, 104};
    for (uint32_t p = 106; p <= 115; ++p)
    {
        expected.push_back(p);
    }
    EXPECT_EQ(SackBitmap::Holes(100, bm), expected);

    // Nothing reported: no holes, even though the cumulative PSN is missing.
    EXPECT_TRUE(SackBitmap::Holes(100, EncodeSet(100, 64, {})).empty());
    // Only the next PSN after the cumulative one: one hole, the cumulative PSN.
    EXPECT_EQ(SackBitmap::Holes(7, EncodeSet(7, 8, {8})), std::vector<uint32_t>{7});
}

TEST(UbWire, SackBitmapAcrossPsnWraparound)
{
    // cumulative 2^32 - 2: bit 0 = PSN 2^32 - 1, bit 1 = PSN 0, bit 2 = PSN 1, bit 3 = PSN 2.
    const uint32_t cum = 0xFFFFFFFEu;
    std::vector<uint8_t> bm = EncodeSet(cum, 8, {0xFFFFFFFFu, 1u});
    ASSERT_EQ(bm.size(), 1u);
    EXPECT_EQ(bm[0], 0x80 | 0x20);
    EXPECT_TRUE(SackBitmap::Reports(cum, bm, 0xFFFFFFFDu)); // before the cumulative point
    EXPECT_FALSE(SackBitmap::Reports(cum, bm, cum));
    EXPECT_TRUE(SackBitmap::Reports(cum, bm, 0xFFFFFFFFu));
    EXPECT_FALSE(SackBitmap::Reports(cum, bm, 0u));
    EXPECT_TRUE(SackBitmap::Reports(cum, bm, 1u));
    EXPECT_FALSE(SackBitmap::Reports(cum, bm, 2u));
    EXPECT_EQ(SackBitmap::Holes(cum, bm), (std::vector<uint32_t>{cum, 0u}));
    // Round trip through the ACK header.
    UbAckHeader a;
    a.bitmap = bm;
    EXPECT_EQ(RoundTrip(a).bitmap, bm);
}

Ptr<Packet>
BuildUbDataFrame(const UbFrameHeader& h, uint32_t payload)
{
    Ptr<Packet> frame = Create<Packet>(payload);
    frame->AddTrailer(IcrcTrailer());
    frame->AddHeader(h);
    return frame;
}

Ptr<Packet>
BuildUbAckFrame(uint32_t sackBits)
{
    UbAckHeader ack;
    ack.executedMessage = 3;
    ack.bitmap.assign(sackBits / 8, 0);
    UbFrameHeader h = SampleData(0);
    h.opcode = UbOpcode::ACK;
    h.flags = 0;
    h.cci = 0;
    h.payloadBytes = static_cast<uint16_t>(ack.GetSerializedSize() + kIcrcBytes);
    Ptr<Packet> frame = Create<Packet>();
    frame->AddTrailer(IcrcTrailer());
    frame->AddHeader(ack);
    frame->AddHeader(h);
    return frame;
}

TEST(UbWire, ParseFrameReadsTheUbFields)
{
    const uint32_t payload = 4096;
    UbFrameHeader h = SampleData(payload);
    Ptr<Packet> frame = BuildUbDataFrame(h, payload);
    // Stored frame = 62 B of headers + payload + 4 B ICRC = payload + kUbFrameOverhead.
    ASSERT_EQ(frame->GetSize(), payload + 66);
    EXPECT_EQ(kUbFrameOverhead, 66u);
    FrameInfo info;
    ASSERT_TRUE(ParseFrame(frame, &info));
    EXPECT_TRUE(IsUbFrame(info));
    EXPECT_FALSE(IsRoceFrame(info));
    EXPECT_TRUE(info.entropyOnlyHash); // switches hash the entropy alone
    EXPECT_EQ(info.frameBytes, payload + 66);
    EXPECT_EQ(info.opcode, UbOpcode::DATA);
    EXPECT_EQ(info.connection, 0xA1B2C3D4u); // the message
    EXPECT_EQ(info.sequence, 0xFFFFFFFEu);   // full 32 bits
    EXPECT_EQ(info.aux16, 0x1734);           // the CCI
    EXPECT_EQ(info.flags, h.flags);
    EXPECT_EQ(info.aux32, 0u);
    EXPECT_EQ(info.srcPort, 50123);
    EXPECT_EQ(info.dstPort, kUbUdpPort);
    EXPECT_EQ(info.srcIp, HostIpv4(2).Get());
    EXPECT_EQ(info.dstIp, HostIpv4(5).Get());
    EXPECT_EQ(info.priority, 3);
    EXPECT_EQ(info.ecn, 2);
    EXPECT_EQ(UbFlowPayloadBytes(info), payload);
    EXPECT_EQ(RoceFlowPayloadBytes(info), 0u); // not a RoCE frame

    // A 1-byte payload still counts as flow payload; an ACK carries none.
    FrameInfo small;
    ASSERT_TRUE(ParseFrame(BuildUbDataFrame(SampleData(1), 1), &small));
    EXPECT_EQ(UbFlowPayloadBytes(small), 1u);
    FrameInfo ack;
    ASSERT_TRUE(ParseFrame(BuildUbAckFrame(256), &ack));
    EXPECT_TRUE(IsUbFrame(ack));
    EXPECT_EQ(ack.opcode, UbOpcode::ACK);
    EXPECT_EQ(ack.frameBytes, 62u + 10 + 32 + 4);
    EXPECT_EQ(UbFlowPayloadBytes(ack), 0u);
}

TEST(UbWire, MemoryOpcodesAndTheirFlowPayload)
{
    // The layout in ub-header.h: READ and LOAD requests are header only; a RESPONSE carries
    // flow data (READ data, a loaded line, an atomic's 8-byte result, nothing for a store); a
    // STORE carries its line; an ATOMIC carries 16 bytes of operands, which are not flow data.
    struct Case
    {
        uint8_t opcode;
        uint32_t payload;
        uint32_t flowPayload;
    };

    for (const Case& c : {Case{UbOpcode::READ, 0, 0},
                          Case{UbOpcode::RESPONSE, 4096, 4096},
                          Case{UbOpcode::RESPONSE, 8, 8},
                          Case{UbOpcode::LOAD, 0, 0},
                          Case{UbOpcode::STORE, 64, 64},
                          Case{UbOpcode::ATOMIC, 16, 0}})
    {
        UbFrameHeader h = SampleData(c.payload);
        h.opcode = c.opcode;
        h.SetOrder(UbOrder::RELAXED);
        std::vector<uint8_t> b = HeaderBytes(h);
        EXPECT_EQ(b[42], c.opcode);
        EXPECT_EQ((b[43] >> 4) & 0x3, 3); // RO
        FrameInfo info;
        ASSERT_TRUE(ParseFrame(BuildUbDataFrame(h, c.payload), &info));
        EXPECT_EQ(info.opcode, c.opcode);
        EXPECT_EQ(info.frameBytes, c.payload + 66);
        EXPECT_EQ(UbFlowPayloadBytes(info), c.flowPayload) << int(c.opcode);
        EXPECT_TRUE(UbOpcode::UbCarriesPsn(c.opcode));
    }
    EXPECT_FALSE(UbOpcode::UbCarriesPsn(UbOpcode::ACK));
}

// --- Wireshark -------------------------------------------------------------------------------

using test::kTshark;

TEST(UbWireTshark, UbFrameDecodesAsEthernetIpv4UdpTo4792)
{
    ASSERT_TRUE(test::TsharkInstalled());
    std::string pcap =
        ::testing::TempDir() + "fabric-ub-wire-" + std::to_string(getpid()) + ".pcap";
    const uint32_t payload = 1000;
    std::vector<Ptr<Packet>> written = {BuildUbDataFrame(SampleData(payload), payload),
                                        BuildUbAckFrame(256)};
    {
        Ptr<PcapFileWrapper> file = CreateObject<PcapFileWrapper>();
        file->Open(pcap, std::ios::out | std::ios::binary);
        ASSERT_FALSE(file->Fail());
        file->Init(PcapHelper::DLT_EN10MB);
        for (size_t i = 0; i < written.size(); ++i)
        {
            file->Write(MicroSeconds(i), written[i]);
        }
        file->Close();
    }
    std::string cmd = std::string(kTshark) + " -n -r '" + pcap +
                      "' -o ip.check_checksum:TRUE -T fields -E separator=/t"
                      " -e frame.len -e frame.protocols -e ip.len -e ip.dsfield.dscp"
                      " -e ip.dsfield.ecn -e ip.checksum.status -e udp.srcport -e udp.dstport"
                      " -e udp.length -e _ws.malformed 2>/dev/null";
    FILE* pipe = popen(cmd.c_str(), "r");
    ASSERT_NE(pipe, nullptr);
    std::string out;
    char chunk[4096];
    size_t n;
    while ((n = fread(chunk, 1, sizeof(chunk), pipe)) > 0)
    {
        out.append(chunk, n);
    }
    EXPECT_EQ(pclose(pipe), 0);
    std::vector<std::vector<std::string>> rows;
    std::istringstream lines(out);
    for (std::string line; std::getline(lines, line);)
    {
        std::vector<std::string> cells;
        std::istringstream cs(line);
        for (std::string c; std::getline(cs, c, '\t');)
        {
            cells.push_back(c);
        }
        cells.resize(10);
        rows.push_back(cells);
    }
    ASSERT_EQ(rows.size(), 2u) << out;
    const auto& d = rows[0];
    EXPECT_EQ(std::stoul(d[0]), payload + 66);
    EXPECT_EQ(d[1].rfind("eth:ethertype:ip:udp", 0), 0u) << d[1];
    EXPECT_EQ(std::stoul(d[2]), 20u + 8 + 20 + payload + 4); // IPv4 total length
    EXPECT_EQ(std::stoul(d[3]), 24u);                        // DSCP = priority 3 << 3
    EXPECT_EQ(std::stoul(d[4]), 2u);                         // ECT(0)
    EXPECT_EQ(std::stoul(d[5]), 1u);                         // checksum good
    EXPECT_EQ(std::stoul(d[6]), 50123u);                     // entropy
    EXPECT_EQ(std::stoul(d[7]), 4792u);
    EXPECT_EQ(std::stoul(d[8]), 8u + 20 + payload + 4);
    EXPECT_EQ(d[9], "");
    const auto& a = rows[1];
    EXPECT_EQ(std::stoul(a[0]), 62u + 10 + 32 + 4);
    EXPECT_EQ(std::stoul(a[7]), 4792u);
    EXPECT_EQ(std::stoul(a[8]), 8u + 20 + 10 + 32 + 4);
    EXPECT_EQ(a[9], "");
    if (!HasFailure())
    {
        std::remove(pcap.c_str());
    }
}

TEST(UbWireTshark, MemoryOpcodesDecodeWithTheirOpcodeByte)
{
    // One frame per new opcode: tshark reads Ethernet / IPv4 / UDP to 4792, lengths match the
    // layout, nothing is malformed, and the first byte after the UDP header is the opcode.
    ASSERT_TRUE(test::TsharkInstalled());
    std::string pcap =
        ::testing::TempDir() + "fabric-ub-memory-wire-" + std::to_string(getpid()) + ".pcap";
    const std::vector<std::pair<uint8_t, uint32_t>> frames = {{UbOpcode::READ, 0},
                                                              {UbOpcode::RESPONSE, 1000},
                                                              {UbOpcode::LOAD, 0},
                                                              {UbOpcode::STORE, 64},
                                                              {UbOpcode::ATOMIC, 16}};
    {
        Ptr<PcapFileWrapper> file = CreateObject<PcapFileWrapper>();
        file->Open(pcap, std::ios::out | std::ios::binary);
        ASSERT_FALSE(file->Fail());
        file->Init(PcapHelper::DLT_EN10MB);
        for (size_t i = 0; i < frames.size(); ++i)
        {
            UbFrameHeader h = SampleData(frames[i].second);
            h.opcode = frames[i].first;
            file->Write(MicroSeconds(i), BuildUbDataFrame(h, frames[i].second));
        }
        file->Close();
    }
    std::string cmd = std::string(kTshark) + " -n -r '" + pcap +
                      "' -T fields -E separator=/t -e frame.len -e udp.dstport -e udp.length"
                      " -e data.data -e _ws.malformed 2>/dev/null";
    FILE* pipe = popen(cmd.c_str(), "r");
    ASSERT_NE(pipe, nullptr);
    std::string out;
    char chunk[4096];
    size_t n;
    while ((n = fread(chunk, 1, sizeof(chunk), pipe)) > 0)
    {
        out.append(chunk, n);
    }
    EXPECT_EQ(pclose(pipe), 0);
    std::istringstream lines(out);
    size_t i = 0;
    for (std::string line; std::getline(lines, line); ++i)
    {
        ASSERT_LT(i, frames.size()) << out;
        std::vector<std::string> cells;
        std::istringstream cs(line);
        for (std::string c; std::getline(cs, c, '\t');)
        {
            cells.push_back(c);
        }
        cells.resize(5);
        uint32_t payload = frames[i].second;
        EXPECT_EQ(std::stoul(cells[0]), payload + 66) << line;
        EXPECT_EQ(std::stoul(cells[1]), 4792u);
        EXPECT_EQ(std::stoul(cells[2]), 8u + 20 + payload + 4);
        char opcode[3];
        std::snprintf(opcode, sizeof opcode, "%02x", frames[i].first);
        EXPECT_EQ(cells[3].substr(0, 2), opcode) << line;
        EXPECT_EQ(cells[4], "");
    }
    EXPECT_EQ(i, frames.size()) << out;
    if (!HasFailure())
    {
        std::remove(pcap.c_str());
    }
}

} // namespace
} // namespace ns3
