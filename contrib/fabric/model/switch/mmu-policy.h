#ifndef FABRIC_MMU_POLICY_H
#define FABRIC_MMU_POLICY_H

#include "ns3/event-id.h"
#include "ns3/nstime.h"
#include "ns3/object.h"
#include "ns3/queue-size.h"

#include <array>
#include <cstdint>
#include <string>
#include <vector>

namespace ns3
{

class SharedBufferMmu;

/**
 * \ingroup fabric-switch-pipeline
 * \brief What a buffer policy decides from: the shared pool and the thresholds the switch's
 * SharedBufferMmu attributes set (XoffThreshold, XonThreshold, Alpha, XonOffset).
 */
struct MmuPoolState
{
    uint64_t poolSize = 0;   ///< the shared pool: the buffer less the headroom reserve
    uint64_t sharedUsed = 0; ///< bytes of the pool in use, every port and priority
    uint64_t xoff = 0;       ///< XoffThreshold
    uint64_t xon = 0;        ///< XonThreshold
    double alpha = 0;        ///< Alpha
    uint64_t xonOffset = 0;  ///< XonOffset

    /// The free shared pool.
    uint64_t Free() const
    {
        return poolSize > sharedUsed ? poolSize - sharedUsed : 0;
    }
};

/**
 * \ingroup fabric-switch-pipeline
 * \brief A per-queue threshold and what it was computed from (the buffer-thresholds trace).
 */
struct MmuQueueThreshold
{
    bool ingress = false;   ///< an (ingress port, lossless priority); else a lossy egress queue
    uint64_t bytes = 0;     ///< the bytes the queue holds
    uint64_t threshold = 0; ///< the bytes it may hold
    double congested = 1;   ///< ABM's n_p: congested queues of its priority (>= 1); DT: 1
    double drainRate = 1;   ///< ABM's mu: the queue's normalized dequeue rate; DT: 1
};

/**
 * \ingroup fabric-switch-pipeline
 * \brief How a shared buffer sets the thresholds of its queues: the `switch.mmu:` plug-ins
 * (static, dynamic, abm; a policy registers itself with FABRIC_PLUGIN, PluginKind::MmuPolicy).
 *
 * Every policy sets the PFC XOFF threshold of an (ingress port, lossless priority). A per-queue
 * policy (LimitsLossyEgress) also bounds each lossy egress queue (egress port, priority): a lossy
 * frame that would take its queue past the threshold is dropped, as the "sonic" buffer model of
 * inet-tub/ns3-datacenter's switch-mmu.cc (CheckEgressAdmission) does.
 */
class MmuPolicy : public Object
{
  public:
    static TypeId GetTypeId();

    /// The shared bytes of an (ingress port, priority) at which it asks for XOFF.
    virtual uint64_t XoffThreshold(const MmuPoolState& pool) const = 0;
    /// Whether a paused (port, priority) holding \p shared bytes of the pool (and no headroom)
    /// may ask for XON.
    virtual bool MayResume(uint64_t shared, const MmuPoolState& pool) const = 0;

    // Per-queue policies. The defaults keep the pool-wide thresholds above.

    /// The MMU whose queues the policy reads; called by SharedBufferMmu::Configure once its
    /// tables are sized. Throws SwitchStageError, naming the attribute, on a value the policy
    /// refuses (fabric-run reports it as bad input).
    virtual void Attach(const SharedBufferMmu& mmu)
    {
    }

    /// Whether a lossy frame is admitted only while its egress queue stays within
    /// LossyEgressThreshold (otherwise lossy frames are dropped only when the pool is full).
    virtual bool LimitsLossyEgress() const
    {
        return false;
    }

    /// The bytes lossy egress queue (\p port, \p priority) may hold, for a frame arriving now
    /// (before it is charged); \p unscheduled: the frame is one of its flow's first base BDP
    /// (QueuedFrame::unscheduled). May update the policy's state (ABM counts congested queues).
    virtual uint64_t LossyEgressThreshold(uint32_t port,
                                          uint8_t priority,
                                          const MmuPoolState& pool,
                                          bool unscheduled)
    {
        return UINT64_MAX;
    }

    /// The XOFF threshold of lossless (ingress \p port, \p priority) once a frame has been
    /// charged to it (\p unscheduled: that frame's QueuedFrame::unscheduled; false when no
    /// frame arrives, as for XON).
    virtual uint64_t IngressXoffThreshold(uint32_t port,
                                          uint8_t priority,
                                          const MmuPoolState& pool,
                                          bool unscheduled)
    {
        return XoffThreshold(pool);
    }

    /// Whether paused (\p port, \p priority) holding \p shared bytes of the pool (and no
    /// headroom) may ask for XON.
    virtual bool MayResumeQueue(uint32_t port,
                                uint8_t priority,
                                uint64_t shared,
                                const MmuPoolState& pool)
    {
        return MayResume(shared, pool);
    }

