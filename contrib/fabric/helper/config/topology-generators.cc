#include "config/topology-generators.h"

#include <cmath>
#include <deque>
#include <limits>
#include <unordered_map>

namespace ns3
{

namespace
{

/// Generous bound on generated hosts: far beyond what a packet-level run can simulate, but it
/// keeps a typo (k: 6400) from exhausting memory before anyone sees an error.
constexpr uint64_t kMaxHosts = 1ULL << 22;

/// Appends nodes and links while keeping the spec's invariants (names unique by construction).
class SpecBuilder
{
  public:
    explicit SpecBuilder(const std::string& source)
    {
        m_spec.source = source;
    }

    uint32_t Node(std::string name, bool isSwitch, std::string role, int32_t group)
    {
        TopologyNode n;
        n.name = std::move(name);
        n.isSwitch = isSwitch;
        n.role = std::move(role);
        n.group = group;
        m_spec.nodes.push_back(std::move(n));
        return static_cast<uint32_t>(m_spec.nodes.size() - 1);
    }

    void Link(uint32_t a, uint32_t b, DataRate rate, Time delay)
    {
        TopologyLink l;
        l.a = a;
        l.b = b;
        l.rate = rate;
        l.delay = delay;
        m_spec.links.push_back(l);
    }

    void Reserve(uint64_t nodes, uint64_t links)
    {
        m_spec.nodes.reserve(nodes);
        m_spec.links.reserve(links);
    }

    TopologySpec Take()
    {
        return std::move(m_spec);
    }

