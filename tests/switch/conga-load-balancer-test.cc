// CONGA (model/switch/conga-load-balancer.h) on a fabric with two paths between two leaves, one
// of them loaded. Clos of 4-port switches: leaves A, B, C with two hosts each, spines S0 and S1.
// The cable C-S1 is down, so a line-rate flow from C to B crosses S0 and fills S0's port toward
// B: its DRE metric is 7 (X = C·τ, 8·X/(C·τ) = 8, capped). Host a0 then starts a short RoCE
// flow to b0 every 20 us (each a new flowlet: gaps of 18 us > the 5 us flowlet gap). Before
// anything is known, A's two uplinks tie at metric 0 (16 KiB per 20 us is 6.5 % of a port, 8 x
// 0.065 < 1) and a flowlet takes either. The first that takes S0 arrives at B with CE = 7; B
// feeds 7 back to A on its next frame toward A (the flow's ACKs), one round trip later, long
// before the next flowlet: from then on every flowlet takes S1, whose path metric stays below 7.
// So at most one flow's frames cross S0.

#include "../fabric-sim-util.h"
#include "roce/rdma-nic.h"
#include "switch/conga-load-balancer.h"
#include "switch/fabric-switch.h"

namespace ns3
{
namespace test
{
namespace
{

class Conga : public SimTest
{
  protected:
    struct Result
    {
        uint64_t framesViaLoaded = 0; ///< a0's leaf to S0
        uint64_t framesViaOther = 0;  ///< a0's leaf to S1
        uint32_t finished = 0;
    };

    Result Run(const std::string& balancer, uint32_t probes)
    {
        Set("ns3::FabricSwitch::LoadBalancer", balancer);
        Set("ns3::CongaLoadBalancer::FlowletGap", "5us");
        Set("ns3::FlowletLoadBalancer::Gap", "5us");
        Set("ns3::RdmaNic::Mtu", "4096");
        Set("ns3::RdmaNic::CongestionControl", "ns3::NoCongestionControl");
        Set("ns3::FabricSwitch::EcnEnabled", "false");
        Clos2Params p;
        p.k = 4;
        p.hostRate = p.fabricRate = DataRate("100Gbps");
        FabricNetwork net = FabricNetwork::Build(MakeClos2(p), 0, 0);
        // Hosts 0, 1 on leaf A; 2, 3 on B; 4, 5 on C.
        uint32_t leafA = net.PeerOf(net.NodeOfHost(0), 0).node;
        uint32_t leafC = net.PeerOf(net.NodeOfHost(4), 0).node;
        std::vector<uint32_t> spinesOfA; // in A's port order: S0, S1
        std::vector<uint32_t> uplinksOfA;
        for (uint32_t port = 0; port < net.GetNPorts(leafA); ++port)
        {
            uint32_t peer = net.PeerOf(leafA, port).node;
            if (net.Spec().nodes[peer].isSwitch)
            {
                spinesOfA.push_back(peer);
                uplinksOfA.push_back(port);
            }
        }
        EXPECT_EQ(spinesOfA.size(), 2u);
        for (uint32_t link = 0; link < net.Spec().links.size(); ++link)
        {
            auto [a, b] = net.LinkEnds(link);
            if ((a.node == leafC && b.node == spinesOfA[1]) ||
                (b.node == leafC && a.node == spinesOfA[1]))
            {
                net.SetLinkUp(link, false); // C reaches B through S0 only
            }
        }
        std::vector<Ptr<RdmaNic>> nics;
        for (uint32_t h = 0; h < net.GetNHosts(); ++h)
        {
            nics.push_back(CreateObject<RdmaNic>());
            nics.back()->Install(net.GetHost(h));
        }
        auto post = [&](uint32_t src, uint32_t dst, uint64_t bytes, Time start) {
            FlowRecord rec;
            rec.src = src;
            rec.dst = dst;
            rec.bytes = bytes;
            rec.start = start;
            rec.priority = 3;
            rec.entropy = 50000;
            nics[src]->StartFlowAt(net.GetFlowTable()->Add(rec));
        };
        post(4, 3, 8 * 1024 * 1024, Time(0)); // c0 -> b1: 671 us at line rate through S0
        for (uint32_t i = 0; i < probes; ++i)
        {
            post(0, 2, 16 * 1024, MicroSeconds(50 + 20 * i)); // a0 -> b0
        }
        Simulator::Stop(MilliSeconds(5));
        Simulator::Run();
        Result r;
        r.framesViaLoaded = net.GetDevice(leafA, uplinksOfA[0])->GetTxFrames();
        r.framesViaOther = net.GetDevice(leafA, uplinksOfA[1])->GetTxFrames();
        r.finished = net.GetFlowTable()->GetFinishedCount();
        return r;
    }
};

TEST_F(Conga, NewFlowletsLeaveThePathThatFeedbackSaysIsLoaded)
{
    const uint32_t probes = 20; // 4 frames each
    Result r = Run("ns3::CongaLoadBalancer", probes);
    EXPECT_EQ(r.finished, probes + 1);
    EXPECT_LE(r.framesViaLoaded, 4u)
        << "at most the flowlet that found the load; via S1: " << r.framesViaOther;
    EXPECT_GE(r.framesViaOther, (probes - 1) * 4u);
}

TEST_F(Conga, LetFlowWithoutFeedbackKeepsUsingTheLoadedPath)
{
    // The control: random flowlet placement sends about half of the 20 flows through S0
    // (Binomial(20, 1/2) >= 4 but for 0.13 %).
    Result r = Run("ns3::FlowletLoadBalancer", 20);
    EXPECT_GE(r.framesViaLoaded, 4u * 4);
}

} // namespace
} // namespace test
} // namespace ns3
