#include "ack-priority-stage.h"

#include "link/fabric-frames.h"
#include "link/frame-codec.h"
#include "wire/bth-header.h"
#include "wire/roce-header-view.h"

namespace ns3
{

NS_OBJECT_ENSURE_REGISTERED(AckPriorityStage);

TypeId
AckPriorityStage::GetTypeId()
{
    static TypeId tid = TypeId("ns3::AckPriorityStage")
                            .SetParent<EgressStage>()
                            .SetGroupName("Fabric")
                            .AddConstructor<AckPriorityStage>();
    return tid;
}

StageVerdict
AckPriorityStage::OnEnqueue(FabricNetDevice& port, QueuedFrame& item, uint64_t queueBytes)
{
    constexpr uint8_t kHighest = kFabricPriorities - 1;
    const FrameInfo& info = item.info;
    if (IsRoceFrame(info) &&
        (info.opcode == RoceOpcode::ACKNOWLEDGE || info.opcode == RoceOpcode::CNP) &&
        item.priority != kHighest)
    {
        // The buffer keeps charging the class it arrived in (item.ingressPriority).
        SetFramePriority(item.frame.Get(), kHighest);
        item.info.priority = kHighest;
        item.priority = kHighest;
    }
    return StageVerdict::Pass();
}

} // namespace ns3
