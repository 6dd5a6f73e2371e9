#include "fabric-idleness.h"

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
    Time until = Time::Max();
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
        until = std::min(until, f.start);
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

} // namespace ns3
