// Entropy hashing and packet spraying of Unified Bus frames.
//
// Switches hash a UB frame's entropy (UDP source port) and nothing else, so a sender picks its
// path by picking the entropy: UbObliviousSpray cycles entropies Port(base, 0..E-1), one per
// packet; UbFixedEntropy (ECMP) keeps Port(base, 0) = base. The per-uplink packet counts of a
// sprayed flow therefore follow from SelectEgressPort over the E entropies alone.

#include "switch/fabric-switch.h"
#include "ub-test-util.h"
#include "ub/ub-header-view.h"
#include "ub/ub-load-balancer.h"
#include "wire/roce-header-view.h"

#include "ns3/uinteger.h"

#include <map>

namespace ns3
{
namespace test
{
namespace
{

FrameInfo
UbInfo(uint32_t srcHost, uint32_t dstHost, uint16_t entropy)
{
    FrameInfo f;
    f.etherType = 0x0800;
    f.protocol = 17;
    f.srcIp = HostIpv4(srcHost).Get();
    f.dstIp = HostIpv4(dstHost).Get();
    f.srcPort = entropy;
    f.dstPort = kUbUdpPort;
    f.transport = kUbTransport;
    f.entropyOnlyHash = true;
    f.opcode = UbOpcode::DATA;
    f.connection = 17;
    f.sequence = 1234;
    return f;
}

TEST(UbEntropyHash, DependsOnlyOnSaltAndEntropy)
{
    const uint32_t salt = 0x5eed;
    FrameInfo base = UbInfo(3, 9, 50000);
    const uint32_t h = FabricFlowHash(base, salt);
    // Same inputs, same output.
    EXPECT_EQ(FabricFlowHash(base, salt), h);
    // Any other field: unchanged.
    for (uint32_t v = 0; v < 64; ++v)
    {
        FrameInfo f = base;
        f.srcIp = HostIpv4(v).Get();
        EXPECT_EQ(FabricFlowHash(f, salt), h) << "srcIp " << v;
        f = base;
        f.dstIp = HostIpv4(100 + v).Get();
        EXPECT_EQ(FabricFlowHash(f, salt), h) << "dstIp " << v;
        f = base;
        f.connection = v;
        f.sequence = v * 977;
        f.aux16 = static_cast<uint16_t>(v * 1031);
        f.aux32 = v * 7919;
        f.flags = static_cast<uint8_t>(v);
        f.priority = v % 8;
        f.ecn = v % 4;
        f.opcode = v % 2 ? UbOpcode::DATA : UbOpcode::ACK;
        f.frameBytes = 66 + v * 64;
        EXPECT_EQ(FabricFlowHash(f, salt), h) << "other fields " << v;
    }
    // Changing the entropy changes the hash for (nearly) every value: a 32-bit hash of 16384
    // entropies collides with the base one with probability ~16384 / 2^32.
    uint32_t differ = 0;
    for (uint32_t i = 1; i < 16384; ++i)
    {
        FrameInfo f = base;
        f.srcPort = UbLoadBalancer::Port(50000, i);
        differ += FabricFlowHash(f, salt) != h;
    }
    EXPECT_GE(differ, 16383u - 1);
    // The salt matters too.
    EXPECT_NE(FabricFlowHash(base, salt + 1), h);
}

TEST(UbEntropyHash, RoceFramesStillHashTheFiveTuple)
{
    // Contrast: without entropy-only hashing the source IP is part of the hash.
    FrameInfo base = UbInfo(3, 9, 50000);
    base.transport = kRoceTransport;
    base.entropyOnlyHash = false;
    base.dstPort = 4791;
    uint32_t h = FabricFlowHash(base, 1);
    uint32_t differ = 0;
    for (uint32_t v = 10; v < 74; ++v)
    {
        FrameInfo f = base;
        f.srcIp = HostIpv4(v).Get();
        differ += FabricFlowHash(f, 1) != h;
    }
    EXPECT_GE(differ, 63u);
}

TEST(UbEntropyHash, SwitchPicksTheSamePortForTheSameEntropyFromAnySource)
{
    Ptr<FabricSwitch> sw = CreateObject<FabricSwitch>();
    sw->SetAttribute("HashSalt", UintegerValue(77));
    std::vector<uint16_t> group = {0, 1, 2, 3, 4, 5, 6, 7};
    sw->SetRoutes(std::vector<uint32_t>(64, 0), {group});
    std::map<uint32_t, uint32_t> used;
    for (uint32_t i = 0; i < 256; ++i)
    {
        uint16_t e = UbLoadBalancer::Port(49152, i);
        uint32_t port = sw->SelectEgressPort(UbInfo(0, 40, e));
        for (uint32_t src = 1; src < 32; ++src)
        {
            EXPECT_EQ(sw->SelectEgressPort(UbInfo(src, 40, e)), port);
        }
        // Same port as the hash says.
        EXPECT_EQ(port, group[FabricFlowHash(UbInfo(0, 40, e), 77) % group.size()]);
        used[port]++;
    }
    // 256 entropies over 8 ports: every port gets some (P(a port gets none) = (7/8)^256 ~ 1e-15).
    EXPECT_EQ(used.size(), 8u);
}

TEST(UbEntropyHash, PortWrapsInTheDynamicRange)
{
    // Port(base, i) = 49152 + (base - 49152 + i) mod 16384.
    EXPECT_EQ(UbLoadBalancer::Port(49152, 0), 49152);
    EXPECT_EQ(UbLoadBalancer::Port(50000, 5), 50005);
    EXPECT_EQ(UbLoadBalancer::Port(65535, 1), 49152);
    EXPECT_EQ(UbLoadBalancer::Port(65530, 10), 49156);
    Ptr<UbObliviousSpray> spray = CreateObject<UbObliviousSpray>();
    spray->SetAttribute("Entropies", UintegerValue(3));
    spray->Start(65534);
    std::vector<uint16_t> seq;
    for (int i = 0; i < 7; ++i)
    {
        seq.push_back(spray->NextEntropy());
    }
    EXPECT_EQ(seq, (std::vector<uint16_t>{65534, 65535, 49152, 65534, 65535, 49152, 65534}));
}

// --- Spraying one flow over a leaf's uplinks ---------------------------------------------------

class UbSpray : public SimTest
{
  protected:
    static constexpr uint32_t kMtu = 4096;
    static constexpr uint64_t kBytes = 2 * 1024 * 1024; // 512 packets
    static constexpr uint32_t kSpines = 4;

