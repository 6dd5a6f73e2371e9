// A collective transfer carried as requests through the NIC's request slots
// (CollectiveEngine::RequestSize; docs/models.md#job-timelines, "Datacenter networks",
// chapter 7, §7.6.2 with §7.3.4), in-process on a star h0 -> sw0 -> h1 (400 Gb/s, 100 ns
// cables, 24 B of wire overhead), RoCE, derived by hand:
//
//   one 256 B request (a WRITE-only frame: 256 B + 58 B of headers + 16 B RETH, stored
//   330 B, 354 B on the wire = 7.08 ns; its ACK 62 B, 86 B = 1.72 ns), stored once by the
//   switch, acknowledged over two links: T1 = 2 × 7.08 + 2 × 1.72 + 4 × 100 = 417.6 ns;
//
//   M = 64 KiB as K = 256 requests of m = 256 B, N = 16 slots, launches δ = 10 ns apart
//   (longer than a frame, so frames never queue), completions polled every P = 2 µs: a slot
//   is free only at the poll after its completion, so each batch of N launches at a poll
//   (k·P, the first at 0), ends (N − 1)·δ + T1 later, before the next poll, and the slots turn
//   around every P: N·m/P = 2.048 GB/s. The transfer ends at
//     (K/N − 1)·P + (N − 1)·δ + T1 = 15 × 2 µs + 150 ns + 417.6 ns = 30 567.6 ns
//   = M / (N·m/P) − P + (N − 1)·δ + T1;
//   with the slots unlimited the launches bind instead: (K − 1)·δ + T1 = 2 967.6 ns.

#include "../fabric-sim-util.h"
#include "collective/collective-engine.h"
#include "config/config-collective.h"
#include "config/yaml-fields.h"
#include "host/host-transport.h"

#include "ns3/object-factory.h"

#include <algorithm>
#include <gtest/gtest.h>
#include <string>
#include <vector>

