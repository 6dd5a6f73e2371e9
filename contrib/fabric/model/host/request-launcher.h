#ifndef FABRIC_REQUEST_LAUNCHER_H
#define FABRIC_REQUEST_LAUNCHER_H

#include "ns3/callback.h"
#include "ns3/event-id.h"
#include "ns3/nstime.h"

#include <cstdint>
#include <deque>

namespace ns3
{

/**
 * \brief A NIC's request pipeline (docs/models.md#concurrency-limits): posted requests launch in
 * order, no closer than an interval apart (the NIC's request rate: RoCE ~18.6 ns, UB 6.2 ns), at
 * most a number of them outstanding at once (in-flight slots; 0 = unlimited). Shared by the RoCE
 * and the Unified Bus NICs; the NIC says what launching a request means and when one is done.
 */
class RequestLauncher
{
  public:
    /// \p launch starts a request (its slot is already taken).
    void Configure(Time interval, uint32_t maxInflight, Callback<void, uint32_t> launch);
    /// Completions are processed by software that polls every \p interval (at its multiples,
    /// from time 0) and handles at most \p batch of them per poll, oldest first; a slot is free
    /// only once its completion is handled (docs/models.md#slot-release). \p interval 0: at once.
    void ConfigureCompletionPolling(Time interval, uint32_t batch);

    /// Queues \p flowId behind the requests already waiting (call TryLaunch to start).
    void Enqueue(uint32_t flowId)
    {
        m_pending.push_back(flowId);
    }

    /// Launches waiting requests while a slot is free and the interval allows; otherwise waits
    /// for the interval (an event) or for Release.
    void TryLaunch();
    /// A request is done: its slot is free (call TryLaunch to use it), or, with completion
    /// polling, free once a poll handles its completion (the poll launches what waits).
    void Release();
    bool IsWaiting(uint32_t flowId) const;

    void Cancel()
    {
        m_event.Cancel();
        m_pollEvent.Cancel();
    }

  private:
    /// Handles up to m_pollBatch waiting completions, frees their slots, launches.
    void Poll();
    void SchedulePoll();

    Time m_interval;
    uint32_t m_maxInflight = 0;
    Callback<void, uint32_t> m_launch;
    std::deque<uint32_t> m_pending;
    uint32_t m_inflight = 0;
    Time m_lastLaunch = Time(-1);
    EventId m_event;
    Time m_pollInterval;      ///< 0: a completion frees its slot at once
    uint32_t m_pollBatch = 1; ///< completions handled per poll
    uint32_t m_unhandled = 0; ///< completions waiting for a poll (their slots still held)
    Time m_lastPoll = Time(-1);
    EventId m_pollEvent;
};

} // namespace ns3

#endif
