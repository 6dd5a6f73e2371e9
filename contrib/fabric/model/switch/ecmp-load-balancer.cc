#include "ecmp-load-balancer.h"

#include "fabric-switch.h"
#include "sim/fabric-plugin.h"

namespace ns3
{

NS_OBJECT_ENSURE_REGISTERED(EcmpLoadBalancer);
FABRIC_PLUGIN(
    FabricPlugin(PluginKind::LoadBalancer, "ecmp", &EcmpLoadBalancer::GetTypeId, "per-flow hash"));

namespace
{
/// Final mix of MurmurHash3: cheap, and every input bit affects every output bit, so nearby
/// 5-tuples (consecutive ports, addresses) spread uniformly over the uplinks.
inline uint32_t
Mix32(uint32_t h)
{
    h ^= h >> 16;
    h *= 0x85ebca6bu;
    h ^= h >> 13;
    h *= 0xc2b2ae35u;
    h ^= h >> 16;
    return h;
}
} // namespace

uint32_t
FabricFlowHash(const FrameInfo& info, uint32_t salt)
{
    uint32_t h = Mix32(salt ^ 0x9e3779b9u);
    if (info.entropyOnlyHash)
    {
        return Mix32(h ^ info.srcPort);
    }
    h = Mix32(h ^ info.srcIp);
    h = Mix32(h ^ info.dstIp);
    h = Mix32(h ^ ((uint32_t(info.srcPort) << 16) | info.dstPort));
    h = Mix32(h ^ info.protocol);
    return h;
}

TypeId
EcmpLoadBalancer::GetTypeId()
{
    static TypeId tid = TypeId("ns3::EcmpLoadBalancer")
                            .SetParent<SwitchLoadBalancer>()
                            .SetGroupName("Fabric")
                            .AddConstructor<EcmpLoadBalancer>();
    return tid;
}

void
EcmpLoadBalancer::Install(const FabricSwitch& sw)
{
    m_switch = &sw;
}

uint16_t
EcmpLoadBalancer::SelectPort(const FrameInfo& info, const std::vector<uint16_t>& group)
{
    return group[FabricFlowHash(info, m_switch->GetHashSalt()) % group.size()];
}

} // namespace ns3
