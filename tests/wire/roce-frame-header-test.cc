// RoceFrameHeader writes, in one call, exactly the bytes ns-3's Ethernet, IPv4 (with checksum),
// UDP and our BTH headers write one by one.

#include "wire/bth-header.h"
#include "wire/roce-frame-header.h"

#include "ns3/ethernet-header.h"
#include "ns3/ipv4-header.h"
#include "ns3/packet.h"
#include "ns3/udp-header.h"

#include <gtest/gtest.h>
#include <vector>

namespace ns3
{
namespace
{

std::vector<uint8_t>
Bytes(Ptr<Packet> p)
{
    std::vector<uint8_t> b(p->GetSize());
    p->CopyData(b.data(), b.size());
    return b;
}

TEST(RoceFrameHeader, SameBytesAsTheFourHeaders)
{
    const Mac48Address src("02:00:00:00:00:01");
    const Mac48Address dst("02:00:00:00:00:02");
    for (uint8_t ecn : {0, 2, 3})
    {
        Ptr<Packet> reference = Create<Packet>(1000);
        BthHeader bth;
        bth.SetOpcode(RoceOpcode::RDMA_WRITE_MIDDLE);
        bth.SetDestQp(0xABCDEF);
        bth.SetPsn(0xFFFFFE);
        bth.SetAckRequest(true);
        reference->AddHeader(bth);
        UdpHeader udp;
        udp.SetSourcePort(51234);
        udp.SetDestinationPort(kRoceV2UdpPort);
        reference->AddHeader(udp);
        Ipv4Header ip;
        ip.SetSource(Ipv4Address("10.0.0.7"));
        ip.SetDestination(Ipv4Address("10.0.1.3"));
        ip.SetProtocol(17);
        ip.SetTtl(64);
        ip.SetPayloadSize(static_cast<uint16_t>(reference->GetSize()));
        ip.SetDscp(Ipv4Header::DSCP_CS3);
        ip.SetEcn(static_cast<Ipv4Header::EcnType>(ecn));
        ip.EnableChecksum();
        reference->AddHeader(ip);
        EthernetHeader eth(false);
        eth.SetSource(src);
        eth.SetDestination(dst);
        eth.SetLengthType(0x0800);
        reference->AddHeader(eth);

        Ptr<Packet> single = Create<Packet>(1000);
        RoceFrameHeader h;
        h.srcMac = src;
        h.dstMac = dst;
        h.srcIp = Ipv4Address("10.0.0.7").Get();
        h.dstIp = Ipv4Address("10.0.1.3").Get();
        h.tos = static_cast<uint8_t>((3 << 5) | ecn);
        h.srcPort = 51234;
        h.payloadBytes = 1000;
        h.opcode = RoceOpcode::RDMA_WRITE_MIDDLE;
        h.destQp = 0xABCDEF;
        h.psn = 0xFFFFFE;
        h.ackRequest = true;
        single->AddHeader(h);
        EXPECT_EQ(Bytes(single), Bytes(reference)) << "ecn " << unsigned(ecn);

        RoceFrameHeader back;
        single->RemoveHeader(back);
        EXPECT_EQ(back.psn, 0xFFFFFEu);
        EXPECT_EQ(back.destQp, 0xABCDEFu);
        EXPECT_EQ(back.payloadBytes, 1000);
        EXPECT_EQ(back.tos, h.tos);
    }
}

} // namespace
} // namespace ns3
