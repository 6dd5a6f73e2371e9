#include "theta-powertcp.h"

#include "sim/fabric-now.h"
#include "sim/fabric-plugin.h"

#include "ns3/double.h"
#include "ns3/enum.h"

#include <algorithm>
#include <cmath>

namespace ns3
{

NS_OBJECT_ENSURE_REGISTERED(ThetaPowerTcpCongestionControl);
FABRIC_PLUGIN(FabricPlugin(PluginKind::CongestionControl,
                           "theta-powertcp",
                           &ThetaPowerTcpCongestionControl::GetTypeId,
                           "θ-PowerTCP sender (RTT-driven)")
                  .Transport("roce")
                  .Section("theta_powertcp"));

TypeId
ThetaPowerTcpCongestionControl::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::ThetaPowerTcpCongestionControl")
            .SetParent<RoceCongestionControl>()
            .SetGroupName("Fabric")
            .AddConstructor<ThetaPowerTcpCongestionControl>()
            .AddAttribute(
                "Variant",
                "Rate rule. simulator: the authors' simulator (inet-tub/ns3-datacenter "
                "rdma-hw.cc:1029-1037, 1068-1070): gradient term floored at 0.5, power over "
                "DelayTarget x τ, R = γ (R_c / Γ + β) + (1 - γ) R_c on every ACK against the "
                "reference rate R_c, updated once per RTT. paper: Algorithm 2 of the NSDI 2022 "
                "paper: R = γ (R / Γ + β) + (1 - γ) R once per RTT.",
                EnumValue(SIMULATOR),
                MakeEnumAccessor(&ThetaPowerTcpCongestionControl::m_variant),
                MakeEnumChecker(SIMULATOR, "simulator", PAPER, "paper"))
            .AddAttribute("Gamma",
                          "γ: weight of the new rate (inet-tub/ns3-datacenter rdma-hw.cc:1070: "
                          "0.7 in delay mode).",
                          DoubleValue(0.7),
                          MakeDoubleAccessor(&ThetaPowerTcpCongestionControl::m_gamma),
                          MakeDoubleChecker<double>(0.0, 1.0))
            .AddAttribute("Beta",
                          "β: additive increase per update, as a rate (the window's is β τ; "
                          "inet-tub/ns3-datacenter rdma-hw.cc:1070: 150Mbps).",
                          DataRateValue(DataRate("150Mbps")),
                          MakeDataRateAccessor(&ThetaPowerTcpCongestionControl::m_beta),
                          MakeDataRateChecker())
            .AddAttribute("DelayTarget",
                          "RTT over base RTT at which the power is 1 (simulator variant only; "
                          "inet-tub/ns3-datacenter rdma-hw.cc:1035: 1.05).",
                          DoubleValue(1.05),
                          MakeDoubleAccessor(&ThetaPowerTcpCongestionControl::m_delayTarget),
                          MakeDoubleChecker<double>(0.01))
            .AddAttribute("BaseRtt",
                          "τ before an RTT sample below it: the base RTT, then the smallest "
                          "RTT seen (inet-tub/ns3-datacenter rdma-hw.cc:992). The line-rate "
                          "window is line rate x τ.",
                          TimeValue(MicroSeconds(10)),
                          MakeTimeAccessor(&ThetaPowerTcpCongestionControl::m_baseRtt),
                          MakeTimeChecker(NanoSeconds(1)))
            .AddAttribute("MinRate",
                          "Floor of the rate (inet-tub/ns3-datacenter "
                          "examples/PowerTCP/config-burst.txt:24 MIN_RATE 100Mb/s).",
                          DataRateValue(DataRate("100Mbps")),
                          MakeDataRateAccessor(&ThetaPowerTcpCongestionControl::m_minRate),
                          MakeDataRateChecker());
    return tid;
}

void
ThetaPowerTcpCongestionControl::Start(DataRate lineRate)
{
    m_lineRate = static_cast<double>(lineRate.GetBitRate());
    m_rate = m_lineRate;
    m_rateRef = m_lineRate;
    m_power = 1; // rdma-queue-pair.cc:50 (hp.u = 1)
    m_tau = m_baseRtt;
    m_havePrev = false;
    m_ackedBytes = 0;
    m_lastUpdateSeq = 0;
}

