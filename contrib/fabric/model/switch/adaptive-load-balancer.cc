#include "adaptive-load-balancer.h"

#include "fabric-switch.h"
#include "sim/fabric-now.h"
#include "sim/fabric-plugin.h"

#include "ns3/simulator.h"

namespace ns3
{

NS_OBJECT_ENSURE_REGISTERED(AdaptiveLoadBalancer);
FABRIC_PLUGIN(FabricPlugin(PluginKind::LoadBalancer,
                           "adaptive",
                           &AdaptiveLoadBalancer::GetTypeId,
                           "adaptive routing: least queued unpaused port, per packet unless "
                           "adaptive.flowlet_gap is above 0")
                  .Section("adaptive")
                  .PerPacket("FlowletGap"));

TypeId
AdaptiveLoadBalancer::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::AdaptiveLoadBalancer")
            .SetParent<SwitchLoadBalancer>()
            .SetGroupName("Fabric")
            .AddConstructor<AdaptiveLoadBalancer>()
            .AddAttribute("FlowletGap",
                          "0: choose per frame; above 0: choose per flowlet, a new one after "
                          "this idle time between two frames of a flow.",
                          TimeValue(Time(0)),
                          MakeTimeAccessor(&AdaptiveLoadBalancer::m_flowletGap),
                          MakeTimeChecker(Time(0)));
    return tid;
}

void
AdaptiveLoadBalancer::Install(const FabricSwitch& sw)
{
    m_switch = &sw;
    m_ports.clear();
    for (uint32_t i = 0; i < sw.GetNPorts(); ++i)
    {
        m_ports.push_back(PeekPointer(sw.GetPort(i)));
    }
}

uint16_t
AdaptiveLoadBalancer::LeastLoaded(const std::vector<uint16_t>& group, uint8_t priority)
{
    size_t n = group.size();
    size_t start = m_rotation++ % n;
    int best = -1;
    bool bestPaused = true;
    uint64_t bestBytes = 0;
    Time now = FabricNow();
    for (size_t i = 0; i < n; ++i)
    {
        uint16_t port = group[(start + i) % n];
        const FabricNetDevice& dev = *m_ports[port];
        bool paused = dev.GetPausedUntil(priority) > now; // FabricNetDevice::IsPaused
        uint64_t bytes = dev.GetTotalQueueBytes();
        // An unpaused port beats any paused one; then fewer bytes; ties: the earlier in rotation.
        if (best < 0 || (bestPaused && !paused) || (paused == bestPaused && bytes < bestBytes))
        {
            best = port;
            bestPaused = paused;
            bestBytes = bytes;
        }
    }
    return static_cast<uint16_t>(best);
}

uint16_t
AdaptiveLoadBalancer::SelectPort(const FrameInfo& info, const std::vector<uint16_t>& group)
{
    if (m_flowletGap.IsZero())
    {
        return LeastLoaded(group, info.priority);
    }
    uint32_t key = FabricFlowHash(info, m_switch->GetHashSalt());
    int port = m_flowlets.Lookup(key, FabricNow(), m_flowletGap, group);
    if (port >= 0)
    {
        return static_cast<uint16_t>(port);
    }
    uint16_t chosen = LeastLoaded(group, info.priority);
    m_flowlets.Assign(chosen);
    return chosen;
}

} // namespace ns3
