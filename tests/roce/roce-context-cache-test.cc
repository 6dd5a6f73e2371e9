// The NIC context cache (docs/models.md#context-cache): the overflow points Datacenter
// networks, chapter 7, §7.4.2 derives for a 256 KiB cache, and the RoCE NIC's QP context cache
// (RdmaNic ContextCacheSize / ContextMissPenalty) — misses counted and paid as worked out by hand.

#include "../fabric-sim-util.h"
#include "host/context-cache.h"
#include "roce/rdma-nic.h"

namespace ns3
{
namespace test
{
namespace
{

/// Touches every context of \p sizes in turn, \p rounds times; returns the misses of the last
/// round (0: everything stayed cached; all of them: the working set overflows an LRU cache).
uint64_t
LastRoundMisses(uint64_t capacity, const std::vector<uint32_t>& sizes, int rounds)
{
    ContextCache cache(capacity);
    uint64_t before = 0;
    for (int r = 0; r < rounds; ++r)
    {
        before = cache.GetMisses();
        for (uint64_t k = 0; k < sizes.size(); ++k)
        {
            cache.Touch(k, sizes[k]);
        }
    }
    return cache.GetMisses() - before;
}

// Pairwise RC connections between N local and N remote endpoints: N² QP contexts of 512 B and N
// memory segments of 32 B. 512·N² + 32·N > 262 144 B first at N = 23 (22: 248 512 B fits;
// 23: 271 584 B does not).
TEST(ContextCacheOverflow, PairwiseConnectionsOverflowAt23Endpoints)
{
    const uint64_t kCache = 256 * 1024;
    for (uint32_t n : {22u, 23u})
    {
        std::vector<uint32_t> sizes(uint64_t(n) * n, RdmaNic::kQpContextBytes);
        sizes.insert(sizes.end(), n, 32);
        uint64_t misses = LastRoundMisses(kCache, sizes, 3);
        EXPECT_EQ(misses, n < 23 ? 0u : sizes.size()) << "N = " << n;
    }
}

// Endpoints with shared channels: N endpoints of 52 B (Jetty 20 + segment 32) and N channels of
// 56 B: 108·N > 262 144 first at N = 2428.
TEST(ContextCacheOverflow, SharedChannelsOverflowAt2428Endpoints)
{
    const uint64_t kCache = 256 * 1024;
    for (uint32_t n : {2427u, 2428u})
    {
        std::vector<uint32_t> sizes(n, 52);
        sizes.insert(sizes.end(), n, 56);
        EXPECT_EQ(LastRoundMisses(kCache, sizes, 3), n < 2428 ? 0u : sizes.size()) << "N = " << n;
    }
}

class RoceContextCache : public SimTest
{
  protected:
    /// h0 sends R rounds of one 4 KiB WRITE to each of h1..hP in turn, one message outstanding
    /// at a time; returns when the last one completed and the QP context misses.
    std::pair<Time, uint64_t> Run(uint32_t peers, uint32_t rounds)
    {
        Set("ns3::RdmaNic::MaxInflightRequests", "1");
        FabricNetwork net =
            FabricNetwork::Build(MakeStar(peers + 1, DataRate("400Gbps"), NanoSeconds(150)), 0, 0);
        std::vector<Ptr<RdmaNic>> nics;
        for (uint32_t h = 0; h < net.GetNHosts(); ++h)
        {
            nics.push_back(CreateObject<RdmaNic>());
            nics.back()->Install(net.GetHost(h));
        }
        for (uint32_t r = 0; r < rounds; ++r)
        {
            for (uint32_t p = 1; p <= peers; ++p)
            {
                FlowRecord f;
                f.src = 0;
                f.dst = p;
                f.bytes = 4096;
                f.priority = 3;
                f.entropy = static_cast<uint16_t>(49152 + net.GetFlowTable()->GetN());
                nics[0]->StartFlowAt(net.GetFlowTable()->Add(f));
            }
        }
        Simulator::Run();
        Time last(0);
        for (const FlowRecord& f : net.GetFlowTable()->All())
        {
            EXPECT_TRUE(f.finished);
            last = std::max(last, f.finish);
        }
        uint64_t misses = nics[0]->GetContextMisses();
        Simulator::Destroy();
        return {last, misses};
    }
};

// A cache of 2 KiB holds four 512 B QP contexts. With messages one at a time, every message
// takes the same time on the symmetric star, and a miss holds its start back by the penalty
// (1 µs): the run ends exactly misses × 1 µs later than without the cache. Four peers, three
// rounds: only the four cold misses. Five peers cycled through an LRU of four: every one of the
// 15 launches misses.
TEST_F(RoceContextCache, MissesCostThePenaltyEach)
{
    auto [base4, none4] = Run(4, 3);
    auto [base5, none5] = Run(5, 3);
    EXPECT_EQ(none4, 0u); // 0B: no cache modelled
    EXPECT_EQ(none5, 0u);
    Set("ns3::RdmaNic::ContextCacheSize", "2KiB");
    Set("ns3::RdmaNic::ContextMissPenalty", "1us");
    auto [fits, misses4] = Run(4, 3);
    auto [thrash, misses5] = Run(5, 3);
    EXPECT_EQ(misses4, 4u);
    EXPECT_EQ(misses5, 15u);
    EXPECT_EQ(fits - base4, MicroSeconds(4));
    EXPECT_EQ(thrash - base5, MicroSeconds(15));
}

} // namespace
} // namespace test
} // namespace ns3