void
ThetaPowerTcpCongestionControl::Stop()
{
}

DataRate
ThetaPowerTcpCongestionControl::GetRate() const
{
    return DataRate(static_cast<uint64_t>(std::llround(std::min(m_rate, m_lineRate))));
}

void
ThetaPowerTcpCongestionControl::OnCnp()
{
}

void
ThetaPowerTcpCongestionControl::OnBytesSent(uint32_t bytes)
{
}

void
ThetaPowerTcpCongestionControl::OnAck(const CcFeedback& ack)
{
    const Time now = FabricNow();
    const Time rtt = ack.rtt;
    m_lastRtt = rtt;
    m_ackedBytes += ack.ackedBytes;
    uint64_t sndNxt = m_ackedBytes + ack.inflightBytes;
    if (rtt.IsStrictlyPositive() && rtt < m_tau)
    {
        m_tau = rtt; // the base RTT is the smallest seen (rdma-hw.cc:992)
    }
    if (!m_havePrev)
    {
        m_havePrev = true;
        m_prevRtt = rtt;
        m_prevTime = now;
        m_lastUpdateSeq = sndNxt;
        return;
    }
    if (now <= m_prevTime)
    {
        return; // no time has passed: no gradient
    }
    const double dt = (now - m_prevTime).GetSeconds();
    const double tau = m_tau.GetSeconds();
    double grad = (rtt - m_prevRtt).GetSeconds() / dt + 1;
    double power;
    if (m_variant == SIMULATOR)
    {
        grad = std::max(grad, 0.5);                              // rdma-hw.cc:1031-1033
        power = grad * rtt.GetSeconds() / (m_delayTarget * tau); // rdma-hw.cc:1034-1035
    }
    else
    {
        // A falling RTT cannot make the power negative (λ >= 0 in Algorithm 1).
        power = std::max(grad, 0.0) * rtt.GetSeconds() / tau;
    }
    double dtc = std::min(dt, tau); // rdma-hw.cc:1041, 1056-1057
    m_power = (m_power * (tau - dtc) + power * dtc) / tau;
    m_prevRtt = rtt;
    m_prevTime = now;
    const bool newRtt = m_ackedBytes > m_lastUpdateSeq;
    const double beta = static_cast<double>(m_beta.GetBitRate());
    const double minRate = static_cast<double>(m_minRate.GetBitRate());
    const double p = std::max(m_power, 1e-9);
    if (m_variant == SIMULATOR)
    {
        // rdma-hw.cc:1069-1070 on every ACK, against R_c; R_c <- R once per RTT (1082-1091).
        double r = m_gamma * (m_rateRef / p + beta) + (1 - m_gamma) * m_rateRef;
        m_rate = std::clamp(r, std::min(minRate, m_lineRate), m_lineRate);
        if (newRtt)
        {
            m_rateRef = m_rate;
        }
    }
    else if (newRtt)
    {
        // Algorithm 2: once per RTT, from the rate the acknowledged data was sent at.
        double r = m_gamma * (m_rate / p + beta) + (1 - m_gamma) * m_rate;
        m_rate = std::clamp(r, std::min(minRate, m_lineRate), m_lineRate);
        m_rateRef = m_rate;
    }
    if (newRtt)
    {
        m_lastUpdateSeq = sndNxt;
    }
}

uint64_t
ThetaPowerTcpCongestionControl::GetWindow() const
{
    // rdma-queue-pair.cc:129-131 (PowerTCP with VAR_WIN): W = R τ.
    double w = std::min(m_rate, m_lineRate) * static_cast<double>(m_tau.GetNanoSeconds()) / 8e9;
    return std::max<uint64_t>(1, static_cast<uint64_t>(w));
}

std::string
ThetaPowerTcpCongestionControl::GetName() const
{
    return "theta-powertcp";
}

CcTraceState
ThetaPowerTcpCongestionControl::GetTraceState() const
{
    CcTraceState state;
    state.rate = double(GetRate().GetBitRate());
    state.windowBytes = GetWindow();
    state.rtt = m_lastRtt;
    state.utilisation = m_power;
    return state;
}

} // namespace ns3
