#include "roce-congestion-control.h"

#include "sim/fabric-plugin.h"

#include <limits>

namespace ns3
{

NS_OBJECT_ENSURE_REGISTERED(RoceCongestionControl);
NS_OBJECT_ENSURE_REGISTERED(NoCongestionControl);
FABRIC_PLUGIN(FabricPlugin(PluginKind::CongestionControl,
                           "none",
                           &NoCongestionControl::GetTypeId,
                           "no congestion control: line rate")
                  .Transport("roce"));

TypeId
RoceCongestionControl::GetTypeId()
{
    static TypeId tid = TypeId("ns3::RoceCongestionControl")
                            .SetParent<FabricCongestionControl>()
                            .SetGroupName("Fabric");
    return tid;
}

RoceCongestionControl::~RoceCongestionControl() = default;

void
RoceCongestionControl::SetPathHops(uint32_t /* switches */)
{
}

void
RoceCongestionControl::Start(DataRate lineRate, uint32_t /* mtu */)
{
    SetPathHops(Sender().pathHops);
    Start(lineRate);
}

bool
RoceCongestionControl::ServesEveryTransport() const
{
    return false;
}

CcTraceState
RoceCongestionControl::GetTraceState() const
{
    CcTraceState state;
    state.rate = double(GetRate().GetBitRate());
    state.alpha = GetTraceValue();
    state.windowBytes = GetWindow();
    return state;
}

TypeId
NoCongestionControl::GetTypeId()
{
    static TypeId tid = TypeId("ns3::NoCongestionControl")
                            .SetParent<RoceCongestionControl>()
                            .SetGroupName("Fabric")
                            .AddConstructor<NoCongestionControl>();
    return tid;
}

void
NoCongestionControl::Start(DataRate lineRate)
{
    m_lineRate = lineRate;
}

void
NoCongestionControl::Stop()
{
}

DataRate
NoCongestionControl::GetRate() const
{
    return m_lineRate;
}

void
NoCongestionControl::OnCnp()
{
}

void
NoCongestionControl::OnBytesSent(uint32_t bytes)
{
}

std::string
NoCongestionControl::GetName() const
{
    return "none";
}

} // namespace ns3
