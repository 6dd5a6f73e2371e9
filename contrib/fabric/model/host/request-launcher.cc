#include "request-launcher.h"

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
RequestLauncher::TryLaunch()
{
    while (!m_pending.empty())
    {
        if (m_maxInflight > 0 && m_inflight >= m_maxInflight)
        {
            return; // a Release calls us again
        }
        Time now = Simulator::Now();
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
    if (m_inflight > 0)
    {
        --m_inflight;
    }
}

bool
RequestLauncher::IsWaiting(uint32_t flowId) const
{
    return std::find(m_pending.begin(), m_pending.end(), flowId) != m_pending.end();
}

} // namespace ns3
