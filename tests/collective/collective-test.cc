// Collectives on the rail cluster (docs/models.md#hierarchical-allreduce), in-process simulations:
//   - every algorithm's per-rank and inter-server payload bytes equal the closed forms derived
//     here from p, S, G and M;
//   - every algorithm leaves every rank with the exact sum of all ranks' values;
//   - pairing i<->i+8 keeps the hierarchical inter-server stage off the spines, i<->i+9 sends
//     all of it through them; a failed NIC carries nothing and its bytes go through its helpers;
//   - readiness skew shifts completion by exactly the skew on an idle network;
//   - bad collective sections are ConfigErrors naming file, line and key.

#include "../fabric-sim-util.h"
#include "collective/collective-engine.h"
#include "collective/sharp-service.h"
#include "config/config-collective.h"
#include "config/config-error.h"
#include "config/yaml-fields.h"
#include "host/host-transport.h"
#include "run/collective-setup.h"
#include "switch/fabric-switch.h"
#include "switch/sharp-aggregator.h"

#include "ns3/object-factory.h"

#include <algorithm>
#include <functional>
#include <gtest/gtest.h>
#include <string>
#include <vector>

namespace ns3
{
namespace
{

constexpr uint32_t kMtu = 4096;

uint32_t g_completeReports = 0; ///< CollectiveEngine complete callbacks in the current run

void
CountCompleteReport()
{
    ++g_completeReports;
}

struct CollectiveRun
{
    uint32_t completeReports = 0; ///< times the engine reported the collective complete
    Ptr<CollectiveEngine> engine;
    CollectiveBytes bytes;
    CollectiveConfig cfg;
    bool flowsDone = false;
    uint64_t frames = 0; ///< data frames of the collective's flows
    std::map<std::string, Ptr<SharpAggregator>> aggregators;
    Ptr<SharpService> sharp;
};

class CollectiveTest : public test::SimTest
{
  protected:
    /// Runs the collective section \p yaml (without the "collective:" key) on a rail fabric.
    /// \p before runs on the built network before the simulation starts (e.g. a link failure).
    CollectiveRun Run(const RailParams& rail,
                      const std::string& yaml,
                      std::function<void(FabricNetwork&)> before = {})
    {
        Set("ns3::RdmaNic::Mtu", std::to_string(kMtu));
        Set("ns3::FabricHost::Mtu", std::to_string(kMtu));
        Set("ns3::RdmaNic::RequestInterval", "0ns");
        TopologySpec spec = MakeRail(rail);
        CollectiveRun run;
        YAML::Node node = YAML::Load(yaml);
        YamlFields fields(node, "test.yaml", "collective");
        std::vector<std::pair<std::string, std::string>> attrs;
        run.cfg = ParseCollective(fields, spec, "roce", attrs);
        for (const auto& [k, v] : attrs)
        {
            Set(k, v);
        }
        FabricNetwork net = FabricNetwork::Build(spec, 0, 0);
        std::vector<Ptr<HostTransport>> nics = test::InstallNics(net, "ns3::RdmaNic");
        run.engine = SetupCollective(run.cfg, net, nics, 1);
        g_completeReports = 0;
        run.engine->SetCompleteCallback(MakeCallback(&CountCompleteReport));
        net.GetFlowTable()->SetAllFinishedCallback(
            MakeCallback(static_cast<void (*)()>(&Simulator::Stop)));
        if (before)
        {
            before(net);
        }
        Simulator::Stop(Seconds(1));
        Simulator::Run();
        run.bytes = CountCollectiveBytes(*run.engine, net);
        for (uint32_t n = 0; n < spec.nodes.size(); ++n)
        {
            if (net.GetSwitch(n) && net.GetSwitch(n)->GetReceiveHook<SharpAggregator>())
            {
                run.aggregators[spec.nodes[n].name] =
                    net.GetSwitch(n)->GetReceiveHook<SharpAggregator>();
            }
        }
        run.sharp = DynamicCast<SharpService>(run.engine->GetSharpService());
        run.completeReports = g_completeReports;
        run.flowsDone = net.GetFlowTable()->GetFinishedCount() == net.GetFlowTable()->GetN();
        for (const FlowRecord& f : net.GetFlowTable()->All())
        {
            run.frames += (f.bytes + kMtu - 1) / kMtu;
        }
        return run;
    }

