#include "mmu-policy.h"

#include "sim/fabric-plugin.h"

namespace ns3
{

NS_OBJECT_ENSURE_REGISTERED(MmuPolicy);
NS_OBJECT_ENSURE_REGISTERED(StaticMmuPolicy);
FABRIC_PLUGIN(FabricPlugin(PluginKind::MmuPolicy,
                           "static",
                           &StaticMmuPolicy::GetTypeId,
                           "XOFF at switch.pfc.xoff, XON at switch.pfc.xon"));
NS_OBJECT_ENSURE_REGISTERED(DynamicMmuPolicy);
FABRIC_PLUGIN(FabricPlugin(PluginKind::MmuPolicy,
                           "dynamic",
                           &DynamicMmuPolicy::GetTypeId,
                           "XOFF at switch.pfc.dynamic_alpha x the free shared buffer, XON "
                           "switch.pfc.xon_offset below it"));

TypeId
MmuPolicy::GetTypeId()
{
    static TypeId tid = TypeId("ns3::MmuPolicy").SetParent<Object>().SetGroupName("Fabric");
    return tid;
}

TypeId
StaticMmuPolicy::GetTypeId()
{
    static TypeId tid = TypeId("ns3::StaticMmuPolicy")
                            .SetParent<MmuPolicy>()
                            .SetGroupName("Fabric")
                            .AddConstructor<StaticMmuPolicy>();
    return tid;
}

uint64_t
StaticMmuPolicy::XoffThreshold(const MmuPoolState& pool) const
{
    return pool.xoff;
}

bool
StaticMmuPolicy::MayResume(uint64_t shared, const MmuPoolState& pool) const
{
    return shared <= pool.xon;
}

TypeId
DynamicMmuPolicy::GetTypeId()
{
    static TypeId tid = TypeId("ns3::DynamicMmuPolicy")
                            .SetParent<MmuPolicy>()
                            .SetGroupName("Fabric")
                            .AddConstructor<DynamicMmuPolicy>();
    return tid;
}

uint64_t
DynamicMmuPolicy::XoffThreshold(const MmuPoolState& pool) const
{
    uint64_t free = pool.poolSize > pool.sharedUsed ? pool.poolSize - pool.sharedUsed : 0;
    return static_cast<uint64_t>(pool.alpha * static_cast<double>(free));
}

bool
DynamicMmuPolicy::MayResume(uint64_t shared, const MmuPoolState& pool) const
{
    return shared + pool.xonOffset <= XoffThreshold(pool) || shared == 0;
}

} // namespace ns3
