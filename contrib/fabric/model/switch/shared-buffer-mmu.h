#ifndef FABRIC_SHARED_BUFFER_MMU_H
#define FABRIC_SHARED_BUFFER_MMU_H

#include "link/fabric-net-device.h"
#include "switch/mmu-policy.h"

#include "ns3/data-rate.h"
#include "ns3/nstime.h"
#include "ns3/object.h"
#include "ns3/queue-size.h"

#include <cstdint>
#include <vector>

namespace ns3
{

/**
 * \ingroup fabric
 * \brief Shared-buffer memory management of a switch: admission, PFC thresholds, headroom.
 *
 * Every frame is charged to its (ingress port, priority) while it sits in the switch, as
 * Broadcom-class switches account for lossless traffic. The buffer splits into a headroom
 * reserve and a shared pool for everything else. The reserve is either static, Headroom per
 * (port, lossless priority), or (HeadroomPool > 0) one shared headroom pool that every
 * (port, lossless priority) draws from up to its Headroom: sized for the ports that can be
 * pausing at once rather than for all of them (Datacenter networks, chapter 7, §7.5.2 sizes
 * the aggregate for an N-port incast), it lets a switch with many ports keep a shared pool.
 *
 * Lossless priority, per (port, priority):
 *  - not paused and the pool has room: charge the shared pool; if the port's shared bytes now
 *    reach the XOFF threshold (static, or Alpha × free pool in dynamic mode), ask for XOFF;
 *  - paused (or the pool is full): charge the headroom; if it does not fit (the (port, priority)
 *    holds Headroom, or the headroom pool is exhausted by ports pausing at once), the frame is
 *    dropped and counted as a headroom violation (the headroom was too small for the feedback
 *    delay);
 *  - departures release headroom first, then shared; once headroom is empty and shared bytes are
 *    at or below XON (static, or XOFF threshold − XonOffset in dynamic mode), ask for XON.
 * Lossy priority (or PFC disabled): tail drop when the pool is full. A per-queue policy
 * (MmuPolicy::LimitsLossyEgress: ABM, or dynamic with LossyAlpha) also bounds each lossy egress
 * queue (egress port, priority): a frame that would take it past the policy's threshold is
 * dropped (DROP_THRESHOLD), as inet-tub/ns3-datacenter switch-mmu.cc CheckEgressAdmission
 * ("sonic") does. The egress bytes are counted only then, and only with the egress port given
 * (the Admit and Release overloads that take it).
 *
 * Credit-based flow control (UseCredits): the credited lanes are the lossless priorities. The
 * sender's credits bound what a (port, lane) can hold to what that lane advertised, so the MMU
 * reserves that much per (port, lane) in place of headroom: a frame takes the shared pool while
 * it has room, otherwise the reserve; nothing pauses. A frame that fits neither broke the credit
 * contract and is dropped as a headroom violation.
 */
class SharedBufferMmu : public Object
{
  public:
    enum Verdict
    {
        ADMIT,         ///< frame accepted
        DROP_LOSSY,    ///< lossy frame dropped: pool full
        DROP_HEADROOM, ///< lossless frame dropped: headroom exhausted (a violation)
        DROP_THRESHOLD ///< lossy frame dropped: its egress queue would exceed its threshold
    };

    /// No egress port: Admit and Release without per-queue egress accounting.
    static constexpr uint32_t kNoEgressPort = UINT32_MAX;

    static TypeId GetTypeId();
    SharedBufferMmu();

    /// Sizes the per-port tables; call once the switch knows its port count. Throws
    /// std::invalid_argument when the headroom reserve does not fit in the buffer, or when a
    /// headroom pool cannot hold even one (port, priority)'s Headroom.
    void Configure(uint32_t nPorts);

    /// Each port's rate and cable delay, for HeadroomDelayMultiple; call before Configure.
    void SetPortCables(std::vector<std::pair<DataRate, Time>> cables);

