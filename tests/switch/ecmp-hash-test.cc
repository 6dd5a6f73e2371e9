// ECMP: a flow keeps its path; flows spread uniformly over the equal-cost ports; switches with
// different salts choose independently (no polarization across tiers).

#include "../fabric-sim-util.h"
#include "switch/fabric-switch.h"
#include "wire/bth-header.h"

#include "ns3/uinteger.h"

#include <boost/math/distributions/chi_squared.hpp>
#include <random>

namespace ns3
{
namespace test
{
namespace
{

FrameInfo
Tuple(uint32_t srcHost, uint32_t dstHost, uint16_t srcPort)
{
    FrameInfo f;
    f.etherType = 0x0800;
    f.protocol = 17;
    f.srcIp = HostIpv4(srcHost).Get();
    f.dstIp = HostIpv4(dstHost).Get();
    f.srcPort = srcPort;
    f.dstPort = kRoceV2UdpPort;
    return f;
}

Ptr<FabricSwitch>
SwitchWithGroup(uint32_t ports, uint32_t salt, uint32_t hosts)
{
    Ptr<FabricSwitch> sw = CreateObject<FabricSwitch>();
    sw->SetAttribute("HashSalt", UintegerValue(salt));
    std::vector<uint16_t> group;
    for (uint16_t p = 0; p < ports; ++p)
    {
        group.push_back(p);
    }
    sw->SetRoutes(std::vector<uint32_t>(hosts, 0), {group});
    return sw;
}

double
ChiSquareCritical(double dof, double alpha = 1e-3)
{
    return boost::math::quantile(boost::math::complement(boost::math::chi_squared(dof), alpha));
}

TEST(EcmpHash, SameFlowSamePort)
{
    Ptr<FabricSwitch> sw = SwitchWithGroup(16, 7, 64);
    FrameInfo f = Tuple(3, 40, 50000);
    uint32_t port = sw->SelectEgressPort(f);
    for (int i = 0; i < 100; ++i)
    {
        f.sequence = i; // per-packet fields do not matter
        f.frameBytes = 100 + i;
        EXPECT_EQ(sw->SelectEgressPort(f), port);
    }
    f.srcPort = 50001; // a different entropy value is a different path choice
    bool moved = false;
    for (uint16_t sp = 50001; sp < 50050 && !moved; ++sp)
    {
        f.srcPort = sp;
        moved = sw->SelectEgressPort(f) != port;
    }
    EXPECT_TRUE(moved);
}

TEST(EcmpHash, UniformOverUplinksChiSquare)
{
    // Structured inputs, as a real incast or permutation produces: consecutive hosts and
    // consecutive UDP source ports.
    for (uint32_t m : {2u, 8u, 16u, 32u})
    {
        Ptr<FabricSwitch> sw = SwitchWithGroup(m, 12345, 1024);
        std::vector<double> counts(m, 0);
        const uint32_t flows = 400 * m;
        for (uint32_t i = 0; i < flows; ++i)
        {
            counts[sw->SelectEgressPort(Tuple(i % 1024, (i * 7 + 1) % 1024, 49152 + i % 16384))]++;
        }
        double expected = double(flows) / m;
        double chi2 = 0;
        for (double c : counts)
        {
            chi2 += (c - expected) * (c - expected) / expected;
        }
        EXPECT_LT(chi2, ChiSquareCritical(m - 1)) << m << " uplinks";
    }
}

TEST(EcmpHash, DifferentSaltsDecorrelate)
{
    // Two tiers choosing among 8 ports each: with independent hashes, every (first, second)
    // pair is equally likely. Same salt would put all mass on the diagonal.
    const uint32_t m = 8;
    Ptr<FabricSwitch> a = SwitchWithGroup(m, 1, 4096);
    Ptr<FabricSwitch> b = SwitchWithGroup(m, 2, 4096);
    std::vector<double> table(m * m, 0);
    const uint32_t flows = 64 * 200;
    std::mt19937 rng(5);
    for (uint32_t i = 0; i < flows; ++i)
    {
        FrameInfo f = Tuple(rng() % 4096, rng() % 4096, 49152 + rng() % 16384);
        table[a->SelectEgressPort(f) * m + b->SelectEgressPort(f)]++;
    }
    double expected = double(flows) / (m * m);
    double chi2 = 0;
    for (double c : table)
    {
        chi2 += (c - expected) * (c - expected) / expected;
    }
    EXPECT_LT(chi2, ChiSquareCritical(m * m - 1));
}

class EcmpInFabric : public SimTest
{
};

TEST_F(EcmpInFabric, FlowUsesExactlyOneUplinkOfItsLeaf)
{
    Clos2Params p;
    p.k = 8; // 4 hosts and 4 uplinks per leaf
    FabricNetwork net = FabricNetwork::Build(MakeClos2(p), 0, 0);
    uint32_t dst = net.GetNHosts() - 1; // on another leaf
    AddFlow(net, 0, dst, 1 << 20);
    Simulator::Run();
    EXPECT_TRUE(net.GetFlowTable()->Get(0).finished);
    uint32_t leaf = net.PeerOf(net.NodeOfHost(0), 0).node;
    int used = 0;
    for (uint32_t port = 0; port < net.GetNPorts(leaf); ++port)
    {
        PortRef peer = net.PeerOf(leaf, port);
        if (net.Spec().nodes[peer.node].isSwitch && net.GetDevice(leaf, port)->GetTxFrames() > 0)
        {
            ++used;
        }
    }
    EXPECT_EQ(used, 1);
}

} // namespace
} // namespace test
} // namespace ns3
