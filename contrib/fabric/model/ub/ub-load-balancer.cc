#include "ub-load-balancer.h"

#include "sim/fabric-plugin.h"

#include "ns3/uinteger.h"

namespace ns3
{

NS_OBJECT_ENSURE_REGISTERED(UbLoadBalancer);
NS_OBJECT_ENSURE_REGISTERED(UbFixedEntropy);
FABRIC_PLUGIN(FabricPlugin(PluginKind::NicSpray,
                           "ecmp",
                           &UbFixedEntropy::GetTypeId,
                           "one entropy per channel: the switches' ECMP keeps it on one path"));
NS_OBJECT_ENSURE_REGISTERED(UbObliviousSpray);
FABRIC_PLUGIN(FabricPlugin(PluginKind::NicSpray,
                           "oblivious",
                           &UbObliviousSpray::GetTypeId,
                           "round-robin over ub.entropies values"));
NS_OBJECT_ENSURE_REGISTERED(UbAdaptiveSpray);
FABRIC_PLUGIN(FabricPlugin(PluginKind::NicSpray,
                           "adaptive",
                           &UbAdaptiveSpray::GetTypeId,
                           "REPS-like: recycle the entropies that came back unmarked"));

TypeId
UbLoadBalancer::GetTypeId()
{
    static TypeId tid = TypeId("ns3::UbLoadBalancer").SetParent<Object>().SetGroupName("Fabric");
    return tid;
}

TypeId
UbFixedEntropy::GetTypeId()
{
    static TypeId tid = TypeId("ns3::UbFixedEntropy")
                            .SetParent<UbLoadBalancer>()
                            .SetGroupName("Fabric")
                            .AddConstructor<UbFixedEntropy>();
    return tid;
}

TypeId
UbObliviousSpray::GetTypeId()
{
    static TypeId tid = TypeId("ns3::UbObliviousSpray")
                            .SetParent<UbLoadBalancer>()
                            .SetGroupName("Fabric")
                            .AddConstructor<UbObliviousSpray>()
                            .AddAttribute("Entropies",
                                          "Number of entropy values a channel cycles through (E).",
                                          UintegerValue(64),
                                          MakeUintegerAccessor(&UbObliviousSpray::m_entropies),
                                          MakeUintegerChecker<uint32_t>(1, 16384));
    return tid;
}

uint16_t
UbObliviousSpray::NextEntropy()
{
    uint16_t e = Port(m_base, m_next);
    m_next = (m_next + 1) % m_entropies;
    return e;
}

TypeId
UbAdaptiveSpray::GetTypeId()
{
    static TypeId tid = TypeId("ns3::UbAdaptiveSpray")
                            .SetParent<UbLoadBalancer>()
                            .SetGroupName("Fabric")
                            .AddConstructor<UbAdaptiveSpray>()
                            .AddAttribute("Entropies",
                                          "Number of entropy values fresh ones are drawn from (E).",
                                          UintegerValue(256),
                                          MakeUintegerAccessor(&UbAdaptiveSpray::m_entropies),
                                          MakeUintegerChecker<uint32_t>(1, 16384));
    return tid;
}

UbAdaptiveSpray::UbAdaptiveSpray()
{
}

int64_t
UbAdaptiveSpray::AssignStreams(int64_t stream)
{
    m_rng.SetStream(stream);
    return 1;
}

uint16_t
UbAdaptiveSpray::NextEntropy()
{
    if (!m_recycled.empty())
    {
        uint16_t e = m_recycled.front();
        m_recycled.pop_front();
        return e;
    }
    return Port(m_base, m_rng.GetInteger(0, m_entropies - 1));
}

void
UbAdaptiveSpray::OnFeedback(uint16_t entropy, bool congested)
{
    if (!congested && m_recycled.size() < m_entropies)
    {
        m_recycled.push_back(entropy);
    }
}

} // namespace ns3
