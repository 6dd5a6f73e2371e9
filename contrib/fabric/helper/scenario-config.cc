#include "scenario-config.h"

#include "attribute-values.h"
#include "config-error.h"
#include "hpcc-import.h"
#include "link/frame-codec.h"
#include "topology-reader.h"
#include "ub-config.h"
#include "units.h"
#include "yaml-fields.h"

#include "ns3/config.h"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <map>
#include <optional>
#include <random>
#include <sstream>

namespace ns3
{

namespace
{

std::string
BytesValue(uint64_t bytes)
{
    if (bytes > 0xFFFFFFFFull)
    {
        bytes = 0xFFFFFFFFull; // QueueSize is 32-bit; 4 GiB is "infinite" for a switch buffer
    }
    return std::to_string(bytes) + "B";
}

/// Resolves a host given as an index ("3") or a node name ("h3").
uint32_t
ResolveHost(YamlFields& f, const std::string& key, const TopologySpec& topo)
{
    std::string v = f.String(key);
    std::vector<uint32_t> hosts = topo.Hosts();
    bool numeric = !v.empty() && std::all_of(v.begin(), v.end(), ::isdigit);
    if (numeric)
    {
        uint64_t i = std::stoull(v);
        if (i >= hosts.size())
        {
            throw f.Error(key,
                          "host index " + v + " out of range (topology has " +
                              std::to_string(hosts.size()) + " hosts)");
        }
        return static_cast<uint32_t>(i);
    }
    auto node = topo.Find(v);
    if (!node)
    {
        throw f.Error(key, "unknown node '" + v + "'");
    }
    auto it = std::find(hosts.begin(), hosts.end(), *node);
    if (it == hosts.end())
    {
        throw f.Error(key, "'" + v + "' is a switch; flows start and end at hosts");
    }
    return static_cast<uint32_t>(it - hosts.begin());
}

uint8_t
ReadPriority(YamlFields& f, const std::string& key, uint8_t fallback)
{
    uint64_t p = f.Uint(key, fallback);
    if (p > 7)
    {
        throw f.Error(key, "priority must be 0..7, got " + std::to_string(p));
    }
    return static_cast<uint8_t>(p);
}

/// A file named in a scenario: relative to the scenario file, then to the source tree, then to
/// the working directory; "" when none exists.
std::string
ResolvePath(const std::string& scenarioFile, const std::string& sourceRoot, const std::string& path)
{
    std::string dir = scenarioFile.substr(0, scenarioFile.find_last_of('/') + 1);
    for (const std::string& candidate : {dir + path, sourceRoot + "/" + path, path})
    {
        if (std::ifstream(candidate).good())
        {
            return candidate;
        }
    }
    return "";
}

TopologySpec
ReadScenarioTopology(YamlFields& root,
                     const std::string& file,
                     const std::string& sourceRoot,
                     const LinkDefaults& defaults,
                     uint32_t incastHosts,
                     std::optional<HpccTopology>* hpcc)
{
    YAML::Node node = root.Node("topology");
    if (node.IsMap() && node["hpcc"])
    {
        // topology: {hpcc: topology.txt} — the HPCC / ConWeave simulators' format; each link's
        // error rate becomes its cable loss rate.
        YamlFields t(node, file, "topology");
        HpccTopology topo = ReadHpccTopology(ResolvePath(file, sourceRoot, t.String("hpcc")));
        t.RejectUnknownKeys();
        for (size_t i = 0; i < topo.spec.links.size(); ++i)
        {
            topo.spec.links[i].lossRate = topo.linkErrorRate[i];
        }
        *hpcc = topo;
        return topo.spec;
    }
    if (node.IsScalar())
    {
        // topology: path/to/file.yaml — relative to the scenario file, then to the source tree.
        std::string path = node.Scalar();
        std::string found = ResolvePath(file, sourceRoot, path);
        if (found.empty())
        {
            throw ConfigError(file,
                              YamlLine(node),
                              "topology",
                              "topology file '" + path + "' not found");
        }
        return ReadTopologyFile(found, defaults);
    }
    if (node.IsMap() && node["hosts"] && node["hosts"].IsScalar() &&
        node["hosts"].Scalar() == "auto")
    {
        // "hosts: auto" sizes a star for the incast: the receiver plus every sender. Written
        // into the document (not a clone, which would lose every line number for messages).
        node["hosts"] = incastHosts;
    }
    return ReadTopology(node, file, "topology", defaults);
}

} // namespace

void
AddAttributeFromKey(ScenarioConfig& cfg,
                    YamlFields& fields,
                    const std::string& key,
                    const std::string& attribute)
{
    std::string normalized;
    std::string error;
    if (!NormalizeAttributeValue(attribute, fields.String(key), &normalized, &error))
    {
        throw fields.Error(key, error);
    }
    cfg.attributes.emplace_back(attribute, normalized);
}

namespace
{

/// A copy of a node built programmatically: no source position, so a bad --set value is not
/// reported at some line of the scenario file.
YAML::Node
WithoutMarks(const YAML::Node& n)
{
    if (n.IsScalar())
    {
        return YAML::Node(n.Scalar());
    }
    if (n.IsSequence())
    {
        YAML::Node out(YAML::NodeType::Sequence);
        for (const auto& item : n)
        {
            out.push_back(WithoutMarks(item));
        }
        return out;
    }
    if (n.IsMap())
    {
        YAML::Node out(YAML::NodeType::Map);
        for (const auto& kv : n)
        {
            out[kv.first.Scalar()] = WithoutMarks(kv.second);
        }
        return out;
    }
    return YAML::Node();
}

} // namespace

void
ApplyOverride(YAML::Node& document, const std::string& assignment)
{
    size_t eq = assignment.find('=');
    if (eq == std::string::npos || eq == 0)
    {
        throw ConfigError("--set", 0, assignment, "expected key=value (keys joined by dots)");
    }
    std::string key = assignment.substr(0, eq);
    std::string value = assignment.substr(eq + 1);
    if (key.back() == '.' || key.front() == '.')
    {
        throw ConfigError("--set", 0, key, "empty key component");
    }
    std::vector<std::string> parts;
    std::stringstream ss(key);
    for (std::string part; std::getline(ss, part, '.');)
    {
        if (part.empty())
        {
            throw ConfigError("--set", 0, key, "empty key component");
        }
        parts.push_back(part);
    }
    // yaml-cpp nodes are handles: walk with fresh handles, never reassign one (that would
    // rebind it instead of writing into the tree).
    std::vector<YAML::Node> path{document};
    // A numeric component indexes an existing list element: topology.links.2.delay=9us.
    auto listIndex = [&](const YAML::Node& node, const std::string& part) -> int64_t {
        if (!node.IsSequence())
        {
            return -1;
        }
        if (part.find_first_not_of("0123456789") != std::string::npos || part.size() > 9 ||
            std::stoul(part) >= node.size())
        {
            throw ConfigError("--set",
                              0,
                              key,
                              "'" + part + "' is not an index of that list (0.." +
                                  std::to_string(node.size() - 1) + ")");
        }
        return static_cast<int64_t>(std::stoul(part));
    };
    for (size_t i = 0; i + 1 < parts.size(); ++i)
    {
        int64_t index = listIndex(path.back(), parts[i]);
        if (index >= 0)
        {
            YAML::Node element = path.back()[static_cast<size_t>(index)];
            if (!element.IsMap())
            {
                throw ConfigError("--set", 0, key, "element " + parts[i] + " is not a mapping");
            }
            path.push_back(element);
            continue;
        }
        YAML::Node child = path.back()[parts[i]];
        if (child.IsDefined() && !child.IsNull() && !child.IsMap() && !child.IsSequence())
        {
            throw ConfigError("--set", 0, key, "'" + parts[i] + "' is not a mapping");
        }
        if (!child.IsDefined() || child.IsNull())
        {
            path.back()[parts[i]] = YAML::Node(YAML::NodeType::Map);
            child = path.back()[parts[i]];
        }
        path.push_back(child);
    }
    YAML::Node parsed;
    try
    {
        parsed = YAML::Load(value);
    }
    catch (const YAML::Exception& e)
    {
        throw ConfigError("--set", 0, key, "value is not valid YAML: " + value);
    }
    int64_t last = listIndex(path.back(), parts.back());
    if (last >= 0)
    {
        path.back()[static_cast<size_t>(last)] = WithoutMarks(parsed);
        return;
    }
    path.back()[parts.back()] = WithoutMarks(parsed);
}

uint64_t
OneHopHeadroomBytes(DataRate rate, Time cableDelay, uint32_t frameBytes, uint32_t wireOverhead)
{
    // After the frame that crosses XOFF has arrived, the pause may wait behind one frame in
    // transmission and one other PFC frame on our port, serializes, and propagates up the cable;
    // everything the upstream starts before it arrives lands here: the bytes it can send in
    // W = T_frame + 2·T_pause + 2·d, plus the last frame it started (in full). Counting bytes
    // rather than frames keeps the bound safe when small frames (ACKs) mix with full ones.
    double bitsPerSecond = static_cast<double>(rate.GetBitRate());
    double frameTime = (frameBytes + wireOverhead) * 8.0 / bitsPerSecond;
    double pauseTime = (kMinFrameBytes + wireOverhead) * 8.0 / bitsPerSecond;
    double window = frameTime + 2 * pauseTime + 2 * cableDelay.GetSeconds();
    return static_cast<uint64_t>(std::ceil(window * bitsPerSecond / 8 - 1e-6)) + frameBytes;
}

ScenarioConfig
LoadScenario(const std::string& path,
             const std::vector<std::string>& overrides,
             const std::string& sourceRoot)
{
    ScenarioConfig cfg;
    cfg.file = path;
    YAML::Node doc = LoadYamlFile(path);
    if (!doc.IsMap())
    {
        throw ConfigError(path, 1, "", "a scenario file is a mapping of keys");
    }
    for (const std::string& o : overrides)
    {
        ApplyOverride(doc, o);
    }
    cfg.document = doc;
    YamlFields root(doc, path, "");
    cfg.name = root.String("name", path.substr(path.find_last_of('/') + 1));
    if (cfg.name.size() > 5 && cfg.name.substr(cfg.name.size() - 5) == ".yaml")
    {
        cfg.name = cfg.name.substr(0, cfg.name.size() - 5);
    }
    cfg.seed = root.Uint("seed", 1);
    cfg.stopTime = root.Duration("stop_time", MilliSeconds(10));
    if (cfg.stopTime.IsZero())
    {
        throw root.Error("stop_time", "must be positive");
    }

    // Links: defaults for the topology, and the frame overhead of every port.
    YamlFields link = root.Child("link");
    LinkDefaults linkDefaults;
    linkDefaults.rate = link.Rate("rate", linkDefaults.rate);
    linkDefaults.delay = link.DelayOrCable("delay", "cable", linkDefaults.delay);
    uint64_t wireOverhead = link.Bytes("wire_overhead", 24);
    double lossRate = link.Double("loss_rate", 0.0);
    if (lossRate < 0 || lossRate > 1)
    {
        throw link.Error("loss_rate", "a probability within 0..1");
    }
    cfg.attributes.emplace_back("ns3::FabricNetDevice::LossRate", std::to_string(lossRate));
    link.RejectUnknownKeys();
    cfg.attributes.emplace_back("ns3::FabricNetDevice::WireOverhead", std::to_string(wireOverhead));

    // The workload's shape decides the size of an auto-sized star, so read its count first.
    YamlFields work = root.Child("workload");
    std::string type = work.String("type", "incast");
    uint64_t senders = work.Uint("senders", 8);
    std::optional<HpccTopology> hpcc;
    cfg.topology = ReadScenarioTopology(root,
                                        path,
                                        sourceRoot,
                                        linkDefaults,
                                        static_cast<uint32_t>(senders + 1),
                                        &hpcc);
    const uint32_t nHosts = static_cast<uint32_t>(cfg.topology.Hosts().size());

    YamlFields host = root.Child("host");
    cfg.payloadMtu = static_cast<uint32_t>(host.Bytes("mtu", 4096));
    if (cfg.payloadMtu < 64 || cfg.payloadMtu > 9000)
    {
        throw host.Error("mtu", "payload MTU must be 64..9000 bytes");
    }
    host.RejectUnknownKeys();
    cfg.attributes.emplace_back("ns3::FabricHost::Mtu", std::to_string(cfg.payloadMtu));

    // Switch: buffer, scheduling, PFC, ECN.
    YamlFields sw = root.Child("switch");
    std::string buffer = sw.String("buffer", "32MiB");
    uint64_t bufferBytes = 0xFFFFFFFFull;
    if (buffer != "infinite")
    {
        bufferBytes = sw.Bytes("buffer", 32 * 1024 * 1024);
        if (bufferBytes == 0)
        {
            throw sw.Error("buffer", "must be positive (or 'infinite')");
        }
    }
    cfg.attributes.emplace_back("ns3::SharedBufferMmu::BufferSize", BytesValue(bufferBytes));
    cfg.hashSalt = static_cast<uint32_t>(sw.Uint("hash_salt", 0));
    std::string scheduler = sw.String("scheduler", "strict");
    if (scheduler != "strict" && scheduler != "dwrr")
    {
        throw sw.Error("scheduler", "expected strict or dwrr, got '" + scheduler + "'");
    }
    cfg.attributes.emplace_back("ns3::FabricNetDevice::Scheduler", scheduler);
    cfg.attributes.emplace_back("ns3::FabricNetDevice::DwrrQuantum",
                                std::to_string(sw.Bytes("dwrr_quantum", 9216)));

    YamlFields pfc = sw.Child("pfc");
    bool pfcEnabled = pfc.Bool("enabled", true);
    cfg.attributes.emplace_back("ns3::SharedBufferMmu::PfcEnabled", pfcEnabled ? "true" : "false");
    uint32_t losslessMask = 0;
    std::vector<std::string> lossless =
        pfc.Has("lossless") ? pfc.StringList("lossless") : std::vector<std::string>{"3"};
    for (const std::string& p : lossless)
    {
        if (p.size() != 1 || p[0] < '0' || p[0] > '7')
        {
            throw pfc.Error("lossless", "priorities are 0..7, got '" + p + "'");
        }
        losslessMask |= 1u << (p[0] - '0');
    }
    cfg.attributes.emplace_back("ns3::SharedBufferMmu::LosslessPriorities",
                                std::to_string(losslessMask));
    uint64_t xoff = pfc.Bytes("xoff", 256 * 1024);
    uint64_t xon = pfc.Bytes("xon", xoff / 2);
    if (xon > xoff)
    {
        throw pfc.Error("xon", "XON threshold must not exceed XOFF");
    }
    cfg.attributes.emplace_back("ns3::SharedBufferMmu::XoffThreshold", BytesValue(xoff));
    cfg.attributes.emplace_back("ns3::SharedBufferMmu::XonThreshold", BytesValue(xon));
    double alpha = pfc.Double("dynamic_alpha", 0.0);
    if (alpha < 0)
    {
        throw pfc.Error("dynamic_alpha", "must be >= 0 (0 = static thresholds)");
    }
    cfg.attributes.emplace_back("ns3::SharedBufferMmu::DynamicThreshold",
                                alpha > 0 ? "true" : "false");
    if (alpha > 0)
    {
        cfg.attributes.emplace_back("ns3::SharedBufferMmu::Alpha", std::to_string(alpha));
    }
    cfg.attributes.emplace_back(
        "ns3::SharedBufferMmu::XonOffset",
        BytesValue(pfc.Bytes("xon_offset", 2 * (cfg.payloadMtu + kRoceFrameOverhead))));
    uint64_t quanta = pfc.Uint("pause_quanta", 0xFFFF);
    if (quanta == 0 || quanta > 0xFFFF)
    {
        throw pfc.Error("pause_quanta", "must be 1..65535");
    }
    cfg.attributes.emplace_back("ns3::SharedBufferMmu::PauseQuanta", std::to_string(quanta));
    std::string headroom = pfc.String("headroom", "auto");
    uint64_t headroomBytes;
    if (headroom == "auto")
    {
        // Size for the worst link of the fabric: the fastest rate and the longest cable.
        DataRate fastest(0ULL);
        Time longest(0);
        for (const auto& l : cfg.topology.links)
        {
            fastest = std::max(fastest, l.rate);
            longest = std::max(longest, l.delay);
        }
        headroomBytes = OneHopHeadroomBytes(fastest,
                                            longest,
                                            cfg.payloadMtu + kRoceFrameOverhead,
                                            static_cast<uint32_t>(wireOverhead));
    }
    else
    {
        headroomBytes = pfc.Bytes("headroom");
    }
    cfg.attributes.emplace_back("ns3::SharedBufferMmu::Headroom", BytesValue(headroomBytes));
    cfg.attributes.emplace_back("ns3::FabricSwitch::HopClassIncrement",
                                pfc.Bool("hop_class_increment", false) ? "true" : "false");
    YamlFields watchdog = pfc.Child("watchdog");
    cfg.attributes.emplace_back("ns3::FabricSwitch::PfcWatchdog",
                                watchdog.Bool("enabled", false) ? "true" : "false");
    for (const auto& [key, attr] : {std::make_pair("detection", "PfcWatchdogDetection"),
                                    std::make_pair("restore", "PfcWatchdogRestore"),
                                    std::make_pair("action", "PfcWatchdogAction")})
    {
        if (watchdog.Has(key))
        {
            AddAttributeFromKey(cfg, watchdog, key, std::string("ns3::FabricSwitch::") + attr);
        }
    }
    watchdog.RejectUnknownKeys();
    pfc.RejectUnknownKeys();
    if (pfcEnabled)
    {
        // Every switch reserves headroom per (port, lossless priority); the largest switch
        // must still have a shared pool left.
        std::vector<uint32_t> degree(cfg.topology.nodes.size(), 0);
        for (const auto& l : cfg.topology.links)
        {
            degree[l.a]++;
            degree[l.b]++;
        }
        uint32_t maxPorts = 0;
        for (uint32_t sw : cfg.topology.Switches())
        {
            maxPorts = std::max(maxPorts, degree[sw]);
        }
        uint64_t reserve = headroomBytes * maxPorts * __builtin_popcount(losslessMask);
        if (reserve >= bufferBytes)
        {
            throw sw.Error("buffer",
                           std::to_string(bufferBytes) +
                               " B cannot hold the PFC headroom reserve of " +
                               std::to_string(reserve) + " B (" + std::to_string(maxPorts) +
                               " ports x " + std::to_string(__builtin_popcount(losslessMask)) +
                               " lossless priorities x " + std::to_string(headroomBytes) +
                               " B headroom); enlarge the buffer or lower switch.pfc.headroom");
        }
    }

    YamlFields ecn = sw.Child("ecn");
    cfg.attributes.emplace_back("ns3::FabricSwitch::EcnEnabled",
                                ecn.Bool("enabled", true) ? "true" : "false");
    uint64_t kmin = ecn.Bytes("kmin", 0);
    uint64_t kmax = ecn.Bytes("kmax", 0);
    if (kmax < kmin)
    {
        throw ecn.Error("kmax", "Kmax must be >= Kmin");
    }
    cfg.attributes.emplace_back("ns3::FabricSwitch::EcnKmin", BytesValue(kmin));
    cfg.attributes.emplace_back("ns3::FabricSwitch::EcnKmax", BytesValue(kmax));
    double pmax = ecn.Double("pmax", 0.2);
    if (pmax < 0 || pmax > 1)
    {
        throw ecn.Error("pmax", "must be within 0..1");
    }
    cfg.attributes.emplace_back("ns3::FabricSwitch::EcnPmax", std::to_string(pmax));
    std::string markOn = ecn.String("mark_on", "enqueue");
    if (markOn != "enqueue" && markOn != "dequeue")
    {
        throw ecn.Error("mark_on", "expected enqueue or dequeue");
    }
    cfg.attributes.emplace_back("ns3::FabricSwitch::EcnMarkPoint", markOn);
    ecn.RejectUnknownKeys();
    sw.RejectUnknownKeys();

    // Transport: raw flows, or RoCE RC queue pairs with loss recovery and congestion control.
    cfg.transport = root.String("transport", "raw");
    if (cfg.transport != "raw" && cfg.transport != "roce" && cfg.transport != "ub")
    {
        throw root.Error("transport", "expected raw, roce or ub, got '" + cfg.transport + "'");
    }
    std::string cc = root.String("cc", cfg.transport == "ub" ? "caqm" : "none");
    ParseUbTransport(root, doc, cc, cfg);
    if (cfg.transport == "ub")
    {
        cc = "none"; // the RoCE NIC is not used
    }
    else if (cc != "none" && cc != "dcqcn")
    {
        throw root.Error("cc", "expected none or dcqcn, got '" + cc + "'");
    }
    if (cc != "none" && cfg.transport != "roce")
    {
        throw root.Error("cc", "congestion control needs transport: roce or ub");
    }
    cfg.attributes.emplace_back("ns3::RdmaNic::CongestionControl",
                                cc == "dcqcn" ? "ns3::DcqcnCongestionControl"
                                              : "ns3::NoCongestionControl");
    cfg.attributes.emplace_back("ns3::RdmaNic::Mtu", std::to_string(cfg.payloadMtu));
    YamlFields roce = root.Child("roce");
    // Scenario key → RdmaNic attribute, each value checked against the attribute's type.
    const std::pair<const char*, const char*> roceKeys[] = {
        {"recovery", "Recovery"},
        {"ack_interval", "AckInterval"},
        {"cnp_interval", "CnpInterval"},
        {"cnp_priority", "CnpPriority"},
        {"rto_low", "RtoLow"},
        {"rto_high", "RtoHigh"},
        {"rto_low_threshold", "RtoLowThreshold"},
        {"window", "Window"},
        {"base_rtt", "BaseRtt"},
        {"request_interval", "RequestInterval"},
        {"max_inflight_requests", "MaxInflightRequests"},
        {"receive_slots", "ReceiveSlots"},
        {"completion_time", "CompletionProcessingTime"},
        {"rnr_delay", "RnrDelay"},
        {"ordered_messages", "OrderedMessages"},
    };
    for (const auto& [key, attr] : roceKeys)
    {
        if (roce.Has(key))
        {
            AddAttributeFromKey(cfg, roce, key, std::string("ns3::RdmaNic::") + attr);
        }
    }
    roce.RejectUnknownKeys();
    YamlFields dcqcn = root.Child("dcqcn");
    if (root.Has("dcqcn"))
    {
        // dcqcn: {AttributeName: value} for ns3::DcqcnCongestionControl (see --print-attributes).
        for (const auto& kv : doc["dcqcn"])
        {
            std::string key = kv.first.Scalar();
            AddAttributeFromKey(cfg, dcqcn, key, "ns3::DcqcnCongestionControl::" + key);
        }
    }

    // Workload, expanded into flows.
    uint8_t prio = ReadPriority(work, "priority", 3);
    bool ecnCapable = work.Bool("ecn", true);
    DataRate rate(0ULL);
    std::string rateText = work.String("rate", "line");
    if (rateText != "line")
    {
        rate = work.Rate("rate");
    }
    RdmaVerb verb;
    if (!ParseRdmaVerb(work.String("verb", "write"), &verb))
    {
        throw work.Error("verb", "expected write, send or read, got '" + work.String("verb") + "'");
    }
    if (verb == RdmaVerb::READ && cfg.transport != "roce")
    {
        throw work.Error("verb", "read needs transport: roce");
    }
    Time start = work.Duration("start", Time(0));
    Time jitter = work.Duration("start_jitter", Time(0));
    std::mt19937_64 rng(cfg.seed);
    auto jittered = [&](Time t) {
        if (jitter.IsZero())
        {
            return t;
        }
        std::uniform_int_distribution<int64_t> d(0, jitter.GetPicoSeconds());
        return t + PicoSeconds(d(rng));
    };
    if (type == "incast")
    {
        uint32_t receiver = work.Has("receiver") ? ResolveHost(work, "receiver", cfg.topology) : 0;
        uint64_t bytes = work.Bytes("bytes_per_sender", 2 * 1024 * 1024);
        if (senders == 0)
        {
            throw work.Error("senders", "an incast needs at least one sender");
        }
        if (senders >= nHosts)
        {
            throw work.Error("senders",
                             "need 1.." + std::to_string(nHosts - 1) +
                                 " senders (the topology has " + std::to_string(nHosts) +
                                 " hosts, one of them the receiver)");
        }
        if (bytes == 0)
        {
            throw work.Error("bytes_per_sender", "must be positive");
        }
        for (uint32_t h = 0, n = 0; h < nHosts && n < senders; ++h)
        {
            if (h == receiver)
            {
                continue;
            }
            cfg.flows.push_back(
                FlowSpec{h, receiver, bytes, jittered(start), rate, prio, ecnCapable, verb});
            ++n;
        }
    }
    else if (type == "permutation")
    {
        uint64_t bytes = work.Bytes("bytes_per_flow", 2 * 1024 * 1024);
        if (bytes == 0)
        {
            throw work.Error("bytes_per_flow", "must be positive");
        }
        // A random derangement: every host sends to one other host and receives from one.
        std::vector<uint32_t> perm(nHosts);
        for (uint32_t i = 0; i < nHosts; ++i)
        {
            perm[i] = i;
        }
        do
        {
            std::shuffle(perm.begin(), perm.end(), rng);
        } while (nHosts > 1 && [&] {
            for (uint32_t i = 0; i < nHosts; ++i)
            {
                if (perm[i] == i)
                {
                    return true;
                }
            }
            return false;
        }());
        for (uint32_t i = 0; i < nHosts; ++i)
        {
            cfg.flows.push_back(
                FlowSpec{i, perm[i], bytes, jittered(start), rate, prio, ecnCapable, verb});
        }
    }
    else if (type == "all-to-all")
    {
        uint64_t bytes = work.Bytes("bytes_per_flow", 256 * 1024);
        if (bytes == 0)
        {
            throw work.Error("bytes_per_flow", "must be positive");
        }
        for (uint32_t s = 0; s < nHosts; ++s)
        {
            for (uint32_t d = 0; d < nHosts; ++d)
            {
                if (s != d)
                {
                    cfg.flows.push_back(
                        FlowSpec{s, d, bytes, jittered(start), rate, prio, ecnCapable, verb});
                }
            }
        }
    }
    else if (type == "hpcc")
    {
        // workload: {type: hpcc, file: flow.txt} over a topology: {hpcc: ...}.
        if (!hpcc)
        {
            throw work.Error("type", "an hpcc flow file needs topology: {hpcc: topology.txt}");
        }
        std::string flowFile = ResolvePath(path, sourceRoot, work.String("file"));
        if (flowFile.empty())
        {
            throw work.Error("file", "flow file '" + work.String("file") + "' not found");
        }
        for (FlowSpec fs : ReadHpccFlows(flowFile, *hpcc))
        {
            fs.rate = rate;
            fs.ecn = ecnCapable;
            fs.verb = verb;
            cfg.flows.push_back(fs);
        }
    }
    else if (type == "flows")
    {
        YAML::Node list = work.Node("flows");
        if (!list.IsSequence())
        {
            throw work.Error("flows", "expected a list of flows");
        }
        for (size_t i = 0; i < list.size(); ++i)
        {
            YamlFields f(list[i], path, "workload.flows[" + std::to_string(i) + "]");
            FlowSpec fs;
            fs.src = ResolveHost(f, "src", cfg.topology);
            fs.dst = ResolveHost(f, "dst", cfg.topology);
            if (fs.src == fs.dst)
            {
                throw f.Error("dst", "a flow needs different source and destination");
            }
            fs.bytes = f.Bytes("bytes");
            if (fs.bytes == 0)
            {
                throw f.Error("bytes", "must be positive");
            }
            fs.start = f.Duration("start", start);
            std::string r = f.String("rate", "line");
            fs.rate = r == "line" ? DataRate(0ULL) : f.Rate("rate");
            fs.priority = ReadPriority(f, "priority", prio);
            fs.ecn = f.Bool("ecn", ecnCapable);
            if (f.Has("rate_schedule"))
            {
                // rate_schedule: [{at: 20us, rate: 45GB/s}, ...] — times after the flow's start.
                YAML::Node sched = f.Node("rate_schedule");
                if (!sched.IsSequence())
                {
                    throw f.Error("rate_schedule", "expected a list of {at, rate}");
                }
                for (size_t j = 0; j < sched.size(); ++j)
                {
                    YamlFields e(sched[j],
                                 path,
                                 f.KeyPath("rate_schedule") + "[" + std::to_string(j) + "]");
                    Time at = e.Duration("at");
                    if (!fs.rateSchedule.empty() && at < fs.rateSchedule.back().first)
                    {
                        throw e.Error("at", "rate changes must be in time order");
                    }
                    fs.rateSchedule.emplace_back(at, e.Rate("rate"));
                    e.RejectUnknownKeys();
                }
            }
            fs.period = f.Duration("period", Time(0));
            fs.onTime = f.Duration("on_time", fs.period);
            if (fs.period.IsStrictlyPositive() && (fs.onTime.IsZero() || fs.onTime > fs.period))
            {
                throw f.Error("on_time", "must be within (0, period]");
            }
            if (cfg.transport == "roce" &&
                (fs.period.IsStrictlyPositive() || !fs.rateSchedule.empty()))
            {
                throw f.Error("period",
                              "periodic and scripted-rate flows are raw flows (transport: raw)");
            }
            fs.verb = verb;
            if (f.Has("verb") && !ParseRdmaVerb(f.String("verb"), &fs.verb))
            {
                throw f.Error("verb", "expected write, send or read");
            }
            if (fs.verb == RdmaVerb::READ && cfg.transport != "roce")
            {
                throw f.Error("verb", "read needs transport: roce");
            }
            for (const char* key : {"endpoint", "order", "after"})
            {
                if (f.Has(key) && cfg.transport != "ub")
                {
                    throw f.Error(key, "Jettys and request ordering need transport: ub");
                }
            }
            ParseUbRequestFields(f, cfg.flows, fs);
            f.RejectUnknownKeys();
            cfg.flows.push_back(fs);
        }
    }
    else if (type == "collective")
    {
        // Collectives (model/collective): the transfers are created by the engine at run time.
        YamlFields coll = root.Child("collective");
        cfg.collective = ParseCollective(coll, cfg.topology, cfg.transport, cfg.attributes);
    }
    else
    {
        throw work.Error("type",
                         "unknown workload '" + type +
                             "' (incast, permutation, all-to-all, flows, hpcc, collective)");
    }
    if (work.Has("lose"))
    {
        // lose: [{flow: 0, packet: 5}, ...] — first transmissions lost (retransmission studies).
        YAML::Node list = work.Node("lose");
        if (!list.IsSequence())
        {
            throw work.Error("lose", "expected a list of {flow, packet}");
        }
        for (size_t i = 0; i < list.size(); ++i)
        {
            YamlFields l(list[i], path, "workload.lose[" + std::to_string(i) + "]");
            PacketLoss loss;
            loss.flow = static_cast<uint32_t>(l.Uint("flow"));
            loss.packet = static_cast<uint32_t>(l.Uint("packet"));
            if (loss.flow >= cfg.flows.size())
            {
                throw l.Error("flow", "no flow " + std::to_string(loss.flow));
            }
            l.RejectUnknownKeys();
            cfg.losses.push_back(loss);
        }
        if (cfg.transport != "roce" && cfg.transport != "ub")
        {
            throw work.Error("lose", "packet losses are recovered only with transport: roce or ub");
        }
    }
    if (work.Has("jettys"))
    {
        // Jettys per host: each host's flows are posted by its Jettys in turn.
        uint64_t jettys = work.Uint("jettys");
        if (cfg.transport != "ub" || jettys == 0 || jettys > 0xFFFF)
        {
            throw work.Error("jettys", "needs transport: ub and a count in 1..65535");
        }
        std::vector<uint32_t> posted(cfg.topology.Hosts().size(), 0);
        for (FlowSpec& fs : cfg.flows)
        {
            fs.endpoint = static_cast<uint16_t>(posted[fs.src]++ % jettys);
        }
    }
    work.RejectUnknownKeys();

    YamlFields trace = root.Child("trace");
    cfg.trace.queueInterval = trace.Duration("queue_interval", MicroSeconds(1));
    cfg.trace.rateInterval = trace.Duration("rate_interval", MicroSeconds(10));
    if (cfg.trace.queueInterval.IsZero() || cfg.trace.rateInterval.IsZero())
    {
        throw trace.Error("queue_interval", "sampling intervals must be positive");
    }
    if (trace.Has("queue_nodes"))
    {
        cfg.trace.queueNodes = trace.StringList("queue_nodes");
    }
    std::string mode = trace.String("queue_mode", "interval");
    if (mode != "interval" && mode != "change")
    {
        throw trace.Error("queue_mode", "expected interval or change, got '" + mode + "'");
    }
    cfg.trace.queueOnChange = mode == "change";
    if (trace.Has("queue_ports"))
    {
        for (const std::string& p : trace.StringList("queue_ports"))
        {
            if (p.empty() || !std::all_of(p.begin(), p.end(), ::isdigit))
            {
                throw trace.Error("queue_ports", "expected port numbers, got '" + p + "'");
            }
            cfg.trace.queuePorts.push_back(static_cast<uint32_t>(std::stoul(p)));
        }
    }
    if (trace.Has("queue_priorities"))
    {
        cfg.trace.queuePriorities = 0;
        for (const std::string& p : trace.StringList("queue_priorities"))
        {
            if (p.size() != 1 || p[0] < '0' || p[0] > '7')
            {
                throw trace.Error("queue_priorities", "priorities are 0..7, got '" + p + "'");
            }
            cfg.trace.queuePriorities |= static_cast<uint8_t>(1u << (p[0] - '0'));
        }
    }
    std::string gzip = trace.String("gzip_above", "256MiB");
    cfg.trace.gzipAbove = gzip == "never" ? UINT64_MAX : trace.Bytes("gzip_above", 256ull << 20);
    cfg.trace.pcap = trace.Bool("pcap", false);
    if (trace.Has("pcap_nodes"))
    {
        cfg.trace.pcapNodes = trace.StringList("pcap_nodes");
    }
    for (const auto* list : {&cfg.trace.queueNodes, &cfg.trace.pcapNodes})
    {
        for (const std::string& n : *list)
        {
            if (!cfg.topology.Find(n))
            {
                throw trace.Error(list == &cfg.trace.queueNodes ? "queue_nodes" : "pcap_nodes",
                                  "unknown node '" + n + "'");
            }
        }
    }
    trace.RejectUnknownKeys();

    // Link failures: events: [{at: 100us, link_down: [leaf0, spine1]}, {at: 1ms, link_up: [...]}]
    if (root.Has("events"))
    {
        YAML::Node list = root.Node("events");
        if (!list.IsSequence())
        {
            throw root.Error("events", "expected a list of {at, link_down|link_up: [a, b]}");
        }
        for (size_t i = 0; i < list.size(); ++i)
        {
            YamlFields e(list[i], path, "events[" + std::to_string(i) + "]");
            if (e.Has("cnp"))
            {
                // {at: 100us, cnp: 0}: the sender of flow 0 reacts as if a CNP had arrived.
                Time at = e.Duration("at");
                uint64_t flow = e.Uint("cnp");
                if (flow >= cfg.flows.size() || cfg.transport != "roce")
                {
                    throw e.Error("cnp", "needs a RoCE flow index (transport: roce)");
                }
                e.RejectUnknownKeys();
                cfg.cnpEvents.emplace_back(at, static_cast<uint32_t>(flow));
                continue;
            }
            if (e.Has("pfc_storm") || e.Has("pfc_storm_stop"))
            {
                StormEvent storm;
                storm.at = e.Duration("at");
                storm.stop = e.Has("pfc_storm_stop");
                storm.host =
                    ResolveHost(e, storm.stop ? "pfc_storm_stop" : "pfc_storm", cfg.topology);
                storm.priority = ReadPriority(e, "priority", 3);
                e.RejectUnknownKeys();
                cfg.stormEvents.push_back(storm);
                continue;
            }
            LinkEvent ev;
            ev.at = e.Duration("at");
            ev.up = e.Has("link_up");
            std::string key = ev.up ? "link_up" : "link_down";
            std::vector<std::string> ends = e.StringList(key);
            if (ends.size() != 2)
            {
                throw e.Error(key, "expected the two nodes of a link, e.g. [leaf0, spine1]");
            }
            auto a = cfg.topology.Find(ends[0]);
            auto b = cfg.topology.Find(ends[1]);
            if (!a || !b)
            {
                throw e.Error(key, "unknown node '" + (a ? ends[1] : ends[0]) + "'");
            }
            bool found = false;
            for (uint32_t li = 0; li < cfg.topology.links.size(); ++li)
            {
                const TopologyLink& l = cfg.topology.links[li];
                if ((l.a == *a && l.b == *b) || (l.a == *b && l.b == *a))
                {
                    ev.link = li; // every parallel link between the two nodes
                    cfg.linkEvents.push_back(ev);
                    found = true;
                }
            }
            if (!found)
            {
                throw e.Error(key, "no link between " + ends[0] + " and " + ends[1]);
            }
            e.RejectUnknownKeys();
        }
    }

    YamlFields deadlock = root.Child("deadlock");
    cfg.deadlockCheckInterval = deadlock.Duration("check_interval", MicroSeconds(100));
    cfg.deadlockTimeout = deadlock.Duration("timeout", MilliSeconds(1));
    deadlock.RejectUnknownKeys();

    // The event scheduler: every choice pops events in the same (time, insertion) order, so
    // results do not depend on it; only the speed does (bench/PROFILE.md).
    YamlFields simulator = root.Child("simulator");
    std::string eventSet = simulator.String("scheduler", "wheel");
    static const std::map<std::string, std::string> kSchedulers = {
        {"wheel", "ns3::FabricWheelScheduler"},
        {"heap", "ns3::PriorityQueueScheduler"},
        {"map", "ns3::MapScheduler"},
        {"calendar", "ns3::CalendarScheduler"},
    };
    auto chosen = kSchedulers.find(eventSet);
    if (chosen == kSchedulers.end())
    {
        throw simulator.Error("scheduler",
                              "expected wheel, heap, map or calendar, got '" + eventSet + "'");
    }
    cfg.scheduler = chosen->second;
    if (simulator.Has("bucket_width"))
    {
        if (simulator.Duration("bucket_width", Time(0)) <= Time(0))
        {
            throw simulator.Error("bucket_width", "must be positive");
        }
        AddAttributeFromKey(cfg,
                            simulator,
                            "bucket_width",
                            "ns3::FabricWheelScheduler::BucketWidth");
    }
    if (simulator.Has("buckets"))
    {
        uint64_t buckets = simulator.Uint("buckets", 0);
        if (buckets == 0 || buckets > (1u << 24) || (buckets & (buckets - 1)) != 0)
        {
            throw simulator.Error("buckets", "must be a power of two between 1 and 16777216");
        }
        AddAttributeFromKey(cfg, simulator, "buckets", "ns3::FabricWheelScheduler::Buckets");
    }
    simulator.RejectUnknownKeys();

    // Free-form ns-3 attributes, applied last so they win: {"ns3::Type::Attr": value}.
    YamlFields attrs = root.Child("attributes");
    if (root.Has("attributes"))
    {
        for (const auto& kv : doc["attributes"])
        {
            std::string k = kv.first.Scalar();
            AddAttributeFromKey(cfg, attrs, k, k);
        }
    }
    root.RejectUnknownKeys();
    return cfg;
}

std::string
ScenarioKeysHelp()
{
    return R"(Scenario keys (YAML; any key can be overridden with --set a.b.c=value):
  name                       run name (default: file name)
  seed                       random seed (default 1); same seed, same results
  stop_time                  simulated time limit, e.g. 10ms (the run also ends when every flow is done)
  topology                   a topology file path, or an inline mapping:
      generator: star|clos2|fat-tree3|rail with its parameters (see topologies/README.md),
      for star, hosts: auto sizes it to workload.senders + 1
  link.rate                  default link rate (400Gbps, 50GB/s, ...)
  link.cable | link.delay    default cable length (30m, 5 ns/m) or propagation delay
  link.loss_rate             probability a frame is lost on a cable (every link, both ways; default 0)
  link.wire_overhead         preamble+SFD+FCS+IFG bytes per frame (default 24B; 0 for ideal formulas)
  host.mtu                   payload bytes per frame (default 4096B)
  switch.buffer              shared buffer per switch: 1MiB, 4MiB, ... or infinite (default 32MiB)
  switch.hash_salt           ECMP hash salt (default 0; every switch derives its own)
  switch.scheduler           strict | dwrr (default strict)
  switch.dwrr_quantum        DWRR bytes per round (default 9216B)
  switch.pfc.enabled         PFC on lossless priorities (default true)
  switch.pfc.lossless        lossless priorities (default [3])
  switch.pfc.xoff / .xon     static thresholds per (ingress port, priority) (256KiB / xoff/2)
  switch.pfc.dynamic_alpha   > 0: dynamic XOFF = alpha x free shared buffer (default 0 = static)
  switch.pfc.xon_offset      dynamic mode: XON this far below XOFF (default 2 frames)
  switch.pfc.headroom        per (port, lossless priority): bytes or auto (one-hop bound, default)
  switch.pfc.pause_quanta    XOFF pause time in 512-bit quanta (default 65535, refreshed)
  switch.ecn.enabled         ECN marking (default true)
  switch.ecn.kmin / .kmax    marking thresholds (default per port speed: 100/400 KiB per 100 Gb/s)
  switch.ecn.pmax            probability at kmax (default 0.2)
  switch.ecn.mark_on         enqueue | dequeue (default enqueue)
  transport                  raw (fixed-size flows, no reliability) | roce (RC queue pairs) |
                             ub (Unified Bus: Jettys over shared transport channels); default raw
  cc                         none | dcqcn (transport: roce, default none) | caqm | none (transport: ub,
                             default caqm)
  roce.recovery              gbn | sr (go-back-N, or IRN-style selective repeat; default gbn)
  roce.ack_interval          ACK every N in-order packets (default 1)
  roce.cnp_interval          at most one CNP per QP per interval (default 50us)
  roce.rto_low / .rto_high   retransmission timeouts (100us / 320us); rto_low_threshold (3 packets)
  roce.window                selective-repeat window (default 0B = line rate x roce.base_rtt)
  roce.request_interval      minimum time between message launches per NIC (default 18.6ns)
  roce.max_inflight_requests outstanding messages per NIC (default 0 = unlimited)
  roce.receive_slots         receive buffers for SENDs (0 = unlimited); roce.completion_time: host
                             time per completion; roce.rnr_delay: sender wait after an RNR NAK
  roce.ordered_messages      true: messages to one destination share one RC QP (start in turn,
                             complete in order: head-of-line blocking); default false (QP per message)
  dcqcn                      {Attribute: value} for ns3::DcqcnCongestionControl
  workload.verb              write | send | read (RoCE, default write; read: src reads from dst)
  workload.lose              [{flow, packet}]: lose that packet's first transmission (RoCE, UB)
  topology: {hpcc: FILE}     a topology.txt of the HPCC / ConWeave simulators (topologies/README.md)
  workload.type: hpcc        with workload.file: their flow.txt (src dst pg [dport] size start_s)
  workload.type              incast | permutation | all-to-all | flows (default incast)
  workload.senders           incast: number of senders (default 8)
  workload.receiver          incast: receiving host (index or name, default 0)
  workload.bytes_per_sender  incast: bytes per sender (default 2MiB)
  workload.bytes_per_flow    permutation / all-to-all: bytes per flow
  workload.flows             flows: list of {src, dst, bytes, start, rate, priority, ecn, verb,
                             rate_schedule: [{at, rate}], period, on_time} (the last three: raw flows)
  workload.rate              sender rate: line or a rate (default line)
  workload.start             start time (default 0)
  workload.start_jitter      uniform random extra start delay per flow (default 0)
  workload.priority          traffic class 0..7 (default 3)
  workload.ecn               ECN-capable transport (default true)
  trace.queue_interval       queue-depth sampling interval (default 1us)
  trace.queue_mode           interval (sample every queue_interval) | change (a row per change)
  trace.queue_nodes          nodes whose egress queues are traced (default: all switches)
  trace.queue_ports          only these ports of those nodes (default: all)
  trace.queue_priorities     only these priorities (default: all)
  trace.gzip_above           traces larger than this are written as .csv.gz (default 256MiB; never)
  trace.rate_interval        per-flow delivered-rate sampling interval (default 10us)
  trace.pcap                 write one pcap per device (default false)
  trace.pcap_nodes           restrict pcaps to these nodes
  events                     link failures: [{at: 100us, link_down: [leaf0, spine1]}, {at: .., link_up: ..}]
                             (queued and in-flight frames on it are dropped; routes recompute at once);
                             PFC storms: {at: 50us, pfc_storm: h0, priority: 3}, {at: .., pfc_storm_stop: h0};
                             scripted CNPs: {at: 100us, cnp: FLOW} (RoCE: the sender reacts as to a CNP)
  switch.pfc.hop_class_increment  deadlock avoidance: each switch hop moves lossless frames one
                             priority up (list those priorities in switch.pfc.lossless)
  switch.pfc.watchdog        {enabled, detection (200us), restore (1ms), action: drop|forward}
  deadlock.check_interval    how often to look for cycles of paused ports (default 100us)
  deadlock.timeout           a cycle without progress this long is a deadlock (default 1ms)
  simulator.scheduler        event set: wheel (timing wheel, default), heap, map or calendar
                             (ns-3's); all give identical results, they differ in speed
  simulator.bucket_width     wheel: time one bucket covers (default 2048ps, rounded up to 2^n ps)
  simulator.buckets          wheel: number of buckets, a power of two (default 512); later
                             events wait in a heap
  attributes                 {"ns3::Type::Attribute": value} set before the fabric is built
)" + UbKeysHelp() +
           CollectiveKeysHelp();
}

} // namespace ns3
