#include "powertcp.h"

#include "ns3/double.h"

#include <algorithm>
#include <cmath>

namespace ns3
{

NS_OBJECT_ENSURE_REGISTERED(PowerTcpCongestionControl);

namespace
{
/// Bytes sent at \p bitsPerSecond during \p t (in whole nanoseconds, so that round rates and
/// times give exact windows).
double
BytesIn(double bitsPerSecond, Time t)
{
    return bitsPerSecond * static_cast<double>(t.GetNanoSeconds()) / 8e9;
}
} // namespace

TypeId
PowerTcpCongestionControl::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::PowerTcpCongestionControl")
            .SetParent<RoceCongestionControl>()
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
PowerTcpCongestionControl::Start(DataRate lineRate)
{
    m_lineRate = static_cast<double>(lineRate.GetBitRate());
    m_maxWindow = BytesIn(m_lineRate, m_baseRtt);
    m_minWindow = BytesIn(static_cast<double>(m_minRate.GetBitRate()), m_baseRtt);
    m_betaBytes =
        m_beta.GetValue() ? static_cast<double>(m_beta.GetValue()) : BytesIn(150e6, m_baseRtt);
    m_w = m_wOld = m_maxWindow;
    m_power = 1; // line rate, empty queue: Γ = B · B τ = e
    m_ackedBytes = 0;
    m_lastUpdateSeq = 0;
    m_havePrev = false;
}

void
PowerTcpCongestionControl::Stop()
{
}

DataRate
PowerTcpCongestionControl::GetRate() const
{
    double rate = m_w * 8e9 / static_cast<double>(m_baseRtt.GetNanoSeconds());
    return DataRate(static_cast<uint64_t>(std::llround(std::min(rate, m_lineRate))));
}

void
PowerTcpCongestionControl::OnCnp()
{
}

void
PowerTcpCongestionControl::OnBytesSent(uint32_t bytes)
{
}

bool
PowerTcpCongestionControl::NormalisedPower(const IntStack& now)
{
    const double tau = m_baseRtt.GetSeconds();
    double power = 0;
    double dtOfMax = 0;
    bool sampled = false;
    for (uint32_t i = 0; i < now.RecordedHops(); ++i)
    {
        const IntHop& hop = now.hops[i];
        const IntHop& prev = m_prev.hops[i];
        uint64_t dtNs = hop.NanosSince(prev);
        double b = static_cast<double>(hop.GetLineRate().GetBitRate()) / 8; // bytes/s
        if (dtNs == 0 || b <= 0)
        {
            continue;
        }
        double dt = dtNs * 1e-9;
        double q = static_cast<double>(hop.GetQueueBytes());
        double qDot = (q - static_cast<double>(prev.GetQueueBytes())) / dt;
        double mu = hop.BytesSince(prev) / dt;
        double lambda = std::max(0.0, qDot + mu);
        double gamma = lambda * (q + b * tau) / (b * b * tau);
        if (!sampled || gamma > power)
        {
            power = gamma;
            dtOfMax = dt;
        }
        sampled = true;
    }
    if (!sampled)
    {
        return false;
    }
    dtOfMax = std::min(dtOfMax, tau);
    m_power = (m_power * (tau - dtOfMax) + power * dtOfMax) / tau;
    return true;
}

void
PowerTcpCongestionControl::OnAck(const RoceAckFeedback& ack)
{
    m_lastRtt = ack.rtt;
    m_ackedBytes += ack.ackedBytes;
    uint64_t sndNxt = m_ackedBytes + ack.inflightBytes;
    if (!ack.hasTelemetry || !ack.telemetry.Complete())
    {
        return;
    }
    const IntStack& now = ack.telemetry;
    if (!m_havePrev || now.hopCount != m_prev.hopCount)
    {
        m_havePrev = true;
        m_prev = now;
        m_lastUpdateSeq = sndNxt;
        return;
    }
    bool measured = NormalisedPower(now);
    m_prev = now;
    if (!measured)
    {
        return;
    }
    if (m_ackedBytes > m_lastUpdateSeq)
    {
        m_wOld = m_w; // once per RTT: the window the next RTT's updates divide
        m_lastUpdateSeq = sndNxt;
    }
    double w = m_gamma * (m_wOld / std::max(m_power, 1e-9) + m_betaBytes) + (1 - m_gamma) * m_w;
    m_w = std::clamp(w, m_minWindow, m_maxWindow);
}

uint64_t
PowerTcpCongestionControl::GetWindow() const
{
    return std::max<uint64_t>(1, static_cast<uint64_t>(m_w));
}

bool
PowerTcpCongestionControl::UsesInt() const
{
    return true;
}

std::string
PowerTcpCongestionControl::GetName() const
{
    return "powertcp";
}

RoceCcTraceState
PowerTcpCongestionControl::GetTraceState() const
{
    RoceCcTraceState state;
    state.windowBytes = GetWindow();
    state.rtt = m_lastRtt;
    state.utilisation = m_power;
    return state;
}

} // namespace ns3
