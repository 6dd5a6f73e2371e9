// The HPCC simulator's NIC window for every congestion control (config.txt HAS_WIN, GLOBAL_T,
// VAR_WIN), as RdmaNic::RateWindow / RateWindowScaled and roce.rate_window(_scaled).
//
// Expected numbers follow alibaba-edu/High-Precision-Congestion-Control by hand:
//   simulation/scratch/third.cc:249-251   per hop: delay += link delay,
//                                          txDelay += payload x 8e9 / link rate (integer ns)
//   simulation/scratch/third.cc:917-927   rtt = 2 x delay + txDelay, bdp = rtt x bottleneck / 1e9 /
//   8,
//                                          maxBdp / maxRtt over every host pair
//   simulation/scratch/third.cc:138       a QP's window: maxBdp (GLOBAL_T 1) or its pair's bdp
//   rdma-queue-pair.cc:116-137            on the fly = snd_nxt - snd_una (payload); bound while
//                                          on the fly >= W; VAR_WIN: W x rate / max rate, >= 1
//
// Hand-built topology of the first tests (payload 1000 B):
//   h0 --25G,1us-- sw0 --100G,2us-- sw1 --10G,500ns-- h1,   h2 --25G,1us-- sw1
//   h0-h1: delay 3500, txDelay 320 + 80 + 800 = 1200, rtt 8200 ns, bottleneck 10G: bdp 10250 B
//   h0-h2: delay 4000, txDelay 320 + 80 + 320 =  720, rtt 8720 ns, bottleneck 25G: bdp 27250 B
//   h1-h2: delay 1500, txDelay 800 + 320       = 1120, rtt 4120 ns, bottleneck 10G: bdp  5150 B
//   maxBdp = 27250 B, maxRtt = 8720 ns.

#include "../fabric-sim-util.h"
#include "../test-files.h"
#include "config/scenario-config.h"
#include "host/congestion-control.h"
#include "roce/rdma-nic.h"
#include "run/base-bdp.h"
#include "run/scenario-runner.h"
#include "wire/reth-header.h"
#include "wire/roce-frame-header.h"

#include <filesystem>
#include <memory>

namespace ns3
{
namespace test
{
namespace
{

namespace fs = std::filesystem;

TopologySpec
ThreeHosts()
{
    TopologySpec t;
    t.source = "rate-window-test";
    for (const char* h : {"h0", "h1", "h2"})
    {
        t.nodes.push_back(TopologyNode{h, false, "host", -1});
    }
    t.nodes.push_back(TopologyNode{"sw0", true, "tor", -1}); // 3
    t.nodes.push_back(TopologyNode{"sw1", true, "tor", -1}); // 4
    auto link = [&](uint32_t a, uint32_t b, const char* rate, Time delay) {
        TopologyLink l;
        l.a = a;
        l.b = b;
        l.rate = DataRate(rate);
        l.delay = delay;
        t.links.push_back(l);
    };
    link(0, 3, "25Gbps", MicroSeconds(1));
    link(3, 4, "100Gbps", MicroSeconds(2));
    link(4, 1, "10Gbps", NanoSeconds(500));
    link(2, 4, "25Gbps", MicroSeconds(1));
    return t;
}

class RateWindow : public SimTest
{
  protected:
    /// RdmaNics on every host of \p net, each told the base BDPs as the scenario runner does.
    std::vector<Ptr<RdmaNic>> Install(FabricNetwork& net)
    {
        auto bdp = std::make_shared<BaseBdp>(net.Spec(), 1000);
        std::vector<Ptr<RdmaNic>> nics;
        for (uint32_t h = 0; h < net.GetNHosts(); ++h)
        {
            nics.push_back(CreateObject<RdmaNic>());
            nics.back()->Install(net.GetHost(h));
            nics.back()->SetBaseBdp([bdp, h](uint32_t dst) {
                return dst == RdmaNic::kAllHosts ? bdp->MaxBdp() : bdp->Bdp(h, dst);
            });
        }
        return nics;
    }

