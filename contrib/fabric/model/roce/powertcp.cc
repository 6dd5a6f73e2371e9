#include "powertcp.h"

#include "ns3/double.h"

#include <algorithm>

namespace ns3
{

NS_OBJECT_ENSURE_REGISTERED(PowerTcpCongestionControl);

TypeId
PowerTcpCongestionControl::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::PowerTcpCongestionControl")
            .SetParent<IntWindowControl>()
            .SetGroupName("Fabric")
            .AddConstructor<PowerTcpCongestionControl>()
            .AddAttribute(
                "Gamma",
                "γ: weight of the new window against the current one (paper's evaluation: 0.9).",
                DoubleValue(0.9),
                MakeDoubleAccessor(&PowerTcpCongestionControl::m_gamma),
                MakeDoubleChecker<double>(0.0, 1.0))
            .AddAttribute("Beta",
                          "β: additive increase of the window per update. 0B: 150 Mb/s x "
                          "BaseRtt (the PowerTCP authors' simulator).",
                          QueueSizeValue(QueueSize("0B")),
                          MakeQueueSizeAccessor(&PowerTcpCongestionControl::m_beta),
                          MakeQueueSizeChecker())
            .AddAttribute("BaseRtt",
                          "τ: base round trip; the line-rate window is line rate x τ, and the "
                          "period power is smoothed over.",
                          TimeValue(MicroSeconds(10)),
                          MakeTimeAccessor(&PowerTcpCongestionControl::m_baseRtt),
                          MakeTimeChecker(NanoSeconds(1)))
            .AddAttribute("MinRate",
                          "Floor of the rate W/τ.",
                          DataRateValue(DataRate("100Mbps")),
                          MakeDataRateAccessor(&PowerTcpCongestionControl::m_minRate),
                          MakeDataRateChecker());
    return tid;
}

void
PowerTcpCongestionControl::StartAlgorithm()
{
    m_betaBytes =
        m_beta.GetValue() ? static_cast<double>(m_beta.GetValue()) : BytesIn(150e6, m_baseRtt);
    m_wOld = m_w;
    m_power = 1; // line rate, empty queue: Γ = B · B τ = e
}

double
PowerTcpCongestionControl::HopSignal(const IntHop& hop, const IntHop& prev, double dt) const
{
    const double tau = m_baseRtt.GetSeconds();
    double b = static_cast<double>(hop.GetLineRate().GetBitRate()) / 8; // bytes/s
    double q = static_cast<double>(hop.GetQueueBytes());
    double qDot = (q - static_cast<double>(prev.GetQueueBytes())) / dt;
    double mu = hop.BytesSince(prev) / dt;
    // A queue that drained faster than the hop sent counts as no arrivals.
    double lambda = std::max(0.0, qDot + mu);
    return lambda * (q + b * tau) / (b * b * tau);
}

void
PowerTcpCongestionControl::Smooth(double peak, double dt)
{
    const double tau = m_baseRtt.GetSeconds();
    m_power = (m_power * (tau - dt) + peak * dt) / tau;
}

void
PowerTcpCongestionControl::UpdateWindow(bool newRtt)
{
    if (newRtt)
    {
        m_wOld = m_w; // once per RTT: the window the next RTT's updates divide
    }
    double w = m_gamma * (m_wOld / std::max(m_power, 1e-9) + m_betaBytes) + (1 - m_gamma) * m_w;
    m_w = std::clamp(w, m_minWindow, m_maxWindow);
}

double
PowerTcpCongestionControl::GetCongestionEstimate() const
{
    return m_power;
}

std::string
PowerTcpCongestionControl::GetName() const
{
    return "powertcp";
}

} // namespace ns3
