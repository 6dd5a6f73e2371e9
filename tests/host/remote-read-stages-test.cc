// The host interface stages of one remote 64 B read (docs/models.md#remote-read-stages;
// Datacenter networks, chapter 7, §7.3.3), at packet level on two hosts joined by one cable of
// one-way delay L, 400 Gb/s, no wire overhead (a frame of b bytes takes 20·b ps).
//
// Derived by hand from the chapter's table (ns): the stages the request crosses before its
// frame leaves (submit), four NIC pipeline passes (requester TX, target RX, target TX,
// requester RX: P each, cycles / 322 MHz to the nearest ps), the cable twice, the target's
// memory access, and the completion stages; plus what the table leaves out: the serialization
// of the request frame and of the response frame (one cable, no switch: nothing else).
//
//   PCIe NIC (RoCE READ):  submit 50 + 30 + 150 + 500 + 50 = 780, P = 9 cycles = 27 950 ps,
//                          memory 500 + 30 = 530, completion 250 + 250 + 70 + 30 = 600;
//                          frames 74 B (BTH + RETH) and 126 B (BTH + AETH + 64 B):
//                          T = 780 + 4·27.95 + 530 + 600 + 2L + 1.48 + 2.52
//                            = 2021.8 + 2L + 4.0 ns            (the chapter: 2022 + 2L)
//   NIC processor (4th):   the same without doorbell and descriptor DMA: 1371.8 + 2L + 4.0
//   UB URMA (UB READ):     submit 50 + 30 + 30 = 110, P = 25 cycles = 77 640 ps, memory 30 + 30,
//                          completion 30 + 5 + 30 = 65; frames 66 B and 130 B:
//                          T = 110 + 4·77.64 + 60 + 65 + 2L + 1.32 + 2.6
//                            = 545.56 + 2L + 3.92 ns           (the chapter: 546 + 2L)
//   UB Load (verb: load):  submit 30, P = 8 cycles = 24 845 ps, memory 60, completion 30:
//                          T = 30 + 4·24.845 + 60 + 30 + 2L + 3.92
//                            = 219.38 + 2L + 3.92 ns           (the chapter: 219 + 2L)

#include "../fabric-sim-util.h"
#include "host/frequency.h"
#include "host/host-path.h"
#include "roce/rdma-nic.h"
#include "ub/ub-nic.h"

#include "ns3/uinteger.h"

#include <functional>

namespace ns3
{
namespace test
{
namespace
{

const DataRate kRate("400Gbps");

/// Two hosts, one cable of one-way delay \p cable.
TopologySpec
TwoHosts(Time cable)
{
    TopologySpec spec;
    spec.source = "test";
    spec.nodes = {{"h0", false, "host", -1}, {"h1", false, "host", -1}};
    TopologyLink link;
    link.a = 0;
    link.b = 1;
    link.rate = kRate;
    link.delay = cable;
    spec.links = {link};
    return spec;
}

struct Path
{
    const char* preset;
    const char* nic; ///< ns3::RdmaNic or ns3::UbNic
    RdmaVerb verb;
    int64_t fixedPs; ///< the derived total without 2L
};

// Derived above, in ps (serialization of both frames included).
const Path kPcie{"pcie", "ns3::RdmaNic", RdmaVerb::READ, 2021800 + 4000};
const Path kNicCpu{"pcie_nic_cpu", "ns3::RdmaNic", RdmaVerb::READ, 1371800 + 4000};
const Path kOnChip{"onchip", "ns3::UbNic", RdmaVerb::READ, 545560 + 3920};
const Path kLoad{"load", "ns3::UbNic", RdmaVerb::LOAD, 219380 + 3920};

class RemoteReadStages : public SimTest
{
  protected:
    void SetUp() override
    {
        SimTest::SetUp();
        Set("ns3::FabricNetDevice::WireOverhead", "0");
        Set("ns3::UbNic::CongestionControl", "ns3::UbFixedWindow");
    }

