#ifndef FABRIC_COLLECTIVE_ENGINE_H
#define FABRIC_COLLECTIVE_ENGINE_H

#include "collective-plan.h"
#include "host/flow-table.h"
#include "host/host-transport.h"

#include "ns3/callback.h"
#include "ns3/nstime.h"
#include "ns3/object.h"
#include "ns3/queue-size.h"

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace ns3
{

/**
 * \brief In-network reduction service the engine hands SHARP transfers to (implemented by the
 * SHARP host agents + switch aggregators). Send() posts rank's contribution for reduction
 * \p reductionId of aggregation tree \p group (same ids at every member); \p done is called at that
 * rank when the reduced result has arrived, with the reduced values.
 */
class CollectiveSharpService : public Object
{
  public:
    static TypeId GetTypeId();
    typedef Callback<void, const std::vector<float>&> DoneCallback;
    /// Called instead of DoneCallback when the reduction is given up, with the reason.
    typedef Callback<void, const std::string&> FailedCallback;
    virtual void Send(uint16_t group,
                      uint32_t reductionId,
                      uint32_t rank,
                      uint64_t bytes,
                      const std::vector<float>& values,
                      DoneCallback done,
                      FailedCallback failed) = 0;
};

/**
 * \brief Runs a CollectivePlan over the hosts' reliable transports.
 *
 * Ranks live on hosts (hostOfRank). Every non-JOIN transfer between two ranks is one FlowRecord
 * (RDMA WRITE, reliable), added to the run's FlowTable when Start() is called with a start time
 * far in the future (so the table's all-finished condition covers the whole collective) and
 * posted with start = now when it becomes eligible:
 *     start = max(completion of its dependencies, ready(src), ready(dst)) + LaunchCost.
 * A transfer completes when its flow finishes (the sender has the last ACK: an RDMA WRITE's
 * completion), and then applies its data operation to the destination's values.
 *
 * With RequestSize m > 0, a transfer between two servers (it leaves through the NICs) is
 * carried as ceil(bytes / m) requests of m bytes (the last one shorter), one FlowRecord each,
 * all posted when the transfer launches: each takes one of its NIC's request slots
 * (MaxInflightRequests) in turn, so the slots' N·m/T binds (docs/models.md#job-timelines,
 * Datacenter networks, chapter 7, §7.6.2 with §7.3.4). The transfer completes when its last
 * request has. Transfers within a server (NVLink) stay one message. 0B: one message each.
 *
 * Values: every rank holds ValueElements float32, rank r element e = (r+1)*((e % 61)+1), small
 * integers whose sums are exact in float32, so the result must equal the exact sum.
 */
class CollectiveEngine : public Object
{
  public:
    static TypeId GetTypeId();
    CollectiveEngine();

    /// \p seed mixes into the flows' entropy (UDP source ports, what ECMP hashes).
    void Configure(Ptr<FlowTable> table,
                   std::vector<Ptr<HostTransport>> nics,
                   std::vector<uint32_t> hostOfRank,
                   uint64_t seed);
    /// Takes the plan; with PortsPerNic > 0 divides its inter-server transfers over the NICs'
    /// ports (CollectivePlan::SplitOverNicPorts).
    void SetPlan(const CollectivePlan& plan);

    /// Binds flow \p flowId (from host \p src to host \p dst) to port \p port of the NICs
    /// it crosses, data and ACKs (set by whoever knows the fabric; NicPortBinder in
    /// helper/build/nic-port-binder.h).
    typedef Callback<void, uint32_t, uint32_t, uint32_t, uint32_t> PortBinder;

    void SetPortBinder(PortBinder binder)
    {
        m_portBinder = binder;
    }

    /// Told the time a transfer will launch, when its launch is scheduled and before anything
    /// is scheduled for it: what samples the fabric can sleep until then (FabricIdleness).
    typedef Callback<void, Time> LaunchScheduledCallback;

    void SetLaunchScheduledCallback(LaunchScheduledCallback cb)
    {
        m_launchScheduled = cb;
    }

    /// True while an in-network (SHARP) transfer waits for results: a member may retransmit
    /// although no frame is anywhere.
    bool SharpInFlight() const
    {
        return m_sharpInFlight > 0;
    }

    /// Per-rank time at which the rank has finished computing its gradient (default 0).
    void SetReadiness(std::vector<Time> ready);

    void SetSharpService(Ptr<CollectiveSharpService> sharp)
    {
        m_sharp = sharp;
    }

    Ptr<CollectiveSharpService> GetSharpService() const
    {
        return m_sharp;
    }

    /// Checks the value results: false disables the exact-sum check (partial collectives).
    void SetCheckValues(bool check)
    {
        m_checkValues = check;
    }

    void Start();
    /// Start() in two halves, for a distributed job whose phases' flows must have the same ids
    /// on every rank: Prepare() adds the transfers' flows to the table (now); Begin() starts the
    /// collective as of \p start (<= now: launches already due are late, as announcements are).
    void Prepare();
    void Begin(Time start);

    struct TransferState
    {
        Time start = Time(-1);
        Time end = Time(-1);
        int64_t flow = -1;       ///< its first request's flow (the others follow it)
        uint32_t requests = 0;   ///< flows that carry it (RequestSize)
        uint32_t unfinished = 0; ///< of those, not finished yet
        uint32_t pending = 0;
        bool done = false;
        int64_t binding = INT64_MIN; ///< dependency that ended last (-1 - rank: readiness)
        std::vector<float> payload;
    };

    const CollectivePlan& Plan() const
    {
        return m_plan;
    }

    const std::vector<TransferState>& States() const
    {
        return m_state;
    }

    bool IsComplete() const
    {
        return m_completed == m_plan.Transfers().size();
    }

    Time CompletionTime() const
    {
        return m_completion;
    }

    Time GetUpdateTime() const
    {
        return m_updateTime;
    }

    const std::vector<Time>& Readiness() const
    {
        return m_ready;
    }

    /// Rank's values now.
    const std::vector<float>& Values(uint32_t rank) const
    {
        return m_values[rank];
    }

    /// "" when every rank holds the exact sum of all ranks' initial values.
    std::string CheckValues() const;

    bool ValuesChecked() const
    {
        return m_checkValues && m_elements > 0;
    }

    uint32_t GetValueElements() const
    {
        return m_elements;
    }

    Time GetLaunchCost() const
    {
        return m_launchCost;
    }

    /// Bytes per request of a transfer between servers (0: the whole transfer).
    uint64_t GetRequestSize() const
    {
        return m_requestSize.GetValue();
    }

    /// Initial value of element \p e at rank \p r.
    static float InitialValue(uint32_t r, uint32_t e)
    {
        return float((r + 1) * ((e % 61) + 1));
    }

    /// The chain of transfers that decided the completion time, last first; a negative entry
    /// -1-r is rank r's readiness.
    std::vector<int64_t> CriticalPath() const;
    /// collective.csv: rank, step, phase, peer, bytes, start_ns, end_ns (one row per transfer).
    void WriteCsv(const std::string& path) const;

    uint32_t HostOfRank(uint32_t r) const
    {
        return m_hostOfRank[r];
    }

    /// Called once when the last transfer has completed.
    void SetCompleteCallback(Callback<void> cb)
    {
        m_onComplete = cb;
    }

    /**
     * Distributed runs. Every process holds the whole plan and the values of every rank, but a
     * transfer is launched only by the process that simulates its source host (\p local, by
     * collective rank; default: all). When a transfer completes on the network here (its flow
     * finished or its SHARP result arrived), \p announce gets its id, start, end and payload;
     * the other processes replay it with ApplyRemoteCompletion, which completes it at its end
     * time, applies the payload and makes its dependents eligible. A dependent starts at
     * end + LaunchCost, so when the announcement takes no longer than LaunchCost to arrive the
     * start is the single-process one; otherwise the launch is late (counted).
     */
    typedef Callback<void, uint32_t, Time, Time, const std::vector<float>&> AnnounceCallback;

    void SetLocalRanks(std::vector<bool> local)
    {
        m_local = std::move(local);
    }

    /// Distributed runs: the transfers this process will learn the outcome of (launched here,
    /// announced here, or completed here from known inputs); default: all. A transfer waits
    /// only for its known inputs, and an unknown one never becomes eligible here.
    void SetKnownTransfers(std::vector<bool> known)
    {
        m_known = std::move(known);
    }

    void SetAnnounceCallback(AnnounceCallback announce)
    {
        m_announce = announce;
    }

    void ApplyRemoteCompletion(uint32_t id, Time start, Time end, std::vector<float> payload);

    /// Transfers this process launched after their planned start (announcement too slow).
    uint32_t GetLateLaunches() const
    {
        return m_lateLaunches;
    }

    Time GetLateLaunchTime() const
    {
        return m_lateLaunchTime;
    }

  protected:
    void DoDispose() override;

  private:
    static constexpr int64_t kNoBinding = INT64_MIN;
    void FlowFinished(uint32_t flowId);
    void Eligible(uint32_t id);
    void Launch(uint32_t id);
    /// Ends transfer \p id at \p end; \p announce when it was seen on this process's network.
    void Complete(uint32_t id, Time end, bool announce);
    void SharpDone(uint32_t id, const std::vector<float>& values);
    void SharpFailed(uint32_t id, const std::string& reason);
    std::pair<uint32_t, uint32_t> Elements(const CollectiveTransfer& t) const;

    /// How many requests carry transfer \p t (RequestSize; 1 within a server).
    uint32_t RequestsOf(const CollectiveTransfer& t) const;

    Time m_launchCost;
    QueueSize m_requestSize;
    Time m_updateTime;
    uint8_t m_priority = 3;
    uint32_t m_elements = 1024;
    uint32_t m_portsPerNic = 0;
    PortBinder m_portBinder;
    LaunchScheduledCallback m_launchScheduled;
    uint32_t m_sharpInFlight = 0;
    bool m_checkValues = true;
    Ptr<FlowTable> m_table;
    std::vector<Ptr<HostTransport>> m_nics;
    std::vector<uint32_t> m_hostOfRank;
    uint64_t m_seed = 1;
    CollectivePlan m_plan{CollectiveJob{}};
    std::vector<TransferState> m_state;
    std::vector<std::vector<uint32_t>> m_dependents;
    std::vector<uint32_t> m_transferOfFlow; ///< flowId - m_firstFlow -> transfer
    uint32_t m_firstFlow = 0;
    std::vector<Time> m_ready;
    std::vector<std::vector<float>> m_values;
    size_t m_completed = 0;
    std::string m_failure; ///< why an in-network reduction was given up (first one), or empty
    Time m_completion;
    Ptr<CollectiveSharpService> m_sharp;
    Callback<void> m_onComplete;
    bool m_completeReported = false; ///< m_onComplete has run (it runs once)
    Time m_startTime;
    std::vector<bool> m_local; ///< by rank; empty: every rank is simulated here
    std::vector<bool> m_known; ///< by transfer; empty: all
    AnnounceCallback m_announce;

    struct RemoteCompletion
    {
        Time start;
        Time end;
        std::vector<float> payload;
    };

    /// Announcements that arrived before this process saw the transfer's dependencies complete.
    std::map<uint32_t, RemoteCompletion> m_early;
    uint32_t m_lateLaunches = 0;
    Time m_lateLaunchTime;
};

} // namespace ns3

#endif
