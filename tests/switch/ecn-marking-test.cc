// ECN marking follows the RED curve: 0 below Kmin, linear to Pmax at Kmax, 1 above.

#include "../fabric-sim-util.h"
#include "switch/ecn-marker.h"
#include "wire/roce-frame-header.h"

#include <cmath>
#include <tuple>

namespace ns3
{
namespace test
{
namespace
{

TEST(EcnCurve, PiecewiseLinear)
{
    EcnCurve c{100, 300, 0.2};
    EXPECT_EQ(c.Probability(0), 0.0);
    EXPECT_EQ(c.Probability(100), 0.0);
    EXPECT_NEAR(c.Probability(200), 0.1, 1e-12);
    EXPECT_NEAR(c.Probability(300), 0.2, 1e-12);
    EXPECT_EQ(c.Probability(301), 1.0);
}

class EcnMarking : public SimTest
{
};

/// Without Kmin/Kmax the thresholds follow the HPCC simulator's per-speed maps
/// (alibaba-edu/High-Precision-Congestion-Control, simulation/run.py:96-98; switch-mmu.cc:112
/// reads them in KB of 1000 B): Kmin 100 KB and Kmax 400 KB per 25 Gb/s, Pmax 0.2.
TEST_F(EcnMarking, DefaultThresholdsAreHpccsPerSpeedMap)
{
    for (auto [rate, kmin, kmax] :
         {std::tuple<const char*, uint64_t, uint64_t>{"25Gbps", 100000, 400000},
          {"100Gbps", 400000, 1600000},
          {"400Gbps", 1600000, 6400000}})
    {
        Config::Reset();
        FabricNetwork net =
            FabricNetwork::Build(MakeStar(2, DataRate(rate), NanoSeconds(150)), 0, 0);
        Ptr<FabricSwitch> sw = net.GetSwitch(net.Spec().Find("sw0").value());
        EcnCurve c = sw->GetEcnCurve(0);
        EXPECT_EQ(c.kmin, kmin) << rate;
        EXPECT_EQ(c.kmax, kmax) << rate;
        EXPECT_DOUBLE_EQ(c.pmax, 0.2) << rate;
        Simulator::Destroy();
    }
}

/// One sender into a receiver that pauses its switch port (nothing drains), lossy and with an
/// effectively infinite buffer: frame k finds exactly k frames queued ahead of it, so the number
/// of marked frames is a sum of independent Bernoulli(p(k·F)) draws.
TEST_F(EcnMarking, MarkedFramesMatchCurveOverManyPackets)
{
    const uint32_t payload = 1024;
    const uint32_t frame = payload + kRoceFrameOverhead;
    const uint32_t frames = 3000;
    const uint64_t kmin = 200 * frame + 100; // avoid ties at frame boundaries
    const uint64_t kmax = 2600 * frame + 100;
    const double pmax = 0.5;
    Set("ns3::SharedBufferMmu::BufferSize", "4294967295B");
    Set("ns3::SharedBufferMmu::PfcEnabled", "false");
    Set("ns3::FabricSwitch::EcnKmin", std::to_string(kmin) + "B");
    Set("ns3::FabricSwitch::EcnKmax", std::to_string(kmax) + "B");
    Set("ns3::FabricSwitch::EcnPmax", std::to_string(pmax));
    Set("ns3::FabricHost::Mtu", std::to_string(payload));
    FabricNetwork net =
        FabricNetwork::Build(MakeStar(2, DataRate("400Gbps"), NanoSeconds(150)), 0, 0);
    AddFlow(net, 1, 0, uint64_t(frames) * payload);
    for (int i = 0; i < 3; ++i)
    {
        Simulator::Schedule(MicroSeconds(40 * i),
                            &FabricNetDevice::SendPause,
                            net.GetHost(0)->GetPort(0),
                            3,
                            uint16_t(0xFFFF));
    }
    Simulator::Stop(MicroSeconds(100));
    Simulator::Run();

    Ptr<FabricSwitch> sw = net.GetSwitch(net.Spec().Find("sw0").value());
    ASSERT_EQ(sw->GetMaxQueueBytes(0), uint64_t(frames) * frame);
    EcnCurve curve{kmin, kmax, pmax};
    double mean = 0;
    double var = 0;
    for (uint32_t k = 0; k < frames; ++k)
    {
        double p = curve.Probability(uint64_t(k) * frame);
        mean += p;
        var += p * (1 - p);
    }
    double marked = static_cast<double>(sw->GetEcnMarkedFrames());
    EXPECT_NEAR(marked, mean, 4 * std::sqrt(var))
        << "expected " << mean << " +- " << std::sqrt(var);
    // Frames beyond Kmax are always marked; with 3000 frames, 399 of them.
    EXPECT_GE(marked, frames - std::ceil(double(kmax) / frame));
}

TEST_F(EcnMarking, NotEcnCapableFramesAreNeverMarked)
{
    Set("ns3::SharedBufferMmu::PfcEnabled", "false");
    Set("ns3::SharedBufferMmu::BufferSize", "4294967295B");
    Set("ns3::FabricSwitch::EcnKmin", "1B");
    Set("ns3::FabricSwitch::EcnKmax", "2B");
    FabricNetwork net =
        FabricNetwork::Build(MakeStar(3, DataRate("400Gbps"), NanoSeconds(150)), 0, 0);
    uint32_t id = AddFlow(net, 1, 0, 1 << 20);
    net.GetFlowTable()->Get(id).ecnCapable = false;
    AddFlow(net, 2, 0, 1 << 20);
    Simulator::Run();
    const FlowTable& t = *net.GetFlowTable();
    EXPECT_EQ(t.Get(0).ecnMarkedFrames, 0u);
    EXPECT_GT(t.Get(1).ecnMarkedFrames, 0u);
}

} // namespace
} // namespace test
} // namespace ns3