    /// Sets every stage attribute of \p path's NIC type to its preset.
    static void Preset(const Path& path)
    {
        for (const HostPathPreset& p : HostPathPresets())
        {
            if (p.name == path.preset)
            {
                for (const auto& [attribute, value] : p.values)
                {
                    Set(std::string(path.nic) + "::" + attribute, value);
                }
            }
        }
    }

    /// Builds the two hosts with \p path's NICs; \p reads 64 B reads of h1 by h0, posted at 0
    /// (\p chained: each posted when the one before it has completed). Returns their records.
    std::vector<FlowRecord> Run(const Path& path, Time cable, uint32_t reads, bool chained)
    {
        Preset(path);
        FabricNetwork net = FabricNetwork::Build(TwoHosts(cable), 0, 0);
        ObjectFactory factory(path.nic);
        std::vector<Ptr<NicTransport>> nics;
        for (uint32_t h = 0; h < 2; ++h)
        {
            nics.push_back(factory.Create<NicTransport>());
            nics.back()->Install(net.GetHost(h));
        }
        Ptr<FlowTable> table = net.GetFlowTable();
        for (uint32_t i = 0; i < reads; ++i)
        {
            FlowRecord rec;
            rec.src = 0;
            rec.dst = 1;
            rec.bytes = 64;
            rec.priority = 3;
            rec.entropy = 49153;
            rec.verb = path.verb;
            table->Add(rec);
        }
        if (chained)
        {
            // The next read's address is in this one's data: software posts it on completion.
            table->AddFlowFinishedCallback(Callback<void, uint32_t>([&](uint32_t id) {
                if (id + 1 < reads)
                {
                    table->Get(id + 1).start = Simulator::Now();
                    nics[0]->StartFlowAt(id + 1);
                }
            }));
            nics[0]->StartFlowAt(0);
        }
        else
        {
            for (uint32_t i = 0; i < reads; ++i)
            {
                nics[0]->StartFlowAt(i);
            }
        }
        Simulator::Run();
        std::vector<FlowRecord> out(table->All().begin(), table->All().end());
        Simulator::Destroy();
        return out;
    }

    /// Completion time of one read of \p path over a cable of \p cable.
    int64_t OneRead(const Path& path, Time cable)
    {
        std::vector<FlowRecord> f = Run(path, cable, 1, false);
        EXPECT_TRUE(f[0].finished);
        EXPECT_EQ(f[0].deliveredBytes, 64u);
        return f[0].finish.GetPicoSeconds();
    }

