#include "distributed/topology-partition.h"

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <limits>
#include <map>
#include <numeric>
#include <sstream>
#include <unordered_map>

namespace ns3
{

namespace
{

const char* const kKey = "partition";
const uint32_t kNoRank = std::numeric_limits<uint32_t>::max();

/// Union-find over node indices (path halving, union by lower index: deterministic).
class UnionFind
{
  public:
    explicit UnionFind(uint32_t n)
        : m_parent(n)
    {
        std::iota(m_parent.begin(), m_parent.end(), 0u);
    }

    uint32_t Find(uint32_t x)
    {
        while (m_parent[x] != x)
        {
            m_parent[x] = m_parent[m_parent[x]];
            x = m_parent[x];
        }
        return x;
    }

    /// Joins the sets of \p a and \p b; false when they were already one.
    bool Union(uint32_t a, uint32_t b)
    {
        a = Find(a);
        b = Find(b);
        if (a == b)
        {
            return false;
        }
        if (b < a)
        {
            std::swap(a, b);
        }
        m_parent[b] = a;
        return true;
    }

  private:
    std::vector<uint32_t> m_parent;
};

/// A set of nodes that goes to one rank as a whole.
struct Piece
{
    std::vector<uint32_t> nodes; ///< ascending
    uint32_t hosts = 0;
    uint32_t links = 0; ///< links with at least one end in the piece
};

std::string
Plural(uint64_t n, const std::string& word)
{
    return std::to_string(n) + " " + word + (n == 1 ? "" : "s");
}

std::string
LinkName(const TopologySpec& spec, const TopologyLink& l)
{
    return spec.nodes[l.a].name + " - " + spec.nodes[l.b].name;
}

void
CheckLinks(const TopologySpec& spec)
{
    for (uint32_t j = 0; j < spec.links.size(); ++j)
    {
        const TopologyLink& l = spec.links[j];
        if (l.a >= spec.nodes.size() || l.b >= spec.nodes.size())
        {
            throw ConfigError(spec.source,
                              l.sourceLine,
                              kKey,
                              "link " + std::to_string(j) +
                                  " refers to a node that does not exist");
        }
    }
}

/**
 * Joins every host (only those without a group when \p ungroupedOnly) to the node on its
 * lowest-delay link, preferring a link to a switch; ties: the host's first link in spec order.
 */
void
GlueHosts(const TopologySpec& spec, UnionFind& uf, bool ungroupedOnly)
{
    const uint32_t none = kNoRank;
    std::vector<uint32_t> best(spec.nodes.size(), none);
    auto better = [&spec](const TopologyLink& cand,
                          uint32_t candPeer,
                          const TopologyLink& cur,
                          uint32_t curPeer) {
        bool candSwitch = spec.nodes[candPeer].isSwitch;
        bool curSwitch = spec.nodes[curPeer].isSwitch;
        if (candSwitch != curSwitch)
        {
            return candSwitch;
        }
        return cand.delay < cur.delay;
    };
    for (uint32_t j = 0; j < spec.links.size(); ++j)
    {
        const TopologyLink& l = spec.links[j];
        if (l.a == l.b)
        {
            continue;
        }
        for (int end = 0; end < 2; ++end)
        {
            uint32_t h = end == 0 ? l.a : l.b;
            uint32_t peer = end == 0 ? l.b : l.a;
            if (spec.nodes[h].isSwitch || (ungroupedOnly && spec.nodes[h].group >= 0))
            {
                continue;
            }
            if (best[h] == none)
            {
                best[h] = j;
                continue;
            }
            const TopologyLink& cur = spec.links[best[h]];
            uint32_t curPeer = cur.a == h ? cur.b : cur.a;
            if (better(l, peer, cur, curPeer))
            {
                best[h] = j;
            }
        }
    }
    for (uint32_t h = 0; h < spec.nodes.size(); ++h)
    {
        if (best[h] != none)
        {
            uf.Union(spec.links[best[h]].a, spec.links[best[h]].b);
        }
    }
}

/// The union-find's sets as pieces, in order of their lowest node index.
std::vector<Piece>
MakePieces(const TopologySpec& spec, UnionFind& uf)
{
    uint32_t n = spec.nodes.size();
    std::vector<uint32_t> pieceOfRoot(n, kNoRank);
    std::vector<uint32_t> pieceOf(n);
    std::vector<Piece> pieces;
    for (uint32_t i = 0; i < n; ++i)
    {
        uint32_t r = uf.Find(i);
        if (pieceOfRoot[r] == kNoRank)
        {
            pieceOfRoot[r] = pieces.size();
            pieces.emplace_back();
        }
        pieceOf[i] = pieceOfRoot[r];
        Piece& p = pieces[pieceOf[i]];
        p.nodes.push_back(i);
        if (!spec.nodes[i].isSwitch)
        {
            ++p.hosts;
        }
    }
    for (const auto& l : spec.links)
    {
        ++pieces[pieceOf[l.a]].links;
        if (pieceOf[l.b] != pieceOf[l.a])
        {
            ++pieces[pieceOf[l.b]].links;
        }
    }
    return pieces;
}

/**
 * Pieces with hosts, largest host count first, each to the part with the fewest hosts (ties:
 * fewest links, lowest rank); then switch-only pieces, largest first, each to the part with the
 * fewest nodes (ties: the part it has most links to, lowest rank).
 */
std::vector<uint32_t>
AssignPieces(const TopologySpec& spec, const std::vector<Piece>& pieces, uint32_t parts)
{
    uint32_t n = spec.nodes.size();
    std::vector<uint32_t> rank(n, kNoRank);
    std::vector<uint64_t> hosts(parts, 0);
    std::vector<uint64_t> links(parts, 0);
    std::vector<uint64_t> nodes(parts, 0);

    std::vector<uint32_t> withHosts;
    std::vector<uint32_t> switchOnly;
    for (uint32_t i = 0; i < pieces.size(); ++i)
    {
        (pieces[i].hosts > 0 ? withHosts : switchOnly).push_back(i);
    }
    std::stable_sort(withHosts.begin(), withHosts.end(), [&pieces](uint32_t x, uint32_t y) {
        return pieces[x].hosts > pieces[y].hosts;
    });
    std::stable_sort(switchOnly.begin(), switchOnly.end(), [&pieces](uint32_t x, uint32_t y) {
        return pieces[x].nodes.size() > pieces[y].nodes.size();
    });

    auto place = [&](const Piece& piece, uint32_t r) {
        for (uint32_t v : piece.nodes)
        {
            rank[v] = r;
        }
        hosts[r] += piece.hosts;
        links[r] += piece.links;
        nodes[r] += piece.nodes.size();
    };

    for (uint32_t i : withHosts)
    {
        uint32_t best = 0;
        for (uint32_t r = 1; r < parts; ++r)
        {
            if (std::make_pair(hosts[r], links[r]) < std::make_pair(hosts[best], links[best]))
            {
                best = r;
            }
        }
        place(pieces[i], best);
    }

    std::vector<std::vector<uint32_t>> adj(n);
    for (const auto& l : spec.links)
    {
        adj[l.a].push_back(l.b);
        if (l.b != l.a)
        {
            adj[l.b].push_back(l.a);
        }
    }
    for (uint32_t i : switchOnly)
    {
        std::vector<uint64_t> linksTo(parts, 0);
        for (uint32_t v : pieces[i].nodes)
        {
            for (uint32_t w : adj[v])
            {
                if (rank[w] != kNoRank)
                {
                    ++linksTo[rank[w]];
                }
            }
        }
        uint32_t best = 0;
        for (uint32_t r = 1; r < parts; ++r)
        {
            if (nodes[r] < nodes[best] || (nodes[r] == nodes[best] && linksTo[r] > linksTo[best]))
            {
                best = r;
            }
        }
        place(pieces[i], best);
    }
    return rank;
}

/// Counts, cut links and lookahead for \p rank; throws on a zero-delay cut or an empty rank.
TopologyPartition
Finish(const TopologySpec& spec, uint32_t parts, std::vector<uint32_t> rank)
{
    TopologyPartition p;
    p.parts = parts;
    p.rankOfNode = std::move(rank);
    p.lookahead = Time::Max();
    p.hostsPerRank.assign(parts, 0);
    p.nodesPerRank.assign(parts, 0);
    p.linksPerRank.assign(parts, 0);
    for (uint32_t i = 0; i < spec.nodes.size(); ++i)
    {
        ++p.nodesPerRank[p.rankOfNode[i]];
        if (!spec.nodes[i].isSwitch)
        {
            ++p.hostsPerRank[p.rankOfNode[i]];
        }
    }
    for (uint32_t j = 0; j < spec.links.size(); ++j)
    {
        const TopologyLink& l = spec.links[j];
        uint32_t ra = p.rankOfNode[l.a];
        uint32_t rb = p.rankOfNode[l.b];
        ++p.linksPerRank[ra];
        if (ra == rb)
        {
            continue;
        }
        ++p.linksPerRank[rb];
        p.cutLinks.push_back(j);
        if (!l.delay.IsStrictlyPositive())
        {
            throw ConfigError(spec.source,
                              l.sourceLine,
                              kKey,
                              "link " + LinkName(spec, l) + " has zero delay and is cut (ranks " +
                                  std::to_string(ra) + " and " + std::to_string(rb) +
                                  "): the lookahead would be zero and the distributed simulator "
                                  "could not advance; keep " +
                                  spec.nodes[l.a].name + " and " + spec.nodes[l.b].name +
                                  " on one rank or give the link a delay");
        }
        p.lookahead = std::min(p.lookahead, l.delay);
    }
    for (uint32_t r = 0; r < parts; ++r)
    {
        if (p.nodesPerRank[r] == 0)
        {
            throw ConfigError(spec.source,
                              0,
                              kKey,
                              "rank " + std::to_string(r) + " of " + std::to_string(parts) +
                                  " owns no node; every rank must own at least one");
        }
    }
    if (parts > 1)
    {
        // Every rank needs a cable to another rank: completions are announced over them, and
        // a rank with none would simulate a fabric of its own.
        std::vector<bool> cut(parts, false);
        for (uint32_t j : p.cutLinks)
        {
            cut[p.rankOfNode[spec.links[j].a]] = true;
            cut[p.rankOfNode[spec.links[j].b]] = true;
        }
        for (uint32_t r = 0; r < parts; ++r)
        {
            if (!cut[r])
            {
                throw ConfigError(spec.source,
                                  0,
                                  kKey,
                                  "rank " + std::to_string(r) + " of " + std::to_string(parts) +
                                      " has no cable to another rank (is the topology "
                                      "connected?)");
            }
        }
    }
    return p;
}

std::vector<uint32_t>
PartitionAuto(const TopologySpec& spec, uint32_t parts)
{
    uint32_t n = spec.nodes.size();
    UnionFind uf(n);
    GlueHosts(spec, uf, false);
    uint32_t base = 0;
    for (uint32_t i = 0; i < n; ++i)
    {
        base += uf.Find(i) == i ? 1 : 0;
    }
    if (base < parts)
    {
        throw ConfigError(spec.source,
                          0,
                          kKey,
                          "auto: keeping every host with its switch leaves only " +
                              Plural(base, "piece") + ", fewer than " + std::to_string(parts) +
                              " parts; use fewer parts or a partition file");
    }

    // Links grouped into cable classes by delay, ascending: a class holds the delays within 25 %
    // of its shortest (real cables of one tier differ by centimetres to metres, and cutting
    // only the very longest of them would leave one huge piece). Contracting the classes below
    // a threshold, the largest threshold that leaves >= parts pieces contracts the longest
    // prefix of classes that does.
    std::vector<uint32_t> order(spec.links.size());
    std::iota(order.begin(), order.end(), 0u);
    std::stable_sort(order.begin(), order.end(), [&spec](uint32_t x, uint32_t y) {
        return spec.links[x].delay < spec.links[y].delay;
    });
    std::vector<std::pair<size_t, size_t>> groups; // [begin, end) in order
    for (size_t i = 0; i < order.size();)
    {
        size_t j = i;
        while (j < order.size() && spec.links[order[j]].delay.GetPicoSeconds() * 4 <=
                                       spec.links[order[i]].delay.GetPicoSeconds() * 5)
        {
            ++j;
        }
        groups.emplace_back(i, j);
        i = j;
    }

    UnionFind trial = uf;
    uint32_t pieces = base;
    size_t accepted = 0;
    for (size_t g = 0; g < groups.size(); ++g)
    {
        for (size_t i = groups[g].first; i < groups[g].second; ++i)
        {
            const TopologyLink& l = spec.links[order[i]];
            pieces -= trial.Union(l.a, l.b) ? 1 : 0;
        }
        if (pieces < parts)
        {
            break;
        }
        accepted = g + 1;
    }
    for (size_t g = 0; g < accepted; ++g)
    {
        for (size_t i = groups[g].first; i < groups[g].second; ++i)
        {
            uf.Union(spec.links[order[i]].a, spec.links[order[i]].b);
        }
    }
    return AssignPieces(spec, MakePieces(spec, uf), parts);
}

std::vector<uint32_t>
PartitionPods(const TopologySpec& spec, uint32_t parts)
{
    uint32_t n = spec.nodes.size();
    UnionFind uf(n);
    std::map<int32_t, uint32_t> firstOfGroup;
    for (uint32_t i = 0; i < n; ++i)
    {
        int32_t g = spec.nodes[i].group;
        if (g < 0)
        {
            continue;
        }
        auto it = firstOfGroup.emplace(g, i).first;
        uf.Union(it->second, i);
    }
    if (firstOfGroup.empty())
    {
        throw ConfigError(spec.source,
                          0,
                          kKey,
                          "the topology has no pods (no node has a group); use partition "
                          "method auto or a partition file");
    }
    GlueHosts(spec, uf, true);
    std::vector<Piece> pieces = MakePieces(spec, uf);
    if (pieces.size() < parts)
    {
        throw ConfigError(spec.source,
                          0,
                          kKey,
                          "pods: " + std::to_string(firstOfGroup.size()) +
                              " groups and the nodes outside them make only " +
                              Plural(pieces.size(), "piece") + ", fewer than " +
                              std::to_string(parts) +
                              " parts; use fewer parts, auto or a "
                              "partition file");
    }
    return AssignPieces(spec, pieces, parts);
}

std::vector<uint32_t>
PartitionFile(const TopologySpec& spec, uint32_t parts, const std::string& path)
{
    std::error_code ec;
    std::ifstream in;
    if (!std::filesystem::is_directory(path, ec))
    {
        in.open(path);
    }
    if (!in.is_open())
    {
        throw ConfigError(path, 0, kKey, "cannot read the partition file");
    }
    uint32_t n = spec.nodes.size();
    std::unordered_map<std::string, uint32_t> index;
    for (uint32_t i = 0; i < n; ++i)
    {
        index.emplace(spec.nodes[i].name, i);
    }
    std::vector<uint32_t> rank(n, kNoRank);
    std::vector<int> lineOf(n, 0);
    std::string text;
    int line = 0;
    while (std::getline(in, text))
    {
        ++line;
        size_t hash = text.find('#');
        if (hash != std::string::npos)
        {
            text.erase(hash);
        }
        std::istringstream words(text);
        std::vector<std::string> w;
        for (std::string s; words >> s;)
        {
            w.push_back(s);
        }
        if (w.empty())
        {
            continue;
        }
        if (w.size() != 2)
        {
            throw ConfigError(path,
                              line,
                              kKey,
                              "expected 'node_name rank', got " + Plural(w.size(), "word"));
        }
        auto it = index.find(w[0]);
        if (it == index.end())
        {
            throw ConfigError(path,
                              line,
                              kKey,
                              "unknown node '" + w[0] + "' (not in " + spec.source + ")");
        }
        uint32_t node = it->second;
        if (lineOf[node] != 0)
        {
            throw ConfigError(path,
                              line,
                              kKey,
                              "node '" + w[0] + "' is listed twice (first on line " +
                                  std::to_string(lineOf[node]) + ")");
        }
        const std::string& r = w[1];
        bool digits =
            !r.empty() && r.size() <= 9 &&
            std::all_of(r.begin(), r.end(), [](unsigned char c) { return std::isdigit(c); });
        if (!digits)
        {
            throw ConfigError(path,
                              line,
                              kKey,
                              "rank '" + r + "' of node '" + w[0] + "' is not an integer in 0.." +
                                  std::to_string(parts - 1));
        }
        uint64_t value = std::stoull(r);
        if (value >= parts)
        {
            throw ConfigError(path,
                              line,
                              kKey,
                              "rank " + std::to_string(value) + " of node '" + w[0] +
                                  "' is out of range: " + std::to_string(parts) +
                                  " parts means ranks 0.." + std::to_string(parts - 1));
        }
        rank[node] = value;
        lineOf[node] = line;
    }
    std::vector<uint32_t> missing;
    for (uint32_t i = 0; i < n; ++i)
    {
        if (rank[i] == kNoRank)
        {
            missing.push_back(i);
        }
    }
    if (!missing.empty())
    {
        const size_t shown = 5;
        std::string names;
        for (size_t k = 0; k < missing.size() && k < shown; ++k)
        {
            names += (k > 0 ? ", " : "") + spec.nodes[missing[k]].name;
        }
        if (missing.size() > shown)
        {
            names += " and " + std::to_string(missing.size() - shown) + " more";
        }
        throw ConfigError(path,
                          0,
                          kKey,
                          Plural(missing.size(), "node") + " of " + spec.source +
                              (missing.size() == 1 ? " has" : " have") + " no rank: " + names);
    }
    return rank;
}

} // namespace

TopologyPartition
PartitionTopology(const TopologySpec& spec, uint32_t parts, const std::string& method)
{
    uint32_t n = spec.nodes.size();
    if (parts == 0)
    {
        throw ConfigError(spec.source, 0, kKey, "the number of parts must be at least 1");
    }
    if (parts > n)
    {
        throw ConfigError(spec.source,
                          0,
                          kKey,
                          std::to_string(parts) + " parts but the topology has only " +
                              Plural(n, "node") + "; every rank must own at least one node");
    }
    CheckLinks(spec);
    if (parts == 1)
    {
        if (method != "auto" && method != "pods")
        {
            // A partition file still has to name every node once (the single-process reference
            // of a K-rank run reads the same file), though its ranks all fold into one.
            PartitionFile(spec, n, method);
        }
        return Finish(spec, 1, std::vector<uint32_t>(n, 0));
    }
    if (method == "auto")
    {
        return Finish(spec, parts, PartitionAuto(spec, parts));
    }
    if (method == "pods")
    {
        return Finish(spec, parts, PartitionPods(spec, parts));
    }
    return Finish(spec, parts, PartitionFile(spec, parts, method));
}

std::string
DescribePartition(const TopologySpec& spec, const TopologyPartition& p)
{
    std::vector<uint32_t> hosts = p.hostsPerRank;
    if (hosts.size() != p.parts && p.rankOfNode.size() == spec.nodes.size())
    {
        // Built by hand: count from the ranks.
        hosts.assign(p.parts, 0);
        for (uint32_t i = 0; i < spec.nodes.size(); ++i)
        {
            if (!spec.nodes[i].isSwitch && p.rankOfNode[i] < p.parts)
            {
                ++hosts[p.rankOfNode[i]];
            }
        }
    }
    std::ostringstream os;
    os << Plural(p.parts, "part") << ", " << Plural(p.cutLinks.size(), "cut link")
       << ", lookahead ";
    if (p.lookahead == Time::Max())
    {
        os << "unbounded";
    }
    else if (NanoSeconds(p.lookahead.GetNanoSeconds()) == p.lookahead)
    {
        os << p.lookahead.GetNanoSeconds() << " ns";
    }
    else
    {
        os.precision(12);
        os << p.lookahead.ToDouble(Time::NS) << " ns";
    }
    os << ", hosts per rank ";
    for (size_t r = 0; r < hosts.size(); ++r)
    {
        os << (r > 0 ? "/" : "") << hosts[r];
    }
    return os.str();
}

} // namespace ns3
