// UbNic request semantics: per-dependency ordering (no head-of-line blocking of unordered
// requests), the transport state accounting of docs/models.md#transport-state (Jetty 20 B,
// channel 56 B, shared / private / groups), and the context cache (LRU) with its miss penalty.

#include "host/context-cache.h"
#include "ub-test-util.h"

namespace ns3
{
namespace test
{
namespace
{

constexpr uint32_t kMtu = 4096;
const DataRate kRate("400Gbps");

// --- Ordering ----------------------------------------------------------------------------------

class UbOrdering : public SimTest
{
  protected:
    void SetUp() override
    {
        SimTest::SetUp();
        Set("ns3::UbNic::Mtu", std::to_string(kMtu));
        Set("ns3::UbNic::CongestionControl", "ns3::UbFixedWindow");
        Set("ns3::FabricSwitch::EcnEnabled", "false");
    }
};

TEST_F(UbOrdering, UnorderedRequestCompletesWhileOrderedOnesWaitForTheDelayedOne)
{
    // One Jetty, one target: A = 256 packets whose packet 2 is lost once (resent ~10 us
    // later, ReorderWindow), B = 4 packets, order none, C = 4 packets, strict (waits for A and
    // B), D = 4 packets, after [A]. The shared channel serves the requests packet by packet in
    // turn, so B, C and D are all on the wire within the first ~12 packet times (~1 us);
    // A cannot execute before its resend arrives (>= 10 us).
    FabricNetwork net = FabricNetwork::Build(MakeStar(2, kRate, NanoSeconds(150)), 0, 0);
    std::vector<Ptr<UbNic>> nics = InstallUb(net);
    uint32_t a = PostUb(net, nics, {0, 1, 256 * kMtu});
    uint32_t b = PostUb(net, nics, {0, 1, 4 * kMtu, Time(0), 0, UbOrder::NONE});
    uint32_t c = PostUb(net, nics, {0, 1, 4 * kMtu, Time(0), 0, UbOrder::STRICT});
    uint32_t d = PostUb(net, nics, {0, 1, 4 * kMtu, Time(0), 0, UbOrder::AFTER, {a}});
    nics[1]->LoseFirstTransmission(a, 2);
    Simulator::Run();
    Ptr<FlowTable> ft = net.GetFlowTable();
    const FlowRecord& A = ft->Get(a);
    const FlowRecord& B = ft->Get(b);
    const FlowRecord& C = ft->Get(c);
    const FlowRecord& D = ft->Get(d);
    for (const FlowRecord* f : {&A, &B, &C, &D})
    {
        ASSERT_TRUE(f->finished) << "flow " << f->id;
        EXPECT_EQ(f->deliveredBytes, f->bytes) << "flow " << f->id;
    }
    EXPECT_EQ(A.retransmittedBytes, kMtu);
    // B: not blocked behind A.
    EXPECT_LT(B.executed, A.executed);
    EXPECT_LT(B.finish, A.finish);
    EXPECT_LT(B.finish, MicroSeconds(5));
    EXPECT_GT(A.executed, MicroSeconds(10));
    // C and D: all their data was there long before A executed, yet they execute only after it.
    EXPECT_LT(C.lastRx, A.executed);
    EXPECT_LT(D.lastRx, A.executed);
    EXPECT_GE(C.executed, A.executed);
    EXPECT_GE(D.executed, A.executed);
    EXPECT_GE(C.finish, C.executed);
    EXPECT_GE(D.finish, D.executed);
    EXPECT_GT(C.finish, MicroSeconds(10));
    EXPECT_TRUE(CheckConservation(net).Ok());
    EXPECT_EQ(nics[0]->AuditTransportState(*ft), "");
    EXPECT_EQ(nics[1]->AuditTransportState(*ft), "");
}

TEST_F(UbOrdering, StrictWaitsOnlyForItsOwnJetty)
{
    // Same as above but the strict request C is posted by Jetty 1: its predecessors are the
    // earlier requests of Jetty 1 to this target (none), so it does not wait for A (Jetty 0).
    FabricNetwork net = FabricNetwork::Build(MakeStar(2, kRate, NanoSeconds(150)), 0, 0);
    std::vector<Ptr<UbNic>> nics = InstallUb(net);
    uint32_t a = PostUb(net, nics, {0, 1, 256 * kMtu});
    uint32_t c = PostUb(net, nics, {0, 1, 4 * kMtu, Time(0), 1, UbOrder::STRICT});
    nics[1]->LoseFirstTransmission(a, 2);
    Simulator::Run();
    const FlowRecord& A = net.GetFlowTable()->Get(a);
    const FlowRecord& C = net.GetFlowTable()->Get(c);
    ASSERT_TRUE(A.finished && C.finished);
    EXPECT_LT(C.executed, A.executed);
    EXPECT_LT(C.finish, MicroSeconds(5));
}

// --- Transport state size
// -------------------------------------------------------------------------

class UbStateSize : public SimTest
{
  protected:
    struct Result
    {
        uint64_t senderBytes;
        uint32_t jettys;
        uint32_t senderChannels;
        uint32_t senderRxChannels;
        std::vector<uint64_t> targetBytes;
        std::vector<uint32_t> targetRxChannels;
    };

