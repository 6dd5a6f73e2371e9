// HPCC end to end (tests/data/scenarios/hpcc-incast.yaml): switches stamp INT, receivers echo
// it, senders hold the bottleneck near η utilisation with an almost empty queue, losslessly.
// And the INT switches write: each record checked, at the instant it is written, against the
// port's queue, a byte count kept here and the clock.

#include "../fabric-sim-util.h"
#include "../test-files.h"
#include "config/scenario-config.h"
#include "link/fabric-net-device.h"
#include "run/scenario-runner.h"
#include "switch/switch-stages.h"
#include "wire/bth-header.h"
#include "wire/int-header.h"
#include "wire/roce-frame-header.h"
#include "wire/roce-header-view.h"

#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

namespace ns3
{

/// Runs after IntStampStage on the same dequeue and checks the record it has just written.
class IntProbeStage : public EgressStage
{
  public:
    struct Findings
    {
        uint64_t dataFrames = 0;
        uint64_t acks = 0;
        uint64_t wrongRecord = 0;
        uint64_t wrongSize = 0;
        uint64_t wrongPayload = 0;
        uint32_t maxHopCount = 0;
        std::map<uint32_t, uint64_t> byHopCount;
    };

    static Findings s_findings;

    static TypeId GetTypeId()
    {
        static TypeId tid = TypeId("ns3::IntProbeStage")
                                .SetParent<EgressStage>()
                                .SetGroupName("Fabric")
                                .AddConstructor<IntProbeStage>();
        return tid;
    }

    void Install(const FabricSwitch& sw) override
    {
        m_sent.assign(sw.GetNPorts(), 0);
    }

    bool RunsOnDequeue() const override
    {
        return true;
    }

    StageVerdict OnDequeue(FabricNetDevice& port, QueuedFrame& item) override
    {
        uint64_t& sent = m_sent[port.GetPortIndex()];
        sent += item.bytes; // every frame the port sends, this one included
        const FrameInfo& info = item.info;
        if (!item.hasInfo || !IsRoceFrame(info) || !RoceHasInt(info))
        {
            return StageVerdict::Pass();
        }
        uint32_t offset = RoceIntOffset(info);
        std::vector<uint8_t> b(offset + kIntHeaderBytes);
        item.frame->CopyData(b.data(), b.size());
        IntStack s;
        if (!s.Read(b.data() + offset))
        {
            ++s_findings.wrongRecord;
            return StageVerdict::Pass();
        }
        if (info.opcode == RoceOpcode::ACKNOWLEDGE) // an echo: 54 + AETH 4 + INT 44 + ICRC 4
        {
            ++s_findings.acks;
            s_findings.wrongSize += item.bytes != 106;
            return StageVerdict::Pass();
        }
        ++s_findings.dataFrames;
        // A data frame: headers, INT and payload, nothing else; the payload the NIC recorded
        // for the flow is what the view computes without the INT bytes.
        uint32_t expectedBytes = offset + kIntHeaderBytes + item.payloadBytes + 4;
        s_findings.wrongSize += item.bytes != expectedBytes;
        s_findings.wrongPayload += RoceFlowPayloadBytes(info) != item.payloadBytes;
        s_findings.maxHopCount = std::max<uint32_t>(s_findings.maxHopCount, s.hopCount);
        ++s_findings.byHopCount[s.hopCount];
        const IntHop& h = s.hops[s.hopCount - 1];
        uint64_t nowNs = Simulator::Now().GetNanoSeconds();
        bool ok = h.GetLineRate() == port.GetDataRate() && h.time == (nowNs & 0xFFFFFF) &&
                  h.bytes == ((sent / 128) & 0xFFFFF) &&
                  h.qlen == std::min<uint64_t>(port.GetTotalQueueBytes() / 256, 0xFFFF);
        s_findings.wrongRecord += !ok;
        return StageVerdict::Pass();
    }

