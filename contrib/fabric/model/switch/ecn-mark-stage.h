#ifndef FABRIC_ECN_MARK_STAGE_H
#define FABRIC_ECN_MARK_STAGE_H

#include "ecn-marker.h"
#include "sim/lazy-uniform-random.h"
#include "switch-stages.h"

#include "ns3/queue-size.h"

#include <map>
#include <string>
#include <vector>

namespace ns3
{

/**
 * \ingroup fabric-switch-pipeline
 * \brief RED-style ECN marking of an egress queue (the DCQCN congestion point): CE with
 * probability 0 below Kmin, rising linearly to Pmax at Kmax, 1 above (EcnCurve; RED/ECN as
 * DCQCN's switches configure it, docs/models.md#dcqcn).
 *
 * Decides on enqueue against the depth the frame finds, or on dequeue against the depth it
 * leaves behind. Kmin and Kmax of 0 B scale with each port's rate. Every FabricSwitch runs one,
 * configured by the switch's Ecn* attributes (they stay the switch's: the marking curve is
 * what an operator sets on a switch).
 */
class EcnMarkStage : public EgressStage
{
  public:
    enum MarkPoint
    {
        MARK_ON_ENQUEUE,
        MARK_ON_DEQUEUE
    };

    static TypeId GetTypeId();
    EcnMarkStage();

    /// The marking curve (before Install).
    void Configure(bool enabled, QueueSize kmin, QueueSize kmax, double pmax, MarkPoint point);

    /// Per-link-speed curves (before Install), overriding Configure's for ports of a listed
    /// rate: "RATE:KMIN:KMAX:PMAX" entries separated by commas, e.g. "25Gbps:100000B:400000B:0.2"
    /// (the HPCC simulators' KMIN_MAP / KMAX_MAP / PMAX_MAP). Aborts on malformed text: the
    /// scenario reader validates it first (switch.ecn.speed_map).
    void ConfigureSpeedMap(const std::string& map);

    void Install(const FabricSwitch& sw) override;

    bool RunsOnEnqueue() const override
    {
        return m_enabled && m_markPoint == MARK_ON_ENQUEUE;
    }

    bool RunsOnDequeue() const override
    {
        return m_enabled && m_markPoint == MARK_ON_DEQUEUE;
    }

    StageVerdict OnEnqueue(FabricNetDevice& port, QueuedFrame& item, uint64_t queueBytes) override;
    StageVerdict OnDequeue(FabricNetDevice& port, QueuedFrame& item) override;

    /// One stream, taken even when marking is off, so that turning ECN off does not move the
    /// streams of everything built after the switch.
    int64_t GetStreamCount() const override
    {
        return 1;
    }

    int64_t AssignStreams(int64_t stream) override;

    EcnCurve GetCurve(uint32_t port) const
    {
        return m_curves[port];
    }

    uint64_t GetMarkedFrames() const
    {
        return m_marked;
    }

  protected:
    void DoDispose() override;

  private:
    /// Whether \p item is to be marked CE, with the port's probability at \p queueBytes (the
    /// switch marks it: StageVerdict::MARK).
    StageVerdict MaybeMark(uint32_t port, const QueuedFrame& item, uint64_t queueBytes);

    bool m_enabled = true;
    QueueSize m_kmin{"0B"};
    QueueSize m_kmax{"0B"};
    double m_pmax = 0.2;
    MarkPoint m_markPoint = MARK_ON_ENQUEUE;
    std::vector<EcnCurve> m_curves;         ///< by port
    std::map<uint64_t, EcnCurve> m_bySpeed; ///< ConfigureSpeedMap: bit/s -> curve
    LazyUniformRandom m_rng;
    uint64_t m_marked = 0;
};

} // namespace ns3

#endif
