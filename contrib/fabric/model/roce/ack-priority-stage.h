#ifndef FABRIC_ACK_PRIORITY_STAGE_H
#define FABRIC_ACK_PRIORITY_STAGE_H

#include "switch/switch-stages.h"

namespace ns3
{

/**
 * \ingroup fabric-switch-pipeline
 * \brief RoCE ACKs, NAKs and CNPs leave a switch port in the highest-priority queue
 * (FabricSwitch::AckHighPriority): their traffic class is rewritten to 7 (DSCP 56), the queue
 * strict priority serves first (link/port-queues.h), so feedback never waits behind data.
 *
 * Follows conweave-project/conweave-ns3 src/point-to-point/model/switch-node.cc:226-236
 * (SwitchNode::SendToDevContinue): with AckHighPrio set, ACK (0xFC) and NACK (0xFD) frames go to
 * queue 0, the reference's highest priority, where its CNPs (0xFF) always go; every switch of
 * its scratch/network-load-balance.cc:1445 sets AckHighPrio 1. Here CNPs already leave the NIC
 * at RdmaNic::CnpPriority (7) and are rewritten too when a lower one was chosen.
 *
 * Differs from the reference in one respect: the reference's queue 0 bypasses the buffer
 * (switch-node.cc DoSwitchSend admits only qIndex != 0), while here the frame stays charged to
 * the PFC/buffer class it arrived in (QueuedFrame::ingressPriority), as the hop-class rewrite
 * does, and the next hop charges it to class 7, whose queue holds it upstream: pauses and
 * buffer accounting stay those of one class per hop. Runs first on enqueue, so that the stages
 * after it (hop class, ECN) see the class the frame leaves in.
 */
class AckPriorityStage : public EgressStage
{
  public:
    static TypeId GetTypeId();

    bool RunsOnEnqueue() const override
    {
        return true;
    }

    StageVerdict OnEnqueue(FabricNetDevice& port, QueuedFrame& item, uint64_t queueBytes) override;
};

} // namespace ns3

#endif
