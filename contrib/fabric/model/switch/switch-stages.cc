#include "switch-stages.h"

namespace ns3
{

NS_OBJECT_ENSURE_REGISTERED(SwitchLoadBalancer);
NS_OBJECT_ENSURE_REGISTERED(EgressStage);

TypeId
SwitchLoadBalancer::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::SwitchLoadBalancer").SetParent<Object>().SetGroupName("Fabric");
    return tid;
}

void
SwitchLoadBalancer::Install(const FabricSwitch& sw)
{
}

Ptr<EgressStage>
SwitchLoadBalancer::CreateCompanionStage()
{
    return nullptr;
}

int64_t
SwitchLoadBalancer::GetStreamCount() const
{
    return 0;
}

int64_t
SwitchLoadBalancer::AssignStreams(int64_t stream)
{
    return 0;
}

bool
SwitchLoadBalancer::SeesFrames() const
{
    return false;
}

uint32_t
SwitchLoadBalancer::ForwardFrame(uint32_t inPort,
                                 WireFrame& frame,
                                 const std::vector<uint16_t>& group)
{
    return group.size() == 1 ? group[0] : SelectPort(frame.info, group);
}

bool
SwitchLoadBalancer::HoldFrame(QueuedFrame& item, uint32_t outPort)
{
    return false;
}

TypeId
EgressStage::GetTypeId()
{
    static TypeId tid = TypeId("ns3::EgressStage").SetParent<Object>().SetGroupName("Fabric");
    return tid;
}

void
EgressStage::Install(const FabricSwitch& sw)
{
}

bool
EgressStage::RunsOnEnqueue() const
{
    return false;
}

bool
EgressStage::RunsOnDequeue() const
{
    return false;
}

bool
EgressStage::RunsOnAdmission() const
{
    return false;
}

StageVerdict
EgressStage::OnAdmission(const FabricNetDevice& out, WireFrame& frame, bool bufferFull)
{
    return StageVerdict::Pass();
}

StageVerdict
EgressStage::OnEnqueue(FabricNetDevice& port, QueuedFrame& item, uint64_t queueBytes)
{
    return StageVerdict::Pass();
}

StageVerdict
EgressStage::OnDequeue(FabricNetDevice& port, QueuedFrame& item)
{
    return StageVerdict::Pass();
}

int64_t
EgressStage::GetStreamCount() const
{
    return 0;
}

int64_t
EgressStage::AssignStreams(int64_t stream)
{
    return 0;
}

} // namespace ns3
