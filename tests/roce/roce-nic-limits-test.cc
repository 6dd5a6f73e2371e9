// The NIC's own limits: one CNP per QP per CnpInterval (DCQCN notification point), one message
// launch per RequestInterval, and at most MaxInflightRequests messages outstanding.

#include "../fabric-sim-util.h"

#include "roce/rdma-nic.h"

#include <cmath>

namespace ns3
{
namespace test
{
namespace
{

class RoceNicLimits : public SimTest
{
  protected:
    std::vector<Ptr<RdmaNic>> Install(FabricNetwork& net)
    {
        std::vector<Ptr<RdmaNic>> nics;
        for (uint32_t h = 0; h < net.GetNHosts(); ++h)
        {
            nics.push_back(CreateObject<RdmaNic>());
            nics.back()->Install(net.GetHost(h));
        }
        return nics;
    }
    uint32_t Post(FabricNetwork& net, std::vector<Ptr<RdmaNic>>& nics, uint32_t src, uint32_t dst,
                  uint64_t bytes)
    {
        FlowRecord r;
        r.src = src;
        r.dst = dst;
        r.bytes = bytes;
        r.priority = 3;
        r.entropy = static_cast<uint16_t>(49152 + net.GetFlowTable()->GetN());
        uint32_t id = net.GetFlowTable()->Add(r);
        nics[src]->StartFlowAt(id);
        return id;
    }
};

TEST_F(RoceNicLimits, AtMostOneCnpPerQpPerInterval)
{
    // Two line-rate senders (no congestion control) into one port keep a standing queue above
    // Kmax = 2 B, so every data frame is marked. The receiver may answer with one CNP per QP per
    // 50 us: over a flow whose marked frames span D, exactly floor(D / 50us) + 1 CNPs.
    Set("ns3::FabricSwitch::EcnKmin", "1B");
    Set("ns3::FabricSwitch::EcnKmax", "2B");
    Set("ns3::SharedBufferMmu::BufferSize", "64MiB");
    Set("ns3::SharedBufferMmu::XoffThreshold", "16MiB");
    Set("ns3::SharedBufferMmu::XonThreshold", "8MiB");
    FabricNetwork net = FabricNetwork::Build(MakeStar(3, DataRate("400Gbps"), NanoSeconds(150)), 0, 0);
    auto nics = Install(net);
    std::vector<Time> firstRx(2);
    uint32_t a = Post(net, nics, 1, 0, 16 << 20);
    uint32_t b = Post(net, nics, 2, 0, 16 << 20);
    Simulator::Run();
    for (uint32_t id : {a, b})
    {
        const FlowRecord& f = net.GetFlowTable()->Get(id);
        ASSERT_TRUE(f.finished);
        // Every frame but the very first ones (queue still below Kmax) is marked.
        EXPECT_GT(f.ecnMarkedFrames, (16u << 20) / 4096 - 4);
        double span = (f.lastRx - f.firstRx).GetSeconds();
        uint64_t expected = static_cast<uint64_t>(std::floor(span / 50e-6)) + 1;
        EXPECT_LE(f.cnpsReceived, expected);
        EXPECT_GE(f.cnpsReceived, expected - 1);
    }
}

TEST_F(RoceNicLimits, LaunchesAreSpacedByTheRequestInterval)
{
    Set("ns3::RdmaNic::RequestInterval", "18600ps");
    FabricNetwork net = FabricNetwork::Build(MakeStar(2, DataRate("400Gbps"), NanoSeconds(150)), 0, 0);
    auto nics = Install(net);
    for (int i = 0; i < 50; ++i)
    {
        Post(net, nics, 1, 0, 64);
    }
    Simulator::Run();
    for (uint32_t i = 0; i < 50; ++i)
    {
        EXPECT_EQ(net.GetFlowTable()->Get(i).launch, PicoSeconds(18600) * int64_t(i)) << i;
    }
}

TEST_F(RoceNicLimits, InflightSlotsBoundOutstandingMessages)
{
    // With 4 slots, message k (k >= 4) launches only when message k - 4 has been acknowledged.
    Set("ns3::RdmaNic::MaxInflightRequests", "4");
    Set("ns3::RdmaNic::RequestInterval", "0ps");
    FabricNetwork net = FabricNetwork::Build(MakeStar(2, DataRate("400Gbps"), NanoSeconds(150)), 0, 0);
    auto nics = Install(net);
    for (int i = 0; i < 16; ++i)
    {
        Post(net, nics, 1, 0, 4096);
    }
    Simulator::Run();
    const FlowTable& t = *net.GetFlowTable();
    for (uint32_t i = 0; i < 4; ++i)
    {
        EXPECT_EQ(t.Get(i).launch, Time(0));
    }
    for (uint32_t i = 4; i < 16; ++i)
    {
        ASSERT_TRUE(t.Get(i - 4).finished);
        EXPECT_EQ(t.Get(i).launch, t.Get(i - 4).finish) << i;
    }
}

} // namespace
} // namespace test
} // namespace ns3