    /// One RoCE flow of \p bytes by \p verb from h0 to h1 over a 100 ns cable, with the
    /// attribute defaults set so far; \p beforeRun sees h0's NIC before the run. Returns the
    /// flow's record.
    static FlowRecord OneRoceFlow(uint64_t bytes,
                                  RdmaVerb verb,
                                  const std::function<void(RdmaNic&)>& beforeRun = {})
    {
        FabricNetwork net = FabricNetwork::Build(TwoHosts(NanoSeconds(100)), 0, 0);
        Ptr<RdmaNic> a = CreateObject<RdmaNic>();
        Ptr<RdmaNic> b = CreateObject<RdmaNic>();
        a->Install(net.GetHost(0));
        b->Install(net.GetHost(1));
        if (beforeRun)
        {
            beforeRun(*a);
        }
        FlowRecord rec;
        rec.src = 0;
        rec.dst = 1;
        rec.bytes = bytes;
        rec.verb = verb;
        uint32_t id = net.GetFlowTable()->Add(rec);
        a->StartFlowAt(id);
        Simulator::Run();
        return net.GetFlowTable()->Get(id);
    }
};

TEST_F(RemoteReadStages, PipelineCyclesRoundOncePerPass)
{
    // 9, 25 and 8 cycles at 322 MHz: 27.950 31, 77.639 75, 24.844 72 ns.
    Frequency clock(322000000);
    EXPECT_EQ(clock.Cycles(9), PicoSeconds(27950));
    EXPECT_EQ(clock.Cycles(25), PicoSeconds(77640));
    EXPECT_EQ(clock.Cycles(8), PicoSeconds(24845));
    Frequency parsed;
    ASSERT_TRUE(Frequency::Parse("1.5GHz", &parsed));
    EXPECT_EQ(parsed.GetHertz(), 1500000000u);
    EXPECT_FALSE(Frequency::Parse("322", &parsed));
    EXPECT_FALSE(Frequency::Parse("322 MHz", &parsed));
    EXPECT_FALSE(Frequency::Parse("-1MHz", &parsed));
}

TEST_F(RemoteReadStages, PresetsSumToTheChaptersTotals)
{
    // Without the cable and the frames: 2221.8, 1571.8, 745.56 and 419.38 ns at L = 100 ns.
    const std::pair<Path, int64_t> rows[] = {{kPcie, 2221800},
                                             {kNicCpu, 1571800},
                                             {kOnChip, 745560},
                                             {kLoad, 419380}};
    for (const auto& [path, total] : rows)
    {
        SCOPED_TRACE(path.preset);
        Preset(path);
        ObjectFactory factory(path.nic);
        Ptr<NicTransport> nic = factory.Create<NicTransport>();
        HostPathStages s = nic->GetHostPath();
        bool dataBack = true;
        EXPECT_EQ((s.Submit() + 4 * s.pipeline + s.TargetMemory() + s.Completion(dataBack) +
                   NanoSeconds(200))
                      .GetPicoSeconds(),
                  total);
        Config::Reset();
    }
}

TEST_F(RemoteReadStages, OneReadPerPathEqualsTheDerivedSum)
{
    for (const Path& path : {kPcie, kNicCpu, kOnChip, kLoad})
    {
        SCOPED_TRACE(path.preset);
        EXPECT_EQ(OneRead(path, NanoSeconds(100)), path.fixedPs + 200000);
        Config::Reset();
        SetUp();
    }
}

TEST_F(RemoteReadStages, EveryStageIsWhereItHappens)
{
    // The PCIe read's boundaries: it reaches the NIC after the submission stages, the target
    // executes it one frame, two pipeline passes and the cable later, and the NIC has the data
    // 530 ns of memory access, the response frame, two passes and the cable after that; the
    // application hears of it 600 ns later.
    std::vector<FlowRecord> f = Run(kPcie, NanoSeconds(100), 1, false);
    ASSERT_TRUE(f[0].finished);
    EXPECT_TRUE(f[0].stagesTraced);
    EXPECT_EQ(f[0].submitted, NanoSeconds(780));
    EXPECT_EQ(f[0].launch, NanoSeconds(780));
    EXPECT_EQ(f[0].answered.GetPicoSeconds(), 780000 + 1480 + 4 * 27950 + 200000 + 530000 + 2520);
    EXPECT_EQ(f[0].finish - f[0].answered, NanoSeconds(600));
}

TEST_F(RemoteReadStages, TotalsGrowByTwiceTheCable)
{
    // Slope 2: the read crosses the cable once each way; nothing else depends on L.
    for (const Path& path : {kPcie, kOnChip, kLoad})
    {
        SCOPED_TRACE(path.preset);
        int64_t at50 = OneRead(path, NanoSeconds(50));
        Config::Reset();
        SetUp();
        int64_t at500 = OneRead(path, NanoSeconds(500));
        Config::Reset();
        SetUp();
        EXPECT_EQ(at50, path.fixedPs + 100000);
        EXPECT_EQ(at500 - at50, 2 * 450000);
    }
}

TEST_F(RemoteReadStages, EightIndependentReadsOverlapEightDependentOnesDoNot)
{
    // Chapter: ~17.8 us one after another, ~2.2 us posted together. Together, the only
    // serialization is the NIC's request pipeline: read i launches i x 18.6 ns after the first
    // (RoCE RC RequestInterval), and its 74 B request and 126 B response frames never queue
    // (1.48 and 2.52 ns < 18.6 ns). One after another, each starts when the last completed:
    // exactly 8 single reads.
    const int64_t one = kPcie.fixedPs + 200000;
    std::vector<FlowRecord> together = Run(kPcie, NanoSeconds(100), 8, false);
    Config::Reset();
    SetUp();
    for (uint32_t i = 0; i < 8; ++i)
    {
        ASSERT_TRUE(together[i].finished);
        EXPECT_EQ(together[i].finish.GetPicoSeconds(), one + i * 18600) << i;
    }
    std::vector<FlowRecord> chained = Run(kPcie, NanoSeconds(100), 8, true);
    ASSERT_TRUE(chained[7].finished);
    EXPECT_EQ(chained[7].finish.GetPicoSeconds(), 8 * one);
    double ratio = double(8 * one) / double(one + 7 * 18600);
    EXPECT_GT(ratio, 7.5);
    EXPECT_LT(ratio, 8.0);
}

TEST_F(RemoteReadStages, PipelinesDelayFramesWithoutSlowingThePort)
{
    // Only the pipelines (25 cycles = 77 640 ps per pass): a 64 KiB RoCE write of 16 packets
    // of 4096 B (4154 B frames, 83 080 ps each; the first also carries the 16 B RETH: 83 400
    // ps) leaves back to back at line rate; its last packet reaches h1 2P after the cable,
    // whose ACK (62 B) returns 2P after the cable.
    //   T = 83 400 + 15 × 83 080 + 2P + L + 1 240 + 2P + L
    // A pipeline that held the port for P per frame would add 16 P instead of 4 P.
    Set("ns3::RdmaNic::PipelineCycles", "25");
    FlowRecord f = OneRoceFlow(16 * 4096, RdmaVerb::WRITE);
    ASSERT_TRUE(f.finished);
    const int64_t frames = 83400 + 15 * 83080;
    EXPECT_EQ(f.finish.GetPicoSeconds(), frames + 4 * 77640 + 200000 + 1240);
    // The last data frame arrived 2P after it crossed the cable: what the receiver saw.
    EXPECT_EQ(f.lastRx.GetPicoSeconds(), frames + 2 * 77640 + 100000);
}

TEST_F(RemoteReadStages, AWriteSkipsTheReadOnlyStages)
{
    // The pcie placement for a 64 B RoCE WRITE: no target memory read, no payload written back;
    // the completion is the ACK's: DMA write 250 + CQ poll 70 + library poll 30 = 350 ns.
    // Frames: 138 B (BTH + RETH + 64 B) and the 62 B ACK: 2 760 + 1 240 ps.
    //   T = 780 + 4 × 27.95 + 200 + 350 + 4.0 = 1445.8 ns
    Preset(kPcie);
    FlowRecord f = OneRoceFlow(64, RdmaVerb::WRITE);
    ASSERT_TRUE(f.finished);
    EXPECT_EQ(f.finish.GetPicoSeconds(), 1445800);
}

TEST_F(RemoteReadStages, MemoryLatencyStillAddsAtTheTarget)
{
    // ub.memory_latency comes on top of the host path's target bus and DRAM access.
    Set("ns3::UbNic::MemoryLatency", "100ns");
    EXPECT_EQ(OneRead(kOnChip, NanoSeconds(100)), kOnChip.fixedPs + 200000 + 100000);
}

TEST_F(RemoteReadStages, WithoutAHostPathNothingChanges)
{
    // Every stage 0 (the default): the NIC records no stage times and the pipelines add
    // nothing; a read is its two frames and the cable twice.
    Set("ns3::FabricNetDevice::WireOverhead", "0");
    FlowRecord f = OneRoceFlow(64, RdmaVerb::READ, [](RdmaNic& requester) {
        EXPECT_FALSE(requester.GetHostPath().Any());
    });
    EXPECT_FALSE(f.stagesTraced);
    EXPECT_EQ(f.finish.GetPicoSeconds(), 1480 + 2520 + 200000);
}

} // namespace
} // namespace test
} // namespace ns3
