#ifndef FABRIC_SAMPLING_TICKER_H
#define FABRIC_SAMPLING_TICKER_H

#include "record/fabric-idleness.h"

#include "ns3/event-id.h"
#include "ns3/nstime.h"

#include <functional>

namespace ns3
{

/**
 * \brief Runs a sampler on a fixed grid (first tick + k · interval) that sleeps while the fabric
 * is idle, with the same outputs as ticking throughout.
 *
 * After each tick it asks FabricIdleness for the next one: the next grid tick, the first grid
 * tick at or after the fabric's known wake-up, or none (asleep) when nothing is known to come.
 * An announcement of work launched at run time (Wake) brings a sleeper back on its grid.
 *
 * Same-timestamp order. Ticking, the tick at g is scheduled by the tick at g − interval, so it
 * runs after every event at g that was scheduled before g − interval and before every one
 * scheduled after. A woken ticker reproduces that for the launch it was told about: when the
 * launch was announced before g − interval, it schedules an event at g − interval that then
 * schedules the tick (the launch, scheduled earlier, runs first); otherwise it schedules the tick
 * at once, before the launch is scheduled (the tick runs first). An announcement made exactly at
 * g − interval counts as made after that (skipped) tick, as a job phase that begins on a tick
 * is (its Ready event is scheduled then, after the tick's).
 */
class SamplingTicker
{
  public:
    /// \p tick samples; it returns false to stop ticking (e.g. a deadlock was found).
    SamplingTicker(Time interval, std::function<bool()> tick);
    ~SamplingTicker();
    SamplingTicker(const SamplingTicker&) = delete;
    SamplingTicker& operator=(const SamplingTicker&) = delete;

    /// Sleeps while \p idleness says the fabric is idle, and is woken by its announcements
    /// (none: ticks throughout).
    void SetIdleness(FabricIdleness* idleness);

    /// The first tick \p delay from now; the grid follows from it.
    void Start(Time delay);
    void Stop();

    /// Work reaches the NICs at \p at (not before now): tick at the first grid tick at or
    /// after it, unless a tick is due by then.
    void Wake(Time at);

    Time GetInterval() const
    {
        return m_interval;
    }

  private:
    void Fire();
    /// At g − interval: schedules the tick at g as the tick at g − interval would have.
    void Rearm();

    Time m_interval;
    std::function<bool()> m_tick;
    FabricIdleness* m_idleness = nullptr;
    bool m_running = false;
    EventId m_event;
    Time m_last;                  ///< the last tick (or the virtual one before the first)
    Time m_next = Time::Max();    ///< the pending tick; Time::Max() while asleep
    Time m_scheduledAt = Time(0); ///< when the pending tick's event was scheduled
};

} // namespace ns3

#endif
