#include "request-launcher.h"

#include "sim/fabric-now.h"

#include "ns3/simulator.h"

#include <algorithm>

namespace ns3
{

void
RequestLauncher::Configure(Time interval, uint32_t maxInflight, Callback<void, uint32_t> launch)
{
    m_interval = interval;
    m_maxInflight = maxInflight;
    m_launch = launch;
}

void
RequestLauncher::ConfigureCompletionPolling(Time interval, uint32_t batch)
{
    m_pollInterval = interval;
    m_pollBatch = std::max<uint32_t>(1, batch);
}

void
RequestLauncher::TryLaunch()
{
    while (!m_pending.empty())
    {
        if (m_maxInflight > 0 && m_inflight >= m_maxInflight)
        {
            return; // a Release calls us again
        }
        Time now = FabricNow();
        if (!m_lastLaunch.IsStrictlyNegative() && now < m_lastLaunch + m_interval)
        {
            if (!m_event.IsRunning())
            {
                m_event = Simulator::Schedule(m_lastLaunch + m_interval - now,
                                              &RequestLauncher::TryLaunch,
                                              this);
            }
            return;
        }
        uint32_t flowId = m_pending.front();
        m_pending.pop_front();
        m_lastLaunch = now;
        ++m_inflight;
        m_launch(flowId);
    }
}

void
RequestLauncher::Release()
{
    if (m_pollInterval.IsZero())
    {
        if (m_inflight > 0)
        {
            --m_inflight;
        }
        return;
    }
    ++m_unhandled;
    SchedulePoll();
}

void
RequestLauncher::SchedulePoll()
{
    if (m_pollEvent.IsRunning() || m_unhandled == 0)
    {
        return;
    }
    // The next multiple of the interval, not before now; a poll that already ran at this
    // instant does not run again.
    Time now = FabricNow();
    int64_t step = m_pollInterval.GetTimeStep();
    int64_t next = (now.GetTimeStep() + step - 1) / step * step;
    if (next == m_lastPoll.GetTimeStep())
    {
        next += step;
    }
    m_pollEvent = Simulator::Schedule(TimeStep(next) - now, &RequestLauncher::Poll, this);
}

void
RequestLauncher::Poll()
{
    m_lastPoll = FabricNow();
    uint32_t handled = std::min(m_pollBatch, m_unhandled);
    m_unhandled -= handled;
    m_inflight -= std::min(m_inflight, handled);
    SchedulePoll();
    TryLaunch();
}

bool
RequestLauncher::IsWaiting(uint32_t flowId) const
{
    return std::find(m_pending.begin(), m_pending.end(), flowId) != m_pending.end();
}

} // namespace ns3
