#include "int-stamp-stage.h"

#include "fabric-switch.h"
#include "link/fabric-net-device.h"
#include "link/frame-codec.h"
#include "sim/fabric-now.h"
#include "sim/fabric-plugin.h"
#include "wire/int-header.h"

#include "ns3/simulator.h"

#include <sstream>

namespace ns3
{

NS_OBJECT_ENSURE_REGISTERED(IntStampStage);
FABRIC_PLUGIN(FabricPlugin(PluginKind::EgressStage,
                           "int-stamp",
                           &IntStampStage::GetTypeId,
                           "stamps HPCC-style in-band telemetry into the frames a port sends"));

TypeId
IntStampStage::GetTypeId()
{
    static TypeId tid = TypeId("ns3::IntStampStage")
                            .SetParent<EgressStage>()
                            .SetGroupName("Fabric")
                            .AddConstructor<IntStampStage>();
    return tid;
}

void
IntStampStage::Install(const FabricSwitch& sw)
{
    uint32_t n = sw.GetNPorts();
    m_txBytes.assign(n, 0);
    m_rateCodes.assign(n, 0);
    for (uint32_t i = 0; i < n; ++i)
    {
        DataRate rate = sw.GetPort(i)->GetDataRate();
        m_rateCodes[i] = IntRateCode(rate);
        if (m_rateCodes[i] == 0)
        {
            std::ostringstream msg;
            msg << "IntStampStage: port " << i << " runs at " << rate
                << ", which an INT hop record cannot name (1, 10, 25, 40, 50, 100, 200, 400, "
                << "800, 1600 or 3200 Gb/s)";
            throw SwitchStageError(msg.str());
        }
    }
}

StageVerdict
IntStampStage::OnDequeue(FabricNetDevice& port, QueuedFrame& item)
{
    uint32_t index = port.GetPortIndex();
    m_txBytes[index] += item.bytes;
    uint32_t offset = item.hasInfo ? TelemetryOffset(item.info) : 0;
    if (offset == 0)
    {
        return StageVerdict::Pass();
    }
    uint8_t front[160];
    uint32_t count = offset + kIntHeaderBytes;
    if (count > sizeof(front) || item.frame->CopyData(front, count) != count)
    {
        return StageVerdict::Pass(); // shorter than its headers say: nothing to stamp
    }
    IntHop hop =
        IntHop::Stamp(m_rateCodes[index], FabricNow(), m_txBytes[index], port.GetTotalQueueBytes());
    PushIntHop(front + offset, hop);
    RewriteFrameFront(*item.frame.Peek(), front, count);
    ++m_stamped;
    return StageVerdict::Pass();
}

} // namespace ns3
