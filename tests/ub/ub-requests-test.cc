// UbNic request pipeline (docs/models.md#concurrency-limits): launch interval (322 MHz: 6.2 ns),
// in-flight request slots, the adaptive spraying policy's entropy recycling, and cases found
// broken once (regression tests).

#include "ub-test-util.h"
#include "ub/ub-load-balancer.h"

#include "ns3/uinteger.h"

#include <cstdlib>
#include <set>

namespace ns3
{
namespace test
{
namespace
{

const DataRate kRate("400Gbps");

class UbRequests : public SimTest
{
  protected:
    void SetUp() override
    {
        SimTest::SetUp();
        Set("ns3::FabricNetDevice::WireOverhead", "0");
        Set("ns3::UbNic::CongestionControl", "ns3::UbFixedWindow");
    }
};

TEST_F(UbRequests, LaunchesAreRequestIntervalApart)
{
    // 10 requests posted at t = 0: request k launches at k * 6.2 ns (6200 ps).
    FabricNetwork net = FabricNetwork::Build(MakeStar(2, kRate, NanoSeconds(150)), 0, 0);
    std::vector<Ptr<UbNic>> nics = InstallUb(net);
    std::vector<uint32_t> ids;
    for (uint32_t k = 0; k < 10; ++k)
    {
        ids.push_back(PostUb(net, nics, {0, 1, 64}));
    }
    Simulator::Run();
    for (uint32_t k = 0; k < 10; ++k)
    {
        const FlowRecord& f = net.GetFlowTable()->Get(ids[k]);
        ASSERT_TRUE(f.finished);
        EXPECT_EQ(f.launch, PicoSeconds(6200 * k)) << "request " << k;
    }
}

TEST_F(UbRequests, OneSlotSerializesRequestsOnTheirCompletions)
{
    // MaxInflightRequests 1: request k launches when request k-1 completes (its execution ACK
    // is back), i.e. launch_k = finish_{k-1}; each takes 2 (T + d) + 2 (Ta + d) on the idle star.
    Set("ns3::UbNic::MaxInflightRequests", "1");
    FabricNetwork net = FabricNetwork::Build(MakeStar(2, kRate, NanoSeconds(150)), 0, 0);
    std::vector<Ptr<UbNic>> nics = InstallUb(net);
    std::vector<uint32_t> ids;
    for (uint32_t k = 0; k < 5; ++k)
    {
        ids.push_back(PostUb(net, nics, {0, 1, 64}));
    }
    Simulator::Run();
    const int64_t T = SerPs(64 + kUbFrameOverhead, kRate);
    const int64_t Ta = SerPs(62 + 10 + 256 / 8 + 4, kRate);
    const int64_t d = 150000;
    for (uint32_t k = 0; k < 5; ++k)
    {
        const FlowRecord& f = net.GetFlowTable()->Get(ids[k]);
        ASSERT_TRUE(f.finished);
        if (k > 0)
        {
            EXPECT_EQ(f.launch, net.GetFlowTable()->Get(ids[k - 1]).finish) << "request " << k;
        }
        EXPECT_EQ((f.finish - f.launch).GetPicoSeconds(), 2 * (T + d) + 2 * (Ta + d))
            << "request " << k;
    }
}

TEST(UbAdaptiveSpray, RecyclesUnmarkedEntropiesInFifoOrder)
{
    Ptr<UbAdaptiveSpray> lb = CreateObject<UbAdaptiveSpray>();
    lb->SetAttribute("Entropies", UintegerValue(8));
    lb->AssignStreams(5);
    lb->Start(50000);
    // Fresh entropies are drawn among Port(base, 0..E-1).
    std::set<uint16_t> fresh;
    for (int i = 0; i < 200; ++i)
    {
        uint16_t e = lb->NextEntropy();
        EXPECT_GE(e, 50000);
        EXPECT_LT(e, 50008);
        fresh.insert(e);
    }
    EXPECT_EQ(fresh.size(), 8u); // all 8 drawn in 200 tries (miss prob. 8 (7/8)^200 ~ 2e-11)
    // Unmarked feedback is reused first, in order; marked feedback is not.
    lb->OnFeedback(50003, false);
    lb->OnFeedback(50006, true);
    lb->OnFeedback(50001, false);
    EXPECT_EQ(lb->NextEntropy(), 50003);
    EXPECT_EQ(lb->NextEntropy(), 50001);
    // At most E entropies wait for reuse.
    for (int i = 0; i < 20; ++i)
    {
        lb->OnFeedback(50002, false);
    }
    for (int i = 0; i < 8; ++i)
    {
        EXPECT_EQ(lb->NextEntropy(), 50002);
    }
}

// --- Regressions ------------------------------------------------------------------------------

TEST_F(UbRequests, AfterAPredecessorToAnotherTargetCompletes)
{
    // A: h0 -> h1; D: h0 -> h2 after [A]. A executes at h1 within ~1 us; D must execute after
    // it, i.e. it must finish at all.
    FabricNetwork net = FabricNetwork::Build(MakeStar(3, kRate, NanoSeconds(150)), 0, 0);
    std::vector<Ptr<UbNic>> nics = InstallUb(net);
    uint32_t a = PostUb(net, nics, {0, 1, 4096});
    uint32_t d = PostUb(net, nics, {0, 2, 4096, Time(0), 0, UbOrder::AFTER, {a}});
    Simulator::Stop(MilliSeconds(1));
    Simulator::Run();
    EXPECT_TRUE(net.GetFlowTable()->Get(a).finished);
    EXPECT_TRUE(net.GetFlowTable()->Get(d).finished);
    EXPECT_GE(net.GetFlowTable()->Get(d).executed, net.GetFlowTable()->Get(a).executed);
}

TEST_F(UbRequests, RequestLaunchedByACompletionOnANewChannel)
{
    // MaxInflightRequests 1, private channels: request k (Jetty k) launches from inside the
    // ACK that completes request k-1 and opens channel k, growing m_tx past its capacity
    // (1 -> 2 -> 3 -> 5 -> 9). Each must complete, one after the other.
    Set("ns3::UbNic::Sharing", "private");
    Set("ns3::UbNic::MaxInflightRequests", "1");
    FabricNetwork net = FabricNetwork::Build(MakeStar(2, kRate, NanoSeconds(150)), 0, 0);
    std::vector<Ptr<UbNic>> nics = InstallUb(net);
    std::vector<uint32_t> ids;
    for (uint16_t k = 0; k < 9; ++k)
    {
        ids.push_back(PostUb(net, nics, {0, 1, 4096, Time(0), k}));
    }
    Simulator::Stop(MilliSeconds(1));
    Simulator::Run();
    EXPECT_EQ(nics[0]->GetSenderChannels(), 9u);
    for (uint32_t k = 0; k < 9; ++k)
    {
        const FlowRecord& f = net.GetFlowTable()->Get(ids[k]);
        EXPECT_TRUE(f.finished) << "request " << k;
        if (k > 0)
        {
            EXPECT_EQ(f.launch, net.GetFlowTable()->Get(ids[k - 1]).finish) << "request " << k;
        }
    }
}

TEST_F(UbRequests, StrictWaitsOnlyForRequestsPostedBeforeIt)
{
    // Flow 0 is posted at 10 us, flow 1 (strict, same Jetty and target) at 0: flow 1 was
    // posted first, so it has no predecessor and executes on arrival (~1 us), long before
    // flow 0 is even posted. With one request slot both must still complete.
    for (const char* slots : {"0", "1"})
    {
        SCOPED_TRACE(std::string("MaxInflightRequests ") + slots);
        Set("ns3::UbNic::MaxInflightRequests", slots);
        FabricNetwork net = FabricNetwork::Build(MakeStar(2, kRate, NanoSeconds(150)), 0, 0);
        std::vector<Ptr<UbNic>> nics = InstallUb(net);
        uint32_t late = PostUb(net, nics, {0, 1, 4096, MicroSeconds(10)});
        uint32_t strict = PostUb(net, nics, {0, 1, 4096, Time(0), 0, UbOrder::STRICT});
        Simulator::Stop(MilliSeconds(1));
        Simulator::Run();
        const FlowRecord& L = net.GetFlowTable()->Get(late);
        const FlowRecord& S = net.GetFlowTable()->Get(strict);
        EXPECT_TRUE(L.finished);
        EXPECT_TRUE(S.finished);
        EXPECT_LT(S.executed, MicroSeconds(10));
        TearDown();
        SetUp();
    }
}

TEST_F(UbRequests, NoCacheModeledCountsNoContextMisses)
{
    // ContextCacheSize 0B: no cache is modeled, contexts are always at hand: no miss is
    // counted (summary.json ub.context_misses) and none delays the request.
    FabricNetwork net = FabricNetwork::Build(MakeStar(2, kRate, NanoSeconds(150)), 0, 0);
    std::vector<Ptr<UbNic>> nics = InstallUb(net);
    PostUb(net, nics, {0, 1, 64});
    Simulator::Run();
    EXPECT_EQ(nics[0]->GetContextMisses(), 0u);
}

} // namespace
} // namespace test
} // namespace ns3
