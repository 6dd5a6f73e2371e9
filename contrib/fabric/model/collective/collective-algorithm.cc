#include "collective-algorithm.h"

#include "ns3/boolean.h"
#include "ns3/string.h"
#include "ns3/uinteger.h"

#include <stdexcept>

namespace ns3
{

NS_OBJECT_ENSURE_REGISTERED(CollectiveAlgorithm);
NS_OBJECT_ENSURE_REGISTERED(RingAllReduce);
NS_OBJECT_ENSURE_REGISTERED(HierarchicalAllReduce);
NS_OBJECT_ENSURE_REGISTERED(DirectAllReduce);
NS_OBJECT_ENSURE_REGISTERED(SharpAllReduce);

TypeId
CollectiveAlgorithm::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::CollectiveAlgorithm").SetParent<Object>().SetGroupName("Fabric");
    return tid;
}

TypeId
RingAllReduce::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::RingAllReduce")
            .SetParent<CollectiveAlgorithm>()
            .SetGroupName("Fabric")
            .AddConstructor<RingAllReduce>()
            .AddAttribute("Order",
                          "Ring order: flat (rank order) or interleaved (server-minor).",
                          StringValue("flat"),
                          MakeStringAccessor(&RingAllReduce::m_order),
                          MakeStringChecker());
    return tid;
}

std::vector<uint32_t>
RingAllReduce::RingOrder(const CollectiveJob& job, const std::string& order)
{
    std::vector<uint32_t> ring;
    if (order == "flat")
    {
        for (uint32_t r = 0; r < job.ranks; ++r)
        {
            ring.push_back(r);
        }
    }
    else if (order == "interleaved")
    {
        uint32_t servers = job.Servers();
        for (uint32_t g = 0; g < job.gpusPerServer; ++g)
        {
            for (uint32_t s = 0; s < servers; ++s)
            {
                uint32_t r = job.RankAt(s, g);
                if (r != UINT32_MAX)
                {
                    ring.push_back(r);
                }
            }
        }
    }
    else
    {
        throw std::invalid_argument("ring order must be flat or interleaved, got '" + order + "'");
    }
    return ring;
}

void
RingAllReduce::Build(CollectivePlan& plan) const
{
    const CollectiveJob& job = plan.Job();
    std::vector<uint32_t> ring = RingOrder(job, m_order);
    const uint32_t p = static_cast<uint32_t>(ring.size());
    std::vector<std::pair<uint64_t, uint64_t>> ranges;
    for (uint32_t j = 0; j < p; ++j)
    {
        ranges.push_back(CollectivePlan::Chunk(0, job.messageBytes, j, p));
    }
    std::vector<std::vector<uint32_t>> frontier(p);
    uint32_t step = 0;
    plan.AddRing(ring, ranges, true, true, frontier, step, "ring");
}

TypeId
HierarchicalAllReduce::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::HierarchicalAllReduce")
            .SetParent<CollectiveAlgorithm>()
            .SetGroupName("Fabric")
            .AddConstructor<HierarchicalAllReduce>()
            .AddAttribute("PairingOffset",
                          "Partner of local GPU g on server s: (g + offset*s) mod G "
                          "(0: i<->i+8, 1: i<->i+9, 4: i<->((i+4) mod 8)+8).",
                          UintegerValue(0),
                          MakeUintegerAccessor(&HierarchicalAllReduce::m_pairingOffset),
                          MakeUintegerChecker<uint32_t>())
            .AddAttribute("InterServerOnly",
                          "Run only the inter-server stage (each rank already holds its reduced "
                          "M/G shard): the rail-alignment study's stage time.",
                          BooleanValue(false),
                          MakeBooleanAccessor(&HierarchicalAllReduce::m_interOnly),
                          MakeBooleanChecker());
    return tid;
}