    /// Host 0 with L Jettys sends one 64 B request per (Jetty, target) to P targets.
    Result Run(uint32_t L, uint32_t P, const std::string& sharing, uint32_t groups = 2)
    {
        Set("ns3::UbNic::Sharing", sharing);
        Set("ns3::UbNic::Groups", std::to_string(groups));
        FabricNetwork net = FabricNetwork::Build(MakeStar(P + 1, kRate, NanoSeconds(150)), 0, 0);
        std::vector<Ptr<UbNic>> nics = InstallUb(net);
        for (uint32_t l = 0; l < L; ++l)
        {
            for (uint32_t p = 1; p <= P; ++p)
            {
                PostUb(net, nics, {0, p, 64, Time(0), static_cast<uint16_t>(l)});
            }
        }
        Simulator::Run();
        EXPECT_EQ(net.GetFlowTable()->GetFinishedCount(), L * P);
        Result r{nics[0]->GetPeakStateBytes(),
                 nics[0]->GetJettys(),
                 nics[0]->GetSenderChannels(),
                 nics[0]->GetReceiverChannels(),
                 {},
                 {}};
        for (uint32_t p = 1; p <= P; ++p)
        {
            r.targetBytes.push_back(nics[p]->GetPeakStateBytes());
            r.targetRxChannels.push_back(nics[p]->GetReceiverChannels());
        }
        return r;
    }

    static constexpr uint64_t e = 20; // Jetty context
    static constexpr uint64_t t = 56; // transport channel context
};

TEST_F(UbStateSize, SharedIsLePlusPt)
{
    // S_shared = L e + L P r + P t with r = 0 (no per-relation state beyond the Jetty):
    // 3 Jettys to 4 targets: 3 * 20 + 4 * 56 = 284 B on the sender.
    const uint32_t L = 3, P = 4;
    Result r = Run(L, P, "shared");
    EXPECT_EQ(r.jettys, L);
    EXPECT_EQ(r.senderChannels, P);
    EXPECT_EQ(r.senderRxChannels, 0u); // the sender receives ACKs only
    EXPECT_EQ(r.senderBytes, L * e + P * t);
    EXPECT_EQ(r.senderBytes, 284u);
    for (uint32_t p = 0; p < P; ++p)
    {
        // Each target holds the receive side of the one channel toward it (no Jettys posted).
        EXPECT_EQ(r.targetRxChannels[p], 1u);
        EXPECT_EQ(r.targetBytes[p], t);
    }
}

TEST_F(UbStateSize, PrivateIsLePlusLPt)
{
    // S_private = L e + L P (r + t), r = 0: 3 * 20 + 12 * 56 = 732 B.
    const uint32_t L = 3, P = 4;
    Result r = Run(L, P, "private");
    EXPECT_EQ(r.senderChannels, L * P);
    EXPECT_EQ(r.senderBytes, L * e + L * P * t);
    EXPECT_EQ(r.senderBytes, 732u);
    for (uint32_t p = 0; p < P; ++p)
    {
        EXPECT_EQ(r.targetRxChannels[p], L);
        EXPECT_EQ(r.targetBytes[p], L * t);
    }
}

TEST_F(UbStateSize, GroupsIsLePlusMinKLPt)
{
    // K groups: Jetty l uses group l mod K, so min(K, L) channels per target.
    const uint32_t L = 3, P = 4;
    for (uint32_t K : {1u, 2u, 5u})
    {
        SCOPED_TRACE("K = " + std::to_string(K));
        Result r = Run(L, P, "groups", K);
        uint64_t channels = uint64_t(std::min(K, L)) * P;
        EXPECT_EQ(r.senderChannels, channels);
        EXPECT_EQ(r.senderBytes, L * e + channels * t);
        TearDown();
        SetUp();
    }
}

// --- Context cache ----------------------------------------------------------------------------

TEST(UbContextCache, LruEvictionByBytes)
{
    ContextCache c(100);
    EXPECT_FALSE(c.Touch(1, 40)); // [1]          40 B
    EXPECT_FALSE(c.Touch(2, 40)); // [2 1]        80 B
    EXPECT_TRUE(c.Touch(1, 40));  // [1 2]
    EXPECT_EQ(c.GetUsedBytes(), 80u);
    EXPECT_FALSE(c.Touch(3, 40)); // 120 > 100: evict LRU 2 -> [3 1] 80 B
    EXPECT_EQ(c.GetUsedBytes(), 80u);
    EXPECT_TRUE(c.Touch(1, 40));  // [1 3]
    EXPECT_FALSE(c.Touch(2, 40)); // evict 3 -> [2 1]
    EXPECT_FALSE(c.Touch(3, 40)); // evict 1 -> [3 2]
    EXPECT_TRUE(c.Touch(2, 40));
    EXPECT_TRUE(c.Touch(3, 40));
    EXPECT_FALSE(c.Touch(1, 40));
    EXPECT_EQ(c.GetHits(), 4u);
    EXPECT_EQ(c.GetMisses(), 6u);
    EXPECT_LE(c.GetUsedBytes(), 100u);
}

TEST(UbContextCache, SmallContextsMakeRoomForABigOne)
{
    ContextCache c(100);
    for (uint64_t k = 0; k < 5; ++k)
    {
        EXPECT_FALSE(c.Touch(k, 20)); // exactly full: 100 B
    }
    EXPECT_EQ(c.GetUsedBytes(), 100u);
    EXPECT_FALSE(c.Touch(9, 56)); // 156 > 100: evict 0, 1, 2 (60 B) -> 96 B
    EXPECT_EQ(c.GetUsedBytes(), 96u);
    EXPECT_TRUE(c.Touch(3, 20));
    EXPECT_TRUE(c.Touch(4, 20));
    EXPECT_FALSE(c.Touch(2, 20)); // was evicted
    // Larger than the whole cache: a miss that never stays.
    EXPECT_FALSE(c.Touch(77, 200));
    EXPECT_FALSE(c.Touch(77, 200));
    EXPECT_LE(c.GetUsedBytes(), 100u);
}

TEST(UbContextCache, UnlimitedCacheOnlyHasCompulsoryMisses)
{
    ContextCache c(0);
    for (int round = 0; round < 3; ++round)
    {
        for (uint64_t k = 0; k < 1000; ++k)
        {
            c.Touch(k, 56);
        }
    }
    EXPECT_EQ(c.GetMisses(), 1000u);
    EXPECT_EQ(c.GetHits(), 2000u);
    EXPECT_EQ(c.GetUsedBytes(), 56000u);
}

class UbContextMiss : public SimTest
{
  protected:
    static constexpr int64_t kD = 150000;        // ps
    static constexpr int64_t kPenalty = 1000000; // ps (1000 ns, the PCIe NIC figure)
    static constexpr uint32_t kRequests = 6;

