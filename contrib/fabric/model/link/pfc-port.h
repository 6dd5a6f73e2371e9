#ifndef FABRIC_PFC_PORT_H
#define FABRIC_PFC_PORT_H

#include "fabric-frames.h"

#include "ns3/event-id.h"
#include "ns3/mac48-address.h"
#include "ns3/nstime.h"
#include "ns3/packet.h"
#include "ns3/traced-callback.h"

#include <array>
#include <cstdint>

namespace ns3
{

/**
 * \ingroup fabric
 * \brief The IEEE 802.1Qbb priority flow control state of one port.
 *
 * Receiving side of the pauses: a PFC frame pauses each priority it names for quanta × 512 bit
 * times at the port's rate (802.1Qbb clause 36.1.3; 0 quanta resumes at once); a pause that
 * arrives while one is in force replaces it. A PFC watchdog may make the port ignore pauses for
 * a priority. Sending side: the PFC frames the port built (the switch's MMU asks for them) and
 * the storm a stuck NIC produces (pauses refreshed for ever on some priorities, arriving data of
 * those priorities dropped).
 *
 * The port (FabricNetDevice) owns this state, serves the frames and schedules the events; the
 * pause times are read on every transmission and stay inline.
 */
class PfcPort
{
  public:
    PfcPort();

    /// End of the pause in force on \p priority (in the past when not paused).
    Time GetPausedUntil(uint8_t priority) const
    {
        return m_pausedUntil[priority];
    }

    /// Whether \p priority may send at \p now as far as pauses are concerned.
    bool MaySend(uint8_t priority, Time now) const
    {
        return m_pausedUntil[priority] <= now;
    }

    /// When the last pause (quanta > 0) for \p priority arrived (-1 ps: never).
    Time GetLastPauseReceived(uint8_t priority) const
    {
        return m_lastPause[priority];
    }

    /// Start of the current uninterrupted pause of \p priority (meaningful while paused).
    Time GetPausedSince(uint8_t priority) const
    {
        return m_pausedSince[priority];
    }

    /// A PFC watchdog stops (true) or resumes honouring pauses for \p priority; ignoring ends
    /// the pause in force.
    void SetPauseIgnored(uint8_t priority, bool ignored);

    /// What a received PFC frame did.
    enum Received
    {
        NOT_PFC, ///< not a PFC frame (another MAC Control opcode, e.g. 802.3x PAUSE): ignored
        PAUSED,  ///< pauses set or refreshed only
        RESUMED  ///< some priority resumed (0 quanta): the port may send at once
    };

    /// Applies a received PFC frame (Ethernet header first) at \p now, one pause quantum being
    /// \p quantum; \p trace hears every priority the frame names.
    Received Receive(Ptr<Packet> frame,
                     Time now,
                     Time quantum,
                     const TracedCallback<uint8_t, uint16_t>& trace);

    /// The earliest end of a pause still in force at \p now on a priority in \p waiting (a
    /// mask of queues holding frames), or Time::Max() when none.
    Time EarliestResume(uint8_t waiting, Time now) const;

    /// Builds a PFC frame from \p source pausing \p priority for \p quanta (0 = resume) and
    /// counts it as sent.
    Ptr<Packet> BuildPause(Mac48Address source, uint8_t priority, uint16_t quanta);

    uint64_t GetFramesSent() const
    {
        return m_framesSent;
    }

    /// Priorities a storm keeps paused at the peer (bit p = priority p).
    uint8_t GetStormMask() const
    {
        return m_stormMask;
    }

    void AddStorm(uint8_t priority)
    {
        m_stormMask |= static_cast<uint8_t>(1u << priority);
    }

    void StopStorm()
    {
        m_stormMask = 0;
        m_stormEvent.Cancel();
    }

    /// Whether an arriving frame is data (IPv4) of a priority the storm pauses (its DSCP / 8):
    /// the stuck NIC accepts nothing of it.
    bool StormDrops(const Ptr<Packet>& frame) const;

    /// The storm's next refresh (the port schedules it).
    EventId& StormEvent()
    {
        return m_stormEvent;
    }

    /// The wake-up at the end of a pause that no XON ends (the port schedules it).
    EventId& ResumeEvent()
    {
        return m_resumeEvent;
    }

    /// Cancels the events (the port is being disposed of).
    void Cancel()
    {
        m_stormEvent.Cancel();
        m_resumeEvent.Cancel();
    }

  private:
    // What every frame reads (the storm on arrival, the pauses on transmission) first.
    uint8_t m_stormMask = 0;
    uint8_t m_ignorePauseMask = 0;
    std::array<Time, kFabricPriorities> m_pausedUntil;
    uint64_t m_framesSent = 0;
    std::array<Time, kFabricPriorities> m_lastPause;
    std::array<Time, kFabricPriorities> m_pausedSince;
    EventId m_stormEvent;
    EventId m_resumeEvent;
};

} // namespace ns3

#endif
