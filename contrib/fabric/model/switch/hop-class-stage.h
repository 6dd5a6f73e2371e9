#ifndef FABRIC_HOP_CLASS_STAGE_H
#define FABRIC_HOP_CLASS_STAGE_H

#include "switch-stages.h"

namespace ns3
{

class SharedBufferMmu;

/**
 * \ingroup fabric-switch-pipeline
 * \brief Deadlock avoidance by buffer classes (FabricSwitch::HopClassIncrement): a lossless
 * frame leaves on the next priority up when that one is lossless too (DSCP rewritten), so
 * buffer dependencies only climb classes and cannot close a cycle while hops < free lossless
 * classes. Runs first on enqueue, so that the stages after it see the class the frame leaves
 * in; a trimmed header keeps its priority.
 */
class HopClassStage : public EgressStage
{
  public:
    static TypeId GetTypeId();

    void Install(const FabricSwitch& sw) override;

    bool RunsOnEnqueue() const override
    {
        return true;
    }

    StageVerdict OnEnqueue(FabricNetDevice& port, QueuedFrame& item, uint64_t queueBytes) override;

  private:
    const SharedBufferMmu* m_mmu = nullptr;
};

} // namespace ns3

#endif
