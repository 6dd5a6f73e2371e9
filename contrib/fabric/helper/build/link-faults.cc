#include "build/link-faults.h"

#include "config/attribute-values.h"

#include "ns3/double.h"
#include "ns3/simulator.h"

#include <fstream>
#include <iomanip>

namespace ns3
{

namespace
{

const char*
ActionName(LinkAction a)
{
    switch (a)
    {
    case LinkAction::DOWN:
        return "down";
    case LinkAction::UP:
        return "up";
    case LinkAction::DEGRADE:
        return "degrade";
    case LinkAction::RESTORE:
        return "restore";
    }
    return "?";
}

} // namespace

LinkFaults::LinkFaults(FabricNetwork& net)
    : m_net(net)
{
}

void
LinkFaults::Ends(uint32_t link, Ptr<FabricNetDevice> dev[2], Ptr<FabricChannel>& channel) const
{
    auto [a, b] = m_net.LinkEnds(link);
    dev[0] = m_net.GetDevice(a.node, a.port);
    dev[1] = m_net.GetDevice(b.node, b.port);
    channel = dev[0] ? dev[0]->GetFabricChannel() : dev[1] ? dev[1]->GetFabricChannel() : nullptr;
}

LinkFaults::Built&
LinkFaults::BuiltOf(uint32_t link)
{
    auto it = m_built.find(link);
    if (it != m_built.end())
    {
        return it->second;
    }
    // The builder gives both ends the link's own rate and loss rate, or the LossRate default
    // (link.loss_rate) when the topology names none.
    const TopologyLink& l = m_net.Spec().links[link];
    Built built;
    built.rate = l.rate;
    built.lossRate = l.lossRate >= 0
                         ? l.lossRate
                         : AttributeDefaultAs<DoubleValue>("ns3::FabricNetDevice::LossRate");
    return m_built.emplace(link, built).first->second;
}

LinkFaults::State&
LinkFaults::StateOf(uint32_t link)
{
    auto it = m_state.find(link);
    if (it != m_state.end())
    {
        return it->second;
    }
    const Built& built = BuiltOf(link);
    State s;
    s.rate = built.rate;
    s.errorRate = built.lossRate;
    return m_state.emplace(link, s).first->second;
}

void
LinkFaults::Apply(const LinkEvent& ev)
{
    State& state = StateOf(ev.link); // reads the built values before anything changes
    const Built& built = BuiltOf(ev.link);
    Ptr<FabricNetDevice> dev[2];
    Ptr<FabricChannel> channel;
    Ends(ev.link, dev, channel);
    switch (ev.action)
    {
    case LinkAction::DOWN:
    case LinkAction::UP:
        m_net.SetLinkUp(ev.link, ev.up);
        state.up = ev.up;
        break;
    case LinkAction::DEGRADE:
        for (int e = 0; e < 2; ++e)
        {
            if (dev[e] && ev.rate)
            {
                dev[e]->SetAttribute("DataRate", DataRateValue(*ev.rate));
            }
            if (dev[e] && ev.errorRate)
            {
                dev[e]->SetAttribute("LossRate", DoubleValue(*ev.errorRate));
            }
        }
        if (channel && ev.addedDelay)
        {
            channel->SetAttribute("AddedDelay", TimeValue(*ev.addedDelay));
        }
        state.rate = ev.rate.value_or(state.rate);
        state.addedDelay = ev.addedDelay.value_or(state.addedDelay);
        state.errorRate = ev.errorRate.value_or(state.errorRate);
        break;
    case LinkAction::RESTORE:
        for (int e = 0; e < 2; ++e)
        {
            if (dev[e])
            {
                dev[e]->SetAttribute("DataRate", DataRateValue(built.rate));
                dev[e]->SetAttribute("LossRate", DoubleValue(built.lossRate));
            }
        }
        if (channel)
        {
            channel->SetAttribute("AddedDelay", TimeValue(Time(0)));
        }
        state.rate = built.rate;
        state.addedDelay = Time(0);
        state.errorRate = built.lossRate;
        break;
    }
    m_log.push_back(Row{Simulator::Now(), ev.link, ev.action, state});
}

void
LinkFaults::WriteCsv(const std::string& path) const
{
    std::ofstream out(path);
    out << "time_ns,link,a,b,action,rate_bps,added_delay_ns,error_rate\n";
    const TopologySpec& spec = m_net.Spec();
    for (const Row& r : m_log)
    {
        const TopologyLink& l = spec.links[r.link];
        out << r.at.GetNanoSeconds() << ',' << r.link << ',' << spec.nodes[l.a].name << ','
            << spec.nodes[l.b].name << ',' << ActionName(r.action) << ','
            << (r.state.up ? r.state.rate.GetBitRate() : 0) << ','
            << r.state.addedDelay.GetNanoSeconds() << ',' << std::setprecision(6)
            << r.state.errorRate << '\n';
    }
}

} // namespace ns3
