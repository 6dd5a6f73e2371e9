// The shared headroom pool (switch.pfc.headroom_pool, SharedBufferMmu::HeadroomPool): a 64-sender
// incast on a 1 MiB switch, which static per-port headroom cannot hold, is lossless with a pool
// sized by hand for the frames in flight after every port pauses at once; a smaller pool counts
// its drops as headroom violations, and one smaller than a single port's headroom is refused.
//
// Link: 400 Gb/s, 16 m of cable (d = 80 ns), 4096 B payload → F = 4154 B frames plus 24 B of
// preamble, FCS and gap: T_f = 4178·8/400e9 = 83.56 ns; a PFC frame T_p = 84·8/400e9 = 1.68 ns.
//
// Static headroom per (port, lossless priority), the one-hop bound (docs/models.md#pfc-headroom):
//   H_auto = ceil(50e9 B/s · (T_f + 2·T_p + 2d)) + 2F = ceil(50e9 · 246.92e-9) + 2 · 4154
//          = 12346 + 8308 = 20654 B,
// and the star's switch has 65 ports: 65 · 20654 = 1 342 510 B > 1 MiB (1 048 576 B): refused.
//
// The pool, by hand. A port pauses on the arrival of frame k (XOFF, or the shared pool full); the
// pause reaches the sender 2d + T_p = 161.68 ns after that frame left it, so the sender also
// starts the frames beginning within 161.68 / 83.56 = 1.93 frame times: two more. In headroom per
// port at most those two and the pausing frame itself (it lands there when the shared pool is
// full): 3 · 4154 = 12 462 B ≤ H_auto. With all 64 senders paused at once, nothing drained:
//   pool = 64 · 3 · 4154 = 797 568 B,
// leaving 1 048 576 − 797 568 = 251 008 B of shared pool. (Datacenter networks, chapter 7,
// §7.5.2 sizes the same aggregate as excess rate × one-hop feedback: 1.02 MB for N = 64 at 30 m
// and 1500 B frames; a 4096 B frame and 30 m would need 64 · 5 · 4154 = 1.33 MB, more than the
// buffer, which is why this test shortens the cable.)

#include "../fabric-sim-util.h"
#include "config/config-error.h"
#include "config/scenario-config.h"
#include "wire/roce-frame-header.h"

#include <cmath>
#include <stdexcept>

