// Decode test: frames built from our headers (and ns-3's Ethernet/IPv4/UDP headers) are
// written to a pcap and read back by tshark, which must see the same field values.
// This is the check that what we put on the wire is what the standards say, as judged by an
// independent implementation (Wireshark's MAC Control and InfiniBand/RoCEv2 dissectors).

#include "../test-files.h"
#include "wire/aeth-header.h"
#include "wire/bth-header.h"
#include "wire/cnp-padding-header.h"
#include "wire/credit-update-header.h"
#include "wire/icrc-trailer.h"
#include "wire/int-header.h"
#include "wire/pfc-pause-header.h"
#include "wire/reth-header.h"
#include "wire/roce-frame-header.h"

#include "ns3/ethernet-header.h"
#include "ns3/ipv4-header.h"
#include "ns3/nstime.h"
#include "ns3/packet.h"
#include "ns3/pcap-file-wrapper.h"
#include "ns3/trace-helper.h"
#include "ns3/udp-header.h"

#include <cstdio>
#include <gtest/gtest.h>
#include <map>
#include <sstream>
#include <string>
#include <unistd.h>
#include <vector>

namespace ns3
{
namespace
{

using test::kTshark;

const Mac48Address kHostA("02:00:00:00:00:0a");
const Mac48Address kHostB("02:00:00:00:00:0b");

/// Fields read from every frame; Wireshark leaves a field empty when a frame lacks it.
const std::vector<std::string> kFields = {
    "frame.len",
    "frame.protocols",
    "eth.dst",
    "eth.type",
    "macc.opcode",
    "macc.cbfc.enbv",
    "macc.cbfc.pause_time.c0",
    "macc.cbfc.pause_time.c3",
    "macc.cbfc.pause_time.c5",
    "ip.len",
    "ip.dsfield.dscp",
    "ip.dsfield.ecn",
    "ip.checksum.status",
    "udp.srcport",
    "udp.dstport",
    "udp.length",
    "infiniband.bth",
    "infiniband.bth.opcode",
    "infiniband.bth.p_key",
    "infiniband.bth.destqp",
    "infiniband.bth.a",
    "infiniband.bth.psn",
    "infiniband.reth.va",
    "infiniband.reth.r_key",
    "infiniband.reth.dmalen",
    "infiniband.aeth.syndrome",
    "infiniband.aeth.syndrome.opcode",
    "infiniband.aeth.syndrome.credit_count",
    "infiniband.aeth.syndrome.error_code",
    "infiniband.aeth.msn",
    "infiniband.invariant.crc",
    "data.len",
    "data.data",
    "_ws.malformed",
    "_ws.expert.severity",
};

using Frame = std::map<std::string, std::string>;

/**
 * Wrap an InfiniBand packet (BTH onward) as a RoCEv2 frame: UDP to 4791, IPv4 with the given
 * DSCP and ECN, a correct ICRC, and an Ethernet header.
 */
Ptr<Packet>
MakeRoceFrame(Ptr<Packet> ib,
              Ipv4Header::DscpType dscp,
              Ipv4Header::EcnType ecn,
              uint16_t entropyPort)
{
    // Placeholder first, so the IPv4 and UDP lengths (covered by the ICRC) count it.
    ib->AddTrailer(IcrcTrailer());
    UdpHeader udp;
    udp.SetSourcePort(entropyPort);
    udp.SetDestinationPort(kRoceV2UdpPort);
    // No UDP checksum: zero is valid over IPv4 and is what RoCEv2 NICs send.
    ib->AddHeader(udp);

    Ipv4Header ip;
    ip.SetSource(Ipv4Address("10.0.0.10"));
    ip.SetDestination(Ipv4Address("10.0.0.11"));
    ip.SetProtocol(17);
    ip.SetTtl(64);
    ip.SetIdentification(0x1234);
    ip.SetDontFragment();
    ip.SetDscp(dscp);
    ip.SetEcn(ecn);
    ip.SetPayloadSize(ib->GetSize());
    ip.EnableChecksum();
    ib->AddHeader(ip);

    uint32_t value = IcrcTrailer::ComputeIcrc(ib);
    IcrcTrailer icrc;
    ib->RemoveTrailer(icrc);
    icrc.SetIcrc(value);
    ib->AddTrailer(icrc);

    EthernetHeader eth(false);
    eth.SetSource(kHostA);
    eth.SetDestination(kHostB);
    eth.SetLengthType(0x0800);
    ib->AddHeader(eth);
    return ib;
}

/// PFC frame pausing priority 3 for the longest time and priority 5 for 256 quanta.
Ptr<Packet>
MakePfcFrame()
{
    PfcPauseHeader pfc;
    pfc.SetPauseQuanta(3, 0xFFFF);
    pfc.SetPauseQuanta(5, 256);
    Ptr<Packet> frame = Create<Packet>();
    frame->AddHeader(pfc);
    EthernetHeader eth(false);
    eth.SetSource(kHostA);
    eth.SetDestination(PfcPauseHeader::DestinationAddress());
    eth.SetLengthType(PfcPauseHeader::kEtherType);
    frame->AddHeader(eth);
    return frame;
}

/// Credit frame of credit-based flow control (docs/models.md#cbfc).
Ptr<Packet>
MakeCreditFrame(const CreditUpdateHeader& credit)
{
    Ptr<Packet> frame = Create<Packet>();
    frame->AddHeader(credit);
    EthernetHeader eth(false);
    eth.SetSource(kHostA);
    eth.SetDestination(CreditUpdateHeader::DestinationAddress());
    eth.SetLengthType(CreditUpdateHeader::kEtherType);
    frame->AddHeader(eth);
    return frame;
}

/// First packet of a 4 KiB RDMA WRITE carrying 1024 bytes.
Ptr<Packet>
MakeWriteFirstFrame()
{
    Ptr<Packet> ib = Create<Packet>(1024);
    RethHeader reth;
    reth.SetVirtualAddress(0x00007F0012345000);
    reth.SetRemoteKey(0x00C0FFEE);
    reth.SetDmaLength(4096);
    ib->AddHeader(reth);
    BthHeader bth;
    bth.SetOpcode(RoceOpcode::RDMA_WRITE_FIRST);
    bth.SetDestQp(0xABCDEF);
    bth.SetPsn(0xFFFFFE);
    bth.SetAckRequest(true);
    ib->AddHeader(bth);
    return MakeRoceFrame(ib, Ipv4Header::DSCP_AF31, Ipv4Header::ECN_ECT0, 49321);
}

/// ACK (or NAK) of the write, travelling back.
Ptr<Packet>
MakeAckFrame(uint8_t syndrome, uint32_t psn)
{
    Ptr<Packet> ib = Create<Packet>();
    AethHeader aeth;
    aeth.SetSyndrome(syndrome);
    aeth.SetMsn(7);
    ib->AddHeader(aeth);
    BthHeader bth;
    bth.SetOpcode(RoceOpcode::ACKNOWLEDGE);
    bth.SetDestQp(0x000123);
    bth.SetPsn(psn);
    ib->AddHeader(bth);
    return MakeRoceFrame(ib, Ipv4Header::DSCP_AF31, Ipv4Header::ECN_ECT0, 50001);
}

/// CNP telling the sender of QP 0x000123 to slow down; CNPs are not ECN-capable.
Ptr<Packet>
MakeCnpFrame()
{
    Ptr<Packet> ib = Create<Packet>();
    ib->AddHeader(CnpPaddingHeader());
    BthHeader bth;
    bth.SetOpcode(RoceOpcode::CNP);
    bth.SetBecn(true);
    bth.SetDestQp(0x000123);
    ib->AddHeader(bth);
    return MakeRoceFrame(ib, Ipv4Header::DSCP_CS6, Ipv4Header::ECN_NotECT, 50002);
}

/// Two switches' records, as an HPCC data packet has them after two hops.
IntStack
TwoHopStack()
{
    IntStack s;
    s.hopCount = 2;
    s.hops[0] = IntHop::Decode(0x8000001000020003ull);
    s.hops[1] = IntHop::Decode(0x8000004000050006ull);
    return s;
}

/// An RDMA WRITE FIRST with an INT stack between the RETH and the payload, as RdmaNic builds
/// it for a QP whose congestion control reads INT (BTH byte 4 bit 0x20 set).
Ptr<Packet>
MakeIntWriteFirstFrame()
{
    Ptr<Packet> inner = Create<Packet>(1024);
    inner->AddTrailer(IcrcTrailer());
    inner->AddHeader(IntHeader(TwoHopStack()));
    RethHeader reth;
    reth.SetVirtualAddress(0x00007F0012345000);
    reth.SetRemoteKey(0x00C0FFEE);
    reth.SetDmaLength(4096);
    inner->AddHeader(reth);
    RoceFrameSpec spec;
    spec.srcMac = kHostA;
    spec.dstMac = kHostB;
    spec.srcHost = 9;
    spec.dstHost = 10;
    spec.srcPort = 49321;
    spec.priority = 3;
    spec.opcode = RoceOpcode::RDMA_WRITE_FIRST;
    spec.destQp = 0xABCDEF;
    spec.psn = 0xFFFFFE;
    spec.ackRequest = true;
    spec.hasInt = true;
    return BuildRoceFrame(spec, inner);
}

/// Its ACK, echoing the stack after the AETH.
Ptr<Packet>
MakeIntAckFrame()
{
    Ptr<Packet> inner = Create<Packet>();
    inner->AddTrailer(IcrcTrailer());
    inner->AddHeader(IntHeader(TwoHopStack()));
    AethHeader aeth;
    aeth.SetSyndrome(AethHeader::MakeAckSyndrome());
    aeth.SetMsn(7);
    inner->AddHeader(aeth);
    RoceFrameSpec spec;
    spec.srcMac = kHostB;
    spec.dstMac = kHostA;
    spec.srcHost = 10;
    spec.dstHost = 9;
    spec.srcPort = 50001;
    spec.priority = 3;
    spec.ecnCapable = false;
    spec.opcode = RoceOpcode::ACKNOWLEDGE;
    spec.destQp = 0x000123;
    spec.psn = 0xFFFFFE;
    spec.hasInt = true;
    return BuildRoceFrame(spec, inner);
}

/// Writes \p frames to \p pcap as Ethernet captures, one microsecond apart.
void
WritePcap(const std::string& pcap, const std::vector<Ptr<Packet>>& frames)
{
    Ptr<PcapFileWrapper> file = CreateObject<PcapFileWrapper>();
    file->Open(pcap, std::ios::out | std::ios::binary);
    ASSERT_FALSE(file->Fail()) << "cannot create " << pcap;
    file->Init(PcapHelper::DLT_EN10MB);
    for (size_t i = 0; i < frames.size(); ++i)
    {
        file->Write(MicroSeconds(i), frames[i]);
    }
    file->Close();
}

/// Run tshark over the file and return one field map per frame.
std::vector<Frame>
Decode(const std::string& pcap)
{
    std::ostringstream cmd;
    // Checksum validation is off by default; turn it on so ns-3's IPv4 checksum is judged.
    // stderr is dropped: tshark warns when run as root.
    cmd << kTshark << " -n -r '" << pcap << "' -o ip.check_checksum:TRUE -T fields"
        << " -E separator=/t -E occurrence=a";
    for (const std::string& field : kFields)
    {
        cmd << " -e " << field;
    }
    cmd << " 2>/dev/null";

    std::vector<Frame> frames;
    FILE* pipe = popen(cmd.str().c_str(), "r");
    if (pipe == nullptr)
    {
        ADD_FAILURE() << "cannot run: " << cmd.str();
        return frames;
    }
    std::string output;
    char chunk[4096];
    size_t n;
    while ((n = fread(chunk, 1, sizeof(chunk), pipe)) > 0)
    {
        output.append(chunk, n);
    }
    int status = pclose(pipe);
    EXPECT_EQ(status, 0) << "tshark failed: " << cmd.str();

    std::istringstream lines(output);
    std::string line;
    while (std::getline(lines, line))
    {
        Frame frame;
        std::istringstream cells(line);
        std::string cell;
        for (const std::string& field : kFields)
        {
            if (!std::getline(cells, cell, '\t'))
            {
                cell.clear();
            }
            frame[field] = cell;
        }
        frames.push_back(frame);
    }
    return frames;
}

/**
 * Parse a number as tshark prints it (decimal, or 0x-prefixed hex for hex fields). The field
 * must occur exactly once in the frame (tshark joins repeated occurrences with commas).
 */
uint64_t
Num(const Frame& frame, const std::string& field)
{
    const std::string& text = frame.at(field);
    EXPECT_FALSE(text.empty()) << field << " missing";
    EXPECT_EQ(text.find(','), std::string::npos) << field << " occurs more than once: " << text;
    return text.empty() ? 0 : std::stoull(text, nullptr, 0);
}

/// True if text starts with prefix.
bool
StartsWith(const std::string& text, const std::string& prefix)
{
    return text.compare(0, prefix.size(), prefix) == 0;
}

class WireTshark : public ::testing::Test
{
  protected:
    void SetUp() override
    {
        // A fatal failure in SetUp skips the test body, and is reported as a failure.
        ASSERT_TRUE(test::TsharkInstalled());
        m_pcap = ::testing::TempDir() + "fabric-wire-" + std::to_string(getpid()) + ".pcap";
    }

