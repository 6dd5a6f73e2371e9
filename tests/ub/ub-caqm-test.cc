// C-AQM in an 8:1 incast (docs/models.md#caqm): the switch grants or refuses window
// increases and marks as packets leave, so the bottleneck queue stays within the initial burst
// plus the target queue and PFC never fires; without congestion control the same incast fills
// the buffer up to PFC's XOFF thresholds.

#include "ub-test-util.h"
#include "ub/caqm.h"

#include "ns3/double.h"

namespace ns3
{
namespace test
{
namespace
{

constexpr uint32_t kMtu = 4096;
constexpr uint32_t kSenders = 8;
constexpr uint64_t kBytes = 2 * 1024 * 1024;
const DataRate kRate("400Gbps");

class UbCaqmIncast : public SimTest
{
  protected:
    struct Result
    {
        uint64_t maxQueue = 0;
        uint64_t pfcFrames = 0;
        uint64_t drops = 0;
        uint64_t headroomViolations = 0;
        uint32_t finished = 0;
        Time lastFinish;
        uint64_t resent = 0;
        uint64_t marked = 0;
        bool conserved = false;
        std::vector<std::pair<Time, uint64_t>> queue; ///< bottleneck queue every 1 us
    };

    static void Sample(Ptr<FabricNetDevice> dev, std::vector<std::pair<Time, uint64_t>>* out)
    {
        out->emplace_back(Simulator::Now(), dev->GetTotalQueueBytes());
        Simulator::Schedule(MicroSeconds(1), &UbCaqmIncast::Sample, dev, out);
    }

    /// Star of 9 hosts: h1..h8 each write 2 MiB to h0 at t = 0. PFC on priority 3 with the
    /// MMU defaults (32 MiB buffer, XOFF 256 KiB, headroom 32 KiB).
    Result Run(bool caqm)
    {
        Set("ns3::UbNic::Mtu", std::to_string(kMtu));
        Set("ns3::UbNic::CongestionControl",
            caqm ? "ns3::CaqmCongestionControl" : "ns3::UbFixedWindow");
        Set("ns3::FabricSwitch::Caqm", caqm ? "true" : "false");
        Set("ns3::CaqmSwitch::Mtu", std::to_string(kMtu) + "B");
        Set("ns3::SharedBufferMmu::PfcEnabled", "true");
        Set("ns3::FabricSwitch::EcnEnabled", "false");
        FabricNetwork net =
            FabricNetwork::Build(MakeStar(kSenders + 1, kRate, NanoSeconds(150)), 0, 0);
        std::vector<Ptr<UbNic>> nics = InstallUb(net);
        for (uint32_t s = 1; s <= kSenders; ++s)
        {
            PostUb(net, nics, {s, 0, kBytes});
        }
        Result r;
        uint32_t sw = *net.Spec().Find("sw0");
        Simulator::Schedule(Time(0), &UbCaqmIncast::Sample, net.GetDevice(sw, 0), &r.queue);
        Simulator::Stop(MilliSeconds(2));
        Simulator::Run();
        Ptr<FabricSwitch> fs = net.GetSwitch(sw);
        // Port 0 of sw0 is the link to h0 (host links in host order).
        EXPECT_EQ(net.PeerOf(sw, 0).node, net.NodeOfHost(0));
        r.maxQueue = fs->GetMaxQueueBytes(0);
        for (uint32_t p = 0; p < net.GetNPorts(sw); ++p)
        {
            r.pfcFrames += net.GetDevice(sw, p)->GetPfcFramesSent();
        }
        r.drops = fs->GetDroppedFrames();
        r.headroomViolations = fs->GetHeadroomViolationFrames();
        r.marked = fs->GetEgressStage<CaqmSwitch>()
                       ? fs->GetEgressStage<CaqmSwitch>()->GetMarkedPackets()
                       : 0;
        for (const FlowRecord& f : net.GetFlowTable()->All())
        {
            if (f.finished)
            {
                ++r.finished;
                r.lastFinish = std::max(r.lastFinish, f.finish);
            }
        }
        for (auto& nic : nics)
        {
            r.resent += nic->GetResentPackets();
        }
        r.conserved = CheckConservation(net).Ok();
        return r;
    }