namespace ns3
{
namespace test
{
namespace
{

const DataRate kRate("400Gbps");
const Time kDelay = NanoSeconds(80); // 16 m at 5 ns/m
constexpr uint32_t kSenders = 64;
constexpr uint32_t kPayload = 4096;
constexpr uint32_t kFrame = kPayload + kRoceFrameOverhead; // 4154
constexpr uint32_t kOverhead = 24;
constexpr uint64_t kBuffer = 1 << 20;
constexpr uint64_t kHeadroomAuto = 20654;            // H_auto above
constexpr uint64_t kPool = kSenders * 3ULL * kFrame; // 797 568 B
constexpr uint64_t kBytesPerSender = 256 * 1024;

class HeadroomPool : public SimTest
{
  protected:
    /// 64 line-rate senders of 256 KiB each into host 0 through a 1 MiB switch with the given
    /// headroom pool (0: static per-port headroom); runs to the end.
    FabricNetwork RunIncast(uint64_t pool)
    {
        Set("ns3::SharedBufferMmu::BufferSize", std::to_string(kBuffer) + "B");
        Set("ns3::SharedBufferMmu::Headroom", std::to_string(kHeadroomAuto) + "B");
        Set("ns3::SharedBufferMmu::HeadroomPool", std::to_string(pool) + "B");
        Set("ns3::SharedBufferMmu::XoffThreshold", "48KiB");
        Set("ns3::SharedBufferMmu::XonThreshold", "24KiB");
        Set("ns3::FabricSwitch::EcnEnabled", "false");
        Set("ns3::FabricHost::Mtu", std::to_string(kPayload));
        FabricNetwork net = FabricNetwork::Build(MakeStar(kSenders + 1, kRate, kDelay), 0, 0);
        for (uint32_t s = 1; s <= kSenders; ++s)
        {
            AddFlow(net, s, 0, kBytesPerSender);
        }
        Simulator::Stop(MilliSeconds(10));
        Simulator::Run();
        return net;
    }
};

TEST_F(HeadroomPool, HandDerivedNumbersMatchTheModelsFormulas)
{
    // The numbers of the derivation above, against the formulas the simulator uses.
    EXPECT_EQ(OneHopHeadroomBytes(kRate, kDelay, kFrame, kOverhead), kHeadroomAuto);
    double tf = FrameSeconds(kFrame, kOverhead, kRate);
    double tp = FrameSeconds(kMinFrameBytes, kOverhead, kRate);
    EXPECT_EQ(std::ceil((2 * kDelay.GetSeconds() + tp) / tf), 2.0);
    EXPECT_GT((kSenders + 1) * kHeadroomAuto, kBuffer);
    EXPECT_LT(kPool, kBuffer);
}

TEST_F(HeadroomPool, StaticPerPortHeadroomDoesNotFitTheBuffer)
{
    EXPECT_THROW(RunIncast(0), std::invalid_argument);
}

TEST_F(HeadroomPool, SixtyFourSenderIncastOnOneMebibyteIsLossless)
{
    FabricNetwork net = RunIncast(kPool);
    Ptr<FabricSwitch> sw = net.GetSwitch(net.Spec().Find("sw0").value());
    Ptr<SharedBufferMmu> mmu = sw->GetMmu();
    EXPECT_EQ(mmu->GetSharedPoolSize(), kBuffer - kPool);
    EXPECT_EQ(sw->GetDroppedBytes(), 0u);
    EXPECT_EQ(sw->GetHeadroomViolationBytes(), 0u);
    EXPECT_LE(sw->GetMaxBufferUsed(), kBuffer);
    // The pool did the work: more headroom at once than any one port may hold, within the pool.
    EXPECT_GT(mmu->GetMaxHeadroomUsed(), kHeadroomAuto);
    EXPECT_LE(mmu->GetMaxHeadroomUsed(), kPool);
    for (const FlowRecord& f : net.GetFlowTable()->All())
    {
        EXPECT_TRUE(f.finished);
        EXPECT_EQ(f.deliveredBytes, kBytesPerSender);
    }
}

TEST_F(HeadroomPool, TooSmallAPoolCountsItsDropsAsHeadroomViolations)
{
    // Room for one frame per sender: the in-flight frames of ports pausing at once overflow it.
    FabricNetwork net = RunIncast(kSenders * uint64_t(kFrame));
    Ptr<FabricSwitch> sw = net.GetSwitch(net.Spec().Find("sw0").value());
    EXPECT_GT(sw->GetHeadroomViolationBytes(), 0u);
    EXPECT_EQ(sw->GetHeadroomViolationBytes() % kFrame, 0u);
    EXPECT_EQ(sw->GetHeadroomViolationFrames() * uint64_t(kFrame), sw->GetHeadroomViolationBytes());
    EXPECT_LE(sw->GetMmu()->GetMaxHeadroomUsed(), kSenders * uint64_t(kFrame));
}

TEST_F(HeadroomPool, APoolSmallerThanOnePortsHeadroomIsRefused)
{
    Set("ns3::SharedBufferMmu::Headroom", std::to_string(kHeadroomAuto) + "B");
    Set("ns3::SharedBufferMmu::HeadroomPool", std::to_string(kHeadroomAuto - 1) + "B");
    Ptr<SharedBufferMmu> mmu = CreateObject<SharedBufferMmu>();
    EXPECT_THROW(mmu->Configure(65), std::invalid_argument);
    Set("ns3::SharedBufferMmu::HeadroomPool", std::to_string(kHeadroomAuto) + "B");
    Ptr<SharedBufferMmu> enough = CreateObject<SharedBufferMmu>();
    EXPECT_NO_THROW(enough->Configure(65));
}

// The scenario file says the same, with the errors naming the key to change.
TEST(HeadroomPoolScenario, StaticHeadroomRefusedPoolAcceptedTooSmallPoolNamed)
{
    const std::string file =
        std::string(FABRIC_SOURCE_DIR) + "/tests/data/scenarios/incast-headroom-pool.yaml";
    try
    {
        LoadScenario(file, {"switch.pfc.headroom_pool=0B"}, FABRIC_SOURCE_DIR);
        ADD_FAILURE() << "65 ports x 16500 B of static headroom fit in 1 MiB";
    }
    catch (const ConfigError& e)
    {
        EXPECT_EQ(e.Key(), "switch.buffer");
    }
    ScenarioConfig cfg = LoadScenario(file, {}, FABRIC_SOURCE_DIR);
    bool poolSet = false;
    for (const auto& [name, value] : cfg.attributes)
    {
        poolSet |= name == "ns3::SharedBufferMmu::HeadroomPool" && value == "797568B";
    }
    EXPECT_TRUE(poolSet);
    try
    {
        LoadScenario(file, {"switch.pfc.headroom_pool=16499B"}, FABRIC_SOURCE_DIR);
        ADD_FAILURE() << "a pool below one port's headroom was accepted";
    }
    catch (const ConfigError& e)
    {
        EXPECT_EQ(e.Key(), "switch.pfc.headroom_pool");
    }
}

} // namespace
} // namespace test
} // namespace ns3
