#include "pfc-watchdog.h"

#include "link/fabric-net-device.h"
#include "shared-buffer-mmu.h"
#include "sim/fabric-now.h"

#include "ns3/log.h"
#include "ns3/simulator.h"

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("PfcWatchdog");

PfcWatchdog::PfcWatchdog(const std::vector<Ptr<FabricNetDevice>>& ports,
                         const SharedBufferMmu& mmu,
                         Time detection,
                         Time restore,
                         bool dropAction,
                         Notify notify)
    : m_ports(ports),
      m_mmu(mmu),
      m_detection(detection),
      m_restore(restore),
      m_dropAction(dropAction),
      m_notify(std::move(notify)),
      m_state(ports.size() * kFabricPriorities)
{
}

PfcWatchdog::~PfcWatchdog()
{
    m_poll.Cancel();
    for (State& s : m_state)
    {
        s.deadline.Cancel();
    }
}

void
PfcWatchdog::Start()
{
    m_poll = Simulator::Schedule(m_detection / 4, &PfcWatchdog::Check, this);
}

void
PfcWatchdog::Check()
{
    Time now = FabricNow();
    for (uint32_t port = 0; port < m_ports.size(); ++port)
    {
        const Ptr<FabricNetDevice>& dev = m_ports[port];
        for (uint8_t q = 0; q < kFabricPriorities; ++q)
        {
            if (!m_mmu.IsLossless(q))
            {
                continue;
            }
            State& w = m_state[port * kFabricPriorities + q];
            if (w.triggered)
            {
                if (now - dev->GetLastPauseReceived(q) >= m_restore)
                {
                    w.triggered = false;
                    dev->SetPriorityDropping(q, false);
                    dev->SetPauseIgnored(q, false);
                    NS_LOG_INFO("PFC watchdog restores port " << port << " priority "
                                                              << unsigned(q));
                    m_notify(port, q, false);
                }
                continue;
            }
            if (!dev->IsPaused(q) || dev->GetQueueBytes(q) == 0)
            {
                continue;
            }
            Time since = dev->GetPausedSince(q);
            if (w.deadline.IsRunning() && w.pausedSince == since)
            {
                continue;
            }
            w.deadline.Cancel();
            w.pausedSince = since;
            w.txAtPause = dev->GetTxBytes(q);
            Time at = since + m_detection;
            w.deadline = Simulator::Schedule(at > now ? at - now : Time(0),
                                             &PfcWatchdog::Deadline,
                                             this,
                                             port,
                                             q);
        }
    }
    m_poll = Simulator::Schedule(m_detection / 4, &PfcWatchdog::Check, this);
}

void
PfcWatchdog::Deadline(uint32_t port, uint8_t q)
{
    const Ptr<FabricNetDevice>& dev = m_ports[port];
    State& w = m_state[port * kFabricPriorities + q];
    bool samePause = dev->IsPaused(q) && dev->GetPausedSince(q) == w.pausedSince;
    if (w.triggered || !samePause || dev->GetQueueBytes(q) == 0 ||
        dev->GetTxBytes(q) != w.txAtPause)
    {
        return;
    }
    w.triggered = true;
    NS_LOG_INFO("PFC watchdog triggers on port " << port << " priority " << unsigned(q)
                                                 << ": paused since " << w.pausedSince);
    m_notify(port, q, true);
    dev->SetPauseIgnored(q, true);
    if (m_dropAction)
    {
        dev->SetPriorityDropping(q, true);
    }
}

} // namespace ns3