    /// Credit mode, before Configure: \p reservePerLane bytes per (port, credited lane) in
    /// \p lanes (a priority mask, replacing LosslessPriorities), no PFC.
    void UseCredits(uint64_t reservePerLane, uint8_t lanes);

    bool UsesCredits() const
    {
        return m_credits;
    }

    /// Charges a frame to (port, priority). \p sendXoff is set when this arrival pauses the
    /// (port, priority) — also when the frame itself is dropped.
    Verdict Admit(uint32_t port, uint8_t priority, uint32_t bytes, bool* sendXoff)
    {
        return Admit(port, priority, bytes, sendXoff, kNoEgressPort);
    }

    /// Admit, for a frame bound for egress port \p outPort: a lossy frame is also held to its
    /// egress queue's threshold when the policy sets one (DROP_THRESHOLD). \p unscheduled: the
    /// frame is one of its flow's first base BDP (QueuedFrame::unscheduled), which a policy may
    /// give a higher threshold (ABM's UnscheduledAlpha).
    Verdict Admit(uint32_t port,
                  uint8_t priority,
                  uint32_t bytes,
                  bool* sendXoff,
                  uint32_t outPort,
                  bool unscheduled = false);

    /// Releases a departed frame; appends (port, priority) pairs to resume to \p resume.
    void Release(uint32_t port,
                 uint8_t priority,
                 uint32_t bytes,
                 std::vector<std::pair<uint32_t, uint8_t>>* resume)
    {
        Release(port, priority, bytes, resume, kNoEgressPort, false);
    }

    /// Release, for a frame admitted with egress port \p outPort; \p sent: it left by that
    /// port (rather than being lost or dropped), which ABM counts in the queue's dequeue rate.
    void Release(uint32_t port,
                 uint8_t priority,
                 uint32_t bytes,
                 std::vector<std::pair<uint32_t, uint8_t>>* resume,
                 uint32_t outPort,
                 bool sent);

    bool IsLossless(uint8_t priority) const;
    bool IsPaused(uint32_t port, uint8_t priority) const;

    bool PfcEnabled() const
    {
        return m_pfcEnabled;
    }

    uint16_t GetPauseQuanta() const
    {
        return m_pauseQuanta;
    }

    uint64_t GetBufferSize() const
    {
        return m_bufferSize;
    }

    uint64_t GetSharedPoolSize() const
    {
        return m_poolSize;
    }

    uint64_t GetSharedUsed() const
    {
        return m_sharedUsed;
    }

    uint64_t GetHeadroomUsed() const
    {
        return m_headroomUsed;
    }

    /// The most headroom bytes held at once, over every (port, priority), since Configure.
    uint64_t GetMaxHeadroomUsed() const
    {
        return m_maxHeadroomUsed;
    }

    /// The shared headroom pool in bytes; 0 when headroom is reserved per (port, priority).
    uint64_t GetHeadroomPoolSize() const
    {
        return m_headroomPool;
    }

    uint64_t GetIngressBytes(uint32_t port, uint8_t priority) const;

    /// Bytes admitted to lossy egress queue (port, priority) and not yet released; counted only
    /// under a policy that bounds lossy egress queues (0 otherwise).
    uint64_t GetEgressBytes(uint32_t port, uint8_t priority) const
    {
        return m_egressBytes.empty() ? 0 : m_egressBytes[port * kFabricPriorities + priority];
    }

    uint32_t GetNPorts() const
    {
        return m_nPorts;
    }

    /// Port \p port's rate (SetPortCables); 0 when none was given.
    DataRate GetPortRate(uint32_t port) const
    {
        return port < m_cables.size() ? m_cables[port].first : DataRate(0);
    }

    /// The policy's current threshold of queue (port, priority) (MmuPolicy::QueueThreshold);
    /// false when it has none.
    bool GetQueueThreshold(uint32_t port, uint8_t priority, MmuQueueThreshold* out) const
    {
        return m_policy->QueueThreshold(port, priority, PoolState(), out);
    }

    /// Whether the policy bounds lossy egress queues (and the MMU counts their bytes).
    bool LimitsLossyEgress() const
    {
        return m_limitsEgress;
    }

