#include "collective-plan.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace ns3
{

uint32_t
CollectiveJob::Servers() const
{
    uint32_t s = 0;
    for (uint32_t v : serverOfRank)
    {
        s = std::max(s, v + 1);
    }
    return s;
}

uint32_t
CollectiveJob::RankAt(uint32_t s, uint32_t g) const
{
    for (uint32_t r = 0; r < ranks; ++r)
    {
        if (serverOfRank[r] == s && localOfRank[r] == g)
        {
            return r;
        }
    }
    return UINT32_MAX;
}

uint32_t
CollectivePlan::Add(CollectiveTransfer t)
{
    t.id = static_cast<uint32_t>(m_transfers.size());
    m_transfers.push_back(std::move(t));
    return m_transfers.back().id;
}

std::vector<std::vector<uint32_t>>
CollectivePlan::Dependents() const
{
    std::vector<std::vector<uint32_t>> dependents(m_transfers.size());
    for (const CollectiveTransfer& t : m_transfers)
    {
        for (uint32_t d : t.deps)
        {
            dependents[d].push_back(t.id);
        }
    }
    return dependents;
}

uint32_t
CollectivePlan::AddJoin(std::vector<uint32_t> deps, uint32_t step, const std::string& phase)
{
    CollectiveTransfer t;
    t.join = true;
    t.op = CollectiveOp::NONE;
    t.deps = std::move(deps);
    t.step = step;
    t.phase = phase;
    return Add(std::move(t));
}

std::pair<uint64_t, uint64_t>
CollectivePlan::Chunk(uint64_t begin, uint64_t end, uint32_t c, uint32_t n)
{
    uint64_t len = end - begin;
    // len * c fits: len <= 2^40, c < 2^16 in any sane run; use long double for safety beyond.
    auto at = [&](uint32_t i) {
        return begin + static_cast<uint64_t>((static_cast<unsigned __int128>(len) * i) / n);
    };
    return {at(c), at(c + 1)};
}

void
CollectivePlan::AddRing(const std::vector<uint32_t>& ranks,
                        const std::vector<std::pair<uint64_t, uint64_t>>& ranges,
                        bool reduceScatter,
                        bool allGather,
                        std::vector<std::vector<uint32_t>>& frontier,
                        uint32_t& step,
                        const std::string& phase)
{
    const uint32_t n = static_cast<uint32_t>(ranks.size());
    if (n < 2)
    {
        return;
    }
    // recv[k]: what position k last received (data dependency of its next send);
    // lastSend[k]: its previous send (a rank's sends are one stream).
    std::vector<std::vector<uint32_t>> recv = frontier;
    std::vector<int64_t> lastSend(n, -1);
    auto round = [&](bool reduce, uint32_t t) {
        std::vector<uint32_t> sent(n);
        for (uint32_t k = 0; k < n; ++k)
        {
            // ReduceScatter step t: position k sends label (k - t) and reduces it into k+1.
            // AllGather step t: position k forwards label (k + 1 - t), complete since RS.
            uint32_t label = reduce ? (k + n - t % n) % n : (k + 1 + n - t % n) % n;
            CollectiveTransfer x;
            x.src = ranks[k];
            x.dst = ranks[(k + 1) % n];
            x.byteBegin = ranges[label].first;
            x.byteEnd = ranges[label].second;
            x.op = reduce ? CollectiveOp::REDUCE : CollectiveOp::COPY;
            x.step = step;
            x.phase = phase + (reduce ? "-rs" : "-ag");
            x.deps = recv[k];
            if (lastSend[k] >= 0)
            {
                x.deps.push_back(static_cast<uint32_t>(lastSend[k]));
            }
            sent[k] = Add(std::move(x));
        }
        for (uint32_t k = 0; k < n; ++k)
        {
            recv[(k + 1) % n] = {sent[k]};
            lastSend[k] = sent[k];
        }
        ++step;
    };
    if (reduceScatter)
    {
        for (uint32_t t = 0; t + 1 < n; ++t)
        {
            round(true, t);
        }
    }
    if (allGather)
    {
        for (uint32_t t = 0; t + 1 < n; ++t)
        {
            round(false, t);
        }
    }
    for (uint32_t k = 0; k < n; ++k)
    {
        frontier[k] = recv[k];
        if (lastSend[k] >= 0)
        {
            frontier[k].push_back(static_cast<uint32_t>(lastSend[k]));
        }
    }
}

void
CollectivePlan::ApplyNicFailures(const std::vector<NicFailure>& failures)
{
    if (failures.empty())
    {
        return;
    }
    std::vector<const NicFailure*> failed(m_job.ranks, nullptr);
    for (const NicFailure& f : failures)
    {
        failed.at(f.rank) = &f;
    }
    const size_t original = m_transfers.size();
    for (size_t i = 0; i < original; ++i)
    {
        CollectiveTransfer t = m_transfers[i]; // copy: Add() may reallocate
        if (t.join || t.sharp || t.Bytes() == 0 ||
            m_job.serverOfRank[t.src] == m_job.serverOfRank[t.dst] ||
            (!failed[t.src] && !failed[t.dst]))
        {
            continue;
        }
        // Piece j of the range goes through helper j of each failed end (shares of the failed
        // end; when both ends failed, the sender's shares decide the split and the receiver's
        // helpers are used round-robin). A helper that is the end itself is its own NIC.
        const NicFailure* split = failed[t.src] ? failed[t.src] : failed[t.dst];
        const uint32_t chunks = std::max<uint32_t>(1, split->chunks);
        std::vector<uint32_t> finals;
        double cum = 0;
        uint64_t begin = t.byteBegin;
        for (size_t j = 0; j < split->helpers.size(); ++j)
        {
            cum += split->shares[j];
            uint64_t end =
                j + 1 == split->helpers.size()
                    ? t.byteEnd
                    : t.byteBegin + static_cast<uint64_t>(std::floor(t.Bytes() * cum + 1e-9));
            end = std::min(end, t.byteEnd);
            if (end <= begin)
            {
                continue;
            }
            std::vector<uint32_t> path{t.src};
            if (failed[t.src])
            {
                uint32_t h = failed[t.src]->helpers[j % failed[t.src]->helpers.size()];
                if (h != t.src)
                {
                    path.push_back(h);
                }
            }
            if (failed[t.dst])
            {
                uint32_t h = failed[t.dst]->helpers[j % failed[t.dst]->helpers.size()];
                if (h != t.dst)
                {
                    path.push_back(h);
                }
            }
            path.push_back(t.dst);
            // A direct piece (both ends their own NICs) moves whole; a relayed one in chunks,
            // hop h of chunk c after hop h of chunk c - 1.
            const uint32_t pieces = path.size() == 2 ? 1 : chunks;
            std::vector<int32_t> previousChunk(path.size() - 1, -1);
            for (uint32_t c = 0; c < pieces; ++c)
            {
                auto [cb, ce] = Chunk(begin, end, c, pieces);
                if (ce <= cb)
                {
                    continue;
                }
                int32_t prev = -1;
                for (size_t h = 0; h + 1 < path.size(); ++h)
                {
                    CollectiveTransfer hop;
                    hop.src = path[h];
                    hop.dst = path[h + 1];
                    hop.byteBegin = cb;
                    hop.byteEnd = ce;
                    hop.step = t.step;
                    hop.phase = t.phase + "-relay";
                    bool last = h + 2 == path.size();
                    hop.op = last ? t.op : CollectiveOp::STASH;
                    hop.stashFrom = prev;
                    hop.deps =
                        prev < 0 ? t.deps : std::vector<uint32_t>{static_cast<uint32_t>(prev)};
                    if (previousChunk[h] >= 0)
                    {
                        hop.deps.push_back(static_cast<uint32_t>(previousChunk[h]));
                    }
                    prev = static_cast<int32_t>(Add(std::move(hop)));
                    previousChunk[h] = prev;
                }
                finals.push_back(static_cast<uint32_t>(prev));
            }
            begin = end;
        }
        CollectiveTransfer& orig = m_transfers[i];
        orig.join = true;
        orig.deps = finals;
    }
}

void
CollectivePlan::SplitOverNicPorts(uint32_t ports)
{
    if (ports == 0)
    {
        return;
    }
    const size_t original = m_transfers.size();
    for (size_t i = 0; i < original; ++i)
    {
        CollectiveTransfer t = m_transfers[i]; // copy: Add() may reallocate
        if (t.join || t.sharp || t.Bytes() == 0 || t.stashFrom >= 0 ||
            m_job.serverOfRank[t.src] == m_job.serverOfRank[t.dst])
        {
            continue;
        }
        if (ports == 1)
        {
            m_transfers[i].nicPort = 0;
            continue;
        }
        std::vector<uint32_t> parts;
        for (uint32_t j = 0; j < ports; ++j)
        {
            auto [begin, end] = Chunk(t.byteBegin, t.byteEnd, j, ports);
            if (end <= begin)
            {
                continue;
            }
            CollectiveTransfer part = t;
            part.byteBegin = begin;
            part.byteEnd = end;
            part.nicPort = static_cast<int32_t>(j);
            parts.push_back(Add(std::move(part)));
        }
        CollectiveTransfer& orig = m_transfers[i];
        orig.join = true;
        orig.deps = parts;
    }
}

} // namespace ns3