    void TearDown() override
    {
        if (m_pcap.empty())
        {
            return;
        }
        if (HasFailure())
        {
            std::cerr << "pcap kept for inspection: " << m_pcap << std::endl;
        }
        else
        {
            std::remove(m_pcap.c_str());
        }
    }

    std::string m_pcap;
};

TEST_F(WireTshark, WiresharkDecodesEveryFrame)
{
    std::vector<Ptr<Packet>> written = {
        MakePfcFrame(),
        MakeWriteFirstFrame(),
        MakeAckFrame(AethHeader::MakeAckSyndrome(), 0xFFFFFE),
        MakeAckFrame(AethHeader::MakeNakSyndrome(AethHeader::NAK_PSN_SEQUENCE_ERROR), 0xFFFFFF),
        MakeCnpFrame(),
    };
    ASSERT_NO_FATAL_FAILURE(WritePcap(m_pcap, written));

    std::vector<Frame> frames = Decode(m_pcap);
    ASSERT_EQ(frames.size(), written.size());
    for (size_t i = 0; i < frames.size(); ++i)
    {
        EXPECT_EQ(Num(frames[i], "frame.len"), written[i]->GetSize()) << "frame " << i + 1;
        EXPECT_EQ(frames[i].at("_ws.malformed"), "") << "frame " << i + 1;
        EXPECT_EQ(frames[i].at("_ws.expert.severity"), "") << "frame " << i + 1;
    }

    // (a) PFC: MAC Control, opcode 0x0101, enable vector bits 3 and 5, two timers.
    const Frame& pfc = frames[0];
    EXPECT_EQ(pfc.at("frame.protocols"), "eth:ethertype:macc");
    EXPECT_EQ(Num(pfc, "frame.len"), 60u);
    EXPECT_EQ(pfc.at("eth.dst"), "01:80:c2:00:00:01");
    EXPECT_EQ(Num(pfc, "eth.type"), 0x8808u);
    EXPECT_EQ(Num(pfc, "macc.opcode"), 0x0101u);
    EXPECT_EQ(Num(pfc, "macc.cbfc.enbv"), 0x0028u);
    EXPECT_EQ(Num(pfc, "macc.cbfc.pause_time.c0"), 0u);
    EXPECT_EQ(Num(pfc, "macc.cbfc.pause_time.c3"), 0xFFFFu);
    EXPECT_EQ(Num(pfc, "macc.cbfc.pause_time.c5"), 256u);

    // (b) RDMA WRITE FIRST: IPv4 with ECT(0) and a good checksum, UDP 4791, BTH + RETH.
    const Frame& write = frames[1];
    // UDP 4791 is dissected as InfiniBand (RRoCE) without any decode-as setting; the payload
    // after the RETH shows up as "data".
    EXPECT_PRED2(StartsWith, write.at("frame.protocols"), "eth:ethertype:ip:udp:infiniband");
    EXPECT_EQ(Num(write, "ip.len"), 20u + 8 + 12 + 16 + 1024 + 4);
    EXPECT_EQ(Num(write, "ip.dsfield.dscp"), 26u);
    EXPECT_EQ(Num(write, "ip.dsfield.ecn"), 2u);     // ECT(0)
    EXPECT_EQ(Num(write, "ip.checksum.status"), 1u); // "Good"
    EXPECT_EQ(Num(write, "udp.srcport"), 49321u);
    EXPECT_EQ(Num(write, "udp.dstport"), 4791u);
    EXPECT_EQ(Num(write, "udp.length"), 8u + 12 + 16 + 1024 + 4);
    EXPECT_EQ(write.at("infiniband.bth"), "0600ffff00abcdef80fffffe");
    EXPECT_EQ(Num(write, "infiniband.bth.opcode"), RoceOpcode::RDMA_WRITE_FIRST);
    EXPECT_EQ(Num(write, "infiniband.bth.p_key"), 0xFFFFu);
    EXPECT_EQ(Num(write, "infiniband.bth.destqp"), 0xABCDEFu);
    EXPECT_EQ(Num(write, "infiniband.bth.psn"), 0xFFFFFEu);
    EXPECT_EQ(Num(write, "infiniband.bth.a"), 1u);
    EXPECT_EQ(Num(write, "infiniband.reth.va"), 0x00007F0012345000u);
    EXPECT_EQ(Num(write, "infiniband.reth.r_key"), 0x00C0FFEEu);
    EXPECT_EQ(Num(write, "infiniband.reth.dmalen"), 4096u);

    // (c) ACK and NAK: AETH syndrome, its decoded kind and value, MSN.
    const Frame& ack = frames[2];
    EXPECT_EQ(Num(ack, "infiniband.bth.opcode"), RoceOpcode::ACKNOWLEDGE);
    EXPECT_EQ(Num(ack, "infiniband.bth.psn"), 0xFFFFFEu);
    EXPECT_EQ(Num(ack, "infiniband.aeth.syndrome"), 0x1Fu);
    EXPECT_EQ(Num(ack, "infiniband.aeth.syndrome.opcode"), 0u); // ACK
    EXPECT_EQ(Num(ack, "infiniband.aeth.syndrome.credit_count"), 0x1Fu);
    EXPECT_EQ(Num(ack, "infiniband.aeth.msn"), 7u);
    const Frame& nak = frames[3];
    EXPECT_EQ(Num(nak, "infiniband.bth.psn"), 0xFFFFFFu);
    EXPECT_EQ(Num(nak, "infiniband.aeth.syndrome"), 0x60u);
    EXPECT_EQ(Num(nak, "infiniband.aeth.syndrome.opcode"), 3u);     // NAK
    EXPECT_EQ(Num(nak, "infiniband.aeth.syndrome.error_code"), 0u); // PSN sequence error

    // (d) CNP: opcode 0x81 with BECN to the congested flow's QP, not ECN-capable itself.
    // Wireshark 4.0 (Debian 12) predates its CNP support: it prints "Unknown OpCode", has no
    // FECN/BECN fields and shows the padding and ICRC as vendor data, so BECN is checked in
    // the raw BTH bytes and the ICRC here (the CRC itself is tested in icrc-trailer-test.cc).
    const Frame& cnp = frames[4];
    EXPECT_PRED2(StartsWith, cnp.at("frame.protocols"), "eth:ethertype:ip:udp:infiniband");
    EXPECT_EQ(Num(cnp, "frame.len"), 14u + 20 + 8 + 12 + 16 + 4);
    EXPECT_EQ(Num(cnp, "ip.len"), 20u + 8 + 12 + 16 + 4);
    EXPECT_EQ(Num(cnp, "udp.length"), 8u + 12 + 16 + 4);
    EXPECT_EQ(cnp.at("infiniband.bth"), "8100ffff4000012300000000");
    EXPECT_EQ(Num(cnp, "infiniband.bth.opcode"), RoceOpcode::CNP);
    EXPECT_EQ(Num(cnp, "infiniband.bth.destqp"), 0x123u);
    EXPECT_EQ(Num(cnp, "ip.dsfield.dscp"), 48u);
    EXPECT_EQ(Num(cnp, "ip.dsfield.ecn"), 0u);

    // The ICRC Wireshark shows is the trailer's four bytes read big-endian.
    for (size_t i = 1; i < 4; ++i)
    {
        Ptr<Packet> copy = written[i]->Copy();
        IcrcTrailer icrc;
        copy->RemoveTrailer(icrc);
        uint32_t v = icrc.GetIcrc();
        uint32_t shown = (v & 0xFF) << 24 | (v & 0xFF00) << 8 | (v >> 8 & 0xFF00) | v >> 24;
        EXPECT_EQ(Num(frames[i], "infiniband.invariant.crc"), shown) << "frame " << i + 1;
    }
}

TEST_F(WireTshark, WiresharkDecodesCreditFrames)
{
    // An UPDATE returning 17 credits on lane 3 and 2 on lane 5, and a SYNC of lane 3 with a
    // cumulative count above 2^24 (to see the byte order).
    CreditUpdateHeader update;
    update.SetCount(3, 17);
    update.SetCount(5, 2);
    CreditUpdateHeader sync;
    sync.SetKind(CreditUpdateHeader::SYNC);
    sync.SetCount(3, 0x01020304);
    std::vector<Ptr<Packet>> written = {MakeCreditFrame(update), MakeCreditFrame(sync)};
    ASSERT_NO_FATAL_FAILURE(WritePcap(m_pcap, written));
    std::vector<Frame> frames = Decode(m_pcap);
    ASSERT_EQ(frames.size(), 2u);
    // The layout of credit-update-header.h, written out by hand: kind, lane mask, two reserved
    // bytes, eight big-endian 32-bit counts, ten bytes of padding.
    const std::string pad(20, '0');
    const std::string zero = "00000000";
    const std::string updateBytes = "01"
                                    "28"
                                    "0000" +
                                    zero + zero + zero + "00000011" + zero + "00000002" + zero +
                                    zero + pad;
    const std::string syncBytes = "02"
                                  "08"
                                  "0000" +
                                  zero + zero + zero + "01020304" + zero + zero + zero + zero + pad;
    const std::string expected[] = {updateBytes, syncBytes};
    for (size_t i = 0; i < frames.size(); ++i)
    {
        const Frame& f = frames[i];
        EXPECT_EQ(f.at("frame.protocols"), "eth:ethertype:data") << "frame " << i + 1;
        EXPECT_EQ(Num(f, "frame.len"), 60u);
        EXPECT_EQ(f.at("eth.dst"), "01:80:c2:00:00:0e");
        EXPECT_EQ(Num(f, "eth.type"), 0x88B5u);
        EXPECT_EQ(Num(f, "data.len"), 46u);
        EXPECT_EQ(f.at("data.data"), expected[i]) << "frame " << i + 1;
        EXPECT_EQ(f.at("_ws.malformed"), "");
    }
    // And back: what was written reads back the same.
    Ptr<Packet> copy = written[0]->Copy();
    EthernetHeader eth(false);
    copy->RemoveHeader(eth);
    CreditUpdateHeader back;
    copy->RemoveHeader(back);
    EXPECT_EQ(back.GetKind(), CreditUpdateHeader::UPDATE);
    EXPECT_EQ(back.GetLaneMask(), 0x28);
    EXPECT_EQ(back.GetCount(3), 17u);
    EXPECT_EQ(back.GetCount(5), 2u);
}

TEST_F(WireTshark, WiresharkDecodesFramesWithInt)
{
    std::vector<Ptr<Packet>> written = {MakeIntWriteFirstFrame(), MakeIntAckFrame()};
    ASSERT_NO_FATAL_FAILURE(WritePcap(m_pcap, written));
    std::vector<Frame> frames = Decode(m_pcap);
    ASSERT_EQ(frames.size(), written.size());
    for (size_t i = 0; i < frames.size(); ++i)
    {
        EXPECT_EQ(Num(frames[i], "frame.len"), written[i]->GetSize()) << "frame " << i + 1;
        EXPECT_EQ(frames[i].at("_ws.malformed"), "") << "frame " << i + 1;
        EXPECT_EQ(frames[i].at("_ws.expert.severity"), "") << "frame " << i + 1;
    }
    // The WRITE: BTH (byte 4 = 0x20, the INT bit, shown only in the raw BTH: Wireshark 4.0
    // names no field there) and RETH decode as without INT; the 44 bytes of the stack lead the
    // payload Wireshark shows as data.
    const Frame& write = frames[0];
    EXPECT_PRED2(StartsWith, write.at("frame.protocols"), "eth:ethertype:ip:udp:infiniband");
    EXPECT_EQ(Num(write, "udp.length"), 8u + 12 + 16 + 44 + 1024 + 4);
    EXPECT_EQ(write.at("infiniband.bth"), "0600ffff20abcdef80fffffe");
    EXPECT_EQ(Num(write, "infiniband.bth.opcode"), RoceOpcode::RDMA_WRITE_FIRST);
    EXPECT_EQ(Num(write, "infiniband.bth.destqp"), 0xABCDEFu);
    EXPECT_EQ(Num(write, "infiniband.bth.psn"), 0xFFFFFEu);
    EXPECT_EQ(Num(write, "infiniband.reth.va"), 0x00007F0012345000u);
    EXPECT_EQ(Num(write, "infiniband.reth.r_key"), 0x00C0FFEEu);
    EXPECT_EQ(Num(write, "infiniband.reth.dmalen"), 4096u);
    EXPECT_EQ(Num(write, "data.len"), 44u + 1024);
    EXPECT_PRED2(StartsWith,
                 write.at("data.data"),
                 "10050200"
                 "8000001000020003"
                 "8000004000050006"
                 "0000000000000000");
    // The ACK: its AETH decodes; the echoed stack follows it.
    const Frame& ack = frames[1];
    EXPECT_EQ(Num(ack, "frame.len"), 14u + 20 + 8 + 12 + 4 + 44 + 4);
    EXPECT_EQ(ack.at("infiniband.bth"), "1100ffff2000012300fffffe");
    EXPECT_EQ(Num(ack, "infiniband.aeth.syndrome.opcode"), 0u); // ACK
    EXPECT_EQ(Num(ack, "infiniband.aeth.msn"), 7u);
}

} // namespace
} // namespace ns3