    /// Frame bytes as stored (what queues count): payload + 66 B of UB headers and ICRC.
    static constexpr uint64_t F = kMtu + kUbFrameOverhead; // 4162
    /// C-AQM target queue (CaqmSwitch::TargetQueue default).
    static constexpr uint64_t kTarget = 40960;
    /// Bound: each sender starts with InitialWindow = 10 MTU of frames and may send them at
    /// line rate before any feedback. The 8 bursts (80 F) arrive within 10 frame times in
    /// which the bottleneck sends at least 9 frames after the first arrival: at most 71 F
    /// queue. Afterwards the port grants increases only while credit
    /// lambda * (T R / 8 - sent + Qt - Q - granted) >= hint, i.e. while Q stays below the
    /// target queue Qt; so the queue is bounded by the burst plus Qt.
    static constexpr uint64_t kBound = (kSenders * 10 - 9) * F + kTarget; // 336462 B
};

TEST_F(UbCaqmIncast, CaqmKeepsTheQueueBoundedWithoutPfc)
{
    Result r = Run(true);
    EXPECT_EQ(r.finished, kSenders);
    EXPECT_EQ(r.pfcFrames, 0u);
    EXPECT_EQ(r.drops, 0u);
    EXPECT_EQ(r.headroomViolations, 0u);
    EXPECT_EQ(r.resent, 0u);
    EXPECT_TRUE(r.conserved);
    EXPECT_GT(r.marked, 0u); // C-AQM did act
    EXPECT_LE(r.maxQueue, kBound);
    // Completion: all 8 x 512 frames through the 400 Gb/s bottleneck, each (4162 + 24 B of
    // wire overhead) = 4186 B: 4096 * 4186 * 8 / 400e9 = 342.9 us; allow 5 %.
    const double ideal = double(kSenders) * (kBytes / kMtu) * (F + 24) * 8 / 400e9;
    EXPECT_GE(r.lastFinish.GetSeconds(), ideal);
    EXPECT_LE(r.lastFinish.GetSeconds(), 1.05 * ideal);
    // After the initial burst has drained (100 us), the port grants increases only while the
    // queue is below Qt; in congestion avoidance each sender asks alpha MTU = MTU / 2 per RTT,
    // so the 8 senders overshoot Qt by about 4 MTU per RTT before marks cut them: bound
    // Qt + one frame per sender.
    uint64_t steady = 0;
    for (const auto& [t, q] : r.queue)
    {
        if (t > MicroSeconds(100) && t < r.lastFinish - MicroSeconds(10))
        {
            steady = std::max(steady, q);
        }
    }
    EXPECT_LE(steady, kTarget + kSenders * F);
    EXPECT_GT(steady, 0u); // the port stayed busy (a queue existed)
}

TEST_F(UbCaqmIncast, WithoutCongestionControlPfcPausesAndTheQueueGrowsFarLarger)
{
    Result with = Run(true);
    TearDown();
    SetUp();
    Result without = Run(false);
    EXPECT_EQ(without.finished, kSenders);
    EXPECT_EQ(without.drops, 0u); // PFC keeps it lossless
    EXPECT_GT(without.pfcFrames, 0u);
    // Line-rate senders: the egress queue grows at 7/8 of the arrivals until each ingress
    // reaches XOFF (256 KiB): several times the C-AQM bound.
    EXPECT_GT(without.maxQueue, 3 * kBound);
    EXPECT_GT(without.maxQueue, 3 * with.maxQueue);
}

} // namespace
} // namespace test
} // namespace ns3