    /// Whether the policy wants FrameSent.
    virtual bool CountsDepartures() const
    {
        return false;
    }

    /// A frame charged to (ingress \p inPort, \p priority) left the switch by \p outPort.
    virtual void FrameSent(uint32_t inPort, uint8_t priority, uint32_t outPort, uint32_t bytes)
    {
    }

    /// The threshold queue (\p port, \p priority) has now (the egress queue of a lossy priority,
    /// the ingress (port, priority) of a lossless one), without changing any state; false when
    /// the policy has no per-queue threshold for it.
    virtual bool QueueThreshold(uint32_t port,
                                uint8_t priority,
                                const MmuPoolState& pool,
                                MmuQueueThreshold* out) const
    {
        return false;
    }
};

/**
 * \ingroup fabric-switch-pipeline
 * \brief Static thresholds: XOFF at XoffThreshold, XON at or below XonThreshold.
 */
class StaticMmuPolicy final : public MmuPolicy
{
  public:
    static TypeId GetTypeId();
    uint64_t XoffThreshold(const MmuPoolState& pool) const override;
    bool MayResume(uint64_t shared, const MmuPoolState& pool) const override;
};

/**
 * \ingroup fabric-switch-pipeline
 * \brief Per-priority factors of a threshold policy, read from a list: "a" gives every priority
 * a; "a0,a1,..." gives priority i the i-th and the last to the priorities after the list.
 * Throws std::invalid_argument on anything but 1..8 non-negative numbers (\p what names the
 * attribute); an empty list gives \p empty to every priority.
 */
std::array<double, 8> ParsePriorityAlphas(const std::string& list,
                                          const std::string& what,
                                          double empty);

/**
 * \ingroup fabric-switch-pipeline
 * \brief Dynamic thresholds (Choudhury and Hahne, "Dynamic Queue Length Thresholds for
 * Shared-Memory Packet Switches", IEEE/ACM ToN 1998): XOFF at Alpha × the free shared pool, XON
 * once XonOffset below it (or empty), as the HPCC simulator's switch-mmu.cc
 * (`GetPfcThreshold`, `CheckShouldResume`) computes them.
 *
 * LossyAlpha (empty by default: lossy frames are dropped only when the pool is full, as before)
 * also bounds each lossy egress queue at alpha_p × the free shared pool, as
 * inet-tub/ns3-datacenter switch-mmu.cc DynamicThreshold ("egress") and CheckEgressAdmission
 * ("sonic", LOSSY) do: the DT baseline of the ABM paper.
 */
class DynamicMmuPolicy final : public MmuPolicy
{
  public:
    static TypeId GetTypeId();
    uint64_t XoffThreshold(const MmuPoolState& pool) const override;
    bool MayResume(uint64_t shared, const MmuPoolState& pool) const override;
    void Attach(const SharedBufferMmu& mmu) override;
    bool LimitsLossyEgress() const override;
    uint64_t LossyEgressThreshold(uint32_t port,
                                  uint8_t priority,
                                  const MmuPoolState& pool,
                                  bool unscheduled) override;
    bool QueueThreshold(uint32_t port,
                        uint8_t priority,
                        const MmuPoolState& pool,
                        MmuQueueThreshold* out) const override;

  private:
    std::string m_lossyAlphaList; ///< LossyAlpha
    std::array<double, 8> m_lossyAlpha{};
    const SharedBufferMmu* m_mmu = nullptr;
};

/**
 * \ingroup fabric-switch-pipeline
 * \brief Active Buffer Management (Addanki, Apostolaki, Ghobadi, Schmid, Vissicchio, "ABM:
 * Active Buffer Management in Datacenters", SIGCOMM 2022), as inet-tub/ns3-datacenter
 * simulator/ns-3.39/src/point-to-point/model/switch-mmu.cc implements it
 * (ActiveBufferManagement, setCongested, GetNofP, updateDequeueRates).
 *
 * The threshold of a queue of priority p is
 *
 *     T = alpha_p × free shared pool × (1 / n_p) × mu
 *
 * truncated to whole bytes, where n_p = max(1, sum over the switch's queues of priority p of
 * min(1, bytes / CongestionIndicator)) (each queue's saturation as it was when a frame last
 * arrived at it, switch-mmu.cc:369-408, 459, 486) and mu is the queue's dequeue rate
 * over the last UpdateInterval normalized by its port's rate, or 1 when the queue held at most
 * CongestionIndicator bytes at the update or sent at most MinDequeueBytes in the interval
 * (switch-mmu.cc:419-449). The updates start at the switch's first threshold computation and
 * repeat every UpdateInterval (switch-mmu.cc:448, 452-454).
 *
 * Lossy priorities: the threshold bounds the egress queue (egress port, priority); a frame
 * that would take it past T is dropped (CheckEgressAdmission, "sonic"). Lossless priorities:
 * T is the XOFF threshold of the ingress (port, priority) (ActiveBufferManagement "ingress",
 * UpdateIngressAdmission), its bytes counting the headroom it holds; XON once the shared bytes
 * are XonOffset below T, or zero.
 *
 * Unscheduled frames (QueuedFrame::unscheduled: the RoCE NIC sent them within their flow's
 * first base BDP, as rdma-hw.cc:567-583 tags them with UnSchedTag 1) take UnscheduledAlpha in
 * place of alpha_p, in both thresholds above (alphaHigh = 1024, switch-mmu.cc:145, 467-468,
 * 496-497); XON is checked with alpha_p (CheckShouldResume passes unsched 0,
 * switch-mmu.cc:1014-1025). UnscheduledAlpha = alpha_p gives every frame alpha_p.
 */
class AbmMmuPolicy final : public MmuPolicy
{
  public:
    static TypeId GetTypeId();
    AbmMmuPolicy();
    ~AbmMmuPolicy() override;

