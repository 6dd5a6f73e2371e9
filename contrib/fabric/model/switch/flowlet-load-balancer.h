#ifndef FABRIC_FLOWLET_LOAD_BALANCER_H
#define FABRIC_FLOWLET_LOAD_BALANCER_H

#include "flowlet-table.h"
#include "sim/lazy-uniform-random.h"
#include "switch-stages.h"

#include "ns3/nstime.h"

namespace ns3
{

/**
 * \ingroup fabric-switch-pipeline
 * \brief LetFlow flowlet switching (Vanini et al., "Let It Flow: Resilient Asymmetric Load
 * Balancing with Flowlet Switching", NSDI 2017): each new flowlet of a flow takes a port drawn
 * uniformly at random from the equal-cost group; frames within a flowlet keep its port.
 *
 * A frame starts a new flowlet when more than Gap has passed since the previous frame of its
 * flow (the flow key is FabricFlowHash with the switch's salt).
 *
 * | attribute | default | source |
 * |---|---|---|
 * | Gap | 50 us | LetFlow §5 uses 500 us for TCP on 10 Gb/s; RDMA RTTs are ~10x shorter, and the
 * gap must exceed the path-delay difference (a few queued MTUs at 100 Gb/s) |
 */
class FlowletLoadBalancer : public SwitchLoadBalancer
{
  public:
    static TypeId GetTypeId();
    FlowletLoadBalancer();

    void Install(const FabricSwitch& sw) override;
    uint16_t SelectPort(const FrameInfo& info, const std::vector<uint16_t>& group) override;
    int64_t GetStreamCount() const override;
    int64_t AssignStreams(int64_t stream) override;

    /// Flowlets started so far (each a fresh random choice).
    uint64_t GetFlowletCount() const
    {
        return m_flowlets.GetFlowletCount();
    }

  private:
    const FabricSwitch* m_switch = nullptr;
    Time m_gap;
    FlowletTable m_flowlets;
    LazyUniformRandom m_random;
};

} // namespace ns3

#endif
