#include "trim-stage.h"

#include "fabric-switch.h"
#include "link/fabric-net-device.h"
#include "link/frame-codec.h"

namespace ns3
{

NS_OBJECT_ENSURE_REGISTERED(TrimStage);

TypeId
TrimStage::GetTypeId()
{
    static TypeId tid = TypeId("ns3::TrimStage")
                            .SetParent<EgressStage>()
                            .SetGroupName("Fabric")
                            .AddConstructor<TrimStage>();
    return tid;
}

void
TrimStage::Configure(QueueSize threshold, uint8_t priority)
{
    m_threshold = threshold.GetValue();
    m_priority = priority;
}

StageVerdict
TrimStage::OnAdmission(const FabricNetDevice& out, WireFrame& frame, bool bufferFull)
{
    if (frame.payloadBytes == 0)
    {
        return StageVerdict::Pass(); // a header has nothing to cut
    }
    bool overThreshold =
        m_threshold > 0 &&
        out.GetQueueBytes(frame.info.priority) + frame.info.frameBytes > m_threshold;
    if (!bufferFull && !overThreshold)
    {
        return StageVerdict::Pass();
    }
    uint32_t keep = frame.info.frameBytes - frame.payloadBytes;
    frame.frame = FrameRef(TrimFrame(frame.frame.Get(), keep, m_priority));
    frame.info.frameBytes = keep;
    frame.info.priority = m_priority;
    frame.info.trimmed = true;
    frame.payloadBytes = 0;
    return StageVerdict::Trim(FabricSwitch::DROP_TRIMMED);
}

} // namespace ns3
