#include "hpcc.h"

#include "ns3/double.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <cmath>

namespace ns3
{

NS_OBJECT_ENSURE_REGISTERED(HpccCongestionControl);

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
HpccCongestionControl::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::HpccCongestionControl")
            .SetParent<RoceCongestionControl>()
            .SetGroupName("Fabric")
            .AddConstructor<HpccCongestionControl>()
            .AddAttribute("Eta",
                          "Target utilisation η of the most loaded link (paper: 0.95).",
                          DoubleValue(0.95),
                          MakeDoubleAccessor(&HpccCongestionControl::m_eta),
                          MakeDoubleChecker<double>(0.01, 1.0))
            .AddAttribute("MaxStage",
                          "Additive-increase steps (reference updates below η) before a "
                          "multiplicative update toward η (paper: maxStage = 5).",
                          UintegerValue(5),
                          MakeUintegerAccessor(&HpccCongestionControl::m_maxStage),
                          MakeUintegerChecker<uint32_t>())
            .AddAttribute("WAi",
                          "Additive increase W_AI of the window per update. 0B: line rate x "
                          "BaseRtt / 2500 (the HPCC simulator's RATE_AI of 10 bw/25 Mb/s).",
                          QueueSizeValue(QueueSize("0B")),
                          MakeQueueSizeAccessor(&HpccCongestionControl::m_wAi),
                          MakeQueueSizeChecker())
            .AddAttribute("BaseRtt",
                          "T: the base round trip the window is sized for (the line-rate "
                          "window is line rate x T) and the EWMA period of U.",
                          TimeValue(MicroSeconds(10)),
                          MakeTimeAccessor(&HpccCongestionControl::m_baseRtt),
                          MakeTimeChecker(NanoSeconds(1)))
            .AddAttribute("MinRate",
                          "Floor of the rate W/T (HPCC simulator: 100 Mb/s).",
                          DataRateValue(DataRate("100Mbps")),
                          MakeDataRateAccessor(&HpccCongestionControl::m_minRate),
                          MakeDataRateChecker())
            .AddAttribute("InitialU",
                          "U before the first measurement (HPCC simulator: 1).",
                          DoubleValue(1.0),
                          MakeDoubleAccessor(&HpccCongestionControl::m_initialU),
                          MakeDoubleChecker<double>(0.0));
    return tid;
}

void
HpccCongestionControl::Start(DataRate lineRate)
{
    m_lineRate = static_cast<double>(lineRate.GetBitRate());
    m_maxWindow = BytesIn(m_lineRate, m_baseRtt);
    m_minWindow = BytesIn(static_cast<double>(m_minRate.GetBitRate()), m_baseRtt);
    m_wAiBytes = m_wAi.GetValue() ? static_cast<double>(m_wAi.GetValue()) : m_maxWindow / 2500;
    m_w = m_wc = m_maxWindow;
    m_u = m_initialU;
    m_incStage = 0;
    m_ackedBytes = 0;
    m_lastUpdateSeq = 0;
    m_havePrev = false;
}

void
HpccCongestionControl::Stop()
{
}

DataRate
HpccCongestionControl::GetRate() const
{
    double rate = m_w * 8e9 / static_cast<double>(m_baseRtt.GetNanoSeconds());
    return DataRate(static_cast<uint64_t>(std::llround(std::min(rate, m_lineRate))));
}

void
HpccCongestionControl::OnCnp()
{
    // HPCC reacts to INT only; a CNP (switches may still mark ECN) changes nothing.
}

void
HpccCongestionControl::OnBytesSent(uint32_t bytes)
{
}

bool
HpccCongestionControl::MeasureInflight(const IntStack& now)
{
    const double t = m_baseRtt.GetSeconds();
    double u = 0;
    double tau = 0;
    bool sampled = false;
    for (uint32_t i = 0; i < now.RecordedHops(); ++i)
    {
        const IntHop& hop = now.hops[i];
        const IntHop& prev = m_prev.hops[i];
        uint64_t dtNs = hop.NanosSince(prev);
        double b = static_cast<double>(hop.GetLineRate().GetBitRate());
        if (dtNs == 0 || b <= 0)
        {
            continue; // the same stamp twice, or a rate the record cannot name
        }
        double dt = dtNs * 1e-9;
        double txRate = hop.BytesSince(prev) * 8.0 / dt;
        double qlen = static_cast<double>(std::min(hop.GetQueueBytes(), prev.GetQueueBytes()));
        double ui = qlen * 8 / (b * t) + txRate / b;
        if (!sampled || ui > u)
        {
            u = ui;
            tau = dt;
        }
        sampled = true;
    }
    if (!sampled)
    {
        return false;
    }
    tau = std::min(tau, t);
    m_u = (1 - tau / t) * m_u + tau / t * u;
    return true;
}

void
HpccCongestionControl::ComputeWindow(bool updateReference)
{
    double w;
    if (m_u >= m_eta || m_incStage >= m_maxStage)
    {
        // Multiplicative step toward η (U/η floored so that an idle path cannot divide by 0;
        // the window is capped at the line rate below anyway).
        w = m_wc / std::max(m_u / m_eta, 1e-9) + m_wAiBytes;
        if (updateReference)
        {
            m_incStage = 0;
        }
    }
    else
    {
        w = m_wc + m_wAiBytes;
        if (updateReference)
        {
            ++m_incStage;
        }
    }
    w = std::clamp(w, m_minWindow, m_maxWindow);
    if (updateReference)
    {
        m_wc = w;
    }
    m_w = w;
}

void
HpccCongestionControl::OnAck(const RoceAckFeedback& ack)
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
        // First RTT (Algorithm 1 needs two samples of each hop), or the path changed.
        m_havePrev = true;
        m_prev = now;
        m_lastUpdateSeq = sndNxt;
        return;
    }
    bool measured = MeasureInflight(now);
    m_prev = now;
    if (!measured)
    {
        return;
    }
    bool updateReference = m_ackedBytes > m_lastUpdateSeq;
    ComputeWindow(updateReference);
    if (updateReference)
    {
        m_lastUpdateSeq = sndNxt;
    }
}

uint64_t
HpccCongestionControl::GetWindow() const
{
    return std::max<uint64_t>(1, static_cast<uint64_t>(m_w));
}

bool
HpccCongestionControl::UsesInt() const
{
    return true;
}

std::string
HpccCongestionControl::GetName() const
{
    return "hpcc";
}

RoceCcTraceState
HpccCongestionControl::GetTraceState() const
{
    RoceCcTraceState state;
    state.windowBytes = GetWindow();
    state.rtt = m_lastRtt;
    state.utilisation = m_u;
    return state;
}

} // namespace ns3
