#include "ub-congestion-control.h"

#include "sim/fabric-plugin.h"

#include "ns3/uinteger.h"

#include <cmath>
#include <limits>

namespace ns3
{

NS_OBJECT_ENSURE_REGISTERED(UbCongestionControl);
NS_OBJECT_ENSURE_REGISTERED(UbFixedWindow);
FABRIC_PLUGIN(FabricPlugin(PluginKind::CongestionControl,
                           "none",
                           &UbFixedWindow::GetTypeId,
                           "a fixed window (ub.window)")
                  .Transport("ub"));

TypeId
UbCongestionControl::GetTypeId()
{
    static TypeId tid = TypeId("ns3::UbCongestionControl")
                            .SetParent<FabricCongestionControl>()
                            .SetGroupName("Fabric");
    return tid;
}

bool
UbCongestionControl::ServesEveryTransport() const
{
    return false;
}

CcTraceState
UbCongestionControl::GetTraceState() const
{
    CcTraceState state;
    state.windowBytes = TracedWindow(GetWindow());
    state.rtt = LastRtt();
    return state;
}

TypeId
UbFixedWindow::GetTypeId()
{
    static TypeId tid = TypeId("ns3::UbFixedWindow")
                            .SetParent<UbCongestionControl>()
                            .SetGroupName("Fabric")
                            .AddConstructor<UbFixedWindow>()
                            .AddAttribute("Window",
                                          "Bytes a channel may have in flight (0B = unlimited).",
                                          QueueSizeValue(QueueSize("0B")),
                                          MakeQueueSizeAccessor(&UbFixedWindow::m_window),
                                          MakeQueueSizeChecker());
    return tid;
}

uint64_t
UbFixedWindow::GetWindow() const
{
    return m_window.GetValue() == 0 ? std::numeric_limits<uint64_t>::max() : m_window.GetValue();
}

} // namespace ns3
