#include "hop-class-stage.h"

#include "fabric-switch.h"
#include "link/frame-codec.h"
#include "shared-buffer-mmu.h"

namespace ns3
{

NS_OBJECT_ENSURE_REGISTERED(HopClassStage);

TypeId
HopClassStage::GetTypeId()
{
    static TypeId tid = TypeId("ns3::HopClassStage")
                            .SetParent<EgressStage>()
                            .SetGroupName("Fabric")
                            .AddConstructor<HopClassStage>();
    return tid;
}

void
HopClassStage::Install(const FabricSwitch& sw)
{
    m_mmu = PeekPointer(sw.GetMmu());
}

StageVerdict
HopClassStage::OnEnqueue(FabricNetDevice& port, QueuedFrame& item, uint64_t queueBytes)
{
    uint8_t prio = item.priority;
    if (!item.info.trimmed && prio < kFabricPriorities - 1 && m_mmu->IsLossless(prio) &&
        m_mmu->IsLossless(prio + 1))
    {
        SetFramePriority(item.frame.Get(), prio + 1);
        item.info.priority = prio + 1;
        item.priority = prio + 1;
    }
    return StageVerdict::Pass();
}

} // namespace ns3