    struct Result
    {
        std::vector<FlowRecord> flows;
        uint64_t misses;
    };

    /// One Jetty on h0 posts 64 B requests alternately to h1 and h2, 10 us apart (the fabric is
    /// idle for each): 1 Jetty + 2 channel contexts, against a cache of \p cache.
    Result Run(const std::string& cache)
    {
        Set("ns3::FabricNetDevice::WireOverhead", "0");
        Set("ns3::UbNic::ContextCacheSize", cache);
        Set("ns3::UbNic::ContextMissPenalty", std::to_string(kPenalty) + "ps");
        FabricNetwork net = FabricNetwork::Build(MakeStar(3, kRate, PicoSeconds(kD)), 0, 0);
        std::vector<Ptr<UbNic>> nics = InstallUb(net);
        std::vector<uint32_t> ids;
        for (uint32_t k = 0; k < kRequests; ++k)
        {
            ids.push_back(PostUb(net, nics, {0, 1 + k % 2, 64, MicroSeconds(10 * k)}));
        }
        Simulator::Run();
        Result r;
        for (uint32_t id : ids)
        {
            r.flows.push_back(net.GetFlowTable()->Get(id));
        }
        r.misses = nics[0]->GetContextMisses();
        return r;
    }

    /// First packet at the target: launch + misses * penalty + 2 (T + d), T = (64 + 66) B.
    void ExpectDelays(const Result& r, const std::vector<int64_t>& misses)
    {
        const int64_t T = SerPs(64 + kUbFrameOverhead, kRate);
        for (uint32_t k = 0; k < kRequests; ++k)
        {
            const FlowRecord& f = r.flows[k];
            ASSERT_TRUE(f.finished);
            EXPECT_EQ(f.launch, f.start) << "request " << k;
            EXPECT_EQ((f.firstRx - f.start).GetPicoSeconds(), misses[k] * kPenalty + 2 * (T + kD))
                << "request " << k;
        }
    }
};

TEST_F(UbContextMiss, CacheThatHoldsEverythingMissesOnlyOnFirstUse)
{
    // Request 0 touches the Jetty and channel 1 (2 misses), request 1 channel 2 (1), then all
    // hit: 3 misses.
    Result r = Run("1MiB");
    EXPECT_EQ(r.misses, 3u);
    ExpectDelays(r, {2, 1, 0, 0, 0, 0});
}

TEST_F(UbContextMiss, CacheSmallerThanTheContextsMissesOnEveryRequest)
{
    // 76 B = Jetty 20 + one channel 56: each request hits the Jetty (touched last time) but its
    // channel was evicted by the other target's: 2 + 1 * 5 = 7 misses, each 1000 ns later.
    Result r = Run("76B");
    EXPECT_EQ(r.misses, 2u + (kRequests - 1));
    ExpectDelays(r, {2, 1, 1, 1, 1, 1});
}

TEST_F(UbContextMiss, NoCacheModeledMeansNoPenalty)
{
    Result r = Run("0B");
    ExpectDelays(r, {0, 0, 0, 0, 0, 0});
}

} // namespace
} // namespace test
} // namespace ns3
