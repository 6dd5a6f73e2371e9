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
    static TypeId tid =
        TypeId("ns3::RoceCongestionControl").SetParent<Object>().SetGroupName("Fabric");
    return tid;
}

RoceCongestionControl::~RoceCongestionControl() = default;

void
RoceCongestionControl::OnAck(const RoceAckFeedback& ack)
{
}

void
RoceCongestionControl::SetPathHops(uint32_t /* switches */)
{
}

uint64_t
RoceCongestionControl::GetWindow() const
{
    return 0;
}

bool
RoceCongestionControl::UsesInt() const
{
    return false;
}

RoceCcTraceState
RoceCongestionControl::GetTraceState() const
{
    RoceCcTraceState state;
    state.alpha = GetTraceValue();
    state.windowBytes = GetWindow();
    return state;
}

double
RoceCongestionControl::GetTraceValue() const
{
    return std::numeric_limits<double>::quiet_NaN();
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