void
HierarchicalAllReduce::Build(CollectivePlan& plan) const
{
    const CollectiveJob& job = plan.Job();
    const uint32_t G = job.gpusPerServer;
    const uint32_t S = job.Servers();
    for (uint32_t s = 0; s < S; ++s)
    {
        for (uint32_t g = 0; g < G; ++g)
        {
            if (job.RankAt(s, g) == UINT32_MAX)
            {
                throw std::invalid_argument("hierarchical AllReduce needs every server fully "
                                            "populated with ranks");
            }
        }
    }
    const uint64_t M = job.messageBytes;
    // Data chunk d (of G) is reduced at local GPU (d + offset*s) mod G of server s.
    auto localOf = [&](uint32_t d, uint32_t s) { return (d + m_pairingOffset * s) % G; };
    std::vector<std::vector<uint32_t>> exitOf(job.ranks);
    uint32_t stepAfter = 0;
    // Ring label j ends at position j-1; position k must own data chunk d with localOf(d,s)=k.
    auto serverRanges = [&](uint32_t s) {
        std::vector<std::pair<uint64_t, uint64_t>> ranges(G);
        for (uint32_t d = 0; d < G; ++d)
        {
            uint32_t k = localOf(d, s);
            ranges[(k + 1) % G] = CollectivePlan::Chunk(0, M, d, G);
        }
        return ranges;
    };
    if (!m_interOnly)
    {
        for (uint32_t s = 0; s < S; ++s)
        {
            std::vector<uint32_t> ring;
            for (uint32_t g = 0; g < G; ++g)
            {
                ring.push_back(job.RankAt(s, g));
            }
            std::vector<std::vector<uint32_t>> frontier(G);
            uint32_t step = 0;
            plan.AddRing(ring, serverRanges(s), true, false, frontier, step, "intra");
            stepAfter = step;
            for (uint32_t g = 0; g < G; ++g)
            {
                exitOf[ring[g]] = frontier[g];
            }
        }
    }
    uint32_t interEnd = stepAfter;
    for (uint32_t d = 0; d < G; ++d)
    {
        std::vector<uint32_t> ring;
        std::vector<std::vector<uint32_t>> frontier;
        std::vector<std::pair<uint64_t, uint64_t>> ranges;
        auto chunk = CollectivePlan::Chunk(0, M, d, G);
        for (uint32_t s = 0; s < S; ++s)
        {
            uint32_t r = job.RankAt(s, localOf(d, s));
            ring.push_back(r);
            frontier.push_back(exitOf[r]);
            ranges.push_back(CollectivePlan::Chunk(chunk.first, chunk.second, s, S));
        }
        uint32_t step = stepAfter;
        plan.AddRing(ring, ranges, true, true, frontier, step, "inter");
        interEnd = step;
        for (uint32_t s = 0; s < S; ++s)
        {
            exitOf[ring[s]] = frontier[s];
        }
    }
    if (!m_interOnly)
    {
        for (uint32_t s = 0; s < S; ++s)
        {
            std::vector<uint32_t> ring;
            std::vector<std::vector<uint32_t>> frontier;
            for (uint32_t g = 0; g < G; ++g)
            {
                ring.push_back(job.RankAt(s, g));
                frontier.push_back(exitOf[ring.back()]);
            }
            uint32_t step = interEnd;
            plan.AddRing(ring, serverRanges(s), false, true, frontier, step, "intra");
        }
    }
}

TypeId
DirectAllReduce::GetTypeId()
{
    static TypeId tid = TypeId("ns3::DirectAllReduce")
                            .SetParent<CollectiveAlgorithm>()
                            .SetGroupName("Fabric")
                            .AddConstructor<DirectAllReduce>();
    return tid;
}

void
DirectAllReduce::Build(CollectivePlan& plan) const
{
    const CollectiveJob& job = plan.Job();
    const uint32_t p = job.ranks;
    std::vector<std::vector<uint32_t>> into(p);
    for (uint32_t r = 0; r < p; ++r)
    {
        // Every rank sends in the same order (owner 0 first, ...): the incast pattern.
        for (uint32_t j = 0; j < p; ++j)
        {
            if (j == r)
            {
                continue;
            }
            CollectiveTransfer t;
            t.src = r;
            t.dst = j;
            std::tie(t.byteBegin, t.byteEnd) = CollectivePlan::Chunk(0, job.messageBytes, j, p);
            t.op = CollectiveOp::REDUCE;
            t.step = 0;
            t.phase = "direct-rs";
            into[j].push_back(plan.Add(t));
        }
    }
    for (uint32_t j = 0; j < p; ++j)
    {
        for (uint32_t r = 0; r < p; ++r)
        {
            if (r == j)
            {
                continue;
            }
            CollectiveTransfer t;
            t.src = j;
            t.dst = r;
            std::tie(t.byteBegin, t.byteEnd) = CollectivePlan::Chunk(0, job.messageBytes, j, p);
            t.op = CollectiveOp::COPY;
            t.step = 1;
            t.phase = "direct-ag";
            t.deps = into[j];
            plan.Add(t);
        }
    }
}

