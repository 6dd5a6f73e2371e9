#include "congestion-control.h"

#include <limits>

namespace ns3
{

NS_OBJECT_ENSURE_REGISTERED(FabricCongestionControl);

TypeId
FabricCongestionControl::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::FabricCongestionControl").SetParent<Object>().SetGroupName("Fabric");
    return tid;
}

FabricCongestionControl::~FabricCongestionControl() = default;

void
FabricCongestionControl::Start(const CcSender& sender)
{
    m_sender = sender;
    m_lastRtt = Time(0);
    Start(sender.lineRate, sender.mtu);
}

void
FabricCongestionControl::Stop()
{
}

uint64_t
FabricCongestionControl::GetWindow() const
{
    return 0;
}

DataRate
FabricCongestionControl::GetRate() const
{
    return m_sender.lineRate;
}

UbCci
FabricCongestionControl::OnSend(uint32_t /* frameBytes */)
{
    return UbCci();
}

void
FabricCongestionControl::OnBytesSent(uint32_t /* bytes */)
{
}

void
FabricCongestionControl::OnAck(const CcFeedback& /* ack */)
{
}

void
FabricCongestionControl::OnLoss(uint32_t /* frameBytes */)
{
}

void
FabricCongestionControl::OnCnp()
{
}

bool
FabricCongestionControl::UsesInt() const
{
    return false;
}

bool
FabricCongestionControl::ServesEveryTransport() const
{
    return true;
}

double
FabricCongestionControl::GetTraceValue() const
{
    return std::numeric_limits<double>::quiet_NaN();
}

CcTraceState
FabricCongestionControl::GetTraceState() const
{
    CcTraceState state;
    if (m_sender.paced)
    {
        state.rate = double(GetRate().GetBitRate());
    }
    state.alpha = GetTraceValue();
    state.windowBytes = TracedWindow(GetWindow());
    state.rtt = m_lastRtt;
    return state;
}

} // namespace ns3