namespace ns3
{
namespace test
{
namespace
{

// --- The two halves of C-AQM in isolation (caqm.h's algorithm, worked by hand) ---------------

TEST(UbCaqmHost, SlowStartThenDecreaseThenCongestionAvoidance)
{
    Ptr<CaqmCongestionControl> cc = CreateObject<CaqmCongestionControl>();
    cc->Start(DataRate("400Gbps"), 4096);
    EXPECT_EQ(cc->GetWindow(), 10u * 4096); // initial window 10 MTU
    EXPECT_TRUE(cc->InSlowStart());
    // Slow start: one MTU requested per packet, in 32 B hint units: 128.
    UbCci c = cc->OnSend(4162);
    EXPECT_TRUE(c.enabled);
    EXPECT_TRUE(c.increase);
    EXPECT_FALSE(c.congested);
    EXPECT_EQ(c.hint, 128);
    // Granted: + 128 * 32 B.
    UbAckFeedback grant;
    grant.increase = true;
    grant.hintSum = 128;
    cc->OnAck(grant);
    EXPECT_EQ(cc->GetWindow(), 11u * 4096);
    EXPECT_TRUE(cc->InSlowStart());
    // Two marks: - 2 * beta * MTU = - 4096; and slow start ends.
    UbAckFeedback marked;
    marked.congestedCount = 2;
    cc->OnAck(marked);
    EXPECT_EQ(cc->GetWindow(), 10u * 4096);
    EXPECT_FALSE(cc->InSlowStart());
    // Congestion avoidance: alpha MTU^2 / W per packet = 0.5 * 4096^2 / 40960 = 204.8 B =
    // 6.4 units; the fraction is carried: 6, 6 (carry 0.8), 7 (7.2), 6 (carry 0.6), 7 (7.0).
    std::vector<int> hints;
    for (int i = 0; i < 5; ++i)
    {
        hints.push_back(cc->OnSend(4162).hint);
    }
    EXPECT_EQ(hints, (std::vector<int>{6, 6, 7, 6, 7}));
    // Many marks: the window never goes below one MTU.
    UbAckFeedback storm;
    storm.congestedCount = 200;
    cc->OnAck(storm);
    EXPECT_EQ(cc->GetWindow(), 4096u);
}

TEST(UbCaqmSwitch, GrantsFromCreditThenRefusesThenMarks)
{
    // Port at 400 Gb/s, UpdatePeriod 500 ns: capacity per period 25000 B; TargetQueue 40960 B,
    // lambda 0.5. First dequeue (queue 0, nothing sent or granted before):
    // credit = 0.5 (25000 + 40960) = 32980 B; a slow-start request is 128 * 32 = 4096 B, so
    // 8 requests are granted (32768 B), leaving 212 B: the 9th is refused (MarkProbability 0).
    Config::SetDefault("ns3::CaqmSwitch::MarkProbability", DoubleValue(0.0));
    Ptr<CaqmSwitch> sw = CreateObject<CaqmSwitch>();
    Config::Reset();
    sw->AddPort(DataRate("400Gbps"), true);
    UbCci req;
    req.enabled = true;
    req.increase = true;
    req.hint = 128;
    for (int i = 0; i < 8; ++i)
    {
        UbCci out = sw->OnDequeue(0, req, 0, 4162);
        EXPECT_TRUE(out.increase) << i;
        EXPECT_FALSE(out.congested) << i;
    }
    EXPECT_NEAR(sw->GetCredit(0), 32980.0 - 8 * 4096, 1e-3); // capacity via double seconds
    UbCci ninth = sw->OnDequeue(0, req, 0, 4162);
    EXPECT_FALSE(ninth.increase);
    EXPECT_FALSE(ninth.congested);
    EXPECT_EQ(sw->GetRefusedIncreases(), 1u);
    // Next period with 100000 B queued: credit = 0.5 (25000 - 9 * 4162 + 40960 - 100000 -
    // 32768) < 0: the packet is marked (C = 1, I = 0, Loc = 1 toward a host) and the credit
    // gets beta * MTU = 2048 B back.
    UbCci out;
    Simulator::Schedule(NanoSeconds(500), [&]() { out = sw->OnDequeue(0, req, 100000, 4162); });
    Simulator::Run();
    double expected = 0.5 * (25000.0 - 9 * 4162 + 40960 - 100000 - 32768) + 2048;
    EXPECT_TRUE(out.congested);
    EXPECT_FALSE(out.increase);
    EXPECT_TRUE(out.lastHop);
    EXPECT_NEAR(sw->GetCredit(0), expected, 1e-3);
    EXPECT_EQ(sw->GetMarkedPackets(), 1u);
    // A packet marked upstream returns beta * MTU of credit here without a decision.
    UbCci upstream = req;
    upstream.congested = true;
    upstream.increase = false;
    Simulator::Schedule(Time(0), [&]() { out = sw->OnDequeue(0, upstream, 100000, 4162); });
    Simulator::Run();
    EXPECT_TRUE(out.congested);
    EXPECT_NEAR(sw->GetCredit(0), expected + 2048, 1e-3);
    Simulator::Destroy();
}

} // namespace
} // namespace test
} // namespace ns3
