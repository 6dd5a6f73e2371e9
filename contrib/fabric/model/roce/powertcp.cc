#include "powertcp.h"

#include "sim/fabric-plugin.h"

#include "ns3/double.h"
#include "ns3/enum.h"

#include <algorithm>

namespace ns3
{

NS_OBJECT_ENSURE_REGISTERED(PowerTcpCongestionControl);
FABRIC_PLUGIN(FabricPlugin(PluginKind::CongestionControl,
                           "powertcp",
                           &PowerTcpCongestionControl::GetTypeId,
                           "PowerTCP sender (reads in-band telemetry: switches stamp INT)")
                  .Transport("roce")
                  .Section("powertcp")
                  .SwitchStage("int-stamp"));

TypeId
PowerTcpCongestionControl::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::PowerTcpCongestionControl")
            .SetParent<IntWindowControl>()
            .SetGroupName("Fabric")
            .AddConstructor<PowerTcpCongestionControl>()
            .AddAttribute(
                "Variant",
                "Window rule. simulator: the authors' simulator (inet-tub/ns3-datacenter "
                "rdma-hw.cc:1063-1066): W = γ (W_c η / Γ + β) + (1 - γ) W_c against the "
                "reference window W_c, updated once per RTT, arrival rate floored at B/2. "
                "paper: Algorithm 1 of the NSDI 2022 paper: W = γ (W_old / Γ + β) + (1 - γ) W "
                "on every ACK, no η.",
                EnumValue(SIMULATOR),
                MakeEnumAccessor(&PowerTcpCongestionControl::m_variant),
                MakeEnumChecker(SIMULATOR, "simulator", PAPER, "paper"))
            .AddAttribute("Gamma",
                          "γ: weight of the new window against the reference (simulator) or "
                          "current (paper) one (inet-tub/ns3-datacenter rdma-hw.cc:1065: 0.9).",
                          DoubleValue(0.9),
                          MakeDoubleAccessor(&PowerTcpCongestionControl::m_gamma),
                          MakeDoubleChecker<double>(0.0, 1.0))
            .AddAttribute("Eta",
                          "Target utilisation η the smoothed power is divided by (simulator "
                          "variant only; inet-tub/ns3-datacenter rdma-hw.cc:1064 m_targetUtil, "
                          "examples/PowerTCP/config-burst.txt:36 U_TARGET 0.95).",
                          DoubleValue(0.95),
                          MakeDoubleAccessor(&PowerTcpCongestionControl::m_eta),
                          MakeDoubleChecker<double>(0.01, 1.0))
            .AddAttribute("Beta",
                          "β: additive increase of the window per update. 0B: 150 Mb/s x "
                          "BaseRtt (inet-tub/ns3-datacenter rdma-hw.cc:1065).",
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
                          "Floor of the rate W/τ (inet-tub/ns3-datacenter "
                          "examples/PowerTCP/config-burst.txt:24 MIN_RATE 100Mb/s).",
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
    double lambda = qDot + mu;
    // Simulator: the arrival rate counts as at least half the line rate (rdma-hw.cc:1020-1022).
    // Paper: a queue that drained faster than the hop sent counts as no arrivals.
    lambda = m_variant == SIMULATOR ? std::max(0.5 * b, lambda) : std::max(0.0, lambda);
    return lambda * (q + b * tau) / (b * b * tau);
}

bool
PowerTcpCongestionControl::MeasuresFirstAck() const
{
    return m_variant == SIMULATOR;
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
    double power = std::max(m_power, 1e-9);
    if (m_variant == SIMULATOR)
    {
        // rdma-hw.cc:1064-1065 on every ACK against the reference W_c; lines 1082-1087: W_c
        // takes the new window once per RTT.
        double w = m_gamma * (m_wOld * m_eta / power + m_betaBytes) + (1 - m_gamma) * m_wOld;
        m_w = std::clamp(w, m_minWindow, m_maxWindow);
        if (newRtt)
        {
            m_wOld = m_w;
        }
        return;
    }
    // Algorithm 1: W_old is the window the acknowledged data was sent under, the one set at
    // the last once-per-RTT point; the point then moves to the window just set.
    double w = m_gamma * (m_wOld / power + m_betaBytes) + (1 - m_gamma) * m_w;
    m_w = std::clamp(w, m_minWindow, m_maxWindow);
    if (newRtt)
    {
        m_wOld = m_w;
    }
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
