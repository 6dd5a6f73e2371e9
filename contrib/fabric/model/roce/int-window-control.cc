#include "int-window-control.h"

#include <algorithm>
#include <cmath>

namespace ns3
{

NS_OBJECT_ENSURE_REGISTERED(IntWindowControl);

TypeId
IntWindowControl::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::IntWindowControl").SetParent<RoceCongestionControl>().SetGroupName("Fabric");
    return tid;
}

double
IntWindowControl::BytesIn(double bitsPerSecond, Time t)
{
    return bitsPerSecond * static_cast<double>(t.GetNanoSeconds()) / 8e9;
}

void
IntWindowControl::Start(DataRate lineRate)
{
    m_lineRate = static_cast<double>(lineRate.GetBitRate());
    m_maxWindow = BytesIn(m_lineRate, m_baseRtt);
    m_minWindow = BytesIn(static_cast<double>(m_minRate.GetBitRate()), m_baseRtt);
    m_w = m_maxWindow;
    m_ackedBytes = 0;
    m_lastUpdateSeq = 0;
    m_havePrev = false;
    StartAlgorithm();
}

void
IntWindowControl::Stop()
{
}

DataRate
IntWindowControl::GetRate() const
{
    double rate = m_w * 8e9 / static_cast<double>(m_baseRtt.GetNanoSeconds());
    return DataRate(static_cast<uint64_t>(std::llround(std::min(rate, m_lineRate))));
}

void
IntWindowControl::OnCnp()
{
}

void
IntWindowControl::OnBytesSent(uint32_t bytes)
{
}

bool
IntWindowControl::Measure(const IntStack& now)
{
    double peak = 0;
    double dtOfPeak = 0;
    bool sampled = false;
    for (uint32_t i = 0; i < now.RecordedHops(); ++i)
    {
        const IntHop& hop = now.hops[i];
        const IntHop& prev = m_prev.hops[i];
        uint64_t dtNs = hop.NanosSince(prev);
        if (dtNs == 0 || hop.GetLineRate().GetBitRate() == 0)
        {
            continue; // the same stamp twice, or a rate the record cannot name
        }
        double dt = dtNs * 1e-9;
        double signal = HopSignal(hop, prev, dt);
        if (!sampled || signal > peak)
        {
            peak = signal;
            dtOfPeak = dt;
        }
        sampled = true;
    }
    if (!sampled)
    {
        return false;
    }
    Smooth(peak, std::min(dtOfPeak, m_baseRtt.GetSeconds()));
    return true;
}

void
IntWindowControl::OnAck(const CcFeedback& ack)
{
    m_lastRtt = ack.rtt;
    m_ackedBytes += ack.ackedBytes;
    uint64_t sndNxt = m_ackedBytes + ack.inflightBytes;
    if (!ack.hasTelemetry || !ack.telemetry.Complete())
    {
        return;
    }
    const IntStack& now = ack.telemetry;
    if (!m_havePrev && MeasuresFirstAck())
    {
        // The wrapped time and byte differences to a zero record (IntHop::NanosSince /
        // BytesSince) are what the reference divides on its first ACK.
        m_havePrev = true;
        m_prev = IntStack();
        m_prev.hopCount = now.hopCount;
    }
    if (!m_havePrev || now.hopCount != m_prev.hopCount)
    {
        // First RTT (two samples of each hop are needed), or the path changed.
        m_havePrev = true;
        m_prev = now;
        m_lastUpdateSeq = sndNxt;
        return;
    }
    bool measured = Measure(now);
    m_prev = now;
    if (!measured)
    {
        return;
    }
    bool newRtt = m_ackedBytes > m_lastUpdateSeq;
    UpdateWindow(newRtt);
    if (newRtt)
    {
        m_lastUpdateSeq = sndNxt;
    }
}

bool
IntWindowControl::MeasuresFirstAck() const
{
    return false;
}

uint64_t
IntWindowControl::GetWindow() const
{
    return std::max<uint64_t>(1, static_cast<uint64_t>(m_w));
}

bool
IntWindowControl::UsesInt() const
{
    return true;
}

CcTraceState
IntWindowControl::GetTraceState() const
{
    CcTraceState state;
    state.rate = double(GetRate().GetBitRate());
    state.windowBytes = GetWindow();
    state.rtt = m_lastRtt;
    state.utilisation = GetCongestionEstimate();
    return state;
}

} // namespace ns3
