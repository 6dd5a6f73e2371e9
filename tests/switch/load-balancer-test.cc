// A toy load-balancing strategy, written as docs/architecture.md ("Adding a load-balancing
// strategy") says: per packet, the least-loaded port of the group by queue depth (the switch's
// port state), ties broken by the fewest frames it has sent there (its own table). One
// line-rate flow never builds a queue at its leaf, so the ties spread its frames round-robin:
// each of the four uplinks carries exactly a quarter of them, where ECMP keeps them on one.

#include "../fabric-sim-util.h"
#include "switch/switch-stages.h"

namespace ns3
{

/// The toy strategy of the test: least queued bytes, then fewest frames sent.
class ToyLeastLoadedBalancer : public SwitchLoadBalancer
{
  public:
    static TypeId GetTypeId()
    {
        static TypeId tid = TypeId("ns3::ToyLeastLoadedBalancer")
                                .SetParent<SwitchLoadBalancer>()
                                .SetGroupName("Fabric")
                                .AddConstructor<ToyLeastLoadedBalancer>();
        return tid;
    }

    void Install(const FabricSwitch& sw) override
    {
        m_switch = &sw;
        m_sent.assign(sw.GetNPorts(), 0);
    }

    uint16_t SelectPort(const FrameInfo& info, const std::vector<uint16_t>& group) override
    {
        uint16_t best = group[0];
        for (uint16_t port : group)
        {
            uint64_t q = m_switch->GetPort(port)->GetTotalQueueBytes();
            uint64_t bestQ = m_switch->GetPort(best)->GetTotalQueueBytes();
            if (q < bestQ || (q == bestQ && m_sent[port] < m_sent[best]))
            {
                best = port;
            }
        }
        ++m_sent[best];
        ++m_calls;
        return best;
    }

    uint64_t m_calls = 0;

  private:
    const FabricSwitch* m_switch = nullptr;
    std::vector<uint64_t> m_sent; ///< frames sent by port
};

NS_OBJECT_ENSURE_REGISTERED(ToyLeastLoadedBalancer);

namespace test
{
namespace
{

class LoadBalancers : public SimTest
{
  protected:
    /// Frames host 0's leaf sent on each of its uplinks for one 64-frame flow to another leaf.
    std::vector<uint64_t> UplinkFrames(FabricNetwork& net)
    {
        uint32_t dst = net.GetNHosts() - 1; // on the last leaf
        uint32_t mtu = net.GetHost(0)->GetPayloadMtu();
        AddFlow(net, 0, dst, 64 * uint64_t(mtu));
        Simulator::Run();
        EXPECT_TRUE(net.GetFlowTable()->Get(0).finished);
        uint32_t leaf = net.PeerOf(net.NodeOfHost(0), 0).node;
        std::vector<uint64_t> frames;
        for (uint32_t port = 0; port < net.GetNPorts(leaf); ++port)
        {
            if (net.Spec().nodes[net.PeerOf(leaf, port).node].isSwitch)
            {
                frames.push_back(net.GetDevice(leaf, port)->GetTxFrames());
            }
        }
        return frames;
    }

    static Clos2Params Fabric()
    {
        Clos2Params p;
        p.k = 8; // 4 hosts and 4 uplinks per leaf
        return p;
    }
};

TEST_F(LoadBalancers, ToyStrategySelectedByAttributeSpreadsAFlowOverEveryUplink)
{
    Set("ns3::FabricSwitch::LoadBalancer", "ns3::ToyLeastLoadedBalancer");
    FabricNetwork net = FabricNetwork::Build(MakeClos2(Fabric()), 0, 0);
    std::vector<uint64_t> frames = UplinkFrames(net);
    ASSERT_EQ(frames.size(), 4u);
    for (uint64_t f : frames)
    {
        EXPECT_EQ(f, 16u);
    }
    uint32_t leaf = net.PeerOf(net.NodeOfHost(0), 0).node;
    Ptr<ToyLeastLoadedBalancer> lb =
        DynamicCast<ToyLeastLoadedBalancer>(net.GetSwitch(leaf)->GetLoadBalancer());
    ASSERT_TRUE(lb);
    // Asked once per frame at the source leaf (its group toward the other leaf has 4 ports);
    // spines and the last leaf have one port toward the host and are not asked.
    EXPECT_EQ(lb->m_calls, 64u);
}

TEST_F(LoadBalancers, DefaultEcmpKeepsTheFlowOnOneUplink)
{
    FabricNetwork net = FabricNetwork::Build(MakeClos2(Fabric()), 0, 0);
    std::vector<uint64_t> frames = UplinkFrames(net);
    std::sort(frames.begin(), frames.end());
    EXPECT_EQ(frames, (std::vector<uint64_t>{0, 0, 0, 64}));
}

} // namespace
} // namespace test
} // namespace ns3