  private:
    std::vector<uint64_t> m_sent;
};

IntProbeStage::Findings IntProbeStage::s_findings;
NS_OBJECT_ENSURE_REGISTERED(IntProbeStage);

namespace test
{
namespace
{

namespace fs = std::filesystem;

class HpccIncast : public SimTest
{
  protected:
    RunOutcome Run(const std::string& file,
                   const std::vector<std::string>& overrides,
                   bool probe = false,
                   const std::string& directory = "tests/data/scenarios/")
    {
        m_dir = fs::temp_directory_path() / ("fabric-hpcc-" + std::to_string(getpid()));
        fs::remove_all(m_dir);
        fs::create_directories(m_dir);
        ScenarioConfig cfg =
            LoadScenario(std::string(FABRIC_SOURCE_DIR) + "/" + directory + file + ".yaml",
                         overrides,
                         FABRIC_SOURCE_DIR);
        bool stamped = false;
        for (auto& [name, value] : cfg.attributes)
        {
            if (name == "ns3::FabricSwitch::TransportStages")
            {
                stamped = value == "ns3::IntStampStage";
                if (probe)
                {
                    value += ",ns3::IntProbeStage";
                }
            }
        }
        EXPECT_TRUE(stamped) << "cc: hpcc must turn INT stamping on";
        IntProbeStage::s_findings = IntProbeStage::Findings();
        return ScenarioRunner::Run(cfg, m_dir.string());
    }

    void TearDown() override
    {
        fs::remove_all(m_dir);
        SimTest::TearDown();
    }

    /// Mean goodput into the receiver (Gb/s) and mean and largest queue of its switch port
    /// over [from, the first flow's finish - 10 us).
    void SteadyState(double from, double* goodput, double* meanQueue, uint64_t* maxQueue)
    {
        double firstFinish = 1e18;
        for (const auto& r : ReadCsv((m_dir / "flows.csv").string()).rows)
        {
            firstFinish = std::min(firstFinish, std::stod(r.at("finish_ns")));
        }
        double to = firstFinish - 10e3;
        ASSERT_GT(to, from + 50e3) << "the steady state must last at least 50 us";
        std::map<double, double> total;
        for (const auto& r : ReadCsv((m_dir / "rates.csv").string()).rows)
        {
            double t = std::stod(r.at("time_ns"));
            if (t > from && t <= to)
            {
                total[t] += std::stod(r.at("rate_gbps"));
            }
        }
        ASSERT_FALSE(total.empty());
        double sum = 0;
        for (const auto& [t, g] : total)
        {
            sum += g;
        }
        *goodput = sum / total.size();
        double qsum = 0;
        uint64_t n = 0;
        *maxQueue = 0;
        for (const auto& r : ReadCsv((m_dir / "queues.csv").string()).rows)
        {
            double t = std::stod(r.at("time_ns"));
            if (r.at("port") == "0" && t > from && t <= to)
            {
                uint64_t q = std::stoull(r.at("bytes"));
                qsum += q;
                *maxQueue = std::max(*maxQueue, q);
                ++n;
            }
        }
        ASSERT_GT(n, 0u);
        *meanQueue = qsum / n;
    }

