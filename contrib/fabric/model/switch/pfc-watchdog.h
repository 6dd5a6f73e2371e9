#ifndef FABRIC_PFC_WATCHDOG_H
#define FABRIC_PFC_WATCHDOG_H

#include "link/fabric-frames.h"

#include "ns3/event-id.h"
#include "ns3/nstime.h"
#include "ns3/ptr.h"

#include <cstdint>
#include <functional>
#include <vector>

namespace ns3
{

class FabricNetDevice;
class SharedBufferMmu;

/**
 * \ingroup fabric-switch-pipeline
 * \brief The PFC watchdog of one switch (FabricSwitch::PfcWatchdog*; switch.pfc.watchdog): a
 * lossless egress queue paused and unable to send for the detection time is a storm victim;
 * from then on its port ignores pauses of that priority and, with the drop action, discards
 * its frames; it stands down once no pause has arrived for the restore time.
 *
 * It polls every detection time / 4 for paused, non-empty lossless queues and arms a deadline
 * at the exact end of their detection time, counted from when the pause began. Queues deeper in
 * a pause tree were paused later than its root, so the root triggers first; its drops unwind
 * the tree before the others' deadlines, and only the real victim queue is touched.
 */
class PfcWatchdog
{
  public:
    /// Told when a (port, priority) triggers (true) or is restored (false).
    using Notify = std::function<void(uint32_t port, uint8_t priority, bool triggered)>;

    PfcWatchdog(const std::vector<Ptr<FabricNetDevice>>& ports,
                const SharedBufferMmu& mmu,
                Time detection,
                Time restore,
                bool dropAction,
                Notify notify);
    ~PfcWatchdog();
    PfcWatchdog(const PfcWatchdog&) = delete;
    PfcWatchdog& operator=(const PfcWatchdog&) = delete;

    /// Schedules the first poll, a quarter of the detection time from now.
    void Start();

    /// Whether the queue of \p priority on \p port is a storm victim now (its losses are the
    /// watchdog's: FabricSwitch::DROP_PFC_WATCHDOG).
    bool IsTriggered(uint32_t port, uint8_t priority) const
    {
        return m_state[port * kFabricPriorities + priority].triggered;
    }

  private:
    struct State
    {
        uint64_t txAtPause = 0; ///< bytes sent when the pending deadline was armed
        Time pausedSince;       ///< the pause the pending deadline belongs to
        bool triggered = false;
        EventId deadline;
    };

    void Check();
    /// At the exact end of a queue's detection time: trigger if it is still stuck in the same
    /// pause without having sent.
    void Deadline(uint32_t port, uint8_t priority);

    const std::vector<Ptr<FabricNetDevice>>& m_ports;
    const SharedBufferMmu& m_mmu;
    Time m_detection;
    Time m_restore;
    bool m_dropAction;
    Notify m_notify;
    std::vector<State> m_state; ///< per (port, priority)
    EventId m_poll;
};

} // namespace ns3

#endif
