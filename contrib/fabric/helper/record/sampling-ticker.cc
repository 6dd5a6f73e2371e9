#include "record/sampling-ticker.h"

#include "ns3/simulator.h"

namespace ns3
{

SamplingTicker::SamplingTicker(Time interval, std::function<bool()> tick)
    : m_interval(interval),
      m_tick(std::move(tick))
{
}

SamplingTicker::~SamplingTicker()
{
    Stop();
    SetIdleness(nullptr);
}

void
SamplingTicker::SetIdleness(FabricIdleness* idleness)
{
    if (m_idleness)
    {
        m_idleness->RemoveTicker(this);
    }
    m_idleness = idleness;
    if (m_idleness)
    {
        m_idleness->AddTicker(this);
    }
}

void
SamplingTicker::Start(Time delay)
{
    Time now = Simulator::Now();
    m_running = true;
    m_last = now + delay - m_interval;
    m_next = now + delay;
    m_scheduledAt = now;
    m_event = Simulator::Schedule(delay, &SamplingTicker::Fire, this);
}

void
SamplingTicker::Stop()
{
    m_running = false;
    m_event.Cancel();
    m_next = Time::Max();
}

void
SamplingTicker::Fire()
{
    Time now = Simulator::Now();
    m_last = now;
    m_next = Time::Max();
    if (!m_tick())
    {
        m_running = false;
        return;
    }
    Time next = m_idleness ? m_idleness->NextTick(now, m_interval) : now + m_interval;
    if (next == Time::Max())
    {
        return; // asleep until an announcement wakes it
    }
    m_next = next;
    m_scheduledAt = now;
    m_event = Simulator::Schedule(next - now, &SamplingTicker::Fire, this);
}

void
SamplingTicker::Rearm()
{
    m_event = Simulator::Schedule(m_interval, &SamplingTicker::Fire, this);
}

void
SamplingTicker::Wake(Time at)
{
    if (!m_running)
    {
        return;
    }
    Time now = Simulator::Now();
    Time from = std::max(at, now);
    // The first tick of the grid m_last + k * interval (k >= 1) at or after `from`.
    int64_t step = m_interval.GetTimeStep();
    int64_t k = ((from - m_last).GetTimeStep() + step - 1) / step;
    Time tick = m_last + TimeStep(step * std::max<int64_t>(k, 1));
    Time before = tick - m_interval; // where ticking would have scheduled it
    if (m_next < tick)
    {
        return; // a tick comes first; it sees the announcement
    }
    if (m_next == tick && (m_scheduledAt >= before || now >= before))
    {
        return; // scheduled where ticking would have, or no earlier place is left
    }
    m_event.Cancel();
    m_next = tick;
    if (now >= before)
    {
        m_scheduledAt = now;
        m_event = Simulator::Schedule(tick - now, &SamplingTicker::Fire, this);
    }
    else
    {
        m_scheduledAt = before;
        m_event = Simulator::Schedule(before - now, &SamplingTicker::Rearm, this);
    }
}

} // namespace ns3
