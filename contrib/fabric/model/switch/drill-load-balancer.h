#ifndef FABRIC_DRILL_LOAD_BALANCER_H
#define FABRIC_DRILL_LOAD_BALANCER_H

#include "sim/lazy-uniform-random.h"
#include "switch-stages.h"

#include <unordered_map>

namespace ns3
{

/**
 * \ingroup fabric-switch-pipeline
 * \brief DRILL (Ghorbani et al., "DRILL: Micro Load Balancing for Low-latency Data Center
 * Networks", SIGCOMM 2017): per frame, the least-queued of Samples ports drawn at random from the
 * equal-cost group and the Memory best ports of the previous choice for that group; the chosen
 * port becomes the memory.
 *
 * The load of a port is its egress queue in bytes, all priorities (the paper's queue
 * occupancy). Ties go to the remembered port, then to the earlier sample. Per-frame choice
 * reorders the frames of a flow: a go-back-N RoCE sender resends every reordered gap (the
 * scenario warns; selective repeat resends only what is missing).
 *
 * | attribute | default | source |
 * |---|---|---|
 * | Samples (d) | 2 | DRILL §3.2: DRILL(2,1) is the recommended configuration |
 * | Memory (m) | 1 | DRILL §3.2 |
 */
class DrillLoadBalancer : public SwitchLoadBalancer
{
  public:
    static TypeId GetTypeId();
    DrillLoadBalancer();

    void Install(const FabricSwitch& sw) override;
    uint16_t SelectPort(const FrameInfo& info, const std::vector<uint16_t>& group) override;
    int64_t GetStreamCount() const override;
    int64_t AssignStreams(int64_t stream) override;

  private:
    uint64_t Load(uint16_t port) const;

    std::vector<const FabricNetDevice*> m_ports; ///< the switch's ports (no Ptr copy per frame)
    uint32_t m_samples;
    uint32_t m_memorySize;
    /// Per group (its first port and size identify it among the switch's groups): the best
    /// ports of the last choice, best first.
    std::unordered_map<uint32_t, std::vector<uint16_t>> m_memory;
    std::vector<uint16_t> m_candidates; ///< scratch
    std::vector<uint64_t> m_loads;      ///< scratch: the candidates' loads
    LazyUniformRandom m_random;
};

} // namespace ns3

#endif
