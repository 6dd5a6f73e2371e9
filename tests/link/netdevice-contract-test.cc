// FabricNetDevice as a plain ns-3 NetDevice: without a fabric owner, Send() puts an Ethernet
// frame on the cable and the peer hands what arrives to ns-3's receive callbacks (the ones
// Node::AddDevice installs); link changes reach every AddLinkChangeCallback.

#include "../fabric-sim-util.h"
#include "link/fabric-channel.h"
#include "link/fabric-net-device.h"

#include "ns3/node.h"

namespace ns3
{
namespace test
{
namespace
{

struct Received
{
    std::vector<Time> at;
    std::vector<uint32_t> bytes;
    std::vector<uint16_t> protocol;
    std::vector<Address> from;
    uint32_t promiscuous = 0;
    uint32_t otherHost = 0;
};

struct Wire
{
    Ptr<Node> na, nb;
    Ptr<FabricNetDevice> a, b;
};

Wire
MakeWire(Time delay)
{
    Wire w;
    w.na = CreateObject<Node>();
    w.nb = CreateObject<Node>();
    Ptr<FabricChannel> ch = CreateObject<FabricChannel>();
    ch->SetAttribute("Delay", TimeValue(delay));
    w.a = CreateObject<FabricNetDevice>();
    w.b = CreateObject<FabricNetDevice>();
    for (auto [node, dev] : {std::make_pair(w.na, w.a), std::make_pair(w.nb, w.b)})
    {
        dev->SetAttribute("DataRate", DataRateValue(DataRate("100Gbps")));
        dev->SetAddress(Mac48Address::Allocate());
        node->AddDevice(dev);
        dev->Attach(ch);
    }
    return w;
}

class NetDeviceContract : public SimTest
{
};

TEST_F(NetDeviceContract, SendReachesThePeersReceiveCallbackAfterSerializationAndDelay)
{
    Wire w = MakeWire(NanoSeconds(500));
    Received r;
    w.b->SetReceiveCallback(MakeBoundCallback(
        +[](Received* r, Ptr<NetDevice>, Ptr<const Packet> p, uint16_t proto, const Address& from) {
            r->at.push_back(Simulator::Now());
            r->bytes.push_back(p->GetSize());
            r->protocol.push_back(proto);
            r->from.push_back(from);
            return true;
        },
        &r));
    w.b->SetPromiscReceiveCallback(MakeBoundCallback(
        +[](Received* r,
            Ptr<NetDevice>,
            Ptr<const Packet>,
            uint16_t,
            const Address&,
            const Address&,
            NetDevice::PacketType type) {
            ++r->promiscuous;
            r->otherHost += type == NetDevice::PACKET_OTHERHOST;
            return true;
        },
        &r));
    Simulator::Schedule(MicroSeconds(1), [&w]() {
        w.a->Send(Create<Packet>(1000), w.b->GetAddress(), 0x0800);
        w.a->Send(Create<Packet>(200), Mac48Address("02:00:00:00:00:99"), 0x86DD);
    });
    Simulator::Run();
    // 1000 B + 14 B Ethernet header + 24 B preamble/FCS/IFG at 100 Gb/s: 83.04 ns, then 500 ns.
    ASSERT_EQ(r.at.size(), 1u) << "only the frame addressed to b goes up as PACKET_HOST";
    EXPECT_EQ(r.at[0], MicroSeconds(1) + PicoSeconds(83040) + NanoSeconds(500));
    EXPECT_EQ(r.bytes[0], 1000u) << "the Ethernet header is removed";
    EXPECT_EQ(r.protocol[0], 0x0800);
    EXPECT_EQ(Mac48Address::ConvertFrom(r.from[0]), Mac48Address::ConvertFrom(w.a->GetAddress()));
    EXPECT_EQ(r.promiscuous, 2u);
    EXPECT_EQ(r.otherHost, 1u);
}

TEST_F(NetDeviceContract, LinkChangeCallbacksRunOnEveryChangeAndOnlyThen)
{
    Wire w = MakeWire(NanoSeconds(10));
    uint32_t calls = 0;
    w.a->AddLinkChangeCallback(MakeBoundCallback(
        +[](uint32_t* n) { ++*n; },
        &calls));
    w.a->AddLinkChangeCallback(MakeBoundCallback(
        +[](uint32_t* n) { *n += 100; },
        &calls));
    EXPECT_TRUE(w.a->IsLinkUp());
    w.a->SetLinkUp(true); // no change
    EXPECT_EQ(calls, 0u);
    w.a->SetLinkUp(false);
    EXPECT_FALSE(w.a->IsLinkUp());
    EXPECT_EQ(calls, 101u);
    w.a->SetLinkUp(false); // no change
    w.a->SetLinkUp(true);
    EXPECT_EQ(calls, 202u);
}

} // namespace
} // namespace test
} // namespace ns3
