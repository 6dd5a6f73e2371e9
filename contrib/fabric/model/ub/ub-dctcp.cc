#include "ub-dctcp.h"

#include "sim/fabric-plugin.h"

#include "ns3/double.h"

#include <algorithm>

namespace ns3
{

NS_OBJECT_ENSURE_REGISTERED(UbDctcp);
FABRIC_PLUGIN(FabricPlugin(PluginKind::CongestionControl,
                           "dctcp",
                           &UbDctcp::GetTypeId,
                           "DCTCP on the UB window (the switches mark ECN per switch.ecn)")
                  .Transport("ub")
                  .Section("ub_dctcp"));

TypeId
UbDctcp::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::UbDctcp")
            .SetParent<UbCongestionControl>()
            .SetGroupName("Fabric")
            .AddConstructor<UbDctcp>()
            .AddAttribute("G",
                          "Weight of a window's marked fraction in alpha (DCTCP paper §3.4).",
                          DoubleValue(1.0 / 16),
                          MakeDoubleAccessor(&UbDctcp::m_g),
                          MakeDoubleChecker<double>(0.0, 1.0))
            .AddAttribute("InitialAlpha",
                          "alpha before the first observation (Linux dctcp default 1).",
                          DoubleValue(1.0),
                          MakeDoubleAccessor(&UbDctcp::m_initialAlpha),
                          MakeDoubleChecker<double>(0.0, 1.0))
            .AddAttribute("AdditiveIncrease",
                          "Congestion avoidance: MTUs added per window of data.",
                          DoubleValue(1.0),
                          MakeDoubleAccessor(&UbDctcp::m_additiveIncrease),
                          MakeDoubleChecker<double>(0.0))
            .AddAttribute("InitialWindow",
                          "Window of a new channel (0B = 10 MTU).",
                          QueueSizeValue(QueueSize("0B")),
                          MakeQueueSizeAccessor(&UbDctcp::m_initialWindow),
                          MakeQueueSizeChecker());
    return tid;
}

UbDctcp::UbDctcp() = default;

void
UbDctcp::Start(DataRate lineRate, uint32_t mtu)
{
    m_mtu = mtu;
    m_minWindow = double(mtu) + kUbFrameOverhead;
    m_window = m_initialWindow.GetValue() > 0 ? double(m_initialWindow.GetValue()) : 10.0 * mtu;
    m_window = std::max(m_window, m_minWindow);
    m_alpha = m_initialAlpha;
    m_slowStart = true;
    m_observationWindow = m_window;
    m_windowAtCut = 0; // the first mark may cut at once
}

UbCci
UbDctcp::OnSend(uint32_t frameBytes)
{
    return UbCci();
}

void
UbDctcp::Cut(double factor)
{
    m_window = std::max(m_window * factor, m_minWindow);
    m_slowStart = false;
    m_ackedSinceCut = 0;
    m_windowAtCut = m_window;
}

void
UbDctcp::OnAck(const CcFeedback& fb)
{
    double acked = double(fb.ackedBytes);
    bool marked = fb.ecnEcho;
    m_ackedSinceCut += acked;
    m_observedBytes += acked;
    m_markedBytes += marked ? acked : 0.0;
    if (m_observedBytes >= m_observationWindow && m_observedBytes > 0)
    {
        // One window of data observed (paper eq. 1).
        double fraction = m_markedBytes / m_observedBytes;
        m_alpha = (1 - m_g) * m_alpha + m_g * fraction;
        m_observedBytes = 0;
        m_markedBytes = 0;
        m_observationWindow = m_window;
    }
    if (marked)
    {
        if (MayCut())
        {
            Cut(1 - m_alpha / 2); // paper eq. 2
        }
        return;
    }
    // Grow only a window that held the channel back since the previous ACK: the NIC stops a
    // channel when one more full frame would exceed the window (UbNic::WindowBlockedAfterSend),
    // and until this ACK the bytes in flight only grew. Linux's tcp_is_cwnd_limited, RFC 7661.
    if (double(fb.inflightBytes + fb.ackedBytes) + double(m_mtu) + kUbFrameOverhead <= m_window)
    {
        return;
    }
    if (m_slowStart)
    {
        m_window += acked;
    }
    else
    {
        m_window += m_additiveIncrease * m_mtu * acked / m_window;
    }
}

void
UbDctcp::OnLoss(uint32_t frameBytes)
{
    if (MayCut())
    {
        Cut(0.5);
    }
}

} // namespace ns3
