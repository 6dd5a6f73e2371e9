#include "drill-load-balancer.h"

#include "fabric-switch.h"
#include "sim/fabric-plugin.h"

#include "ns3/uinteger.h"

#include <algorithm>

namespace ns3
{

NS_OBJECT_ENSURE_REGISTERED(DrillLoadBalancer);
FABRIC_PLUGIN(FabricPlugin(PluginKind::LoadBalancer,
                           "drill",
                           &DrillLoadBalancer::GetTypeId,
                           "DRILL(2,1), per packet")
                  .Section("drill")
                  .PerPacket());

TypeId
DrillLoadBalancer::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::DrillLoadBalancer")
            .SetParent<SwitchLoadBalancer>()
            .SetGroupName("Fabric")
            .AddConstructor<DrillLoadBalancer>()
            .AddAttribute("Samples",
                          "d: ports drawn at random (with replacement) per frame (DRILL, "
                          "SIGCOMM 2017).",
                          UintegerValue(2),
                          MakeUintegerAccessor(&DrillLoadBalancer::m_samples),
                          MakeUintegerChecker<uint32_t>(0, 64))
            .AddAttribute("Memory",
                          "m: least-loaded ports of the previous choice compared again "
                          "(DRILL, SIGCOMM 2017).",
                          UintegerValue(1),
                          MakeUintegerAccessor(&DrillLoadBalancer::m_memorySize),
                          MakeUintegerChecker<uint32_t>(0, 64));
    return tid;
}

DrillLoadBalancer::DrillLoadBalancer()
{
}

void
DrillLoadBalancer::Install(const FabricSwitch& sw)
{
    if (m_samples + m_memorySize == 0)
    {
        throw SwitchStageError("ns3::DrillLoadBalancer: Samples + Memory must be at least 1");
    }
    m_ports.clear();
    for (uint32_t i = 0; i < sw.GetNPorts(); ++i)
    {
        m_ports.push_back(PeekPointer(sw.GetPort(i)));
    }
}

uint64_t
DrillLoadBalancer::Load(uint16_t port) const
{
    return m_ports[port]->GetTotalQueueBytes();
}

uint16_t
DrillLoadBalancer::SelectPort(const FrameInfo& info, const std::vector<uint16_t>& group)
{
    std::vector<uint16_t>& memory = m_memory[(uint32_t(group[0]) << 16) | group.size()];
    m_candidates.clear();
    for (uint16_t port : memory)
    {
        if (std::find(group.begin(), group.end(), port) != group.end())
        {
            m_candidates.push_back(port); // still in the group after a route change
        }
    }
    uint32_t last = static_cast<uint32_t>(group.size() - 1);
    for (uint32_t i = 0; i < m_samples || m_candidates.empty(); ++i)
    {
        uint16_t port = group[m_random.GetInteger(0, last)];
        if (std::find(m_candidates.begin(), m_candidates.end(), port) == m_candidates.end())
        {
            m_candidates.push_back(port);
        }
    }
    // Insertion sort by load (a handful of candidates; std::stable_sort would allocate): equal
    // loads keep the remembered port first, then the samples in draw order.
    m_loads.clear();
    for (uint16_t port : m_candidates)
    {
        m_loads.push_back(Load(port));
    }
    for (size_t i = 1; i < m_candidates.size(); ++i)
    {
        for (size_t j = i; j > 0 && m_loads[j] < m_loads[j - 1]; --j)
        {
            std::swap(m_loads[j], m_loads[j - 1]);
            std::swap(m_candidates[j], m_candidates[j - 1]);
        }
    }
    memory.assign(m_candidates.begin(),
                  m_candidates.begin() + std::min<size_t>(m_memorySize, m_candidates.size()));
    return m_candidates.front();
}

int64_t
DrillLoadBalancer::GetStreamCount() const
{
    return 1;
}

int64_t
DrillLoadBalancer::AssignStreams(int64_t stream)
{
    m_random.SetStream(stream);
    return 1;
}

} // namespace ns3
