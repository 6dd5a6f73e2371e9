#include "conga-stage.h"

#include "conga-load-balancer.h"
#include "fabric-switch.h"

namespace ns3
{

NS_OBJECT_ENSURE_REGISTERED(CongaStage);

TypeId
CongaStage::GetTypeId()
{
    static TypeId tid = TypeId("ns3::CongaStage")
                            .SetParent<EgressStage>()
                            .SetGroupName("Fabric")
                            .AddConstructor<CongaStage>();
    return tid;
}

void
CongaStage::Install(const FabricSwitch& sw)
{
    NS_ABORT_MSG_IF(!m_lb, "ns3::CongaStage is created by ns3::CongaLoadBalancer");
    m_towardHost.assign(sw.GetNPorts(), false);
    for (uint32_t i = 0; i < sw.GetNPorts(); ++i)
    {
        m_towardHost[i] = sw.IsPortTowardHost(i);
    }
}

bool
CongaStage::RunsOnDequeue() const
{
    return true;
}

StageVerdict
CongaStage::OnDequeue(FabricNetDevice& port, QueuedFrame& item)
{
    uint16_t out = static_cast<uint16_t>(port.GetIfIndex());
    m_lb->CountSent(out, item.bytes);
    if (!item.hasInfo || !item.info.IsIpv4() || item.inPort == kNoIngressPort)
    {
        return StageVerdict::Pass();
    }
    bool fromHost = m_towardHost[item.inPort];
    bool toHost = m_towardHost[out];
    if (fromHost && toHost)
    {
        return StageVerdict::Pass(); // between two hosts of this leaf: no fabric path
    }
    const FabricSwitch& sw = m_lb->GetSwitch();
    if (fromHost && m_lb->IsLeaf())
    {
        // Entering the fabric: the uplink, its congestion, and feedback for the destination.
        CongaField f;
        f.valid = true;
        f.lbTag = static_cast<uint8_t>(m_lb->UplinkIndex(out));
        f.ce = m_lb->Metric(out);
        uint32_t uplink = 0;
        uint8_t metric = 0;
        uint32_t dstLeaf = sw.GetLeafOfHost(HostIndexOfIp(item.info.dstIp));
        if (m_lb->NextFeedback(dstLeaf, &uplink, &metric))
        {
            f.feedback = true;
            f.fbLbTag = static_cast<uint8_t>(uplink);
            f.fbMetric = metric;
        }
        WriteIpv4Identification(item.frame.Get(), f.Encode());
        return StageVerdict::Pass();
    }
    CongaField f = CongaField::Decode(ReadIpv4Identification(item.frame.Get()));
    if (!f.valid)
    {
        return StageVerdict::Pass();
    }
    if (!toHost)
    {
        uint8_t m = m_lb->Metric(out); // in transit: the path is as congested as its worst hop
        if (m > f.ce)
        {
            f.ce = m;
            WriteIpv4Identification(item.frame.Get(), f.Encode());
        }
        return StageVerdict::Pass();
    }
    // Leaving the fabric at the destination leaf.
    uint32_t srcLeaf = sw.GetLeafOfHost(HostIndexOfIp(item.info.srcIp));
    m_lb->SetCongestionFromLeaf(srcLeaf, f.lbTag, f.ce);
    if (f.feedback)
    {
        m_lb->SetCongestionToLeaf(srcLeaf, f.fbLbTag, f.fbMetric);
    }
    return StageVerdict::Pass();
}

} // namespace ns3
