#ifndef FABRIC_ADAPTIVE_LOAD_BALANCER_H
#define FABRIC_ADAPTIVE_LOAD_BALANCER_H

#include "flowlet-table.h"
#include "switch-stages.h"

#include "ns3/nstime.h"

namespace ns3
{

/**
 * \ingroup fabric-switch-pipeline
 * \brief Adaptive routing on local port state, as Ultra Ethernet switches and htsim's
 * `-ar_method` (pause and queue) do: the port of the equal-cost group that is not paused at the
 * frame's priority and has the fewest bytes queued (all priorities); paused ports only when
 * every port is paused.
 *
 * Ties rotate: the search starts one port further on at every choice, so idle uplinks share a
 * line-rate flow frame by frame instead of all frames going to the first. With FlowletGap above
 * zero the choice is made per flowlet (the frames of a burst keep their port); at zero, per
 * frame, which reorders a flow: a go-back-N RoCE sender then resends every reordered gap (the
 * scenario warns; selective repeat resends only what is missing).
 *
 * | attribute | default | source |
 * |---|---|---|
 * | FlowletGap | 0 (per frame) | Ultra Ethernet Specification 1.0, §3.6 (packet-level adaptive
 * routing with a spraying-aware transport); htsim (UEC) `-ar_method pause|queue` |
 */
class AdaptiveLoadBalancer : public SwitchLoadBalancer
{
  public:
    static TypeId GetTypeId();

    void Install(const FabricSwitch& sw) override;
    uint16_t SelectPort(const FrameInfo& info, const std::vector<uint16_t>& group) override;

    /// Whether it chooses per frame (FlowletGap 0): then a RoCE sender must use selective repeat.
    bool IsPerPacket() const
    {
        return m_flowletGap.IsZero();
    }

  private:
    /// The least-queued port of \p group not paused at \p priority (any port if all are).
    uint16_t LeastLoaded(const std::vector<uint16_t>& group, uint8_t priority);

    const FabricSwitch* m_switch = nullptr;
    std::vector<const FabricNetDevice*> m_ports; ///< the switch's ports (no Ptr copy per frame)
    Time m_flowletGap;
    FlowletTable m_flowlets;
    uint32_t m_rotation = 0; ///< where the next search starts (ties rotate)
};

} // namespace ns3

#endif