namespace ns3
{
namespace
{

constexpr uint64_t kM = 64 * 1024; // one transfer
constexpr int64_t kT1Ps = 417600;  // one 256 B request, launch to completion

struct RequestRun
{
    Ptr<CollectiveEngine> engine;
    uint32_t flows = 0;
    uint32_t finished = 0;
    std::vector<uint64_t> bytes; ///< of each flow, in order
    Time end;
};

class CollectiveRequestsTest : public test::SimTest
{
  protected:
    /// One transfer of kM bytes rank 0 -> rank 1 (hosts 0 and 1, on servers \p servers).
    RequestRun Run(const std::string& requestSize,
                   const std::string& slots,
                   const std::vector<uint32_t>& servers = {0, 1})
    {
        Set("ns3::RdmaNic::RequestInterval", "10ns");
        Set("ns3::RdmaNic::MaxInflightRequests", slots);
        Set("ns3::RdmaNic::CompletionPollInterval", "2us");
        Set("ns3::RdmaNic::CompletionPollBatch", "16");
        Set("ns3::CollectiveEngine::RequestSize", requestSize);
        Set("ns3::CollectiveEngine::LaunchCost", "0ns");
        FabricNetwork net =
            FabricNetwork::Build(MakeStar(2, DataRate("400Gbps"), NanoSeconds(100)), 0, 0);
        std::vector<Ptr<HostTransport>> nics = test::InstallNics(net, "ns3::RdmaNic");
        CollectiveJob job;
        job.ranks = 2;
        job.gpusPerServer = servers[0] == servers[1] ? 2 : 1;
        job.serverOfRank = servers;
        job.localOfRank =
            servers[0] == servers[1] ? std::vector<uint32_t>{0, 1} : std::vector<uint32_t>{0, 0};
        job.messageBytes = kM;
        CollectivePlan plan(job);
        CollectiveTransfer t;
        t.src = 0;
        t.dst = 1;
        t.byteBegin = 0;
        t.byteEnd = kM;
        t.op = CollectiveOp::COPY;
        t.phase = "inter";
        plan.Add(t);
        RequestRun run;
        run.engine = CreateObject<CollectiveEngine>();
        run.engine->Configure(net.GetFlowTable(), nics, {0, 1}, 1);
        run.engine->SetPlan(plan);
        run.engine->SetCheckValues(false);
        run.engine->Start();
        net.GetFlowTable()->SetAllFinishedCallback(
            MakeCallback(static_cast<void (*)()>(&Simulator::Stop)));
        Simulator::Stop(MilliSeconds(1));
        Simulator::Run();
        run.flows = net.GetFlowTable()->GetN();
        run.finished = net.GetFlowTable()->GetFinishedCount();
        run.end = run.engine->CompletionTime();
        for (const FlowRecord& f : net.GetFlowTable()->All())
        {
            EXPECT_EQ(f.deliveredBytes, f.bytes);
            run.bytes.push_back(f.bytes);
        }
        return run;
    }
};

TEST_F(CollectiveRequestsTest, SixteenSlotsTurningAroundEveryPollCarryNmOverP)
{
    RequestRun run = Run("256B", "16");
    ASSERT_TRUE(run.engine->IsComplete());
    EXPECT_EQ(run.flows, 256u); // K = M / m requests, one slot each
    EXPECT_EQ(run.finished, 256u);
    const int64_t P = 2000000, delta = 10000; // ps
    // M / (N·m/P) − P + (N − 1)·δ + T1
    const int64_t derived = int64_t(kM) * P / (16 * 256) - P + 15 * delta + kT1Ps;
    EXPECT_EQ(derived, 30567600);
    EXPECT_EQ(run.end.GetPicoSeconds(), derived);
}

TEST_F(CollectiveRequestsTest, UnlimitedSlotsLeaveTheLaunchIntervalToBind)
{
    RequestRun run = Run("256B", "0");
    ASSERT_TRUE(run.engine->IsComplete());
    EXPECT_EQ(run.flows, 256u);
    EXPECT_EQ(run.end.GetPicoSeconds(), 255 * 10000 + kT1Ps); // (K − 1)·δ + T1
}

TEST_F(CollectiveRequestsTest, WholeMessageByDefaultAndWithinAServer)
{
    // RequestSize 0B: the transfer is one message (one slot), as before requests existed.
    RequestRun whole = Run("0B", "16");
    ASSERT_TRUE(whole.engine->IsComplete());
    EXPECT_EQ(whole.flows, 1u);
    EXPECT_EQ(whole.engine->GetRequestSize(), 0u);
    Simulator::Destroy();
    Config::Reset();
    // The two ranks on one server: not through the NICs' remote path, not split.
    RequestRun local = Run("256B", "16", {0, 0});
    ASSERT_TRUE(local.engine->IsComplete());
    EXPECT_EQ(local.flows, 1u);
    EXPECT_EQ(local.end, whole.end);
}

TEST_F(CollectiveRequestsTest, ALastShorterRequestCarriesTheRemainder)
{
    // 64 KiB in requests of 1000 B: 65 full ones and one of 536 B.
    RequestRun run = Run("1000B", "0");
    ASSERT_TRUE(run.engine->IsComplete());
    ASSERT_EQ(run.flows, 66u);
    EXPECT_EQ(run.finished, 66u);
    EXPECT_EQ(run.bytes.front(), 1000u);
    EXPECT_EQ(run.bytes.back(), 536u);
}

TEST_F(CollectiveRequestsTest, CollectiveRequestSizeKeySetsTheEngineAttribute)
{
    RailParams rail;
    rail.servers = 2;
    rail.gpusPerServer = 1;
    YAML::Node node = YAML::Load("{algorithm: ring, message: 64KiB, request_size: 256B}");
    YamlFields fields(node, "test.yaml", "collective");
    std::vector<std::pair<std::string, std::string>> attrs;
    ParseCollective(fields, MakeRail(rail), "roce", attrs);
    auto it = std::find_if(attrs.begin(), attrs.end(), [](const auto& a) {
        return a.first == "ns3::CollectiveEngine::RequestSize";
    });
    ASSERT_NE(it, attrs.end());
    EXPECT_EQ(it->second, "256B");
}

} // namespace
} // namespace ns3
