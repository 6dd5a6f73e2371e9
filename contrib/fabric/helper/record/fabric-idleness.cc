#include "record/fabric-idleness.h"

#include "record/sampling-ticker.h"

#include "ns3/simulator.h"

#include <algorithm>

namespace ns3
{

FabricIdleness::FabricIdleness(const FabricNetwork* net, std::vector<Time> scripted, bool enabled)
    : m_net(net),
      m_scripted(std::move(scripted)),
      m_enabled(enabled)
{
}

bool
FabricIdleness::FramesAnywhere() const
{
    const TopologySpec& spec = m_net->Spec();
    for (uint32_t n = 0; n < spec.nodes.size(); ++n)
    {
        for (uint32_t p = 0; p < m_net->GetNPorts(n); ++p)
        {
            Ptr<FabricNetDevice> dev = m_net->GetDevice(n, p);
            if (dev->GetTotalQueueBytes() > 0 || !dev->GetOnWire().empty() ||
                !dev->GetRxPipeline().empty())
            {
                return true;
            }
        }
    }
    return false;
}

Time
FabricIdleness::QuietUntil() const
{
    Time now = Simulator::Now();
    if (!m_enabled || FramesAnywhere())
    {
        return now; // checked first: cheap, and true whenever traffic flows
    }
    for (const auto& busy : m_busy)
    {
        if (busy())
        {
            return now;
        }
    }
    while (!m_announced.empty() && m_announced.top() < now)
    {
        m_announced.pop(); // launched: its flows are in the table now
    }
    Time until = m_announced.empty() ? Time::Max() : m_announced.top();
    if (until <= now)
    {
        return now;
    }
    for (const FlowRecord& f : m_net->GetFlowTable()->All())
    {
        if (f.finished || (f.uno && f.sentBytes >= f.bytes))
        {
            continue; // a UNO flow all sent, with no frame left anywhere, will never finish
        }
        if (f.start <= now)
        {
            return now; // started and not done: a NIC may be about to send
        }
        until = std::min(until, f.start); // Time::Max(): posted at run time, announced then
    }
    for (Time at : m_scripted)
    {
        if (at > now)
        {
            until = std::min(until, at);
        }
    }
    return until;
}

Time
FabricIdleness::NextTick(Time now, Time interval) const
{
    Time next = now + interval;
    Time quiet = QuietUntil();
    if (quiet <= next)
    {
        return next;
    }
    if (quiet == Time::Max())
    {
        return Time::Max();
    }
    // The grid is now + k * interval: resume at its first tick not before the fabric wakes.
    int64_t k = (quiet - now).GetTimeStep() / interval.GetTimeStep();
    Time tick = now + TimeStep(interval.GetTimeStep() * k);
    return tick < quiet ? tick + interval : tick;
}

void
FabricIdleness::Announce(Time at)
{
    if (!m_enabled)
    {
        return; // every ticker ticks anyway
    }
    at = std::max(at, Simulator::Now());
    m_announced.push(at);
    for (SamplingTicker* t : m_tickers)
    {
        t->Wake(at);
    }
}

void
FabricIdleness::AddBusyCheck(std::function<bool()> busy)
{
    m_busy.push_back(std::move(busy));
}

void
FabricIdleness::AddTicker(SamplingTicker* ticker)
{
    m_tickers.push_back(ticker);
}

void
FabricIdleness::RemoveTicker(SamplingTicker* ticker)
{
    m_tickers.erase(std::remove(m_tickers.begin(), m_tickers.end(), ticker), m_tickers.end());
}

} // namespace ns3
