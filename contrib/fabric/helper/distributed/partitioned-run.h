#ifndef FABRIC_PARTITIONED_RUN_H
#define FABRIC_PARTITIONED_RUN_H

#include "build/fabric-builder.h"
#include "collective/collective-engine.h"
#include "distributed/topology-partition.h"
#include "job/job-runner.h"
#include "record/deadlock-detector.h"

#include "ns3/nstime.h"
#include "ns3/packet.h"

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace ns3
{

/// How a run is cut across MPI ranks, and which part this process simulates.
struct PartitionPlan
{
    std::string method;                ///< "auto", "pods" or a partition file
    std::string sync = "granted-time"; ///< or "null-message"
    TopologyPartition partition;
    uint32_t rank = 0;
    uint32_t size = 1;
};

/**
 * \brief The data path of one rank of a distributed run: cables cut between ranks carry
 * frames as MPI messages, and control messages (completions, collective announcements,
 * deadlock samples, stops) keep the ranks in step.
 *
 * A cut message is the frame behind a 9-byte header: a type (frame or a control message), the flow
 * id and the payload bytes the sender's on-wire list would have held (for conservation and for
 * drops counted at the receiving end).
 *
 * End of run: a single process stops when the last flow finishes; ranks cannot, because a rank
 * learns of a completion elsewhere only through a message, at least one lookahead later. Every
 * completion (flows, and a collective's SHARP reductions) is reported to rank 0 with its time;
 * when rank 0 has them all, at most one notice delay after the last, it tells every rank to
 * stop at last completion + 2 drains, drain = the largest cable delay + 1 ps: its notice
 * arrives within one more notice delay, and the extra picosecond keeps the stop off the
 * lattice that frame and cable times fall on, so that no other event ties with it. A
 * partitioned run on one rank uses the same rule (the reference a K-rank run is compared with).
 * One message per completion, plus one per rank at the end.
 *
 * Collectives: every rank runs a replica of the collective engine. A transfer that completes on
 * a rank's network is announced (transfer id, start, end and the values it carried) to the
 * ranks that need it: rank 0 (outputs), the rank holding its destination's values and the
 * ranks that launch its dependents. Each replica completes it at the same end time and makes
 * its dependents eligible; the rank simulating a dependent's source launches it. The
 * announcement takes the lookahead (granted time window: the smallest cut-cable delay; null
 * message: the smallest delay of the cables between the two ranks), so a dependent's launch
 * cost of at least that keeps every start where one process puts it.
 *
 * PFC deadlocks: a cycle of paused queues may run through several ranks' switches. Every rank
 * samples its paused queues at the detector's instants t and sends them to rank 0, which
 * evaluates the whole fabric's sample at t + drain (when every sample has arrived). On a deadlock
 * (declared as of t) every rank stops at t + 2 drain, which rank 0's notice reaches in time.
 */
class PartitionedRun
{
  public:
    PartitionedRun(FabricNetwork* net, const PartitionPlan& plan);

    /// Turns every cut cable into MPI messages (devices on this rank send through
    /// RankExchange and accept what the peer's rank sends).
    void ConnectCuts();
    /// Takes over the flow table's completion signal for the end-of-run rule above.
    void InstallFinishRule();

    /// The drain delay of the end-of-run rule (a run stops two drains after its last completion).
    Time GetDrainDelay() const
    {
        return m_drain;
    }

    /// Connects this rank's replica of the collective engine to the other ranks' (call after
    /// InstallFinishRule and before the engine starts).
    void ConnectCollective(Ptr<CollectiveEngine> engine);
    /// Connects this rank's replica of the job runner to the other ranks' (call before the
    /// runner starts): every transfer completed here is announced to every other rank, and the
    /// run ends two drains after the jobs' last record (rank 0's replica hears of everything).
    void ConnectJobs(Ptr<JobRunner> runner);
    /// Runs \p detector across the ranks as described above (instead of its own Start).
    void ConnectDeadlockDetector(DeadlockDetector* detector);

    /// The longest time a completion announced by one rank takes to reach another (0 on one
    /// rank): a collective's LaunchCost of at least this keeps every start exact.
    Time GetMaxNoticeDelay() const
    {
        return m_maxNoticeDelay;
    }

    /// Control messages this rank sent (completions, collective announcements, deadlock
    /// samples, stops), next to the frames its cut cables carried.
    uint64_t GetNoticesSent() const
    {
        return m_noticesSent;
    }

  private:
    enum MessageType : uint8_t
    {
        FRAME = 0,
        FINISH_NOTICE = 1,
        COLLECTIVE_NOTICE = 2,
        DEADLOCK_SAMPLE = 3,
        DEADLOCK_STOP = 4,
        RUN_STOP = 5,
        JOB_NOTICE = 6
    };

    void SendFrame(Ptr<Packet> frame,
                   Time rxTime,
                   uint32_t node,
                   uint32_t device,
                   uint32_t flowId,
                   uint32_t payload);
    void Receive(Ptr<FabricNetDevice> device, Ptr<Packet> message);
    void FlowFinished(uint32_t flowId);
    /// A completion here: counted by rank 0 (told by a notice from other ranks).
    void AnnounceFinish(uint32_t id);
    /// Rank 0: one more completion, at \p at; after the last, every rank is told when to stop.
    void CountFinish(Time at);
    /// By rank: who must hear of collective transfer \p id (this rank included if it must).
    std::vector<bool> AnnouncementMask(uint32_t id) const;
    /// The ranks other than this one that must hear of collective transfer \p id.
    std::vector<uint32_t> AnnouncementRanks(uint32_t id) const;
    void AnnounceTransfer(uint32_t id, Time start, Time end, const std::vector<float>& payload);
    void AnnounceJobTransfer(uint32_t instance,
                             uint32_t transfer,
                             Time start,
                             Time end,
                             const std::vector<float>& payload);
    void JobsDone();
    void SampleDeadlock();
    void EvaluateDeadlock(Time at);
    void ReceiveDeadlockSample(Ptr<Packet> message);
    /// Sends \p body behind a header of \p type to rank \p to, arriving \p delay from now.
    void SendNotice(uint32_t to,
                    uint8_t type,
                    uint32_t id,
                    const std::vector<uint8_t>& body,
                    Time delay);

    FabricNetwork* m_net;
    PartitionPlan m_plan;
    Time m_drain;
    uint32_t m_finishedSeen = 0;
    Time m_lastFinish;
    uint64_t m_noticesSent = 0;
    uint32_t m_finishExpected = 0; ///< flows + network transfers of a collective
    Ptr<CollectiveEngine> m_collective;
    Ptr<JobRunner> m_jobs;
    std::vector<std::vector<uint32_t>> m_transferDependents; ///< by collective transfer
    std::vector<Time> m_noticeDelay; ///< from this rank, by destination rank
    Time m_maxNoticeDelay;
    DeadlockDetector* m_deadlock = nullptr;
    std::map<int64_t, std::vector<QueueSample>> m_deadlockSamples; ///< rank 0, by instant (ps)
    /// Per rank, one of its devices on a cut cable (where finish notices are addressed).
    std::vector<std::pair<uint32_t, uint32_t>> m_noticeTarget;
};

} // namespace ns3

#endif
