#ifndef FABRIC_FABRIC_IDLENESS_H
#define FABRIC_FABRIC_IDLENESS_H

#include "fabric-builder.h"

#include "ns3/nstime.h"

#include <vector>

namespace ns3
{

/**
 * \brief Tells periodic samplers and checks when the fabric is idle, so they can sleep through
 * time in which nothing changes (HPCC's flow files start at t = 2 s) instead of ticking.
 *
 * The fabric is idle when no frame is queued or on a wire anywhere and every flow has either
 * finished or not yet reached its start time; it then stays idle until the next flow start or
 * scripted event (link change, CNP, PFC storm), whichever is earliest. Nothing a sampler or
 * the deadlock detector reads changes meanwhile (queues are empty, no flow delivers), so their
 * rows and verdicts at the skipped ticks would have been empty: a sampler that resumes on its
 * own tick grid writes exactly the files it would have written ticking.
 *
 * Disabled (never idle) for runs whose flows appear at run time (collectives) or whose fabric
 * is split over ranks (a rank cannot see the other ranks' wires).
 */
class FabricIdleness
{
  public:
    /// \p scripted: times of the scenario's scripted events.
    FabricIdleness(const FabricNetwork* net, std::vector<Time> scripted, bool enabled);

    /// Now when something may change next instant; otherwise the earliest time something may
    /// change (Time::Max() when nothing ever will).
    Time QuietUntil() const;

    /// The tick after one at \p now of a sampler ticking every \p interval: now + interval,
    /// or the first tick of that grid at or after QuietUntil() when the fabric is idle;
    /// Time::Max() when nothing will change again.
    Time NextTick(Time now, Time interval) const;

  private:
    bool FramesAnywhere() const;

    const FabricNetwork* m_net;
    std::vector<Time> m_scripted;
    bool m_enabled;
};

} // namespace ns3

#endif
