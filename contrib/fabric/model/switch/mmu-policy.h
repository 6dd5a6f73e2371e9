#ifndef FABRIC_MMU_POLICY_H
#define FABRIC_MMU_POLICY_H

#include "ns3/object.h"

#include <cstdint>

namespace ns3
{

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
};

/**
 * \ingroup fabric-switch-pipeline
 * \brief How a shared buffer sets the PFC thresholds of an (ingress port, lossless priority):
 * the `switch.mmu:` plug-ins (static, dynamic; a policy registers itself with FABRIC_PLUGIN,
 * PluginKind::MmuPolicy).
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
 * \brief Dynamic thresholds (Choudhury and Hahne, "Dynamic Queue Length Thresholds for
 * Shared-Memory Packet Switches", IEEE/ACM ToN 1998): XOFF at Alpha × the free shared pool, XON
 * once XonOffset below it (or empty), as the HPCC simulator's switch-mmu.cc
 * (`GetPfcThreshold`, `CheckShouldResume`) computes them.
 */
class DynamicMmuPolicy final : public MmuPolicy
{
  public:
    static TypeId GetTypeId();
    uint64_t XoffThreshold(const MmuPoolState& pool) const override;
    bool MayResume(uint64_t shared, const MmuPoolState& pool) const override;
};

} // namespace ns3

#endif
