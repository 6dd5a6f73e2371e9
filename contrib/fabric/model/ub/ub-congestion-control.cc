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
    static TypeId tid =
        TypeId("ns3::UbCongestionControl").SetParent<Object>().SetGroupName("Fabric");
    return tid;
}

double
UbCongestionControl::GetTraceValue() const
{
    return std::nan("");
}

void
UbCongestionControl::Acknowledge(const UbAckFeedback& feedback)
{
    if (feedback.rtt.IsStrictlyPositive())
    {
        m_lastRtt = feedback.rtt;
    }
    OnAck(feedback);
}

UbCcTraceState
UbCongestionControl::GetTraceState() const
{
    UbCcTraceState state;
    uint64_t window = GetWindow();
    state.windowBytes = window == std::numeric_limits<uint64_t>::max() ? 0 : window;
    state.rtt = m_lastRtt;
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