    struct Result
    {
        std::map<uint32_t, uint64_t> txFrames;    ///< leaf0 uplink port -> frames sent
        std::map<uint32_t, uint64_t> expected;    ///< leaf0 uplink port -> packets predicted
        std::map<uint32_t, uint32_t> entropiesOn; ///< leaf0 uplink port -> entropies of E
        FlowRecord flow;
        uint64_t resent = 0;
    };

    /// h0 (leaf0) -> h1 (leaf1) over 4 spines, with \p policy and \p entropies.
    Result Run(const std::string& policy, uint32_t entropies)
    {
        Set("ns3::UbNic::Mtu", std::to_string(kMtu));
        Set("ns3::UbNic::CongestionControl", "ns3::UbFixedWindow");
        Set("ns3::UbNic::LoadBalancer", policy);
        Set("ns3::UbObliviousSpray::Entropies", std::to_string(entropies));
        Set("ns3::FabricSwitch::EcnEnabled", "false");
        Clos2Params p;
        p.k = 8;
        p.down = 1;
        p.up = kSpines;
        p.spines = kSpines;
        p.leaves = 2;
        FabricNetwork net = FabricNetwork::Build(MakeClos2(p), 3, 0);
        EXPECT_EQ(net.GetNHosts(), 2u);
        std::vector<Ptr<UbNic>> nics = InstallUb(net);
        uint32_t leaf0 = *net.Spec().Find("leaf0");
        Ptr<FabricSwitch> sw = net.GetSwitch(leaf0);
        const uint16_t base = 50001;
        uint32_t id = PostUb(net, nics, {0, 1, kBytes, Time(0), 0, UbOrder::NONE, {}, base});

        Result r;
        std::vector<uint32_t> uplinks;
        for (uint32_t port = 0; port < net.GetNPorts(leaf0); ++port)
        {
            if (net.Spec().nodes[net.PeerOf(leaf0, port).node].role == "spine")
            {
                uplinks.push_back(port);
                r.expected[port] = 0;
                r.entropiesOn[port] = 0;
            }
        }
        EXPECT_EQ(uplinks.size(), kSpines);
        // Prediction: packet j carries entropy index j mod E (oblivious) or 0 (ECMP).
        const uint32_t packets = kBytes / kMtu;
        bool spray = policy == "ns3::UbObliviousSpray";
        for (uint32_t i = 0; i < entropies; ++i)
        {
            r.entropiesOn[sw->SelectEgressPort(UbInfo(0, 1, UbLoadBalancer::Port(base, i)))]++;
        }
        for (uint32_t j = 0; j < packets; ++j)
        {
            uint16_t e = UbLoadBalancer::Port(base, spray ? j % entropies : 0);
            r.expected[sw->SelectEgressPort(UbInfo(0, 1, e))]++;
        }

        Simulator::Run();
        for (uint32_t port : uplinks)
        {
            // Only data frames leave leaf0 upwards: h1's ACKs come down through
            // leaf1->spine->leaf0.
            r.txFrames[port] = net.GetDevice(leaf0, port)->GetTxFrames();
            EXPECT_EQ(net.GetDevice(leaf0, port)->GetPfcFramesSent(), 0u);
        }
        r.flow = net.GetFlowTable()->Get(id);
        r.resent = nics[0]->GetResentPackets();
        EXPECT_TRUE(CheckConservation(net).Ok());
        return r;
    }
};

TEST_F(UbSpray, ObliviousSprayingFollowsTheEntropyHashOnEveryUplink)
{
    const uint32_t E = 16;
    Result r = Run("ns3::UbObliviousSpray", E);
    ASSERT_TRUE(r.flow.finished);
    EXPECT_EQ(r.resent, 0u);
    EXPECT_EQ(r.flow.deliveredBytes, kBytes);
    uint64_t total = 0;
    for (const auto& [port, n] : r.entropiesOn)
    {
        // Precondition of "spreads over all paths": every uplink owns some of the E entropies.
        ASSERT_GT(n, 0u) << "uplink " << port << " got none of the " << E << " entropies";
        // Share of uplink k = n_k / E of the 512 packets; the simulation may differ from the
        // exact per-packet prediction by at most one cycle of E packets (n_k of them here).
        double share = double(n) / E * (kBytes / kMtu);
        EXPECT_NEAR(double(r.txFrames[port]), share, double(n)) << "uplink " << port;
        EXPECT_EQ(r.txFrames[port], r.expected[port]) << "uplink " << port;
        total += r.txFrames[port];
    }
    EXPECT_EQ(total, kBytes / kMtu);
}

TEST_F(UbSpray, EcmpKeepsTheWholeFlowOnOneUplink)
{
    Result r = Run("ns3::UbFixedEntropy", 16);
    ASSERT_TRUE(r.flow.finished);
    uint32_t used = 0;
    for (const auto& [port, n] : r.txFrames)
    {
        EXPECT_EQ(n, r.expected[port]) << "uplink " << port;
        used += n > 0;
        if (n > 0)
        {
            EXPECT_EQ(n, kBytes / kMtu);
        }
    }
    EXPECT_EQ(used, 1u);
}

} // namespace
} // namespace test
} // namespace ns3