    static RailParams Rail(uint32_t servers, uint32_t gpus)
    {
        RailParams p;
        p.servers = servers;
        p.gpusPerServer = gpus;
        return p;
    }

    static void ExpectExactSum(const CollectiveRun& run)
    {
        ASSERT_TRUE(run.engine->IsComplete());
        EXPECT_EQ(run.completeReports, 1u); // once, even when the last transfer ends a JOIN
        EXPECT_TRUE(run.flowsDone);
        EXPECT_TRUE(run.engine->ValuesChecked());
        EXPECT_EQ(run.engine->CheckValues(), "");
        // And directly: element e of every rank = sum over ranks of the initial values.
        const uint32_t p = run.engine->Plan().Job().ranks;
        for (uint32_t e : {0u, 7u, 100u})
        {
            float sum = 0;
            for (uint32_t r = 0; r < p; ++r)
            {
                sum += CollectiveEngine::InitialValue(r, e);
            }
            for (uint32_t r = 0; r < p; ++r)
            {
                EXPECT_EQ(run.engine->Values(r)[e], sum) << "rank " << r << " element " << e;
            }
        }
    }
};

TEST_F(CollectiveTest, RingSendsTwoPMinusOneOverPTimesMPerRank)
{
    const uint32_t S = 2;
    const uint32_t G = 8;
    const uint32_t p = S * G;
    const uint64_t M = 16 * 32 * 1024; // 512 KiB: chunks of 32 KiB
    for (const char* algo : {"ring", "interleaved-ring"})
    {
        SCOPED_TRACE(algo);
        Simulator::Destroy();
        CollectiveRun run =
            Run(Rail(S, G),
                std::string("{algorithm: ") + algo + ", message: " + std::to_string(M) + "B}");
        ExpectExactSum(run);
        for (uint32_t r = 0; r < p; ++r)
        {
            EXPECT_EQ(run.bytes.sentPayloadPerRank[r], 2 * (p - 1) * M / p) << "rank " << r;
        }
        // Ring edges that cross servers: flat 0..15 has two (7->8, 15->0); interleaved
        // 0,8,1,9,... has all p. Each edge carries 2(p-1) chunks of M/p.
        uint64_t crossing = std::string(algo) == "ring" ? S : p;
        EXPECT_EQ(run.bytes.interServerPayload, crossing * 2 * (p - 1) * (M / p));
        EXPECT_EQ(run.bytes.intraServerPayload, (p - crossing) * 2 * (p - 1) * (M / p));
    }
}

TEST_F(CollectiveTest, HierarchicalInterServerBytesPerNicAreTwoSMinusOneOverSTimesMOverG)
{
    const uint64_t M = 96 * 1024; // divisible by G * S for every case below
    for (auto [S, G] : {std::pair<uint32_t, uint32_t>{2, 8}, {4, 4}, {3, 2}})
    {
        SCOPED_TRACE("S=" + std::to_string(S) + " G=" + std::to_string(G));
        Simulator::Destroy();
        Config::Reset();
        CollectiveRun run =
            Run(Rail(S, G), "{algorithm: hierarchical, message: " + std::to_string(M) + "B}");
        ExpectExactSum(run);
        const uint32_t p = S * G;
        for (uint32_t r = 0; r < p; ++r)
        {
            EXPECT_EQ(run.bytes.interServerPerRank[r], 2 * (S - 1) * (M / G) / S) << r;
            // NVLink: ReduceScatter and AllGather over G GPUs, (G-1) chunks of M/G each.
            EXPECT_EQ(run.bytes.sentPayloadPerRank[r] - run.bytes.interServerPerRank[r],
                      2 * (G - 1) * (M / G))
                << r;
        }
        EXPECT_EQ(run.bytes.interServerPayload, p * 2 * (S - 1) * (M / G) / S);
        // Pairing i<->i+G: every inter-server transfer stays on its rail leaf.
        EXPECT_EQ(run.bytes.spineTxBytes, 0u);
    }
}

TEST_F(CollectiveTest, DirectAllReduceIsExactAndSendsTwoPMinusOneOverPTimesM)
{
    const uint32_t S = 2;
    const uint32_t G = 4;
    const uint32_t p = S * G;
    const uint64_t M = p * 16 * 1024;
    CollectiveRun run = Run(Rail(S, G), "{algorithm: direct, message: " + std::to_string(M) + "B}");
    ExpectExactSum(run);
    for (uint32_t r = 0; r < p; ++r)
    {
        EXPECT_EQ(run.bytes.sentPayloadPerRank[r], 2 * (p - 1) * M / p);
        // Of the p-1 owners (and p-1 receivers of its chunk) G are on the other server.
        EXPECT_EQ(run.bytes.interServerPerRank[r], 2 * (S - 1) * G * (M / p));
    }
}

TEST_F(CollectiveTest, PairingIPlus8KeepsSpinesIdleAndIPlus9SendsEverythingThroughThem)
{
    const uint32_t G = 8;
    const uint64_t M = G * 64 * 1024;
    for (const char* pairing : {"i+8", "i+9", "(i+4)%8+8"})
    {
        SCOPED_TRACE(pairing);
        Simulator::Destroy();
        Config::Reset();
        CollectiveRun run = Run(Rail(2, G),
                                std::string("{algorithm: hierarchical, pairing: '") + pairing +
                                    "', message: " + std::to_string(M) + "B}");
        ExpectExactSum(run);
        const uint64_t inter = run.bytes.interServerPayload;
        ASSERT_EQ(inter, 2 * G * (M / G) / 2 * 2); // p ranks x 2(S-1)/S x M/G, S = 2
        if (std::string(pairing) == "i+8")
        {
            EXPECT_EQ(run.bytes.spineTxBytes, 0u);
        }
        else
        {
            // Every inter-server packet crosses exactly one spine (leaf -> spine -> leaf): the
            // spines send at least the payload, and no more than its frames' headers and ACKs.
            EXPECT_GE(run.bytes.spineTxBytes, inter);
            EXPECT_LE(run.bytes.spineTxBytes, inter + run.frames * 2 * 128);
        }
    }
}

TEST_F(CollectiveTest, FailedNicCarriesNothingAndItsHelpersCarryItsShare)
{
    const uint32_t G = 8;
    const uint64_t M = G * 2 * 64 * 1024;
    const std::string base = "{algorithm: hierarchical, message: " + std::to_string(M) + "B";
    CollectiveRun healthy = Run(Rail(2, G), base + "}");
    Simulator::Destroy();
    Config::Reset();
    CollectiveRun failed =
        Run(Rail(2, G),
            base + ", nic_failures: [{rank: 11, helpers: [10, 12], shares: [0.5, 0.5]}]}");
    ExpectExactSum(failed);
    // gpu1_3's NIC sends nothing (its share left over NVLink); every other NIC is busy.
    EXPECT_EQ(failed.bytes.nicTxBytes.at("gpu1_3"), 0u);
    EXPECT_GT(healthy.bytes.nicTxBytes.at("gpu1_3"), 0u);
    // Rank 11's inter-server bytes now leave from ranks 10 and 12, half each; rank 3's are
    // received at 10 and 12's NICs instead, so the total inter-server payload is unchanged.
    const uint64_t share = healthy.bytes.interServerPerRank[11];
    EXPECT_EQ(failed.bytes.interServerPerRank[11], 0u);
    EXPECT_EQ(failed.bytes.interServerPerRank[10],
              healthy.bytes.interServerPerRank[10] + share / 2);
    EXPECT_EQ(failed.bytes.interServerPerRank[12],
              healthy.bytes.interServerPerRank[12] + share / 2);
    EXPECT_EQ(failed.bytes.interServerPayload, healthy.bytes.interServerPayload);
    // ... and receives nothing: rank 3's bytes for rank 11 arrive at the helpers' NICs.
    EXPECT_EQ(failed.bytes.nicRxBytes.at("gpu1_3"), 0u);
    EXPECT_GT(healthy.bytes.nicRxBytes.at("gpu1_3"), 0u);
}

// A failed NIC's transfers are relayed: the original becomes a JOIN of its relay hops, completed
// from inside the last hop's completion. When that JOIN is the collective's last transfer the
// engine must still report the collective complete once (ExpectExactSum checks the count).
TEST_F(CollectiveTest, RelayedLastTransferReportsCompletionOnce)
{
    CollectiveRun run = Run(Rail(2, 2),
                            "{algorithm: direct, message: 64KiB, "
                            "nic_failures: [{rank: 3, helpers: [2]}]}");
    ExpectExactSum(run);
    // The last transfer to end is a JOIN (a relayed transfer's), or the test proves nothing.
    const auto& transfers = run.engine->Plan().Transfers();
    bool joinEndsLast = false;
    for (uint32_t id = 0; id < transfers.size(); ++id)
    {
        joinEndsLast |=
            transfers[id].join && run.engine->States()[id].end == run.engine->CompletionTime();
    }
    EXPECT_TRUE(joinEndsLast);
}

TEST_F(CollectiveTest, ReadinessSkewShiftsCompletionByExactlyTheSkewOnAnIdleNetwork)
{
    // Two ranks on two servers (over their NICs): every transfer involves the late rank, so the
    // network stays idle until it is ready and the whole collective is translated in time.
    const Time skew = MicroSeconds(37);
    for (const char* algo : {"ring", "direct", "hierarchical"})
    {
        SCOPED_TRACE(algo);
        const std::string base = std::string("{algorithm: ") + algo + ", message: 256KiB";
        Simulator::Destroy();
        Config::Reset();
        CollectiveRun idle = Run(Rail(2, 1), base + "}");
        ASSERT_TRUE(idle.engine->IsComplete());
        Simulator::Destroy();
        Config::Reset();
        CollectiveRun late = Run(Rail(2, 1), base + ", readiness: [{rank: 1, at: 37us}]}");
        ExpectExactSum(late);
        EXPECT_EQ(late.engine->CompletionTime(), idle.engine->CompletionTime() + skew);
        std::vector<int64_t> path = late.engine->CriticalPath();
        ASSERT_FALSE(path.empty());
        EXPECT_EQ(path.back(), -1 - 1); // the critical path starts at rank 1's readiness
    }
}

TEST_F(CollectiveTest, ReadinessSkewInARingDelaysCompletionByTheSkewPlusAtMostAckJitter)
{
    // Eight GPUs of one server in a ring over NVLink: the ranks not waiting for rank 5 run
    // ahead, so only the chains through rank 5 are shifted; ACKs then meet data frames at other
    // moments on the shared GPU ports (a few ns). The step's critical path starts at rank 5.
    const uint64_t M = 8 * 32 * 1024;
    const std::string base = "{algorithm: ring, message: " + std::to_string(M) + "B";
    CollectiveRun idle = Run(Rail(1, 8), base + "}");
    ASSERT_TRUE(idle.engine->IsComplete());
    const Time skew = MicroSeconds(37);
    Simulator::Destroy();
    Config::Reset();
    CollectiveRun late = Run(Rail(1, 8), base + ", readiness: [{rank: 5, at: 37us}]}");
    ExpectExactSum(late);
    Time shift = late.engine->CompletionTime() - idle.engine->CompletionTime();
    EXPECT_GE(shift, skew);
    EXPECT_LE(shift, skew + NanoSeconds(100));
    std::vector<int64_t> path = late.engine->CriticalPath();
    ASSERT_FALSE(path.empty());
    EXPECT_EQ(path.back(), -1 - 5);
}

TEST_F(CollectiveTest, SharpSendsEachChunkOncePerNicAndEveryRankGetsTheExactSum)
{
    const uint32_t S = 2;
    const uint32_t G = 4;
    const uint32_t P = 4096;          // SharpHostAgent::PacketPayload
    const uint64_t M = 10 * P + 1000; // a short last packet
    const uint64_t packets = (M + P - 1) / P;
    CollectiveRun run = Run(Rail(S, G), "{algorithm: sharp, message: " + std::to_string(M) + "B}");
    ExpectExactSum(run);
    ASSERT_TRUE(run.sharp);
    EXPECT_EQ(run.sharp->GetRetransmittedFrames(), 0u);
    for (uint32_t r = 0; r < S * G; ++r)
    {
        EXPECT_EQ(run.sharp->GetContribFramesSent(r), packets);
        EXPECT_EQ(run.sharp->GetContribPayloadSent(r), M);
        // On the wire: each chunk once (M payload in `packets` frames) plus one ACK per result.
        std::string host = "gpu" + std::to_string(r / G) + "_" + std::to_string(r % G);
        EXPECT_EQ(run.bytes.nicTxBytes.at(host),
                  M + packets * SharpHeader::FrameBytes(0) + packets * SharpHeader::FrameBytes(0));
        // and receives the reduced M once.
        EXPECT_EQ(run.bytes.nicRxBytes.at(host), M + packets * SharpHeader::FrameBytes(0));
    }
    // Tree: each rail leaf reduces its S members and sends one partial up; the root (a spine)
    // reduces the G leaves' partials.
    uint64_t leafContribs = 0;
    uint64_t rootContribs = 0;
    for (const auto& [name, agg] : run.aggregators)
    {
        EXPECT_EQ(agg->GetDuplicates(), 0u) << name;
        (name.find("spine") == 0 ? rootContribs : leafContribs) += agg->GetContributions();
    }
    EXPECT_EQ(leafContribs, S * G * packets);
    EXPECT_EQ(rootContribs, G * packets);
}

TEST_F(CollectiveTest, SharpWithNvlinkStagesIsExactAndReducesPerRail)
{
    const uint32_t S = 3;
    const uint32_t G = 4;
    const uint64_t M = G * 3 * 4096;
    CollectiveRun run = Run(Rail(S, G),
                            "{algorithm: sharp, message: " + std::to_string(M) +
                                "B, sharp: {nvlink_stages: true}}");
    ExpectExactSum(run);
    for (uint32_t r = 0; r < S * G; ++r)
    {
        EXPECT_EQ(run.sharp->GetContribPayloadSent(r), M / G); // its shard, once
        EXPECT_EQ(run.bytes.sentPayloadPerRank[r] - M / G, 2 * (G - 1) * (M / G)); // NVLink
    }
    EXPECT_EQ(run.bytes.spineTxBytes, 0u); // one tree per rail: its leaf is the root
    EXPECT_EQ(run.aggregators.size(), G);
}

TEST_F(CollectiveTest, SharpRecoversLostFramesByMemberRetransmission)
{
    Set("ns3::FabricNetDevice::LossRate", "0.03");
    Set("ns3::SharpHostAgent::RetransmitTimeout", "20us");
    CollectiveRun run = Run(Rail(2, 4), "{algorithm: sharp, message: 160KiB}");
    ExpectExactSum(run);
    EXPECT_GT(run.sharp->GetRetransmittedFrames(), 0u);
    uint64_t duplicates = 0;
    for (const auto& [name, agg] : run.aggregators)
    {
        duplicates += agg->GetDuplicates();
    }
    EXPECT_GT(duplicates, 0u);
    for (uint32_t r = 0; r < 8; ++r)
    {
        EXPECT_EQ(run.sharp->GetContribPayloadSent(r), 160u * 1024); // first transmissions
    }
}

// A member's NIC link is down from the start: its leaf never completes a packet, so no member
// ever gets a RESULT. Each member paces its 10 contributions (10 frame times tx), then every
// round waits RetransmitTimeout T after its last frame and resends all 10: after RetryLimit = 7
// rounds the 8th timeout gives up, at start + 8 (T + 10 tx). Every member fails (nothing is
// left to simulate after that) and the collective says why.
TEST_F(CollectiveTest, SharpGivesUpAfterRetryLimitRoundsWhenTheTreeLostAMember)
{
    const Time T = MicroSeconds(20);
    Set("ns3::SharpHostAgent::RetransmitTimeout", "20us");
    const uint32_t packets = 10;
    CollectiveRun run = Run(Rail(2, 4),
                            "{algorithm: sharp, message: " + std::to_string(packets * 4096) + "B}",
                            [](FabricNetwork& net) {
                                for (uint32_t l = 0; l < net.Spec().links.size(); ++l)
                                {
                                    const TopologyLink& link = net.Spec().links[l];
                                    if (net.Spec().nodes[link.a].name == "gpu0_1" &&
                                        net.Spec().nodes[link.b].name.rfind("g0-rail", 0) == 0)
                                    {
                                        net.SetLinkUp(l, false);
                                    }
                                }
                            });
    ASSERT_TRUE(run.sharp);
    EXPECT_FALSE(run.engine->IsComplete());
    EXPECT_EQ(run.sharp->GetFailedReductions(), 8u);
    EXPECT_EQ(run.sharp->GetRetransmittedFrames(), 8u * 7 * packets);
    EXPECT_NE(run.engine->CheckValues().find("still missed 10 of 10 results after 7 "
                                             "retransmission rounds"),
              std::string::npos)
        << run.engine->CheckValues();
    const Time tx = DataRate("400Gbps").CalculateBytesTxTime(SharpHeader::FrameBytes(4096) + 24);
    Time start = Time::Max();
    for (const auto& s : run.engine->States())
    {
        if (s.start >= Time(0)) // started; the reductions all start together
        {
            start = std::min(start, s.start);
        }
    }
    EXPECT_EQ(run.sharp->GetLastFailureTime(), start + 8 * (T + packets * tx));
}

TEST_F(CollectiveTest, SharpFullBufferHoldsContributionsAndTheSwitchCanBeTheBottleneck)
{
    const uint32_t S = 4;
    const uint64_t M = 64 * 4096;
    // Two packets of buffer per switch: contributions wait (lossless) and still sum exactly.
    Set("ns3::SharpAggregator::BufferSize", "8192B");
    CollectiveRun small =
        Run(Rail(S, 1), "{algorithm: sharp, message: " + std::to_string(M) + "B}");
    ExpectExactSum(small);
    ASSERT_EQ(small.aggregators.size(), 1u); // one rail: its leaf is the whole tree
    Ptr<SharpAggregator> leaf = small.aggregators.begin()->second;
    EXPECT_GT(leaf->GetHeldFrames(), 0u);
    EXPECT_LE(leaf->GetPeakBufferBytes(), 8192u);
    // A slow reduction unit: S members x M bytes through it at 100 Gb/s bound the time.
    Simulator::Destroy();
    Config::Reset();
    Set("ns3::SharpAggregator::AggregationRate", "100Gbps");
    CollectiveRun slow = Run(Rail(S, 1), "{algorithm: sharp, message: " + std::to_string(M) + "B}");
    ExpectExactSum(slow);
    const double bound = S * (M / 4096) * SharpHeader::FrameBytes(4096) * 8 / 100e9;
    EXPECT_GE(slow.engine->CompletionTime().GetSeconds(), bound);
    EXPECT_LE(slow.engine->CompletionTime().GetSeconds(), bound * 1.1 + 5e-6);
}

TEST_F(CollectiveTest, BadSectionsAreConfigErrorsWithFileLineAndKey)
{
    TopologySpec spec = MakeRail(Rail(2, 8));
    std::vector<std::pair<std::string, std::string>> attrs;
    auto parse = [&](const std::string& text, const std::string& transport = "roce") {
        YAML::Node node = YAML::Load(text);
        YamlFields f(node, "job.yaml", "collective");
        return ParseCollective(f, spec, transport, attrs);
    };
    auto expectError = [&](const std::string& text, const std::string& key, int line) {
        try
        {
            parse(text);
            ADD_FAILURE() << "no error for " << text;
        }
        catch (const ConfigError& e)
        {
            EXPECT_EQ(e.File(), "job.yaml");
            EXPECT_EQ(e.Key(), key) << e.what();
            EXPECT_EQ(e.Line(), line) << e.what();
        }
    };
    expectError("algorithm: spiral\nmessage: 1MiB\n", "collective.algorithm", 1);
    expectError("algorithm: ring\nmessage: lots\n", "collective.message", 2);
    expectError("message: 1MiB\nranks: 99\n", "collective.ranks", 2);
    expectError("message: 1MiB\npairing: i+7\n", "collective.pairing", 2);
    expectError("message: 1MiB\nlaunch_cost: fast\n", "collective.launch_cost", 2);
    expectError("message: 1MiB\nnic_failures:\n  - {rank: 11, helpers: [2]}\n",
                "collective.nic_failures[0].helpers",
                3);
    expectError(
        "message: 1MiB\nnic_failures:\n  - {rank: 11, helpers: [10, 12], shares: [0.5, 0.6]}\n",
        "collective.nic_failures[0].shares",
        3);
    expectError("message: 1MiB\nreadiness: [{rank: 16, at: 1us}]\n",
                "collective.readiness[0].rank",
                2);
    expectError("message: 1MiB\nalgoritm: ring\n", "collective.algoritm", 2);
    EXPECT_THROW(parse("message: 1MiB\n", "raw"), ConfigError);
    // A good one: attributes in ns-3 form.
    attrs.clear();
    CollectiveConfig ok = parse("algorithm: hierarchical\nmessage: 192MiB\npairing: i+9\n"
                                "launch_cost: 2us\n");
    EXPECT_EQ(ok.hostOfRank.size(), 16u);
    EXPECT_EQ(ok.gpusPerServer, 8u);
    EXPECT_EQ(ok.serverOfRank[9], 1u);
    EXPECT_EQ(ok.localOfRank[9], 1u);
    EXPECT_NE(std::find(attrs.begin(),
                        attrs.end(),
                        std::make_pair(std::string("ns3::HierarchicalAllReduce::PairingOffset"),
                                       std::string("1"))),
              attrs.end());
}

} // namespace
} // namespace ns3