TypeId
SharpAllReduce::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::SharpAllReduce")
            .SetParent<CollectiveAlgorithm>()
            .SetGroupName("Fabric")
            .AddConstructor<SharpAllReduce>()
            .AddAttribute("Chunks",
                          "Pieces each rank's message is cut into (each one reduction).",
                          UintegerValue(1),
                          MakeUintegerAccessor(&SharpAllReduce::m_chunks),
                          MakeUintegerChecker<uint32_t>(1))
            .AddAttribute("NvlinkStages",
                          "ReduceScatter / AllGather over NVLink around per-rail reductions.",
                          BooleanValue(false),
                          MakeBooleanAccessor(&SharpAllReduce::m_nvlinkStages),
                          MakeBooleanChecker());
    return tid;
}

void
SharpAllReduce::Build(CollectivePlan& plan) const
{
    if (m_nvlinkStages && plan.Job().gpusPerServer > 1)
    {
        const CollectiveJob& job = plan.Job();
        const uint32_t G = job.gpusPerServer;
        const uint32_t S = job.Servers();
        const uint64_t M = job.messageBytes;
        // Ring label j ends at position j-1: position g owns data chunk g after the RS.
        std::vector<std::pair<uint64_t, uint64_t>> ranges(G);
        for (uint32_t d = 0; d < G; ++d)
        {
            ranges[(d + 1) % G] = CollectivePlan::Chunk(0, M, d, G);
        }
        std::vector<std::vector<uint32_t>> exitOf(job.ranks);
        uint32_t after = 0;
        for (uint32_t s = 0; s < S; ++s)
        {
            std::vector<uint32_t> ring;
            for (uint32_t g = 0; g < G; ++g)
            {
                ring.push_back(job.RankAt(s, g));
                if (ring.back() == UINT32_MAX)
                {
                    throw std::invalid_argument("SHARP with NVLink stages needs full servers");
                }
            }
            std::vector<std::vector<uint32_t>> frontier(G);
            uint32_t step = 0;
            plan.AddRing(ring, ranges, true, false, frontier, step, "intra");
            after = step;
            for (uint32_t g = 0; g < G; ++g)
            {
                exitOf[ring[g]] = frontier[g];
            }
        }
        std::vector<std::vector<uint32_t>> sharpOf(job.ranks);
        for (uint32_t r = 0; r < job.ranks; ++r)
        {
            auto chunk = CollectivePlan::Chunk(0, M, job.localOfRank[r], G);
            for (uint32_t c = 0; c < m_chunks; ++c)
            {
                CollectiveTransfer t;
                t.src = t.dst = r;
                std::tie(t.byteBegin, t.byteEnd) =
                    CollectivePlan::Chunk(chunk.first, chunk.second, c, m_chunks);
                t.op = CollectiveOp::COPY;
                t.step = after + c;
                t.phase = "sharp";
                t.sharp = true;
                t.sharpGroup = static_cast<uint16_t>(job.localOfRank[r]);
                t.deps = exitOf[r];
                sharpOf[r].push_back(plan.Add(t));
            }
        }
        for (uint32_t s = 0; s < S; ++s)
        {
            std::vector<uint32_t> ring;
            std::vector<std::vector<uint32_t>> frontier;
            for (uint32_t g = 0; g < G; ++g)
            {
                ring.push_back(job.RankAt(s, g));
                frontier.push_back(sharpOf[ring.back()]);
            }
            uint32_t step = after + m_chunks;
            plan.AddRing(ring, ranges, false, true, frontier, step, "intra");
        }
        return;
    }
    const CollectiveJob& job = plan.Job();
    for (uint32_t c = 0; c < m_chunks; ++c)
    {
        for (uint32_t r = 0; r < job.ranks; ++r)
        {
            CollectiveTransfer t;
            t.src = r;
            t.dst = r;
            std::tie(t.byteBegin, t.byteEnd) =
                CollectivePlan::Chunk(0, job.messageBytes, c, m_chunks);
            t.op = CollectiveOp::COPY;
            t.step = c;
            t.phase = "sharp";
            t.sharp = true;
            plan.Add(t);
        }
    }
}

} // namespace ns3
