#ifndef FABRIC_DEADLOCK_DETECTOR_H
#define FABRIC_DEADLOCK_DETECTOR_H

#include "build/fabric-builder.h"
#include "record/fabric-idleness.h"
#include "record/sampling-ticker.h"

#include "ns3/nstime.h"

#include <string>
#include <vector>

namespace ns3
{

/// One member of a cycle of paused ports: a switch egress queue that cannot send.
struct PausedQueue
{
    uint32_t node;
    uint32_t port;
    uint8_t priority;
};

/// A switch egress queue that holds data and is paused, with its sent bytes so far.
struct QueueSample
{
    uint32_t node;
    uint32_t port;
    uint8_t priority;
    uint64_t txBytes;
};

/**
 * \brief Finds PFC deadlocks: cycles of egress queues that wait on each other.
 *
 * Every check interval it builds the wait-for graph: a vertex per switch egress queue that
 * holds data and is paused by its peer; an edge from it to every paused, non-empty egress queue
 * of the same priority on that peer (the peer cannot drain the ingress that paused us while
 * those are stuck). A strongly connected component with a cycle whose members have sent nothing
 * for the timeout is a deadlock: it is reported and the simulation stops.
 *
 * A distributed run samples every rank's switches at the same instants and evaluates the union
 * on one rank (PartitionedRun::ConnectDeadlockDetector), through SampleLocal and Evaluate.
 */
class DeadlockDetector
{
  public:
    DeadlockDetector(const FabricNetwork* net, Time interval, Time timeout);
    /// Checks every interval on this process's switches and stops the run on a deadlock.
    void Start();

    /// Checks sleep while \p idleness says the fabric is idle and wake at its announcements
    /// (none: every interval). Before Start().
    void SetIdleness(FabricIdleness* idleness)
    {
        m_ticker.SetIdleness(idleness);
    }

    Time GetInterval() const
    {
        return m_interval;
    }

    /// The paused, non-empty egress queues of the switches this process simulates, in node,
    /// port, priority order.
    std::vector<QueueSample> SampleLocal() const;
    /// One check of the whole fabric's queues as sampled at \p at (any order): true when a
    /// cycle has made no progress for the timeout (then Detected() and the cycle are set).
    bool Evaluate(std::vector<QueueSample> sample, Time at);

    /// Another rank evaluated the fabric and found \p cycle as of \p at.
    void SetDetected(Time at, std::vector<PausedQueue> cycle)
    {
        m_detected = true;
        m_detectedAt = at;
        m_cycle = std::move(cycle);
    }

    bool Detected() const
    {
        return m_detected;
    }

    Time DetectedAt() const
    {
        return m_detectedAt;
    }

    const std::vector<PausedQueue>& Cycle() const
    {
        return m_cycle;
    }

    /// "sw1:2:p3 -> sw2:0:p3 -> ..." for messages.
    std::string Describe() const;

  private:
    /// One check; false once a deadlock stopped the run.
    bool Check();
    std::vector<std::vector<PausedQueue>> FindCycles(const std::vector<QueueSample>& sample) const;

    const FabricNetwork* m_net;
    Time m_interval;
    Time m_timeout;
    bool m_detected = false;
    Time m_detectedAt;
    std::vector<PausedQueue> m_cycle;
    std::vector<PausedQueue> m_candidate; ///< cycle seen at the last check
    std::vector<uint64_t> m_candidateTx;  ///< its members' sent bytes then
    Time m_candidateSince;
    SamplingTicker m_ticker;
};

} // namespace ns3

#endif