    fs::path m_dir;
};

// What HPCC aims at on a 400 Gb/s bottleneck with 4096-byte payloads. Its switches count
// frame bytes: 54 (headers) + 44 (INT) + 4096 + 4 (ICRC) = 4198 per packet, so U = η with an
// empty queue means 0.95 x 400 = 380 Gb/s of frames, 380 x 4096 / 4198 = 370.77 Gb/s of
// payload. At line rate (frames plus 24 B of preamble and gap) the payload could reach
// 400 x 4096 / 4222 = 388.06 Gb/s. W_AI (B T / 2500 = 15.24 B at T = 762 ns) lets each sender
// add 15.24 B per update, and every sender may have a frame arriving at once: a queue beyond
// N x (15.24 + 4198) B on average is not "near zero".
constexpr double kEtaGoodput = 0.95 * 400 * 4096 / 4198;
constexpr double kLineGoodput = 400.0 * 4096 / 4222;
constexpr double kFrameBytes = 4198;
constexpr double kWai = 400e9 * 762e-9 / 8 / 2500;

TEST_F(HpccIncast, TwoToOneIncastHoldsEtaWithAnEmptyQueue)
{
    RunOutcome o = Run("hpcc-incast", {});
    ASSERT_EQ(o.exitCode, 0) << o.message;
    const auto& c = o.summary["counters"];
    EXPECT_EQ(c["dropped_bytes"].get<uint64_t>(), 0u);
    EXPECT_EQ(c["retransmitted_bytes"].get<uint64_t>(), 0u);
    EXPECT_EQ(o.summary["flows_finished"].get<uint32_t>(), 2u);
    EXPECT_TRUE(o.summary["conservation_ok"].get<bool>());
    double goodput;
    double meanQueue;
    uint64_t maxQueue;
    // From 30 us: 39 base RTTs (T = 762 ns) after the line-rate start.
    SteadyState(30e3, &goodput, &meanQueue, &maxQueue);
    // Two senders converge on η within 2% (the rate samples are 10 us of whole packets).
    EXPECT_NEAR(goodput, kEtaGoodput, 0.02 * kEtaGoodput);
    EXPECT_LT(goodput, kLineGoodput);
    EXPECT_LE(meanQueue, 2 * (kWai + kFrameBytes));
    EXPECT_LE(maxQueue, 2 * kFrameBytes) << "two frames at once at most";
    // cc.csv traces U and the window.
    auto cc = ReadCsv((m_dir / "cc.csv").string()).rows;
    ASSERT_FALSE(cc.empty());
    const auto& last = cc.back();
    EXPECT_EQ(last.at("cc"), "hpcc");
    EXPECT_NEAR(std::stod(last.at("u")), 0.95, 0.1);
    EXPECT_FALSE(last.at("window_bytes").empty());
}

TEST_F(HpccIncast, SixteenToOneIncastStaysLosslessNearEtaWithAShortQueue)
{
    RunOutcome o = Run("hpcc-incast", {"workload.senders=16", "workload.bytes_per_sender=1MiB"});
    ASSERT_EQ(o.exitCode, 0) << o.message;
    const auto& c = o.summary["counters"];
    EXPECT_EQ(c["dropped_bytes"].get<uint64_t>(), 0u);
    EXPECT_EQ(c["headroom_violation_bytes"].get<uint64_t>(), 0u);
    EXPECT_EQ(o.summary["flows_finished"].get<uint32_t>(), 16u);
    EXPECT_TRUE(o.summary["conservation_ok"].get<bool>());
    double goodput;
    double meanQueue;
    uint64_t maxQueue;
    // The first round trip sends 16 line-rate windows (16 x 100 kB): PFC holds them, and
    // HPCC drains the queue within a few T (its U sees the queue through qlen / (B T)). From
    // 60 us on the queue is the congestion control's.
    SteadyState(60e3, &goodput, &meanQueue, &maxQueue);
    // Sixteen windows each cut on the same feedback overshoot in both directions more than
    // two: 10% below the η target, and clearly below line rate (PFC alone would keep the
    // port busy at 388 Gb/s).
    EXPECT_GE(goodput, 0.90 * kEtaGoodput);
    EXPECT_LE(goodput, 0.985 * kLineGoodput);
    EXPECT_LE(meanQueue, 16 * (kWai + kFrameBytes));
}

TEST_F(HpccIncast, DemoIncastFinishesWithinEtaOfLineRatePlusOneBaseRtt)
{
    // The demo's incast (examples/incast.yaml: star of 400 Gb/s links with 30 m cables, 4096 B
    // payloads, 24 B of wire overhead, start at 10 us) with HPCC at the authors' defaults and
    // T the path's base RTT as the authors' simulator derives it (alibaba-edu/
    // High-Precision-Congestion-Control scratch/third.cc:250 and 917-919: twice the one-way
    // propagation plus a payload's serialization per hop, in whole ns):
    // T = 2 x 2 x 150 ns + 2 x floor(4096 x 8 / 400 Gb/s) = 600 + 2 x 81 = 762 ns.
    // Two senders of 32 MiB: 16 384 frames of 4096 + 54 + 44 (INT) + 4 + 24 = 4222 wire bytes,
    // 1383.465 us at line rate. HPCC holding the port at η = 0.95 (of the frame bytes INT
    // counts, a little more of the wire) finishes within 1383.465 / 0.95 + T of the start.
    // With maxStage 5 (the defaults before) the last flow ends at 1477.8 us.
    RunOutcome o = Run(
        "incast",
        {"cc=hpcc", "hpcc.base_rtt=762ns", "workload.senders=2", "workload.bytes_per_sender=32MiB"},
        false,
        "examples/");
    ASSERT_EQ(o.exitCode, 0) << o.message;
    EXPECT_EQ(o.summary["flows_finished"].get<uint32_t>(), 2u);
    EXPECT_EQ(o.summary["counters"]["dropped_bytes"].get<uint64_t>(), 0u);
    const double frames = 2.0 * 32 * 1024 * 1024 / 4096;
    const double lineRateUs = frames * (4096 + 54 + 44 + 4 + 24) * 8 / 400e9 * 1e6;
    EXPECT_NEAR(lineRateUs, 1383.465, 1e-3);
    double lastUs = 0;
    for (const auto& r : ReadCsv((m_dir / "flows.csv").string()).rows)
    {
        lastUs = std::max(lastUs, std::stod(r.at("finish_ns")) / 1e3);
    }
    EXPECT_LE(lastUs, 10 + lineRateUs / 0.95 + 0.762);
}

// The 16:1 demo incast against the authors' simulator. HPCC's own implementation (inet-tub/
// ns3-datacenter simulator/ns-3.39, rdma-hw.cc UpdateRateHp, run by its
// powertcp-evaluation-burst program with HPCC's run.py settings for a 400 Gb/s NIC: CC_MODE 3,
// U_TARGET 0.95, MI_THRESH 0, RATE_AI 160 Mb/s, FAST_REACT 1, VAR_WIN 1, GLOBAL_T 1 -> T = 762 ns)
// on the same star (16 senders of 4 MiB, 400 Gb/s, 150 ns links, 4096 B payloads, all starting
// at 10 us) ends its last flow at 1514.652 us: its frames are 4186 B, 1371.668 us at line rate,
// so it holds the port at rho = 1371.668 / (1514.652 - 10 - 0.762) = 0.9121 of the line, 4.16%
// beyond its 1/eta bound (results/twins/ns3-datacenter/hpcc-incast-16.md). The bound is not a
// property HPCC's law reaches with 16 senders and B T of nine frames.
constexpr double kRefRho = 1371.668 / (1514.652 - 10 - 0.762);
constexpr double kRefExcess = (1514.652 - 10 - 0.762) / (1371.668 / 0.95) - 1;
// Tolerance on rho: over 11 runs with starts spread by up to 100 ns the reference's rho spans
// 0.9121-0.9148 and this model's 0.9021-0.9110 (the twin) and 0.8964-0.9121 (the demo): which
// flow is starved last is chaotic here; the steady state (60-500 us, 16 flows) is 0.9122 there
// and 0.9084 here. 2% covers both; the defaults before (max_stage 5: rho 0.853) and T = 10 us
// (0.824) fall outside it.
constexpr double kRefTolerance = 0.02;

double
LastFinishUs(const fs::path& dir)
{
    double lastUs = 0;
    for (const auto& r : ReadCsv((dir / "flows.csv").string()).rows)
    {
        lastUs = std::max(lastUs, std::stod(r.at("finish_ns")) / 1e3);
    }
    return lastUs;
}

TEST_F(HpccIncast, SixteenToOneIncastHoldsThePortWhereTheReferenceDoes)
{
    const double startUs = 10;
    const double baseRttUs = 0.762;
    const double frames = 16.0 * 4 * 1024 * 1024 / 4096;
    // The twin of the reference's run: no preamble or gap on the wire (the reference has none)
    // and a buffer PFC never acts in (the reference's window keeps each ingress below its
    // dynamic threshold). Frames are 4096 + 54 + 44 (INT) + 4 = 4198 B here.
    RunOutcome o = Run("incast",
                       {"cc=hpcc",
                        "hpcc.base_rtt=762ns",
                        "link.wire_overhead=0B",
                        "switch.buffer=32MiB",
                        "switch.pfc.enabled=false"},
                       false,
                       "examples/");
    ASSERT_EQ(o.exitCode, 0) << o.message;
    EXPECT_EQ(o.summary["flows_finished"].get<uint32_t>(), 16u);
    EXPECT_EQ(o.summary["counters"]["dropped_bytes"].get<uint64_t>(), 0u);
    const double twinLineUs = frames * 4198 * 8 / 400e9 * 1e6;
    double rho = twinLineUs / (LastFinishUs(m_dir) - startUs - baseRttUs);
    EXPECT_NEAR(rho, kRefRho, kRefTolerance * kRefRho);

    // The demo as it is (24 B of preamble and gap, PFC on, a 1 MiB buffer): beyond the 1/eta
    // bound by no more than the reference is beyond its own.
    o = Run("incast", {"cc=hpcc", "hpcc.base_rtt=762ns"}, false, "examples/");
    ASSERT_EQ(o.exitCode, 0) << o.message;
    EXPECT_EQ(o.summary["flows_finished"].get<uint32_t>(), 16u);
    const double demoLineUs = frames * (4198 + 24) * 8 / 400e9 * 1e6;
    EXPECT_NEAR(demoLineUs, 1383.465, 1e-3);
    double excess = (LastFinishUs(m_dir) - startUs - baseRttUs) / (demoLineUs / 0.95) - 1;
    EXPECT_LE(excess, kRefExcess + kRefTolerance);
}

TEST_F(HpccIncast, SwitchesStampWhatThePortHoldsAtTheInstant)
{
    // Clos of k = 4 at 100 Gb/s: host -> leaf -> spine -> leaf -> host crosses three switches.
    RunOutcome o = Run("clos2-all-to-all", {"transport=roce", "cc=hpcc"}, true);
    ASSERT_EQ(o.exitCode, 0) << o.message;
    const IntProbeStage::Findings& f = IntProbeStage::s_findings;
    // Every data packet (4096-byte MTU) leaves at least one switch, every flow is ACKed.
    uint64_t packets = 0;
    uint64_t flows = 0;
    for (const auto& r : ReadCsv((m_dir / "flows.csv").string()).rows)
    {
        packets += (std::stoull(r.at("bytes")) + 4095) / 4096;
        ++flows;
    }
    ASSERT_GT(flows, 0u);
    EXPECT_GE(f.dataFrames, packets);
    EXPECT_GE(f.acks, flows);
    EXPECT_EQ(f.wrongRecord, 0u);
    EXPECT_EQ(f.wrongSize, 0u);
    EXPECT_EQ(f.wrongPayload, 0u);
    // The probe sees each frame just stamped: 1 record at the sender's leaf, 2 at a spine, 3
    // at the receiver's leaf (a path within one leaf stops at 1).
    EXPECT_EQ(f.maxHopCount, 3u);
    EXPECT_GT(f.byHopCount.at(1), 0u);
    EXPECT_GT(f.byHopCount.at(2), 0u);
    EXPECT_GT(f.byHopCount.at(3), 0u);
    EXPECT_TRUE(o.summary["conservation_ok"].get<bool>());
}

} // namespace
} // namespace test
} // namespace ns3
