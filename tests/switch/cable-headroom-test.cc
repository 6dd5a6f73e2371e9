// The HPCC-family simulators' switch buffer: PFC headroom of 3 x rate x cable delay per port,
// inside the buffer (HPCC) or on top of it (ns3-datacenter), and ECN curves per link speed.

#include "../fabric-sim-util.h"
#include "switch/ecn-marker.h"
#include "switch/shared-buffer-mmu.h"

#include "ns3/boolean.h"
#include "ns3/queue-size.h"
#include "ns3/string.h"
#include "ns3/uinteger.h"

namespace ns3
{
namespace test
{
namespace
{

/// Three ports as on the PowerTCP burst topology's switches (inet-tub/ns3-datacenter
/// examples/PowerTCP/topology-256.txt): a 25 Gb/s host cable of 1 us, a 100 Gb/s uplink of 1 us
/// and one of 5 us.
Ptr<SharedBufferMmu>
MakeMmu(bool outside)
{
    Ptr<SharedBufferMmu> m = CreateObject<SharedBufferMmu>();
    m->SetAttribute("BufferSize", QueueSizeValue(QueueSize("1048576B")));
    m->SetAttribute("HeadroomDelayMultiple", UintegerValue(3));
    m->SetAttribute("HeadroomOutsideBuffer", BooleanValue(outside));
    m->SetAttribute("XoffThreshold", QueueSizeValue(QueueSize("1000B")));
    m->SetAttribute("LosslessPriorities", UintegerValue(0x08));
    m->SetPortCables({{DataRate("25Gbps"), MicroSeconds(1)},
                      {DataRate("100Gbps"), MicroSeconds(1)},
                      {DataRate("100Gbps"), MicroSeconds(5)}});
    m->Configure(3);
    return m;
}

TEST(CableHeadroom, EachPortReservesThreeTimesItsRateTimesItsDelay)
{
    // rate x delay / 8 x 3 (powertcp-evaluation-burst.cc:941-944; third.cc:622-623):
    // 25e9 x 1e-6 / 8 x 3 = 9375 B, 100e9 x 1e-6 / 8 x 3 = 37500 B, x 5 us: 187500 B.
    Ptr<SharedBufferMmu> m = MakeMmu(false);
    EXPECT_EQ(m->GetPortHeadroom(0), 9375u);
    EXPECT_EQ(m->GetPortHeadroom(1), 37500u);
    EXPECT_EQ(m->GetPortHeadroom(2), 187500u);
    // HPCC: the headroom comes out of the buffer.
    EXPECT_EQ(m->GetBufferSize(), 1048576u);
    EXPECT_EQ(m->GetSharedPoolSize(), 1048576u - 9375u - 37500u - 187500u);
}

TEST(CableHeadroom, OutsideTheBufferThePoolIsTheWholeBuffer)
{
    // ns3-datacenter: buffer pool = BUFFER_SIZE + total headroom, ingress pool = BUFFER_SIZE
    // (powertcp-evaluation-burst.cc:947-949).
    Ptr<SharedBufferMmu> m = MakeMmu(true);
    EXPECT_EQ(m->GetSharedPoolSize(), 1048576u);
    EXPECT_EQ(m->GetBufferSize(), 1048576u + 9375u + 37500u + 187500u);
}

TEST(CableHeadroom, AFrameBeyondItsOwnPortsHeadroomIsDropped)
{
    // XOFF at the first 1000 B frame; after it every frame lands in headroom: port 0 holds
    // 9 frames (9000 <= 9375 B) and drops the 10th; port 1 holds 37 (37000 <= 37500 B).
    Ptr<SharedBufferMmu> m = MakeMmu(false);
    bool xoff = false;
    for (uint32_t port : {0u, 1u})
    {
        ASSERT_EQ(m->Admit(port, 3, 1000, &xoff), SharedBufferMmu::ADMIT);
        EXPECT_TRUE(xoff);
    }
    for (int i = 0; i < 9; ++i)
    {
        ASSERT_EQ(m->Admit(0, 3, 1000, &xoff), SharedBufferMmu::ADMIT) << i;
    }
    EXPECT_EQ(m->Admit(0, 3, 1000, &xoff), SharedBufferMmu::DROP_HEADROOM);
    for (int i = 0; i < 37; ++i)
    {
        ASSERT_EQ(m->Admit(1, 3, 1000, &xoff), SharedBufferMmu::ADMIT) << i;
    }
    EXPECT_EQ(m->Admit(1, 3, 1000, &xoff), SharedBufferMmu::DROP_HEADROOM);
}

TEST(CableHeadroom, OffEveryPortReservesTheHeadroomAttribute)
{
    Ptr<SharedBufferMmu> m = CreateObject<SharedBufferMmu>();
    m->SetAttribute("BufferSize", QueueSizeValue(QueueSize("100000B")));
    m->SetAttribute("Headroom", QueueSizeValue(QueueSize("3000B")));
    m->Configure(4);
    for (uint32_t p = 0; p < 4; ++p)
    {
        EXPECT_EQ(m->GetPortHeadroom(p), 3000u);
    }
    EXPECT_EQ(m->GetSharedPoolSize(), 100000u - 4 * 3000u);
}

class EcnSpeedMap : public SimTest
{
};

TEST_F(EcnSpeedMap, PortsOfAListedSpeedTakeItsCurve)
{
    // KMIN_MAP / KMAX_MAP / PMAX_MAP as the HPCC simulators give them per link speed.
    Config::SetDefault("ns3::FabricSwitch::EcnSpeedMap",
                       StringValue("25000000000bps:50000B:150000B:0.5,"
                                   "100000000000bps:200000B:800000B:0.1"));
    FabricNetwork net =
        FabricNetwork::Build(MakeStar(2, DataRate("25Gbps"), NanoSeconds(150)), 0, 0);
    EcnCurve c = net.GetSwitch(net.Spec().Find("sw0").value())->GetEcnCurve(0);
    EXPECT_EQ(c.kmin, 50000u);
    EXPECT_EQ(c.kmax, 150000u);
    EXPECT_DOUBLE_EQ(c.pmax, 0.5);
}

TEST_F(EcnSpeedMap, PortsOfAnotherSpeedKeepTheSwitchCurve)
{
    Config::SetDefault("ns3::FabricSwitch::EcnSpeedMap",
                       StringValue("100000000000bps:200000B:800000B:0.1"));
    FabricNetwork net =
        FabricNetwork::Build(MakeStar(2, DataRate("25Gbps"), NanoSeconds(150)), 0, 0);
    EcnCurve c = net.GetSwitch(net.Spec().Find("sw0").value())->GetEcnCurve(0);
    // The per-speed default: 100 KB / 400 KB per 25 Gb/s, Pmax 0.2.
    EXPECT_EQ(c.kmin, 100000u);
    EXPECT_EQ(c.kmax, 400000u);
    EXPECT_DOUBLE_EQ(c.pmax, 0.2);
}

} // namespace
} // namespace test
} // namespace ns3
