#ifndef FABRIC_JOB_RUNNER_H
#define FABRIC_JOB_RUNNER_H

#include "collective/collective-engine.h"
#include "host/flow-table.h"
#include "host/host-transport.h"
#include "job-spec.h"

#include "ns3/callback.h"
#include "ns3/nstime.h"
#include "ns3/object.h"

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace ns3
{

/// The ranks of the plan of communication phase \p phase on \p members (job ranks, in group
/// order): the members, then for a transfer or all-to-all the helpers that relay for a member
/// whose NIC has failed (a collective's helpers must be members of its group).
std::vector<uint32_t> JobPlanRanks(const JobSpec& job,
                                   uint32_t phase,
                                   const std::vector<uint32_t>& members);

/// The plan of communication phase \p phase of \p job on \p members (JobPlanRanks): the
/// phase's AllReduce algorithm, one COPY transfer from the first to the second rank (p2p), or
/// the all-to-all's transfers; failed NICs relayed through their helpers. Throws
/// std::invalid_argument when the algorithm cannot run on the group.
CollectivePlan JobPlanOf(const JobSpec& job, uint32_t phase, const std::vector<uint32_t>& members);

/**
 * \brief Runs jobs' steps over the fabric: compute and update as durations, communication at
 * packet level through one CollectiveEngine per group and phase instance.
 *
 * Every (job, step, phase, rank) is a record. Its ready time is when everything it waits for
 * has ended: the phases named in its `after`, the previous phase of the same stream on the
 * rank (compute and update share one stream, collectives and transfers another), and, for a
 * phase that waits for nothing else (a step's first phase), the rank's end of the previous
 * step (or the job's start) plus the rank's skew. Compute starts when ready. A collective on a
 * group starts when its last member is ready (the synchronous collective of "Datacenter
 * networks", chapter 7, §7.6.1): every member waits from its ready time until then, and ends
 * when the engine's last transfer has completed. A transfer (p2p) starts when both of its ranks
 * are ready; the group's other members pass through it at their ready time.
 */
class JobRunner : public Object
{
  public:
    static TypeId GetTypeId();
    JobRunner();

    void Configure(Ptr<FlowTable> table, std::vector<Ptr<HostTransport>> nics, uint64_t seed);
    void AddJob(const JobSpec& job);

    /// Binds flows to NIC ports for jobs with portsPerNic (CollectiveEngine::SetPortBinder).
    void SetPortBinder(CollectiveEngine::PortBinder binder)
    {
        m_portBinder = binder;
    }

    /// Passed to every phase's engine (CollectiveEngine::SetLaunchScheduledCallback).
    void SetLaunchScheduledCallback(CollectiveEngine::LaunchScheduledCallback cb)
    {
        m_launchScheduled = cb;
    }

    /// Some phase's in-network (SHARP) transfer waits for results.
    bool SharpInFlight() const;

    /// Called once when every job has finished every step.
    void SetDoneCallback(Callback<void> cb)
    {
        m_onDone = cb;
    }

    void Start();

    /**
     * Distributed runs: every process runs a replica of the whole runner. A transfer is
     * launched only where its source host is simulated (\p localHosts, by host); when it
     * completes there, \p announce gets the instance, the transfer, its start, end and values,
     * and the other processes replay it with ApplyRemoteCompletion. Every time is then taken
     * from the ends it follows from, not from when a process learnt of them: a record is ready
     * at the end of its last dependency (+ skew), an instance starts when its last member is
     * ready. Ties (equal ends, equal ready times) go to the higher record, whatever the order
     * the process learnt of them. Every instance's flows are added to the table by Start(), in
     * instance order, so that a flow has the same id on every process. Call before Start().
     */
    typedef Callback<void, uint32_t, uint32_t, Time, Time, const std::vector<float>&>
        AnnounceCallback;
    void SetDistributed(std::vector<bool> localHosts, AnnounceCallback announce);
    void ApplyRemoteCompletion(uint32_t instance,
                               uint32_t transfer,
                               Time start,
                               Time end,
                               std::vector<float> payload);

    /// When the last record of every job ended (once IsComplete()).
    Time EndTime() const;

    struct Record
    {
        uint32_t job = 0;
        uint32_t step = 0;
        uint32_t phase = 0;
        uint32_t rank = 0;
        int32_t instance = -1; ///< communication: the group's instance (-1: passes through)
        Time ready = Time(-1);
        Time start = Time(-1);
        Time end = Time(-1);
        /// The record whose end made this one ready (-1: the job's start).
        int64_t binding = -1;
        Time bindingEnd = Time(-1); ///< the end of the binding record
        bool skewed = false; ///< a step's first phase: ready = binding's end + the rank's skew
        uint32_t pending = 0;
        std::vector<uint32_t> dependents;
    };

    struct Instance
    {
        uint32_t job = 0;
        uint32_t step = 0;
        uint32_t phase = 0;
        std::vector<uint32_t> members; ///< records, in group order
        uint32_t notReady = 0;
        int64_t lastReady = -1; ///< the member record that was ready last (bound the start)
        Time start = Time(-1);
        Time end = Time(-1);
        Ptr<CollectiveEngine> engine;
        std::string valueError; ///< collective: "" when every member holds the exact sum
    };

    const std::vector<JobSpec>& Jobs() const
    {
        return m_jobs;
    }

    const std::vector<Record>& Records() const
    {
        return m_records;
    }

    const std::vector<Instance>& Instances() const
    {
        return m_instances;
    }

    /// The record of (job, step, phase, rank).
    uint32_t RecordOf(uint32_t job, uint32_t step, uint32_t phase, uint32_t rank) const;

    bool IsComplete() const
    {
        return m_completed == m_records.size();
    }

    /// The records that decided the end of \p job's step \p step, first to last; a
    /// communication phase appears once, as the member that was ready last.
    std::vector<uint32_t> CriticalPath(uint32_t job, uint32_t step) const;

    /// When \p job's step \p step ended (its last record), and when it began (the previous
    /// step's end, or the job's start).
    Time StepEnd(uint32_t job, uint32_t step) const;
    Time StepBegin(uint32_t job, uint32_t step) const;

    /// Time in \p job's step \p step during which \p rank communicated (or waited for a
    /// communication) while it did not compute: the communication the step did not overlap.
    Time ExposedCommunication(uint32_t job, uint32_t step, uint32_t rank) const;

    /// job.csv: one row per (job, step, phase, rank).
    void WriteCsv(const std::string& path) const;

  protected:
    void DoDispose() override;

  private:
    void Ready(uint32_t rec, Time at);
    void Complete(uint32_t rec, Time end);
    void StartInstance(uint32_t inst);
    void EngineComplete(uint32_t inst);
    void InstanceDone(uint32_t inst);
    Ptr<CollectiveEngine> MakeEngine(const Instance& inst) const;

    Ptr<FlowTable> m_table;
    std::vector<Ptr<HostTransport>> m_nics;
    uint64_t m_seed = 1;
    CollectiveEngine::PortBinder m_portBinder;
    CollectiveEngine::LaunchScheduledCallback m_launchScheduled;
    std::vector<JobSpec> m_jobs;
    std::vector<uint32_t> m_firstRecord; ///< by job
    std::vector<Record> m_records;
    std::vector<Instance> m_instances;
    size_t m_completed = 0;
    Callback<void> m_onDone;
    bool m_distributed = false;
    std::vector<bool> m_localHosts;
    AnnounceCallback m_announce;

    struct RemoteCompletion
    {
        uint32_t transfer;
        Time start;
        Time end;
        std::vector<float> payload;
    };

    /// Distributed: announcements for instances not begun here yet.
    std::map<uint32_t, std::vector<RemoteCompletion>> m_early;
};

} // namespace ns3

#endif
