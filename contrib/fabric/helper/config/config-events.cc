// events: things that happen during the run (link failures, PFC storms, scripted CNPs).

#include "config/config-sections.h"

namespace ns3
{

namespace
{

/// {at: 100us, cnp: 0}: the sender of flow 0 reacts as if a CNP had arrived.
void
ReadCnpEvent(YamlFields& e, ScenarioBuild& b)
{
    Time at = e.Duration("at");
    uint64_t flow = e.Uint("cnp");
    if (flow >= b.cfg.flows.size() || b.cfg.transport != "roce")
    {
        throw e.Error("cnp", "needs a RoCE flow index (transport: roce)");
    }
    e.RejectUnknownKeys();
    b.cfg.cnpEvents.emplace_back(at, static_cast<uint32_t>(flow));
}

/// {at: 50us, pfc_storm: h0, priority: 3} or {at: .., pfc_storm_stop: h0}.
void
ReadStormEvent(YamlFields& e, ScenarioBuild& b)
{
    StormEvent storm;
    storm.at = e.Duration("at");
    storm.stop = e.Has("pfc_storm_stop");
    storm.host = ReadHost(e, storm.stop ? "pfc_storm_stop" : "pfc_storm", b.cfg.topology);
    storm.priority = static_cast<uint8_t>(ValueOf(e, "priority").count);
    e.RejectUnknownKeys();
    b.cfg.stormEvents.push_back(storm);
}

/// {at: 100us, link_down: [leaf0, spine1]} or link_up: every link between the two nodes, or
/// with `member: i` only the i-th of them (in topology order) — one link of a bundle, as in
/// CONGA's testbed failure (Alizadeh et al., SIGCOMM 2014, §5.2). The same for faults short of
/// a failure: {at, degrade: [a, b], rate: 200Gbps, delay: 2us, error_rate: 1e-4} (a lane
/// down, a retimer, a dirty connector) and {at, restore: [a, b]} back to the built link.
/// The link action an event names, and its key ("" when it names none).
std::pair<LinkAction, std::string>
LinkActionOf(YamlFields& e)
{
    for (auto [action, key] : {std::pair{LinkAction::DOWN, "link_down"},
                               std::pair{LinkAction::UP, "link_up"},
                               std::pair{LinkAction::DEGRADE, "degrade"},
                               std::pair{LinkAction::RESTORE, "restore"}})
    {
        if (e.Has(key))
        {
            return {action, key};
        }
    }
    return {LinkAction::DOWN, ""};
}

/// degrade: what changes (at least one of rate, delay, error_rate), each range-checked against
/// its attribute (FabricNetDevice::DataRate, FabricChannel::AddedDelay,
/// FabricNetDevice::LossRate).
void
ReadDegradation(YamlFields& e, LinkEvent& ev)
{
    if (e.Has("rate"))
    {
        ev.rate = ValueOf(e, "rate").rate;
    }
    if (e.Has("delay"))
    {
        ev.addedDelay = ValueOf(e, "delay").time;
    }
    if (e.Has("error_rate"))
    {
        ev.errorRate = ValueOf(e, "error_rate").number;
    }
    if (!ev.rate && !ev.addedDelay && !ev.errorRate)
    {
        throw e.Error("degrade", "say what degrades: rate, delay and/or error_rate");
    }
}

void
ReadLinkEvent(YamlFields& e, ScenarioBuild& b)
{
    const TopologySpec& topo = b.cfg.topology;
    LinkEvent ev;
    ev.at = e.Duration("at");
    auto [action, key] = LinkActionOf(e);
    if (key.empty())
    {
        throw e.Error("at",
                      "an event needs one of link_down, link_up, degrade, restore, pfc_storm, "
                      "pfc_storm_stop or cnp");
    }
    ev.action = action;
    ev.up = action == LinkAction::UP;
    if (action == LinkAction::DEGRADE)
    {
        ReadDegradation(e, ev);
    }
    std::vector<std::string> ends = e.StringList(key);
    if (ends.size() != 2)
    {
        throw e.Error(key, "expected the two nodes of a link, e.g. [leaf0, spine1]");
    }
    auto a = topo.Find(ends[0]);
    auto z = topo.Find(ends[1]);
    if (!a || !z)
    {
        throw e.Error(key, "unknown node '" + (a ? ends[1] : ends[0]) + "'");
    }
    std::vector<uint32_t> between; // the parallel links between the two nodes, topology order
    for (uint32_t li = 0; li < topo.links.size(); ++li)
    {
        const TopologyLink& l = topo.links[li];
        if ((l.a == *a && l.b == *z) || (l.a == *z && l.b == *a))
        {
            between.push_back(li);
        }
    }
    if (between.empty())
    {
        throw e.Error(key, "no link between " + ends[0] + " and " + ends[1]);
    }
    if (e.Has("member"))
    {
        uint64_t member = ValueOf(e, "member").count;
        if (member >= between.size())
        {
            throw e.Error("member",
                          "link " + std::to_string(member) + " of " + ends[0] + "-" + ends[1] +
                              ", but there are " + std::to_string(between.size()) +
                              " (members 0.." + std::to_string(between.size() - 1) + ")");
        }
        between = {between[member]};
    }
    for (uint32_t li : between)
    {
        ev.link = li;
        b.cfg.linkEvents.push_back(ev);
    }
    e.RejectUnknownKeys();
}

void
ReadEvents(YamlFields& root, const ScenarioKey& key, ScenarioBuild& b)
{
    if (!root.Has(key.Name()))
    {
        return;
    }
    YAML::Node list = root.Node(key.Name());
    if (!list.IsSequence())
    {
        throw root.Error(key.Name(),
                         "expected a list of {at, link_down|link_up|degrade|restore: [a, b]}");
    }
    for (size_t i = 0; i < list.size(); ++i)
    {
        YamlFields e(list[i], root.File(), key.path + "[" + std::to_string(i) + "]");
        if (e.Has("cnp"))
        {
            ReadCnpEvent(e, b);
        }
        else if (e.Has("pfc_storm") || e.Has("pfc_storm_stop"))
        {
            ReadStormEvent(e, b);
        }
        else
        {
            ReadLinkEvent(e, b);
        }
    }
}

} // namespace

ScenarioKeys
EventKeys()
{
    const std::string item = "events[].";
    return {
        ScenarioKey("events",
                    KeyKind::List,
                    "things that happen during the run, each a mapping with `at` and one of "
                    "link_down, link_up, degrade, restore, pfc_storm, pfc_storm_stop or cnp")
            .Reader(ReadEvents),
        ScenarioKey(item + "at", KeyKind::Duration, "when"),
        ScenarioKey(item + "link_down",
                    KeyKind::List,
                    "[a, b]: every link between nodes a and b fails (queued and in-flight frames "
                    "on it are dropped; routes recompute at once)"),
        ScenarioKey(item + "link_up", KeyKind::List, "[a, b]: those links come back"),
        ScenarioKey(item + "degrade",
                    KeyKind::List,
                    "[a, b]: the links between a and b keep running, degraded in both directions "
                    "by what the event gives (rate, delay, error_rate; the rest unchanged)"),
        ScenarioKey(item + "restore",
                    KeyKind::List,
                    "[a, b]: those links return to their built rate, delay and loss rate"),
        ScenarioKey(item + "rate",
                    KeyKind::Rate,
                    "degrade: the link's rate from now on (a lane or link running slower; the "
                    "frame being sent finishes at the old rate)")
            .Attribute("ns3::FabricNetDevice::DataRate")
            .Check([](const KeyValue& v) {
                return v.rate.GetBitRate() > 0 ? std::string()
                                               : "a rate above 0 (link_down stops a link)";
            })
            .OnlyWhenGiven(),
        ScenarioKey(item + "delay",
                    KeyKind::Duration,
                    "degrade: one-way delay added to the cable's own (replaces an earlier "
                    "degrade's; frames already on the cable keep theirs and are not overtaken)")
            .Attribute("ns3::FabricChannel::AddedDelay")
            .OnlyWhenGiven(),
        ScenarioKey(item + "error_rate",
                    KeyKind::Number,
                    "degrade: probability that a frame arriving over the link is lost (each "
                    "direction, PFC frames excepted), drawn per frame from the seeded stream")
            .Attribute("ns3::FabricNetDevice::LossRate")
            .Check(Within(0, 1, "a probability within 0..1"))
            .Unit("probability")
            .OnlyWhenGiven(),
        ScenarioKey(item + "member",
                    KeyKind::Count,
                    "link_down/link_up/degrade/restore: only this one of the parallel links "
                    "between a and b (0 = the first in topology order)")
            .Unit("link index"),
        ScenarioKey(item + "pfc_storm",
                    KeyKind::Text,
                    "a host's NIC stops draining and keeps its switch paused")
            .Unit("host index or name"),
        ScenarioKey(item + "pfc_storm_stop", KeyKind::Text, "the host's storm ends")
            .Unit("host index or name"),
        ScenarioKey(item + "priority", KeyKind::Count, "pfc_storm: the priority paused")
            .Unit("0..7")
            .Default("3")
            .Check(PriorityCheck()),
        ScenarioKey(item + "cnp",
                    KeyKind::Count,
                    "RoCE: the sender of this flow reacts as if a CNP had arrived")
            .Unit("flow index"),
    };
}

} // namespace ns3