  private:
    TopologySpec m_spec;
};

void
CheckPositive(const std::string& gen, const std::string& key, uint64_t value)
{
    if (value == 0)
    {
        throw TopologyParamError(gen, key, "must be at least 1");
    }
}

void
CheckRate(const std::string& gen, const std::string& key, DataRate rate)
{
    if (rate.GetBitRate() == 0)
    {
        throw TopologyParamError(gen, key, "data rate must be positive");
    }
}

void
CheckDelay(const std::string& gen, const std::string& key, Time delay)
{
    if (delay.IsStrictlyNegative())
    {
        throw TopologyParamError(gen, key, "delay must not be negative");
    }
}

void
CheckHostCount(const std::string& gen, const std::string& key, uint64_t hosts)
{
    if (hosts > kMaxHosts)
    {
        throw TopologyParamError(gen,
                                 key,
                                 "gives " + std::to_string(hosts) + " hosts, more than the " +
                                     std::to_string(kMaxHosts) + " a topology may have");
    }
}

/// Parses "a:b" (down:up) into positive numbers.
bool
ParseRatio(const std::string& text, double* a, double* b)
{
    auto colon = text.find(':');
    if (colon == std::string::npos)
    {
        return false;
    }
    auto parse = [](const std::string& s, double* v) {
        size_t used = 0;
        try
        {
            *v = std::stod(s, &used);
        }
        catch (const std::exception&)
        {
            return false;
        }
        return used == s.size() && std::isfinite(*v) && *v > 0 && s[0] != '+';
    };
    return parse(text.substr(0, colon), a) && parse(text.substr(colon + 1), b);
}

} // namespace

TopologyParamError::TopologyParamError(const std::string& generator,
                                       const std::string& key,
                                       const std::string& message)
    : ConfigError("generator:" + generator, 0, key, message),
      m_message(message)
{
}

TopologySpec
MakeStar(uint32_t hosts, DataRate rate, Time delay)
{
    const std::string gen = "star";
    CheckPositive(gen, "hosts", hosts);
    CheckHostCount(gen, "hosts", hosts);
    CheckRate(gen, "rate", rate);
    CheckDelay(gen, "delay", delay);

    SpecBuilder b("generator:" + gen);
    b.Reserve(uint64_t(hosts) + 1, hosts);
    for (uint32_t i = 0; i < hosts; ++i)
    {
        b.Node("h" + std::to_string(i), false, "host", -1);
    }
    uint32_t sw = b.Node("sw0", true, "tor", -1);
    for (uint32_t i = 0; i < hosts; ++i)
    {
        b.Link(i, sw, rate, delay);
    }
    return b.Take();
}

TopologySpec
MakeClos2(const Clos2Params& p)
{
    const std::string gen = "clos2";
    const uint64_t k = p.k;
    if (k < 2 || k % 2 != 0)
    {
        throw TopologyParamError(gen,
                                 "k",
                                 "ports per switch must be even and at least 2, got " +
                                     std::to_string(k));
    }
    if (k > 65536)
    {
        throw TopologyParamError(gen, "k", "at most 65536 ports per switch");
    }

    uint64_t down = p.down;
    uint64_t up = p.up;
    if (!p.oversubscription.empty())
    {
        if (down != 0 || up != 0)
        {
            throw TopologyParamError(gen,
                                     "oversubscription",
                                     "give either 'oversubscription' or 'down'/'up', not both");
        }
        double a = 0;
        double r = 0;
        if (!ParseRatio(p.oversubscription, &a, &r))
        {
            throw TopologyParamError(gen,
                                     "oversubscription",
                                     "expected a ratio down:up such as \"3:1\", got '" +
                                         p.oversubscription + "'");
        }
        // All k ports in use: down = k * a / (a + b) must come out whole.
        double d = double(k) * a / (a + r);
        double rounded = std::round(d);
        if (std::fabs(d - rounded) > 1e-9 || rounded < 1 || rounded >= double(k))
        {
            throw TopologyParamError(gen,
                                     "oversubscription",
                                     "ratio " + p.oversubscription +
                                         " does not split k = " + std::to_string(k) +
                                         " ports into whole numbers of down and up ports");
        }
        down = static_cast<uint64_t>(rounded);
        up = k - down;
    }
    else if (down == 0 && up == 0)
    {
        down = k / 2;
        up = k / 2;
    }
    else if (down == 0)
    {
        if (up >= k)
        {
            throw TopologyParamError(gen,
                                     "up",
                                     "up = " + std::to_string(up) +
                                         " leaves no host port on a k = " + std::to_string(k) +
                                         " switch");
        }
        down = k - up;
    }
    else if (up == 0)
    {
        if (down >= k)
        {
            throw TopologyParamError(gen,
                                     "down",
                                     "down = " + std::to_string(down) +
                                         " leaves no uplink port on a k = " + std::to_string(k) +
                                         " switch");
        }
        up = k - down;
    }
    CheckPositive(gen, "down", down);
    CheckPositive(gen, "up", up);
    if (down + up > k)
    {
        throw TopologyParamError(gen,
                                 "up",
                                 "down (" + std::to_string(down) + ") + up (" + std::to_string(up) +
                                     ") ports exceed k = " + std::to_string(k));
    }

    uint64_t spines = p.spines == 0 ? up : p.spines;
    if (up % spines != 0)
    {
        throw TopologyParamError(gen,
                                 "spines",
                                 "each leaf's " + std::to_string(up) +
                                     " uplinks must spread evenly over the spines, but " +
                                     std::to_string(spines) + " does not divide " +
                                     std::to_string(up));
    }
    const uint64_t parallel = up / spines;
    // Every spine has k ports and takes `parallel` links from every leaf.
    const uint64_t maxLeaves = k / parallel;
    uint64_t leaves = p.leaves == 0 ? maxLeaves : p.leaves;
    if (leaves > maxLeaves)
    {
        throw TopologyParamError(gen,
                                 "leaves",
                                 std::to_string(leaves) + " leaves need " +
                                     std::to_string(leaves * parallel) +
                                     " ports on each spine, more than k = " + std::to_string(k));
    }
    const uint64_t capacity = leaves * down;
    uint64_t hosts = p.hosts == 0 ? capacity : p.hosts;
    if (hosts > capacity)
    {
        throw TopologyParamError(gen,
                                 "hosts",
                                 "too many hosts: " + std::to_string(hosts) + " > " +
                                     std::to_string(leaves) + " leaves x " + std::to_string(down) +
                                     " host ports = " + std::to_string(capacity));
    }
    CheckHostCount(gen, "hosts", hosts);
    CheckRate(gen, "host_rate", p.hostRate);
    CheckRate(gen, "fabric_rate", p.fabricRate);
    CheckDelay(gen, "host_delay", p.hostDelay);
    CheckDelay(gen, "fabric_delay", p.fabricDelay);

    SpecBuilder b("generator:" + gen);
    b.Reserve(hosts + leaves + spines, hosts + leaves * up);
    for (uint64_t i = 0; i < hosts; ++i)
    {
        b.Node("h" + std::to_string(i), false, "host", static_cast<int32_t>(i / down));
    }
    const uint32_t firstLeaf = static_cast<uint32_t>(hosts);
    for (uint64_t j = 0; j < leaves; ++j)
    {
        b.Node("leaf" + std::to_string(j), true, "leaf", static_cast<int32_t>(j));
    }
    const uint32_t firstSpine = static_cast<uint32_t>(hosts + leaves);
    for (uint64_t s = 0; s < spines; ++s)
    {
        b.Node("spine" + std::to_string(s), true, "spine", -1);
    }
    for (uint64_t i = 0; i < hosts; ++i)
    {
        b.Link(static_cast<uint32_t>(i),
               static_cast<uint32_t>(firstLeaf + i / down),
               p.hostRate,
               p.hostDelay);
    }
    for (uint64_t j = 0; j < leaves; ++j)
    {
        for (uint64_t s = 0; s < spines; ++s)
        {
            for (uint64_t c = 0; c < parallel; ++c)
            {
                b.Link(static_cast<uint32_t>(firstLeaf + j),
                       static_cast<uint32_t>(firstSpine + s),
                       p.fabricRate,
                       p.fabricDelay);
            }
        }
    }
    return b.Take();
}

TopologySpec
MakeFatTree3(uint32_t kIn, DataRate rate, Time delay, uint32_t hostsIn)
{
    const std::string gen = "fat-tree3";
    const uint64_t k = kIn;
    if (k < 2 || k % 2 != 0)
    {
        throw TopologyParamError(gen,
                                 "k",
                                 "ports per switch must be even and at least 2, got " +
                                     std::to_string(k));
    }
    const uint64_t half = k / 2;
    const uint64_t capacity = k * k * k / 4;
    CheckHostCount(gen, "k", capacity);
    const uint64_t hosts = hostsIn == 0 ? capacity : hostsIn;
    if (hosts > capacity)
    {
        throw TopologyParamError(gen,
                                 "hosts",
                                 "too many hosts: " + std::to_string(hosts) +
                                     " > k^3/4 = " + std::to_string(capacity));
    }
    CheckRate(gen, "rate", rate);
    CheckDelay(gen, "delay", delay);

    const uint64_t edges = k * half;
    const uint64_t cores = half * half;
    SpecBuilder b("generator:" + gen);
    b.Reserve(hosts + 2 * edges + cores, hosts + k * half * half + k * half * half);
    for (uint64_t i = 0; i < hosts; ++i)
    {
        b.Node("h" + std::to_string(i), false, "host", static_cast<int32_t>(i / (half * half)));
    }
    const uint64_t firstEdge = hosts;
    for (uint64_t p = 0; p < k; ++p)
    {
        for (uint64_t e = 0; e < half; ++e)
        {
            b.Node("edge" + std::to_string(p) + "_" + std::to_string(e),
                   true,
                   "edge",
                   static_cast<int32_t>(p));
        }
    }
    const uint64_t firstAgg = firstEdge + edges;
    for (uint64_t p = 0; p < k; ++p)
    {
        for (uint64_t a = 0; a < half; ++a)
        {
            b.Node("agg" + std::to_string(p) + "_" + std::to_string(a),
                   true,
                   "agg",
                   static_cast<int32_t>(p));
        }
    }
    const uint64_t firstCore = firstAgg + edges;
    for (uint64_t c = 0; c < cores; ++c)
    {
        b.Node("core" + std::to_string(c), true, "core", -1);
    }
    // Host i sits on edge i / (k/2): edge index p*(k/2)+e counts edges pod-major.
    for (uint64_t i = 0; i < hosts; ++i)
    {
        b.Link(static_cast<uint32_t>(i), static_cast<uint32_t>(firstEdge + i / half), rate, delay);
    }
    for (uint64_t p = 0; p < k; ++p)
    {
        for (uint64_t e = 0; e < half; ++e)
        {
            for (uint64_t a = 0; a < half; ++a)
            {
                b.Link(static_cast<uint32_t>(firstEdge + p * half + e),
                       static_cast<uint32_t>(firstAgg + p * half + a),
                       rate,
                       delay);
            }
        }
    }
    for (uint64_t p = 0; p < k; ++p)
    {
        for (uint64_t a = 0; a < half; ++a)
        {
            for (uint64_t c = 0; c < half; ++c)
            {
                b.Link(static_cast<uint32_t>(firstAgg + p * half + a),
                       static_cast<uint32_t>(firstCore + a * half + c),
                       rate,
                       delay);
            }
        }
    }
    return b.Take();
}

namespace
{

/// Uplinks of every leaf of rail group \p group: uplinks_per_leaf, or 1:1 with the leaf's
/// downlinks (the group's servers), rounded up so that every leaf reaches every spine.
uint64_t
RailUplinksOfGroup(const RailParams& p, uint64_t spines, uint64_t group)
{
    if (p.uplinksPerLeaf != 0)
    {
        return uint64_t(p.uplinksPerLeaf);
    }
    uint64_t down = std::min<uint64_t>(p.serversPerGroup, p.servers - group * p.serversPerGroup);
    return (down + spines - 1) / spines * spines;
}

/// The GPUs, gpu<server>_<gpu>: the hosts of a rail fabric, nodes 0 .. servers x gpus - 1.
void
AddRailGpus(SpecBuilder& b, uint64_t servers, uint64_t gpus)
{
    for (uint64_t s = 0; s < servers; ++s)
    {
        for (uint64_t g = 0; g < gpus; ++g)
        {
            b.Node("gpu" + std::to_string(s) + "_" + std::to_string(g),
                   false,
                   "gpu",
                   static_cast<int32_t>(s));
        }
    }
}

/// One leaf per (group, rail), g<group>-rail<rail>, then the spines.
void
AddRailLeavesAndSpines(SpecBuilder& b, uint64_t groups, uint64_t rails, uint64_t spines)
{
    for (uint64_t grp = 0; grp < groups; ++grp)
    {
        for (uint64_t r = 0; r < rails; ++r)
        {
            b.Node("g" + std::to_string(grp) + "-rail" + std::to_string(r),
                   true,
                   "leaf",
                   static_cast<int32_t>(grp));
        }
    }
    for (uint64_t x = 0; x < spines; ++x)
    {
        b.Node("spine" + std::to_string(x), true, "spine", -1);
    }
}

/// Every leaf's uplinks, spread evenly over the spines.
void
LinkRailLeavesToSpines(SpecBuilder& b,
                       const RailParams& p,
                       uint64_t groups,
                       uint64_t rails,
                       uint64_t spines,
                       uint64_t firstLeaf)
{
    const uint64_t firstSpine = firstLeaf + groups * rails;
    for (uint64_t grp = 0; grp < groups; ++grp)
    {
        const uint64_t perSpine = RailUplinksOfGroup(p, spines, grp) / spines;
        for (uint64_t r = 0; r < rails; ++r)
        {
            for (uint64_t x = 0; x < spines; ++x)
            {
                for (uint64_t c = 0; c < perSpine; ++c)
                {
                    b.Link(static_cast<uint32_t>(firstLeaf + grp * rails + r),
                           static_cast<uint32_t>(firstSpine + x),
                           p.fabricRate,
                           p.fabricDelay);
                }
            }
        }
    }
}

/// The rail fabric with NIC nodes: modelled PCIe, or "control" servers (see RailParams).
TopologySpec
MakeRailWithNicNodes(const RailParams& p)
{
    const std::string gen = "rail";
    const bool control = p.serverType == "control";
    const uint64_t servers = p.servers;
    const uint64_t gpus = control ? p.controlGpus : p.gpusPerServer;
    const uint64_t rails = control ? p.controlNicPorts : p.gpusPerServer;
    const uint64_t perGroup = p.serversPerGroup;
    CheckPositive(gen, "control_gpus", gpus);
    CheckPositive(gen, "control_nic_ports", rails);
    CheckHostCount(gen, "servers", servers * gpus);
    if (control)
    {
        CheckRate(gen, "control_peer_rate", p.controlPeerRate);
        CheckRate(gen, "control_slot_rate", p.controlSlotRate);
        CheckRate(gen, "control_nic_port_rate", p.controlNicPortRate);
    }
    else
    {
        CheckRate(gen, "pcie_rate", p.pcieRate);
        CheckDelay(gen, "pcie_delay", p.pcieDelay);
    }
    const uint64_t spines = p.spines == 0 ? rails : p.spines;
    if (p.uplinksPerLeaf != 0 && p.uplinksPerLeaf % spines != 0)
    {
        throw TopologyParamError(gen,
                                 "uplinks_per_leaf",
                                 "uplinks must spread evenly over the spines");
    }
    const uint64_t groups = (servers + perGroup - 1) / perGroup;
    SpecBuilder b("generator:" + gen);
    AddRailGpus(b, servers, gpus);
    const uint64_t firstIntra = servers * gpus;
    for (uint64_t s = 0; s < servers; ++s)
    {
        b.Node("srv" + std::to_string(s) + (control ? "-pcie" : "-nvs"),
               true,
               control ? "pcie-switch" : "nvswitch",
               static_cast<int32_t>(s));
    }
    const uint64_t firstNic = firstIntra + servers;
    const uint64_t nicsPerServer = control ? 1 : gpus;
    for (uint64_t s = 0; s < servers; ++s)
    {
        for (uint64_t g = 0; g < nicsPerServer; ++g)
        {
            b.Node(control ? "srv" + std::to_string(s) + "-nic"
                           : "nic" + std::to_string(s) + "_" + std::to_string(g),
                   true,
                   "nic",
                   static_cast<int32_t>(s));
        }
    }
    const uint64_t firstLeaf = firstNic + servers * nicsPerServer;
    AddRailLeavesAndSpines(b, groups, rails, spines);
    auto u32 = [](uint64_t v) { return static_cast<uint32_t>(v); };
    for (uint64_t s = 0; s < servers; ++s)
    {
        for (uint64_t g = 0; g < gpus; ++g)
        {
            b.Link(u32(s * gpus + g),
                   u32(firstIntra + s),
                   control ? p.controlPeerRate : p.nvlinkRate,
                   p.nvlinkDelay);
        }
    }
    for (uint64_t s = 0; s < servers; ++s)
    {
        if (control)
        {
            b.Link(u32(firstIntra + s), u32(firstNic + s), p.controlSlotRate, p.pcieDelay);
            continue;
        }
        for (uint64_t g = 0; g < gpus; ++g)
        {
            b.Link(u32(s * gpus + g), u32(firstNic + s * gpus + g), p.pcieRate, p.pcieDelay);
        }
    }
    for (uint64_t s = 0; s < servers; ++s)
    {
        for (uint64_t n = 0; n < (control ? rails : gpus); ++n)
        {
            uint64_t nic = firstNic + (control ? s : s * gpus + n);
            b.Link(u32(nic),
                   u32(firstLeaf + (s / perGroup) * rails + n),
                   control ? p.controlNicPortRate : p.nicRate,
                   p.nicDelay);
        }
    }
    LinkRailLeavesToSpines(b, p, groups, rails, spines, firstLeaf);
    return b.Take();
}

} // namespace

TopologySpec
MakeRail(const RailParams& p)
{
    const std::string gen = "rail";
    if (p.serverType != "dgx" && p.serverType != "control")
    {
        throw TopologyParamError(gen,
                                 "server_type",
                                 "expected dgx or control, got '" + p.serverType + "'");
    }
    if (p.serverType == "control" || p.pcieRate.GetBitRate() > 0)
    {
        CheckPositive(gen, "servers", p.servers);
        CheckPositive(gen, "servers_per_group", p.serversPerGroup);
        return MakeRailWithNicNodes(p);
    }
    CheckPositive(gen, "servers", p.servers);
    CheckPositive(gen, "gpus_per_server", p.gpusPerServer);
    CheckPositive(gen, "servers_per_group", p.serversPerGroup);
    const uint64_t servers = p.servers;
    const uint64_t gpus = p.gpusPerServer;
    const uint64_t perGroup = p.serversPerGroup;
    CheckHostCount(gen, "servers", servers * gpus);
    const uint64_t spines = p.spines == 0 ? gpus : p.spines;
    if (spines > kMaxHosts)
    {
        throw TopologyParamError(gen, "spines", "too many spines");
    }
    if (p.uplinksPerLeaf != 0 && p.uplinksPerLeaf % spines != 0)
    {
        throw TopologyParamError(
            gen,
            "uplinks_per_leaf",
            std::to_string(p.uplinksPerLeaf) + " uplinks cannot spread evenly over " +
                std::to_string(spines) + " spines; give a multiple of the spine count");
    }
    CheckRate(gen, "nvlink_rate", p.nvlinkRate);
    CheckRate(gen, "nic_rate", p.nicRate);
    CheckRate(gen, "fabric_rate", p.fabricRate);
    CheckDelay(gen, "nvlink_delay", p.nvlinkDelay);
    CheckDelay(gen, "nic_delay", p.nicDelay);
    CheckDelay(gen, "fabric_delay", p.fabricDelay);

    const uint64_t groups = (servers + perGroup - 1) / perGroup;
    uint64_t fabricLinks = 0;
    for (uint64_t g = 0; g < groups; ++g)
    {
        fabricLinks += gpus * RailUplinksOfGroup(p, spines, g);
    }
    if (fabricLinks > 8 * kMaxHosts)
    {
        throw TopologyParamError(gen, "uplinks_per_leaf", "too many leaf-to-spine links");
    }

    SpecBuilder b("generator:" + gen);
    b.Reserve(servers * gpus + servers + groups * gpus + spines, 2 * servers * gpus + fabricLinks);
    AddRailGpus(b, servers, gpus);
    const uint64_t firstNvs = servers * gpus;
    for (uint64_t s = 0; s < servers; ++s)
    {
        b.Node("srv" + std::to_string(s) + "-nvs", true, "nvswitch", static_cast<int32_t>(s));
    }
    const uint64_t firstLeaf = firstNvs + servers;
    AddRailLeavesAndSpines(b, groups, gpus, spines);
    for (uint64_t s = 0; s < servers; ++s)
    {
        for (uint64_t g = 0; g < gpus; ++g)
        {
            b.Link(static_cast<uint32_t>(s * gpus + g),
                   static_cast<uint32_t>(firstNvs + s),
                   p.nvlinkRate,
                   p.nvlinkDelay);
        }
    }
    for (uint64_t s = 0; s < servers; ++s)
    {
        for (uint64_t g = 0; g < gpus; ++g)
        {
            b.Link(static_cast<uint32_t>(s * gpus + g),
                   static_cast<uint32_t>(firstLeaf + (s / perGroup) * gpus + g),
                   p.nicRate,
                   p.nicDelay);
        }
    }
    LinkRailLeavesToSpines(b, p, groups, gpus, spines, firstLeaf);
    return b.Take();
}

std::optional<TopologyProblem>
FindTopologyProblem(const TopologySpec& spec)
{
    const uint32_t n = static_cast<uint32_t>(spec.nodes.size());
    std::unordered_map<std::string, uint32_t> byName;
    byName.reserve(n);
    bool anyHost = false;
    for (uint32_t i = 0; i < n; ++i)
    {
        const auto& node = spec.nodes[i];
        if (node.name.empty())
        {
            return TopologyProblem{i, std::nullopt, "node has an empty name"};
        }
        auto [it, fresh] = byName.emplace(node.name, i);
        if (!fresh)
        {
            return TopologyProblem{i,
                                   std::nullopt,
                                   "duplicate node name '" + node.name + "' (also node " +
                                       std::to_string(it->second) + ")"};
        }
        anyHost |= !node.isSwitch;
    }
    if (!anyHost)
    {
        return TopologyProblem{std::nullopt, std::nullopt, "topology has no hosts"};
    }

    // Adjacency as a compressed list: generated fabrics reach hundreds of thousands of links.
    std::vector<uint32_t> degree(n, 0);
    for (uint32_t j = 0; j < spec.links.size(); ++j)
    {
        const auto& l = spec.links[j];
        if (l.a >= n || l.b >= n)
        {
            return TopologyProblem{std::nullopt, j, "link refers to a node that does not exist"};
        }
        if (l.a == l.b)
        {
            return TopologyProblem{l.a,
                                   j,
                                   "link connects '" + spec.nodes[l.a].name + "' to itself"};
        }
        ++degree[l.a];
        ++degree[l.b];
    }
    for (uint32_t i = 0; i < n; ++i)
    {
        if (degree[i] == 0)
        {
            return TopologyProblem{i,
                                   std::nullopt,
                                   std::string(spec.nodes[i].isSwitch ? "switch" : "host") + " '" +
                                       spec.nodes[i].name + "' has no link"};
        }
    }
    std::vector<uint32_t> start(n + 1, 0);
    for (uint32_t i = 0; i < n; ++i)
    {
        start[i + 1] = start[i] + degree[i];
    }
    std::vector<uint32_t> adj(start[n]);
    std::vector<uint32_t> fill(start.begin(), start.end() - 1);
    for (const auto& l : spec.links)
    {
        adj[fill[l.a]++] = l.b;
        adj[fill[l.b]++] = l.a;
    }

    // Switch-only components (BFS that never expands a host). A host reaches another host iff
    // they touch a common component or are linked directly.
    const uint32_t none = std::numeric_limits<uint32_t>::max();
    std::vector<uint32_t> comp(n, none);
    uint32_t comps = 0;
    std::deque<uint32_t> queue;
    for (uint32_t i = 0; i < n; ++i)
    {
        if (!spec.nodes[i].isSwitch || comp[i] != none)
        {
            continue;
        }
        comp[i] = comps;
        queue.push_back(i);
        while (!queue.empty())
        {
            uint32_t u = queue.front();
            queue.pop_front();
            for (uint32_t e = start[u]; e < start[u + 1]; ++e)
            {
                uint32_t v = adj[e];
                if (spec.nodes[v].isSwitch && comp[v] == none)
                {
                    comp[v] = comps;
                    queue.push_back(v);
                }
            }
        }
        ++comps;
    }
    std::vector<uint32_t> hosts = spec.Hosts();
    // Fast path: one component that every host touches (true for all generated fabrics).
    std::vector<uint32_t> touched(comps, 0);
    std::vector<uint32_t> lastHost(comps, none);
    for (uint32_t h : hosts)
    {
        for (uint32_t e = start[h]; e < start[h + 1]; ++e)
        {
            uint32_t v = adj[e];
            if (spec.nodes[v].isSwitch && lastHost[comp[v]] != h)
            {
                lastHost[comp[v]] = h;
                ++touched[comp[v]];
            }
        }
    }
    for (uint32_t c = 0; c < comps; ++c)
    {
        if (touched[c] == hosts.size())
        {
            return std::nullopt;
        }
    }
    if (hosts.size() == 1)
    {
        return std::nullopt;
    }
    // Slow path (small hand-written files): find a pair of hosts that cannot reach each other.
    std::vector<std::vector<uint32_t>> hostComps(n);
    for (uint32_t h : hosts)
    {
        for (uint32_t e = start[h]; e < start[h + 1]; ++e)
        {
            uint32_t v = adj[e];
            if (spec.nodes[v].isSwitch)
            {
                hostComps[h].push_back(comp[v]);
            }
        }
    }
    for (size_t x = 0; x < hosts.size(); ++x)
    {
        for (size_t y = x + 1; y < hosts.size(); ++y)
        {
            uint32_t ha = hosts[x];
            uint32_t hb = hosts[y];
            bool ok = false;
            for (uint32_t e = start[ha]; e < start[ha + 1] && !ok; ++e)
            {
                ok = adj[e] == hb;
            }
            for (uint32_t ca : hostComps[ha])
            {
                for (uint32_t cb : hostComps[hb])
                {
                    ok |= ca == cb;
                }
            }
            if (!ok)
            {
                return TopologyProblem{hb,
                                       std::nullopt,
                                       "host '" + spec.nodes[hb].name + "' cannot reach host '" +
                                           spec.nodes[ha].name +
                                           "' without passing through another host (the "
                                           "fabric is disconnected)"};
            }
        }
    }
    return std::nullopt;
}

void
ValidateTopology(const TopologySpec& spec)
{
    auto problem = FindTopologyProblem(spec);
    if (!problem)
    {
        return;
    }
    int line = 0;
    std::string key;
    if (problem->link)
    {
        line = spec.links[*problem->link].sourceLine;
        key = "links[" + std::to_string(*problem->link) + "]";
    }
    else if (problem->node)
    {
        key = spec.nodes[*problem->node].name;
    }
    throw ConfigError(spec.source, line, key, problem->message);
}

} // namespace ns3
