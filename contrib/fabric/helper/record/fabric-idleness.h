#ifndef FABRIC_FABRIC_IDLENESS_H
#define FABRIC_FABRIC_IDLENESS_H

#include "build/fabric-builder.h"

#include "ns3/callback.h"
#include "ns3/nstime.h"

#include <functional>
#include <queue>
#include <vector>

namespace ns3
{

class SamplingTicker;

/**
 * \brief Tells periodic samplers and checks when the fabric is idle, so they can sleep through
 * time in which nothing changes (HPCC's flow files start at t = 2 s; a job computes between its
 * communication phases) instead of ticking.
 *
 * The fabric is idle when no frame is queued or on a wire anywhere, every flow has either
 * finished or not yet reached its start time, and no busy check (e.g. SHARP reductions still
 * waiting for results) objects; it then stays idle until the next flow start, scripted event
 * (link change, CNP, PFC storm) or announced launch, whichever is earliest. Nothing a sampler or
 * the deadlock detector reads changes meanwhile (queues are empty, no flow delivers), so their
 * rows and verdicts at the skipped ticks would have been empty: a sampler that resumes on its
 * own tick grid writes exactly the files it would have written ticking.
 *
 * Work posted at run time (collectives, job phases) is announced with Announce() when its
 * launch is scheduled, before anything else is scheduled for it; sleeping tickers wake up on
 * their grid (SamplingTicker::Wake).
 *
 * Disabled (never idle) when asked to tick throughout, and for runs whose fabric is split over
 * ranks (a rank cannot see the other ranks' wires).
 */
class FabricIdleness
{
  public:
    /// \p scripted: times of the scenario's scripted events.
    FabricIdleness(const FabricNetwork* net, std::vector<Time> scripted, bool enabled);

    bool IsEnabled() const
    {
        return m_enabled;
    }

    /// Now when something may change next instant; otherwise the earliest time something may
    /// change (Time::Max() when nothing ever will, unless announced later).
    Time QuietUntil() const;

    /// The tick after one at \p now of a sampler ticking every \p interval: now + interval,
    /// or the first tick of that grid at or after QuietUntil() when the fabric is idle;
    /// Time::Max() when nothing will change again (until an announcement wakes the sampler).
    Time NextTick(Time now, Time interval) const;

    /// Work posted at run time will reach the NICs at \p at (not before now). Call it before
    /// scheduling anything for that work: a ticker that must sample before the launch gets its
    /// event first.
    void Announce(Time at);

    /// \p busy says the fabric may still change although no frame is anywhere (e.g. a timer
    /// that will retransmit); while it does, the fabric is not idle.
    void AddBusyCheck(std::function<bool()> busy);

    /// Tickers woken by Announce().
    void AddTicker(SamplingTicker* ticker);
    void RemoveTicker(SamplingTicker* ticker);

  private:
    bool FramesAnywhere() const;

    const FabricNetwork* m_net;
    std::vector<Time> m_scripted;
    bool m_enabled;
    std::vector<std::function<bool()>> m_busy;
    std::vector<SamplingTicker*> m_tickers;
    /// Announced launch times, earliest first (those in the past are dropped when read).
    mutable std::priority_queue<Time, std::vector<Time>, std::greater<Time>> m_announced;
};

} // namespace ns3

#endif