    uint64_t XoffThreshold(const MmuPoolState& pool) const override;
    bool MayResume(uint64_t shared, const MmuPoolState& pool) const override;
    void Attach(const SharedBufferMmu& mmu) override;

    bool LimitsLossyEgress() const override
    {
        return true;
    }

    uint64_t LossyEgressThreshold(uint32_t port,
                                  uint8_t priority,
                                  const MmuPoolState& pool,
                                  bool unscheduled) override;
    uint64_t IngressXoffThreshold(uint32_t port,
                                  uint8_t priority,
                                  const MmuPoolState& pool,
                                  bool unscheduled) override;
    bool MayResumeQueue(uint32_t port,
                        uint8_t priority,
                        uint64_t shared,
                        const MmuPoolState& pool) override;

    bool CountsDepartures() const override
    {
        return true;
    }

    void FrameSent(uint32_t inPort, uint8_t priority, uint32_t outPort, uint32_t bytes) override;
    bool QueueThreshold(uint32_t port,
                        uint8_t priority,
                        const MmuPoolState& pool,
                        MmuQueueThreshold* out) const override;

    /// n_p of the egress (\p ingress false) or ingress queues of \p priority: at least 1.
    double CongestedQueues(bool ingress, uint8_t priority) const;
    /// mu of a queue: its normalized dequeue rate at the last update (1 before any).
    double DrainRate(bool ingress, uint32_t port, uint8_t priority) const;

    /// alpha_p.
    double GetAlpha(uint8_t priority) const
    {
        return m_alpha[priority];
    }

    /// The alpha of unscheduled frames (UnscheduledAlpha).
    double GetUnscheduledAlpha() const
    {
        return m_unscheduledAlpha;
    }

    /// The formula: alpha × free × (1 / n) × mu in the reference's order of operations,
    /// truncated to whole bytes.
    static uint64_t Threshold(double alpha, uint64_t free, double n, double mu);

  protected:
    void DoDispose() override;

  private:
    /// One side's (egress or ingress) per-queue state.
    struct Side
    {
        std::vector<uint64_t> saturated;     ///< per queue: min(bytes, CongestionIndicator)
        std::vector<uint64_t> sent;          ///< per queue: bytes sent since the last update
        std::vector<double> rate;            ///< per queue: mu
        std::array<uint64_t, 8> congested{}; ///< per priority: sum of saturated
    };

    /// Starts the updates at the first threshold computation (switch-mmu.cc:452-454).
    void StartUpdates();
    /// updateDequeueRates: every queue's mu from what it sent, then the next update.
    void UpdateRates();
    /// setCongested: the queue's saturation from the \p bytes it holds.
    void Observe(Side& side, uint32_t index, uint64_t bytes);
    uint64_t QueueBytes(bool ingress, uint32_t port, uint8_t priority) const;
    /// ABM's threshold of an ingress (or egress) queue: observes its saturation, then the
    /// formula with its side's n_p and mu.
    uint64_t QueueThreshold(bool ingress,
                            uint32_t port,
                            uint8_t priority,
                            const MmuPoolState& pool,
                            bool unscheduled);

    // Attributes
    std::string m_alphaList;
    double m_unscheduledAlpha = 1024; ///< UnscheduledAlpha (switch-mmu.cc:145)
    QueueSize m_congestionIndicatorAttr;
    Time m_interval;
    QueueSize m_minDequeueAttr;

    std::array<double, 8> m_alpha{};
    uint64_t m_congestionIndicator = 0;
    uint64_t m_minDequeue = 0;
    const SharedBufferMmu* m_mmu = nullptr;
    uint32_t m_nPorts = 0;
    std::vector<double> m_portBps; ///< per port: its rate in bit/s
    Side m_egress;
    Side m_ingress;
    bool m_started = false;
    EventId m_update;
};

} // namespace ns3

#endif
