// LetFlow flowlet switching (model/switch/flowlet-load-balancer.h): a flow whose frames are
// further apart than the gap starts a new flowlet, with a fresh random port, at every frame; one
// whose frames are closer than the gap stays in one flowlet, on one port, however long it runs.

#include "../fabric-sim-util.h"
#include "switch/fabric-switch.h"
#include "switch/flowlet-load-balancer.h"
#include "wire/bth-header.h"

#include <set>

namespace ns3
{
namespace test
{
namespace
{

class FlowletSwitching : public SimTest
{
  protected:
    /// Ports host 0's leaf chooses for \p frames frames of one flow to the last host, one
    /// every \p spacing; the leaf has 4 uplinks toward that host.
    std::vector<uint32_t> PortsOfFrames(Time spacing, uint32_t frames)
    {
        Set("ns3::FabricSwitch::LoadBalancer", "ns3::FlowletLoadBalancer");
        Set("ns3::FlowletLoadBalancer::Gap", "50us");
        Clos2Params p;
        p.k = 8;
        m_net = FabricNetwork::Build(MakeClos2(p), 0, 0);
        m_leaf = m_net.GetSwitch(m_net.PeerOf(m_net.NodeOfHost(0), 0).node);
        FrameInfo f;
        f.etherType = 0x0800;
        f.protocol = 17;
        f.srcIp = HostIpv4(0).Get();
        f.dstIp = HostIpv4(m_net.GetNHosts() - 1).Get();
        f.srcPort = 50000;
        f.dstPort = kRoceV2UdpPort;
        std::vector<uint32_t> ports;
        for (uint32_t i = 0; i < frames; ++i)
        {
            Simulator::Schedule(spacing * i, [this, f, &ports] {
                ports.push_back(m_leaf->SelectEgressPort(f));
            });
        }
        Simulator::Run();
        return ports;
    }

    uint64_t Flowlets() const
    {
        return DynamicCast<FlowletLoadBalancer>(m_leaf->GetLoadBalancer())->GetFlowletCount();
    }

    FabricNetwork m_net;
    Ptr<FabricSwitch> m_leaf;
};

TEST_F(FlowletSwitching, GapsAboveTheThresholdStartNewFlowletsThatChangePath)
{
    // 51 us > 50 us: every frame starts a flowlet. With 4 uplinks drawn uniformly, 40 flowlets
    // all on the first one's port would have probability 4^-39: the path changes.
    std::vector<uint32_t> ports = PortsOfFrames(MicroSeconds(51), 40);
    EXPECT_EQ(Flowlets(), 40u);
    std::set<uint32_t> distinct(ports.begin(), ports.end());
    EXPECT_GT(distinct.size(), 1u);
    size_t changes = 0;
    for (size_t i = 1; i < ports.size(); ++i)
    {
        changes += ports[i] != ports[i - 1];
    }
    // Each new flowlet moves with probability 3/4: 39 x 3/4 = 29 expected; 15 is > 5 sigma below.
    EXPECT_GT(changes, 15u);
}

TEST_F(FlowletSwitching, GapsBelowTheThresholdKeepOneFlowletOnOnePath)
{
    // 49 us < 50 us: one flowlet for 400 frames (19.6 ms, far longer than the gap).
    std::vector<uint32_t> ports = PortsOfFrames(MicroSeconds(49), 400);
    EXPECT_EQ(Flowlets(), 1u);
    std::set<uint32_t> distinct(ports.begin(), ports.end());
    EXPECT_EQ(distinct.size(), 1u);
}

TEST_F(FlowletSwitching, AGapOfExactlyTheThresholdDoesNotSplit)
{
    // "exceeds the gap": 50 us apart is still the same flowlet.
    PortsOfFrames(MicroSeconds(50), 10);
    EXPECT_EQ(Flowlets(), 1u);
}

} // namespace
} // namespace test
} // namespace ns3