    /// Lossy frames dropped at their egress queue's threshold (DROP_THRESHOLD), and their bytes.
    uint64_t GetThresholdDropFrames() const
    {
        return m_thresholdDropFrames;
    }

    uint64_t GetThresholdDropBytes() const
    {
        return m_thresholdDropBytes;
    }

    uint64_t GetHeadroomBytes(uint32_t port, uint8_t priority) const;

    /// Headroom reserved per lossless priority of \p port (Headroom, or HeadroomDelayMultiple's).
    uint64_t GetPortHeadroom(uint32_t port) const
    {
        return m_portHeadroom[port];
    }

    /// Current XOFF threshold of a (port, priority), as the policy sets it (in dynamic mode it
    /// depends on the free pool).
    uint64_t XoffThreshold() const
    {
        return m_policy->XoffThreshold(PoolState());
    }

    /// The threshold policy Configure created (Policy, or DynamicMmuPolicy with
    /// DynamicThreshold).
    Ptr<MmuPolicy> GetPolicy() const
    {
        return m_policy;
    }

  private:
    struct Counter
    {
        uint64_t shared = 0;
        uint64_t headroom = 0;
        bool paused = false;
    };

    Counter& At(uint32_t port, uint8_t priority)
    {
        return m_counters[port * kFabricPriorities + priority];
    }

    bool ShouldResume(uint32_t index, const Counter& c);
    /// Creates nothing: hands the configured MMU to its policy and sizes the egress counters.
    void AttachPolicy();

    MmuPoolState PoolState() const
    {
        MmuPoolState pool;
        pool.poolSize = m_poolSize;
        pool.sharedUsed = m_sharedUsed;
        pool.xoff = m_xoff;
        pool.xon = m_xon;
        pool.alpha = m_alpha;
        pool.xonOffset = m_xonOffset;
        return pool;
    }

    // Attributes (byte sizes as QueueSize so they read "4MiB"; copied to integers by Configure)
    QueueSize m_bufferSizeAttr;
    QueueSize m_headroomAttr;
    QueueSize m_headroomPoolAttr;
    QueueSize m_xoffAttr;
    QueueSize m_xonAttr;
    QueueSize m_xonOffsetAttr;
    bool m_pfcEnabled;
    uint8_t m_losslessMask;
    bool m_dynamic;
    TypeId m_policyType; ///< Policy
    Ptr<MmuPolicy> m_policy;
    double m_alpha;
    uint16_t m_pauseQuanta;
    bool m_credits = false;
    uint32_t m_headroomDelayMultiple = 0; ///< HeadroomDelayMultiple; 0: Headroom everywhere
    bool m_headroomOutsideBuffer = false; ///< HeadroomOutsideBuffer
    std::vector<std::pair<DataRate, Time>> m_cables; ///< per port: rate, cable delay

    uint64_t m_bufferSize = 0;
    uint64_t m_headroom = 0;
    uint64_t m_headroomPool = 0;          ///< 0: static headroom per (port, lossless priority)
    std::vector<uint64_t> m_portHeadroom; ///< per port: headroom per lossless priority
    uint64_t m_xoff = 0;
    uint64_t m_xon = 0;
    uint64_t m_xonOffset = 0;

    uint64_t m_poolSize = 0;
    uint64_t m_sharedUsed = 0;
    uint64_t m_headroomUsed = 0;
    uint64_t m_maxHeadroomUsed = 0;
    std::vector<Counter> m_counters;
    std::vector<uint32_t> m_pausedList; ///< indices into m_counters that are paused
    uint32_t m_nPorts = 0;
    bool m_limitsEgress = false;         ///< the policy bounds lossy egress queues
    bool m_countsDepartures = false;     ///< the policy wants MmuPolicy::FrameSent
    std::vector<uint64_t> m_egressBytes; ///< per (egress port, priority), with m_limitsEgress
    uint64_t m_thresholdDropFrames = 0;
    uint64_t m_thresholdDropBytes = 0;
};

} // namespace ns3

#endif