    static uint32_t AddWrite(FabricNetwork& net,
                             Ptr<RdmaNic> nic,
                             uint32_t src,
                             uint32_t dst,
                             uint64_t bytes)
    {
        FlowRecord r;
        r.src = src;
        r.dst = dst;
        r.bytes = bytes;
        r.priority = 3;
        r.verb = RdmaVerb::WRITE;
        r.entropy = static_cast<uint16_t>(49152 + src * 7 + dst);
        uint32_t id = net.GetFlowTable()->Add(r);
        nic->StartFlowAt(id);
        return id;
    }

    void SetUp() override
    {
        SimTest::SetUp();
        Set("ns3::RdmaNic::Mtu", "1000");
    }
};

TEST_F(RateWindow, BaseBdpsAreTheReferencesPairAndMaximum)
{
    BaseBdp b(ThreeHosts(), 1000);
    EXPECT_EQ(b.RttNs(0, 1), 8200u);
    EXPECT_EQ(b.Bdp(0, 1), 10250u);
    EXPECT_EQ(b.Bdp(1, 0), 10250u);
    EXPECT_EQ(b.RttNs(0, 2), 8720u);
    EXPECT_EQ(b.Bdp(0, 2), 27250u);
    EXPECT_EQ(b.RttNs(1, 2), 4120u);
    EXPECT_EQ(b.Bdp(2, 1), 5150u);
    EXPECT_EQ(b.Bdp(1, 1), 0u);
    // The largest pair BDP, not the largest RTT times some line rate.
    EXPECT_EQ(b.MaxBdp(), 27250u);
    EXPECT_EQ(b.MaxRttNs(), 8720u);
}

TEST_F(RateWindow, BurstTopologyGivesTheReferencesMaxBdp)
{
    // ns3-datacenter's 256-host topology (examples/powertcp-burst.yaml): hosts 25G 1us, ToR-agg
    // 100G 1us, agg-core 100G 5us. Through a core: delay 14 us, txDelay 2 x 320 + 4 x 80 = 960
    // ns, rtt 28960 ns, bdp 28960 x 25e9 / 8e9 = 90500 B; inside a rack (h0 -> h16): 2 x 2000 +
    // 2 x 320 = 4640 ns, 14500 B. The reference prints "maxRtt=28960 maxBdp=90500 minRtt=4640".
    ScenarioConfig cfg =
        LoadScenario(std::string(FABRIC_SOURCE_DIR) + "/examples/powertcp-burst.yaml",
                     {},
                     FABRIC_SOURCE_DIR);
    BaseBdp b(cfg.topology, 1000);
    EXPECT_EQ(b.MaxBdp(), 90500u);
    EXPECT_EQ(b.MaxRttNs(), 28960u);
    EXPECT_EQ(b.RttNs(0, 16), 4640u);
    EXPECT_EQ(b.Bdp(0, 16), 14500u);
    EXPECT_EQ(b.Bdp(0, 255), 90500u);
}

TEST_F(RateWindow, GlobalIsMaxBdpPairIsTheQpsOwn)
{
    for (const char* mode : {"global", "pair"})
    {
        SetUp();
        Set("ns3::RdmaNic::RateWindow", mode);
        FabricNetwork net = FabricNetwork::Build(ThreeHosts(), 0, 0);
        std::vector<Ptr<RdmaNic>> nics = Install(net);
        uint32_t a = AddWrite(net, nics[1], 1, 0, 100000); // h1 -> h0, 10G NIC
        uint32_t b = AddWrite(net, nics[2], 2, 1, 100000); // h2 -> h1
        Simulator::Stop(MicroSeconds(5));
        Simulator::Run();
        bool global = std::string(mode) == "global";
        EXPECT_EQ(nics[1]->GetRateWindow(a), global ? 27250u : 10250u) << mode;
        EXPECT_EQ(nics[2]->GetRateWindow(b), global ? 27250u : 5150u) << mode;
        // cc none has no window of its own: the rate window is the one obeyed.
        EXPECT_EQ(nics[1]->GetEffectiveWindow(a), global ? 27250u : 10250u) << mode;
        TearDown();
    }
}

TEST_F(RateWindow, OffLeavesNoWindow)
{
    // off (even with RateWindowScaled, and with no base BDPs told) is the NIC as it was: no
    // window, and the lone flow completes exactly when it does with the attributes untouched.
    auto run = [&](bool setOff, uint64_t* window) {
        if (setOff)
        {
            Set("ns3::RdmaNic::RateWindow", "off");
            Set("ns3::RdmaNic::RateWindowScaled", "true");
        }
        FabricNetwork net = FabricNetwork::Build(ThreeHosts(), 0, 0);
        std::vector<Ptr<RdmaNic>> nics;
        for (uint32_t h = 0; h < 3; ++h)
        {
            nics.push_back(CreateObject<RdmaNic>());
            nics.back()->Install(net.GetHost(h));
        }
        uint32_t a = AddWrite(net, nics[0], 0, 2, 100000);
        Simulator::Stop(MicroSeconds(100));
        Simulator::Run();
        *window = nics[0]->GetRateWindow(a) + nics[0]->GetEffectiveWindow(a);
        Time finish = net.GetFlowTable()->Get(a).finish;
        TearDown();
        SetUp();
        return finish;
    };
    uint64_t window = 1;
    Time asBefore = run(false, &window);
    EXPECT_EQ(window, 0u);
    Time off = run(true, &window);
    EXPECT_EQ(window, 0u);
    EXPECT_GT(asBefore, Time(0));
    EXPECT_EQ(off, asBefore);
}

TEST_F(RateWindow, ScaledWindowHalvesWithADcqcnCut)
{
    // VAR_WIN: W = 27250 x rate / 25 Gb/s. A CNP with alpha = 1 halves DCQCN's rate (the
    // paper's Rc (1 - alpha / 2)): 12.5 Gb/s, W = 27250 x 12.5 / 25 = 13625 B.
    Set("ns3::RdmaNic::RateWindow", "global");
    Set("ns3::RdmaNic::RateWindowScaled", "true");
    Set("ns3::RdmaNic::CongestionControl", "ns3::DcqcnCongestionControl");
    Set("ns3::DcqcnCongestionControl::InitialAlpha", "1");
    FabricNetwork net = FabricNetwork::Build(ThreeHosts(), 0, 0);
    std::vector<Ptr<RdmaNic>> nics = Install(net);
    uint32_t a = AddWrite(net, nics[0], 0, 2, 1000000);
    uint64_t before = 0;
    uint64_t after = 0;
    uint64_t rateAfter = 0;
    Simulator::Schedule(MicroSeconds(3), [&]() {
        before = nics[0]->GetRateWindow(a);
        nics[0]->InjectCnp(a);
        after = nics[0]->GetRateWindow(a);
        rateAfter = DynamicCast<FabricCongestionControl>(net.GetFlowTable()->Get(a).cc)
                        ->GetRate()
                        .GetBitRate();
    });
    Simulator::Stop(MicroSeconds(4));
    Simulator::Run();
    EXPECT_EQ(before, 27250u);
    EXPECT_EQ(rateAfter, 12500000000u);
    EXPECT_EQ(after, 13625u);
}

/// Largest payload in flight of any QP, sampled every 10 ns, in a 2:1 incast with cc none.
uint64_t
PeakInflight(const std::string& mode, bool* allFinished)
{
    Config::SetDefault("ns3::RdmaNic::RateWindow", StringValue(mode));
    // Three hosts on one switch, 25 Gb/s, 1 us cables: every pair (and maxBdp) is the rack pair
    // of the burst test: rtt 4640 ns, 14500 B.
    FabricNetwork net =
        FabricNetwork::Build(MakeStar(3, DataRate("25Gbps"), MicroSeconds(1)), 0, 0);
    auto bdp = std::make_shared<BaseBdp>(net.Spec(), 1000);
    std::vector<Ptr<RdmaNic>> nics;
    for (uint32_t h = 0; h < 3; ++h)
    {
        nics.push_back(CreateObject<RdmaNic>());
        nics.back()->Install(net.GetHost(h));
        nics.back()->SetBaseBdp([bdp, h](uint32_t dst) {
            return dst == RdmaNic::kAllHosts ? bdp->MaxBdp() : bdp->Bdp(h, dst);
        });
    }
    std::vector<std::pair<uint32_t, uint32_t>> flows; // (sender host, flow)
    for (uint32_t s : {1u, 2u})
    {
        FlowRecord r;
        r.src = s;
        r.dst = 0;
        r.bytes = 300000;
        r.priority = 3;
        r.verb = RdmaVerb::WRITE;
        r.entropy = static_cast<uint16_t>(49152 + s);
        uint32_t id = net.GetFlowTable()->Add(r);
        nics[s]->StartFlowAt(id);
        flows.emplace_back(s, id);
    }
    uint64_t peak = 0;
    std::function<void()> sample = [&]() {
        for (auto [s, id] : flows)
        {
            peak = std::max(peak, nics[s]->GetInflightBytes(id));
        }
        Simulator::Schedule(NanoSeconds(10), sample);
    };
    Simulator::ScheduleNow(sample);
    Simulator::Stop(MicroSeconds(400));
    Simulator::Run();
    *allFinished = true;
    for (auto [s, id] : flows)
    {
        *allFinished = *allFinished && net.GetFlowTable()->Get(id).finished;
    }
    return peak;
}

TEST_F(RateWindow, BoundQpNeverHasMoreThanTheWindowInFlight)
{
    // W = 14500 B: a packet may leave while less than W is on the fly, so the flight tops out
    // at the first multiple of 1000 B at or above it: 15 packets, 15000 B, and no more.
    bool finished = false;
    uint64_t bound = PeakInflight("global", &finished);
    EXPECT_TRUE(finished);
    EXPECT_EQ(bound, 15000u);
    TearDown();
    SetUp();
    // Without the window the two line-rate senders queue at the switch and their flights grow
    // past it: the window above is what held them.
    uint64_t unbound = PeakInflight("off", &finished);
    EXPECT_GT(unbound, 15000u);
}

TEST_F(RateWindow, ScenarioKeysBoundTheIncastQueue)
{
    // examples/incast.yaml cut to 2 senders at 25 Gb/s with 1 us cables (200 m) and 1000 B
    // payloads, cc none: each QP has at most 15 packets in flight (W = 14500 B, as above), so the
    // switch never holds more than 2 x 15 data frames of 1000 B + the RoCE headers. Without
    // the window the line-rate senders fill it up to PFC's XOFF (48 KiB per ingress port).
    fs::path dir = fs::temp_directory_path() / ("fabric-rate-window-" + std::to_string(getpid()));
    auto peakQueue = [&](const std::string& mode) {
        fs::remove_all(dir);
        fs::create_directories(dir);
        ScenarioConfig cfg =
            LoadScenario(std::string(FABRIC_SOURCE_DIR) + "/examples/incast.yaml",
                         {"cc=none",
                          "topology={generator: star, hosts: auto, rate: 25Gbps, cable: 200m}",
                          "host.mtu=1000B",
                          "workload.senders=2",
                          "workload.bytes_per_sender=300000B",
                          "stop_time=1ms",
                          "roce.rate_window=" + mode},
                         FABRIC_SOURCE_DIR);
        RunOutcome o = ScenarioRunner::Run(cfg, dir.string());
        EXPECT_EQ(o.exitCode, 0) << o.message;
        uint64_t peak = 0;
        for (const auto& r : ReadCsv((dir / "queues.csv").string()).rows)
        {
            peak = std::max<uint64_t>(peak, std::stoull(r.at("bytes")));
        }
        return peak;
    };
    // (The first frame of a WRITE also carries the RETH.)
    const uint64_t bound = 2 * (15 * (1000 + kRoceFrameOverhead) + RethHeader::kSize);
    EXPECT_LE(peakQueue("global"), bound);
    EXPECT_GT(peakQueue("off"), bound);
    fs::remove_all(dir);
}

} // namespace
} // namespace test
} // namespace ns3
