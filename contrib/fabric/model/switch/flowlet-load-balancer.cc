#include "flowlet-load-balancer.h"

#include "fabric-switch.h"
#include "sim/fabric-now.h"
#include "sim/fabric-plugin.h"

#include "ns3/simulator.h"

namespace ns3
{

NS_OBJECT_ENSURE_REGISTERED(FlowletLoadBalancer);
FABRIC_PLUGIN(FabricPlugin(PluginKind::LoadBalancer,
                           "flowlet",
                           &FlowletLoadBalancer::GetTypeId,
                           "LetFlow flowlet switching")
                  .Section("flowlet")
                  .PerPacket("Gap")); // a zero gap makes every packet a flowlet

TypeId
FlowletLoadBalancer::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::FlowletLoadBalancer")
            .SetParent<SwitchLoadBalancer>()
            .SetGroupName("Fabric")
            .AddConstructor<FlowletLoadBalancer>()
            .AddAttribute("Gap",
                          "Idle time between two frames of a flow above which the second starts "
                          "a new flowlet (LetFlow, NSDI 2017).",
                          TimeValue(MicroSeconds(50)),
                          MakeTimeAccessor(&FlowletLoadBalancer::m_gap),
                          MakeTimeChecker(Time(0)));
    return tid;
}

FlowletLoadBalancer::FlowletLoadBalancer()
{
}

void
FlowletLoadBalancer::Install(const FabricSwitch& sw)
{
    m_switch = &sw;
}

uint16_t
FlowletLoadBalancer::SelectPort(const FrameInfo& info, const std::vector<uint16_t>& group)
{
    uint32_t key = FabricFlowHash(info, m_switch->GetHashSalt());
    int port = m_flowlets.Lookup(key, FabricNow(), m_gap, group);
    if (port >= 0)
    {
        return static_cast<uint16_t>(port);
    }
    uint16_t chosen = group[m_random.GetInteger(0, static_cast<uint32_t>(group.size() - 1))];
    m_flowlets.Assign(chosen);
    return chosen;
}

int64_t
FlowletLoadBalancer::GetStreamCount() const
{
    return 1;
}

int64_t
FlowletLoadBalancer::AssignStreams(int64_t stream)
{
    m_random.SetStream(stream);
    return 1;
}

} // namespace ns3
