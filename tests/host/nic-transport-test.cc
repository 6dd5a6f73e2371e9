// The attributes RdmaNic and UbNic share through NicTransport (Mtu, AckInterval,
// RequestInterval, MaxInflightRequests, CongestionControl) are declared once but stay two
// attributes each: a scenario sets ns3::RdmaNic::X and ns3::UbNic::X independently (with
// transport: ub it sets the UB congestion control and then ns3::RdmaNic::CongestionControl to
// ns3::NoCongestionControl, config-transport.cc), and each NIC keeps its own defaults.

#include "../fabric-sim-util.h"
#include "roce/rdma-nic.h"
#include "ub/ub-nic.h"

#include "ns3/type-id.h"
#include "ns3/uinteger.h"

namespace ns3
{
namespace test
{
namespace
{

std::string
Serialized(Ptr<Object> nic, const std::string& attribute)
{
    StringValue v;
    nic->GetAttribute(attribute, v);
    return v.Get();
}

class NicTransportAttributes : public SimTest
{
};

TEST_F(NicTransportAttributes, EachNicHasItsOwnDefaults)
{
    // docs/models.md#concurrency-limits: RoCE RC launches one message per 18.6 ns, UB one
    // request per 6.2 ns (a 322 MHz request pipeline).
    Ptr<RdmaNic> roce = CreateObject<RdmaNic>();
    Ptr<UbNic> ub = CreateObject<UbNic>();
    TimeValue interval;
    roce->GetAttribute("RequestInterval", interval);
    EXPECT_EQ(interval.Get(), PicoSeconds(18600));
    ub->GetAttribute("RequestInterval", interval);
    EXPECT_EQ(interval.Get(), PicoSeconds(6200));
    EXPECT_EQ(Serialized(roce, "CongestionControl"), "ns3::NoCongestionControl");
    EXPECT_EQ(Serialized(ub, "CongestionControl"), "ns3::CaqmCongestionControl");
    for (Ptr<NicTransport> nic : {Ptr<NicTransport>(roce), Ptr<NicTransport>(ub)})
    {
        EXPECT_EQ(nic->GetMtu(), 4096u);
        EXPECT_EQ(Serialized(nic, "AckInterval"), "1");
        EXPECT_EQ(Serialized(nic, "MaxInflightRequests"), "0");
    }
}

TEST_F(NicTransportAttributes, SettingOneNicLeavesTheOtherAlone)
{
    const std::vector<std::pair<std::string, std::string>> values = {
        {"Mtu", "1024"},
        {"AckInterval", "4"},
        {"RequestInterval", "+50000ps"},
        {"MaxInflightRequests", "3"},
        {"CongestionControl", "ns3::DcqcnCongestionControl"},
    };
    for (const auto& [name, value] : values)
    {
        Set("ns3::RdmaNic::" + name, value);
    }
    Ptr<RdmaNic> roce = CreateObject<RdmaNic>();
    Ptr<UbNic> ub = CreateObject<UbNic>();
    for (const auto& [name, value] : values)
    {
        EXPECT_EQ(Serialized(roce, name), value) << name;
    }
    EXPECT_EQ(Serialized(ub, "Mtu"), "4096");
    EXPECT_EQ(Serialized(ub, "AckInterval"), "1");
    EXPECT_EQ(Serialized(ub, "RequestInterval"), "+6200ps");
    EXPECT_EQ(Serialized(ub, "MaxInflightRequests"), "0");
    EXPECT_EQ(Serialized(ub, "CongestionControl"), "ns3::CaqmCongestionControl");

    // And the other way round: the UB value does not reach the RoCE NIC.
    Set("ns3::UbNic::Mtu", "2048");
    EXPECT_EQ(CreateObject<UbNic>()->GetMtu(), 2048u);
    EXPECT_EQ(CreateObject<RdmaNic>()->GetMtu(), 1024u);
}

TEST_F(NicTransportAttributes, SharedAttributesAreListedUnderEachNic)
{
    // fabric-run --print-attributes lists a TypeId's own attributes: both NICs show all five.
    for (const char* nic : {"ns3::RdmaNic", "ns3::UbNic"})
    {
        TypeId tid = TypeId::LookupByName(nic);
        std::set<std::string> own;
        for (size_t i = 0; i < tid.GetAttributeN(); ++i)
        {
            own.insert(tid.GetAttribute(i).name);
        }
        for (const char* name :
             {"Mtu", "AckInterval", "RequestInterval", "MaxInflightRequests", "CongestionControl"})
        {
            EXPECT_TRUE(own.count(name)) << nic << "::" << name;
        }
    }
}

TEST_F(NicTransportAttributes, CongestionControlOfTheOtherTransportIsAnError)
{
    Set("ns3::UbNic::CongestionControl", "ns3::DcqcnCongestionControl");
    FabricNetwork net =
        FabricNetwork::Build(MakeStar(2, DataRate("100Gbps"), NanoSeconds(100)), 0, 0);
    Ptr<UbNic> nic = CreateObject<UbNic>();
    nic->Install(net.GetHost(0));
    FlowRecord rec;
    rec.src = 0;
    rec.dst = 1;
    rec.bytes = 4096;
    rec.verb = RdmaVerb::WRITE;
    nic->StartFlowAt(net.GetFlowTable()->Add(rec));
    EXPECT_DEATH(Simulator::Run(),
                 "ns3::UbNic::CongestionControl: ns3::DcqcnCongestionControl is not a "
                 "ns3::UbCongestionControl");
}

} // namespace
} // namespace test
} // namespace ns3
