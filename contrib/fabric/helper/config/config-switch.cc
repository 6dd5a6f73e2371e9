// switch: the shared buffer, egress scheduling, PFC (thresholds, headroom, watchdog) and ECN.

#include "config/attribute-values.h"
#include "config/config-sections.h"
#include "config/plugin-keys.h"
#include "wire/roce-frame-header.h"

#include <algorithm>
#include <set>
#include <sstream>

namespace ns3
{

namespace
{

constexpr uint64_t kInfiniteBuffer = 0xFFFFFFFFull; // QueueSize is 32-bit: 4 GiB is "infinite"

/// The largest frame a host sends: the payload MTU and every header of a RoCE frame.
uint64_t
LargestFrame(const ScenarioBuild& b)
{
    return b.cfg.payloadMtu + kRoceFrameOverhead;
}

void
ReadBuffer(YamlFields& sw, const ScenarioKey& key, ScenarioBuild& b)
{
    bool infinite = sw.Has(key.Name()) && sw.String(key.Name()) == "infinite";
    b.bufferBytes = infinite ? kInfiniteBuffer : ValueOf(sw, key).count;
    KeyValue v;
    v.count = b.bufferBytes;
    b.cfg.attributes.emplace_back(key.attribute, AttributeText(key, v));
}

void
ReadHashSalt(YamlFields& sw, const ScenarioKey& key, ScenarioBuild& b)
{
    b.cfg.hashSalt = static_cast<uint32_t>(ValueOf(sw, key).count);
}

/// switch.pfc.lossless: a list of priorities, set as a bit mask.
uint32_t
ReadLossless(YamlFields& pfc, AttributeList& attributes)
{
    const ScenarioKey& key = FindKey(pfc.KeyPath("lossless"));
    uint32_t mask = static_cast<uint32_t>(DefaultOf(key).count);
    if (pfc.Has(key.Name()))
    {
        mask = 0;
        for (const std::string& p : pfc.StringList(key.Name()))
        {
            if (p.size() != 1 || p[0] < '0' || p[0] > '7')
            {
                throw pfc.Error(key.Name(), "priorities are 0..7, got '" + p + "'");
            }
            mask |= 1u << (p[0] - '0');
        }
    }
    attributes.emplace_back(key.attribute, std::to_string(mask));
    return mask;
}

std::string
PriorityList(const KeyValue& mask)
{
    std::string list;
    for (int p = 0; p < 8; ++p)
    {
        if (mask.count & (1u << p))
        {
            list += (list.empty() ? "" : ", ") + std::to_string(p);
        }
    }
    return "[" + list + "]";
}

/// switch.pfc.xon: given, or half of XOFF.
void
ReadXon(YamlFields& pfc, uint64_t xoff, AttributeList& attributes)
{
    const ScenarioKey& key = FindKey(pfc.KeyPath("xon"));
    KeyValue xon;
    xon.count = pfc.Has(key.Name()) ? ValueOf(pfc, key).count : xoff / 2;
    if (xon.count > xoff)
    {
        throw pfc.Error(key.Name(), "XON threshold must not exceed XOFF");
    }
    attributes.emplace_back(key.attribute, AttributeText(key, xon));
}

/// switch.pfc.dynamic_alpha: > 0 turns the dynamic threshold on with that alpha.
void
ReadDynamicAlpha(YamlFields& pfc, const ScenarioBuild& b, AttributeList& attributes)
{
    const ScenarioKey& key = FindKey(pfc.KeyPath("dynamic_alpha"));
    const std::string dynamic = "ns3::SharedBufferMmu::DynamicThreshold";
    if (!pfc.Has(key.Name()))
    {
        attributes.emplace_back(dynamic, AttributeDefaultText(dynamic));
        return;
    }
    KeyValue alpha = ValueOf(pfc, key);
    if (alpha.number > 0 && !b.switchMmu.empty() && b.switchMmu != "dynamic")
    {
        throw pfc.Error(key.Name(),
                        "above 0 selects the dynamic threshold, but switch.mmu is '" + b.switchMmu +
                            "': set switch.mmu: dynamic, or drop dynamic_alpha");
    }
    attributes.emplace_back(dynamic, alpha.number > 0 ? "true" : "false");
    if (alpha.number > 0)
    {
        attributes.emplace_back(key.attribute, AttributeText(key, alpha));
    }
}

/// switch.pfc.xon_offset: given, or two of the largest frames.
void
ReadXonOffset(YamlFields& pfc, ScenarioBuild& b)
{
    const ScenarioKey& key = FindKey(pfc.KeyPath("xon_offset"));
    KeyValue offset;
    offset.count = pfc.Has(key.Name()) ? ValueOf(pfc, key).count : 2 * LargestFrame(b);
    b.cfg.attributes.emplace_back(key.attribute, AttributeText(key, offset));
}

/// switch.pfc.headroom: given, or the one-hop bound for the fastest link and the longest cable.
uint64_t
ReadHeadroom(YamlFields& pfc, ScenarioBuild& b)
{
    const ScenarioKey& key = FindKey(pfc.KeyPath("headroom"));
    KeyValue headroom;
    if (pfc.String(key.Name(), "auto") == "auto")
    {
        DataRate fastest(0ULL);
        Time longest(0);
        for (const auto& l : b.cfg.topology.links)
        {
            fastest = std::max(fastest, l.rate);
            longest = std::max(longest, l.delay);
        }
        headroom.count = OneHopHeadroomBytes(fastest,
                                             longest,
                                             static_cast<uint32_t>(LargestFrame(b)),
                                             static_cast<uint32_t>(b.wireOverhead));
    }
    else
    {
        headroom.count = ValueOf(pfc, key).count;
    }
    b.cfg.attributes.emplace_back(key.attribute, AttributeText(key, headroom));
    return headroom.count;
}

/// The port count of the switch with the most ports: it reserves the most per-port buffer.
uint32_t
MostSwitchPorts(const TopologySpec& topo)
{
    std::vector<uint32_t> degree(topo.nodes.size(), 0);
    for (const auto& l : topo.links)
    {
        degree[l.a]++;
        degree[l.b]++;
    }
    uint32_t maxPorts = 0;
    for (uint32_t s : topo.Switches())
    {
        maxPorts = std::max(maxPorts, degree[s]);
    }
    return maxPorts;
}

/// Every switch reserves headroom per (port, lossless priority), or one headroom pool; the
/// switch with the most ports must still have a shared pool left.
void
CheckHeadroomReserve(YamlFields& sw,
                     YamlFields& pfc,
                     const ScenarioBuild& b,
                     uint64_t headroom,
                     uint64_t headroomPool,
                     uint32_t losslessMask)
{
    int classes = __builtin_popcount(losslessMask);
    if (headroomPool > 0 && classes > 0)
    {
        // Too small a pool to absorb even one pause is refused here; one too small for every
        // port that pauses at once is the user's trade-off, and its drops are counted as
        // headroom violations (docs/models.md).
        if (headroomPool < headroom)
        {
            throw pfc.Error("headroom_pool",
                            std::to_string(headroomPool) +
                                " B cannot hold the headroom of one (port, lossless priority) (" +
                                std::to_string(headroom) +
                                " B): give at least that, or 0 for per-port headroom");
        }
        if (headroomPool >= b.bufferBytes)
        {
            throw pfc.Error("headroom_pool",
                            std::to_string(headroomPool) + " B leaves no shared pool in the " +
                                std::to_string(b.bufferBytes) + " B buffer");
        }
        return;
    }
    uint32_t maxPorts = MostSwitchPorts(b.cfg.topology);
    uint64_t reserve = headroom * maxPorts * classes;
    if (reserve >= b.bufferBytes)
    {
        throw sw.Error(
            "buffer",
            std::to_string(b.bufferBytes) + " B cannot hold the PFC headroom reserve of " +
                std::to_string(reserve) + " B (" + std::to_string(maxPorts) + " ports x " +
                std::to_string(classes) + " lossless priorities x " + std::to_string(headroom) +
                " B headroom); enlarge the buffer, lower switch.pfc.headroom or share the "
                "headroom (switch.pfc.headroom_pool)");
    }
}

/// switch.pfc.headroom_delay_multiple: each switch reserves N x rate x delay per (port, lossless
/// priority) of its own cables (SharedBufferMmu::HeadroomDelayMultiple); each must keep a pool.
void
CheckCableHeadroomReserve(YamlFields& sw,
                          const ScenarioBuild& b,
                          uint64_t multiple,
                          uint32_t losslessMask)
{
    const TopologySpec& topo = b.cfg.topology;
    std::vector<uint64_t> reserve(topo.nodes.size(), 0);
    for (const auto& l : topo.links)
    {
        uint64_t ns = static_cast<uint64_t>(l.delay.GetPicoSeconds() / 1000);
        uint64_t bytes = l.rate.GetBitRate() * ns / 8 / 1000000000ULL * multiple *
                         __builtin_popcount(losslessMask);
        reserve[l.a] += bytes;
        reserve[l.b] += bytes;
    }
    for (uint32_t s : topo.Switches())
    {
        if (reserve[s] >= b.bufferBytes)
        {
            throw sw.Error("buffer",
                           std::to_string(b.bufferBytes) + " B cannot hold switch " +
                               topo.nodes[s].name + "'s PFC headroom of " +
                               std::to_string(reserve[s]) + " B (" + std::to_string(multiple) +
                               " x rate x cable delay per port and lossless priority); enlarge "
                               "the buffer or set switch.pfc.headroom_outside_buffer");
        }
    }
}

/// The switch with the most ports reserves switch.cbfc.credits per (port, credited lane): the
/// buffer must hold that and keep a shared pool.
void
CheckCreditReserve(YamlFields& sw, const ScenarioBuild& b, uint32_t lanes)
{
    uint32_t maxPorts = MostSwitchPorts(b.cfg.topology);
    uint64_t reserve = b.cbfcCreditBytes * maxPorts * __builtin_popcount(lanes);
    if (reserve >= b.bufferBytes)
    {
        throw sw.Error("buffer",
                       std::to_string(b.bufferBytes) + " B cannot hold the credit reserve of " +
                           std::to_string(reserve) + " B (" + std::to_string(maxPorts) +
                           " ports x " + std::to_string(__builtin_popcount(lanes)) +
                           " credited lanes x " + std::to_string(b.cbfcCreditBytes) +
                           " B of switch.cbfc.credits); enlarge the buffer or lower the credits");
    }
}

void
ReadPfc(YamlFields& sw, const ScenarioKey& key, ScenarioBuild& b)
{
    YamlFields pfc = sw.Child(key.Name());
    AttributeList& attributes = b.cfg.attributes;
    bool enabled = SetFromKey(pfc, "enabled", attributes).flag;
    uint32_t lossless = ReadLossless(pfc, attributes);
    uint64_t xoff = SetFromKey(pfc, "xoff", attributes).count;
    ReadXon(pfc, xoff, attributes);
    ReadDynamicAlpha(pfc, b, attributes);
    ReadXonOffset(pfc, b);
    SetFromKey(pfc, "pause_quanta", attributes);
    uint64_t headroom = ReadHeadroom(pfc, b);
    uint64_t headroomPool = SetFromKey(pfc, "headroom_pool", attributes).count;
    uint64_t delayMultiple = SetFromKey(pfc, "headroom_delay_multiple", attributes).count;
    bool outside = SetFromKey(pfc, "headroom_outside_buffer", attributes).flag;
    SetFromKey(pfc, "hop_class_increment", attributes);
    ReadSection(pfc, FindKey(pfc.KeyPath("watchdog")), b);
    pfc.RejectUnknownKeys();
    if (b.cbfc)
    {
        // The credited lanes are the lossless priorities; every switch reserves the advertised
        // credits per (port, lane) instead of headroom.
        attributes.emplace_back("ns3::FabricNetDevice::CreditLanes", std::to_string(lossless));
        CheckCreditReserve(sw, b, lossless);
        return;
    }
    if (enabled && !outside)
    {
        if (delayMultiple > 0)
        {
            CheckCableHeadroomReserve(sw, b, delayMultiple, lossless);
        }
        else
        {
            CheckHeadroomReserve(sw, pfc, b, headroom, headroomPool, lossless);
        }
    }
}

/// switch.ecn.speed_map: [{rate, kmin, kmax, pmax}, ...] as the switches' EcnSpeedMap text.
void
ReadEcnSpeedMap(YamlFields& ecn, const ScenarioKey& key, ScenarioBuild& b)
{
    if (!ecn.Has(key.Name()))
    {
        return;
    }
    YAML::Node list = ecn.Node(key.Name());
    if (!list.IsSequence())
    {
        throw ecn.Error(key.Name(), "expected a list of {rate, kmin, kmax, pmax}");
    }
    std::string text;
    std::set<uint64_t> rates;
    for (size_t i = 0; i < list.size(); ++i)
    {
        YamlFields e(list[i], ecn.File(), key.path + "[" + std::to_string(i) + "]");
        DataRate rate = e.Rate("rate");
        uint64_t kmin = e.Bytes("kmin");
        uint64_t kmax = e.Bytes("kmax");
        double pmax = e.Double("pmax");
        e.RejectUnknownKeys();
        if (kmax < kmin)
        {
            throw e.Error("kmax", "Kmax must be >= Kmin");
        }
        if (pmax < 0 || pmax > 1)
        {
            throw e.Error("pmax", "must be within 0..1");
        }
        if (!rates.insert(rate.GetBitRate()).second)
        {
            throw e.Error("rate", "listed twice");
        }
        std::ostringstream entry;
        entry << rate.GetBitRate() << "bps:" << kmin << "B:" << kmax << "B:" << e.String("pmax");
        text += (text.empty() ? "" : ",") + entry.str();
    }
    b.cfg.attributes.emplace_back(key.attribute, text);
}

/// switch.ecn.kmax, which must not be below kmin.
void
ReadKmax(YamlFields& ecn, const ScenarioKey& key, ScenarioBuild& b)
{
    uint64_t kmin = ValueOf(ecn, "kmin").count;
    KeyValue kmax = ValueOf(ecn, key);
    if (kmax.count < kmin)
    {
        throw ecn.Error(key.Name(), "Kmax must be >= Kmin");
    }
    b.cfg.attributes.emplace_back(key.attribute, AttributeText(key, kmax));
}

/// switch.mmu: the threshold policy, remembered for switch.pfc.dynamic_alpha.
void
ReadMmuPolicy(YamlFields& sw, const ScenarioKey& key, ScenarioBuild& b)
{
    KeyValue v = SetFromKey(sw, key, b.cfg.attributes);
    if (sw.Has(key.Name()))
    {
        b.switchMmu = v.text;
    }
}

} // namespace

ScenarioKeys
SwitchKeys()
{
    const std::string mmu = "ns3::SharedBufferMmu::";
    const std::string sw = "ns3::FabricSwitch::";
    ScenarioKeys rows = {
        ScenarioKey("switch", KeyKind::Mapping, "every switch").Reader(ReadSection),
        ScenarioKey("switch.buffer", KeyKind::Bytes, "shared packet buffer per switch, or infinite")
            .Attribute(mmu + "BufferSize")
            .Check(Positive("must be positive (or 'infinite')"))
            .Unit("bytes|infinite")
            .Reader(ReadBuffer),
        ScenarioKey("switch.hash_salt",
                    KeyKind::Count,
                    "ECMP hash salt; every switch derives its own from it "
                    "(ns3::FabricSwitch::HashSalt)")
            .Default("0")
            .Check(AtMost(UINT32_MAX, "must be 0..4294967295 (a 32-bit salt)"))
            .Reader(ReadHashSalt),
        ScenarioKey("switch.scheduler", KeyKind::Choice, "egress scheduling among priorities")
            .Choices({"strict", "dwrr"})
            .Attribute("ns3::FabricNetDevice::Scheduler"),
        ScenarioKey("switch.dwrr_quantum", KeyKind::Bytes, "DWRR bytes per priority and round")
            .Attribute("ns3::FabricNetDevice::DwrrQuantum"),
        ScenarioKey("switch.ack_high_priority",
                    KeyKind::Flag,
                    "RoCE ACKs, NAKs and CNPs leave every switch port at priority 7, ahead of "
                    "data (ConWeave's switches: AckHighPrio 1)")
            .Attribute(sw + "AckHighPriority"),

        ScenarioKey("switch.mmu",
                    KeyKind::Choice,
                    "how the shared buffer sets its thresholds: " +
                        PluginHelp(PluginKind::MmuPolicy))
            .MappedChoices(PluginTypeChoices(PluginKind::MmuPolicy))
            .Attribute(mmu + "Policy")
            .Reader(ReadMmuPolicy),
        // switch.flow_control and switch.cbfc (CbfcKeys) are inserted here: switch.pfc reads them.
        ScenarioKey("switch.pfc", KeyKind::Mapping, "priority flow control").Reader(ReadPfc),
        ScenarioKey("switch.pfc.enabled",
                    KeyKind::Flag,
                    "PFC on the lossless priorities (otherwise every priority tail-drops)")
            .Attribute(mmu + "PfcEnabled"),
        ScenarioKey("switch.pfc.lossless", KeyKind::List, "the lossless priorities")
            .Attribute(mmu + "LosslessPriorities")
            .Unit("list of priorities 0..7")
            .Shown(PriorityList),
        ScenarioKey("switch.pfc.xoff",
                    KeyKind::Bytes,
                    "static threshold: shared bytes of an (ingress port, priority) at which "
                    "XOFF is sent")
            .Attribute(mmu + "XoffThreshold"),
        ScenarioKey("switch.pfc.xon",
                    KeyKind::Bytes,
                    "static threshold: shared bytes at or below which XON is sent")
            .Attribute(mmu + "XonThreshold")
            .Rule("xoff / 2"),
        ScenarioKey("switch.pfc.dynamic_alpha",
                    KeyKind::Number,
                    "> 0: dynamic XOFF threshold = alpha x free shared buffer "
                    "(ns3::SharedBufferMmu::DynamicThreshold)")
            .Attribute(mmu + "Alpha")
            .Check([](const KeyValue& v) {
                return v.number < 0 ? "must be >= 0 (0 = static thresholds)" : "";
            })
            .Rule([mmu] {
                return AttributeDefaultText(mmu + "DynamicThreshold") == "true"
                           ? AttributeDefaultText(mmu + "Alpha")
                           : "0 = static thresholds";
            }),
        ScenarioKey("switch.pfc.xon_offset",
                    KeyKind::Bytes,
                    "dynamic threshold: XON this far below XOFF")
            .Attribute(mmu + "XonOffset")
            .Rule("two of the largest frames (host.mtu and RoCE headers), computed by the "
                  "scenario"),
        ScenarioKey("switch.pfc.pause_quanta",
                    KeyKind::Count,
                    "pause time an XOFF frame carries; the switch refreshes it before it expires")
            .Attribute(mmu + "PauseQuanta")
            .Check(Within(1, 65535, "must be 1..65535"))
            .Unit("512-bit times"),
        ScenarioKey("switch.pfc.headroom",
                    KeyKind::Bytes,
                    "headroom per (ingress port, lossless priority)")
            .Attribute(mmu + "Headroom")
            .Unit("bytes|auto")
            .Rule("auto: the one-hop bound for the fastest link and the longest cable, computed "
                  "by the scenario (the buffer must hold it for every port and lossless "
                  "priority)"),
        ScenarioKey("switch.pfc.headroom_delay_multiple",
                    KeyKind::Count,
                    "0: every port reserves switch.pfc.headroom; N: each port reserves N x its "
                    "rate x its cable delay per lossless priority (the HPCC simulators: 3)")
            .Attribute(mmu + "HeadroomDelayMultiple"),
        ScenarioKey("switch.pfc.headroom_outside_buffer",
                    KeyKind::Flag,
                    "true: switch.buffer is the shared pool and the headroom comes on top "
                    "(ns3-datacenter); false: the headroom is taken from switch.buffer (HPCC)")
            .Attribute(mmu + "HeadroomOutsideBuffer"),
        ScenarioKey("switch.pfc.headroom_pool",
                    KeyKind::Bytes,
                    "shared headroom pool: 0 reserves headroom for every (port, lossless "
                    "priority); otherwise one pool of this size, sized for the ports that can "
                    "pause at once, each drawing up to switch.pfc.headroom")
            .Attribute(mmu + "HeadroomPool"),
        ScenarioKey("switch.pfc.hop_class_increment",
                    KeyKind::Flag,
                    "deadlock avoidance: each switch hop moves lossless frames one priority up "
                    "(list those priorities in switch.pfc.lossless)")
            .Attribute(sw + "HopClassIncrement"),
        ScenarioKey("switch.pfc.watchdog", KeyKind::Mapping, "PFC storm detection")
            .Reader(ReadSection),
        ScenarioKey("switch.pfc.watchdog.enabled",
                    KeyKind::Flag,
                    "a lossless queue paused and unable to send for the detection time triggers "
                    "the action")
            .Attribute(sw + "PfcWatchdog"),
        ScenarioKey("switch.pfc.watchdog.detection",
                    KeyKind::Native,
                    "how long a queue stays paused without sending to be a storm victim")
            .Attribute(sw + "PfcWatchdogDetection"),
        ScenarioKey("switch.pfc.watchdog.restore",
                    KeyKind::Native,
                    "the watchdog stands down once no pause has arrived for this long")
            .Attribute(sw + "PfcWatchdogRestore"),
        ScenarioKey("switch.pfc.watchdog.action",
                    KeyKind::Native,
                    "drop: discard the stormed queue's frames and ignore its pauses; forward: "
                    "ignore pauses and keep sending")
            .Attribute(sw + "PfcWatchdogAction"),

        ScenarioKey("switch.ecn", KeyKind::Mapping, "ECN marking (the DCQCN congestion point)")
            .Reader(ReadSection),
        ScenarioKey("switch.ecn.enabled", KeyKind::Flag, "mark CE on ECN-capable frames")
            .Attribute(sw + "EcnEnabled"),
        ScenarioKey("switch.ecn.kmin",
                    KeyKind::Bytes,
                    "egress queue depth where marking starts (0B: 100 KB per 25 Gb/s of port "
                    "rate, the HPCC simulator's KMIN_MAP)")
            .Attribute(sw + "EcnKmin"),
        ScenarioKey("switch.ecn.kmax",
                    KeyKind::Bytes,
                    "queue depth where marking reaches pmax (0B: 400 KB per 25 Gb/s, the HPCC "
                    "simulator's KMAX_MAP)")
            .Attribute(sw + "EcnKmax")
            .Reader(ReadKmax),
        ScenarioKey("switch.ecn.pmax", KeyKind::Number, "marking probability at kmax")
            .Attribute(sw + "EcnPmax")
            .Check(Within(0, 1, "must be within 0..1"))
            .Unit("probability"),
        ScenarioKey("switch.ecn.speed_map",
                    KeyKind::List,
                    "per-link-speed curves, overriding kmin/kmax/pmax on ports of a listed "
                    "rate: [{rate, kmin, kmax, pmax}] (the HPCC simulators' KMIN_MAP, "
                    "KMAX_MAP, PMAX_MAP)")
            .Attribute(sw + "EcnSpeedMap")
            .OnlyWhenGiven()
            .Reader(ReadEcnSpeedMap),
        ScenarioKey("switch.ecn.speed_map[].rate", KeyKind::Rate, "the ports' link rate"),
        ScenarioKey("switch.ecn.speed_map[].kmin", KeyKind::Bytes, "where marking starts"),
        ScenarioKey("switch.ecn.speed_map[].kmax", KeyKind::Bytes, "where it reaches pmax"),
        ScenarioKey("switch.ecn.speed_map[].pmax", KeyKind::Number, "probability at kmax"),
        ScenarioKey("switch.ecn.mark_on",
                    KeyKind::Choice,
                    "decide marking when a frame is enqueued or dequeued")
            .Choices({"enqueue", "dequeue"})
            .Attribute(sw + "EcnMarkPoint"),
    };
    ScenarioKeys cbfc = CbfcKeys();
    auto pfcRow = std::find_if(rows.begin(), rows.end(), [](const ScenarioKey& k) {
        return k.path == "switch.pfc";
    });
    rows.insert(pfcRow, cbfc.begin(), cbfc.end());
    for (const ScenarioKeys& more : {TrimKeys(), LoadBalancerKeys()})
    {
        rows.insert(rows.end(), more.begin(), more.end());
    }
    // The buffer policies' own keys (abm.alpha, dynamic_threshold.lossy_alpha, ...).
    ScenarioKeys mmuSections = PluginSectionKeys(PluginKind::MmuPolicy, "switch.mmu");
    rows.insert(rows.end(), mmuSections.begin(), mmuSections.end());
    return rows;
}

} // namespace ns3
