#ifndef FABRIC_ECMP_LOAD_BALANCER_H
#define FABRIC_ECMP_LOAD_BALANCER_H

#include "switch-stages.h"

namespace ns3
{

/**
 * \ingroup fabric-switch-pipeline
 * \brief The ECMP hash, mixed with a per-switch salt: the 5-tuple, or for frames whose
 * transport chooses paths by entropy (FrameInfo::entropyOnlyHash, set by its view) the UDP source
 * port alone, so that such a sender chooses its path by choosing the entropy.
 */
uint32_t FabricFlowHash(const FrameInfo& info, uint32_t salt);

/**
 * \ingroup fabric-switch-pipeline
 * \brief Per-flow ECMP (and, since the UDP source port carries a packet's entropy, packet
 * spraying by the sender): port = group[FabricFlowHash(frame, switch salt) mod group size].
 *
 * The salt is the switch's HashSalt attribute; the builder gives every switch its own so that
 * successive tiers decorrelate (no hash polarization).
 */
class EcmpLoadBalancer : public SwitchLoadBalancer
{
  public:
    static TypeId GetTypeId();

    void Install(const FabricSwitch& sw) override;
    uint16_t SelectPort(const FrameInfo& info, const std::vector<uint16_t>& group) override;

  private:
    const FabricSwitch* m_switch = nullptr; ///< read for its salt, which may change until run
};

} // namespace ns3

#endif
