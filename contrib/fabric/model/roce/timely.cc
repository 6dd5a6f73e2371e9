#include "timely.h"

#include "sim/fabric-plugin.h"

#include "ns3/abort.h"
#include "ns3/double.h"
#include "ns3/log.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <cmath>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("TimelyCongestionControl");
NS_OBJECT_ENSURE_REGISTERED(TimelyCongestionControl);
FABRIC_PLUGIN(FabricPlugin(PluginKind::CongestionControl,
                           "timely",
                           &TimelyCongestionControl::GetTypeId,
                           "TIMELY rate control")
                  .Transport("roce")
                  .Section("timely"));

TypeId
TimelyCongestionControl::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::TimelyCongestionControl")
            .SetParent<RoceCongestionControl>()
            .SetGroupName("Fabric")
            .AddConstructor<TimelyCongestionControl>()
            .AddAttribute("Alpha",
                          "EWMA weight of the newest RTT difference (paper: 0.875).",
                          DoubleValue(0.875),
                          MakeDoubleAccessor(&TimelyCongestionControl::m_alpha),
                          MakeDoubleChecker<double>(0.0, 1.0))
            .AddAttribute("Beta",
                          "Multiplicative decrease factor beta (paper: 0.8).",
                          DoubleValue(0.8),
                          MakeDoubleAccessor(&TimelyCongestionControl::m_beta),
                          MakeDoubleChecker<double>(0.0, 1.0))
            .AddAttribute("AdditiveIncrease",
                          "Additive increment delta per completion (paper: 10Mbps).",
                          DataRateValue(DataRate("10Mbps")),
                          MakeDataRateAccessor(&TimelyCongestionControl::m_additiveIncrease),
                          MakeDataRateChecker())
            .AddAttribute("TLow",
                          "Below this RTT the rate increases whatever the gradient (paper: "
                          "50us).",
                          TimeValue(MicroSeconds(50)),
                          MakeTimeAccessor(&TimelyCongestionControl::m_tLow),
                          MakeTimeChecker(Time(0)))
            .AddAttribute("THigh",
                          "Above this RTT the rate decreases whatever the gradient (paper: "
                          "500us).",
                          TimeValue(MicroSeconds(500)),
                          MakeTimeAccessor(&TimelyCongestionControl::m_tHigh),
                          MakeTimeChecker(Time(0)))
            .AddAttribute("MinRtt",
                          "RTT the gradient is normalised by (paper: 20us).",
                          TimeValue(MicroSeconds(20)),
                          MakeTimeAccessor(&TimelyCongestionControl::m_minRtt),
                          MakeTimeChecker(NanoSeconds(1)))
            .AddAttribute("HaiThreshold",
                          "Consecutive completions with gradient <= 0 before hyper-active "
                          "increase (paper: 5).",
                          UintegerValue(5),
                          MakeUintegerAccessor(&TimelyCongestionControl::m_haiThreshold),
                          MakeUintegerChecker<uint32_t>())
            .AddAttribute("HaiMultiplier",
                          "N: hyper-active increase adds N x AdditiveIncrease (paper: 5).",
                          UintegerValue(5),
                          MakeUintegerAccessor(&TimelyCongestionControl::m_haiMultiplier),
                          MakeUintegerChecker<uint32_t>(1))
            .AddAttribute("Segment",
                          "Payload acknowledged per completion event (paper: 16-64 KB).",
                          QueueSizeValue(QueueSize("16KiB")),
                          MakeQueueSizeAccessor(&TimelyCongestionControl::m_segment),
                          MakeQueueSizeChecker())
            .AddAttribute("MinRate",
                          "Floor of the rate (HPCC simulator: 100Mbps).",
                          DataRateValue(DataRate("100Mbps")),
                          MakeDataRateAccessor(&TimelyCongestionControl::m_minRate),
                          MakeDataRateChecker());
    return tid;
}

TimelyCongestionControl::TimelyCongestionControl() = default;

TimelyCongestionControl::~TimelyCongestionControl() = default;

void
TimelyCongestionControl::Start(DataRate lineRate)
{
    NS_ABORT_MSG_IF(lineRate.GetBitRate() == 0, "TIMELY needs a non-zero line rate");
    NS_ABORT_MSG_IF(m_segment.GetUnit() != QueueSizeUnit::BYTES,
                    "TimelyCongestionControl::Segment must be given in bytes");
    m_lineRate = double(lineRate.GetBitRate());
    m_rate = m_lineRate;
    m_rttDiff = 0;
    m_prevRtt = Time(0);
    m_lastRtt = Time(0);
    m_negativeRun = 0;
    m_completions = 0;
    m_segmentBytes = 0;
}

void
TimelyCongestionControl::Stop()
{
}

DataRate
TimelyCongestionControl::GetRate() const
{
    return DataRate(static_cast<uint64_t>(std::llround(m_rate)));
}

void
TimelyCongestionControl::OnCnp()
{
}

void
TimelyCongestionControl::OnBytesSent(uint32_t bytes)
{
}

void
TimelyCongestionControl::OnAck(const CcFeedback& ack)
{
    m_segmentBytes += ack.ackedBytes;
    // The last ACK of a message completes it even if the segment is not full. (Not "nothing in
    // flight": a QP paced below its round trip's worth of data empties its pipe after every
    // packet, and every ACK would then be a completion.)
    if (m_segmentBytes >= m_segment.GetValue() || ack.messageDone)
    {
        m_segmentBytes = 0;
        Completion(ack.rtt);
    }
}

void
TimelyCongestionControl::Completion(Time rtt)
{
    ++m_completions;
    m_lastRtt = rtt;
    if (m_completions == 1)
    {
        m_prevRtt = rtt; // no difference yet
        return;
    }
    const double newRttDiff = (rtt - m_prevRtt).GetSeconds();
    m_prevRtt = rtt;
    m_rttDiff = (1.0 - m_alpha) * m_rttDiff + m_alpha * newRttDiff;
    const double gradient = m_rttDiff / m_minRtt.GetSeconds();
    const double delta = double(m_additiveIncrease.GetBitRate());
    if (rtt < m_tLow)
    {
        m_rate += delta;
        m_negativeRun = 0;
    }
    else if (rtt > m_tHigh)
    {
        m_rate *= 1.0 - m_beta * (1.0 - m_tHigh.GetSeconds() / rtt.GetSeconds());
        m_negativeRun = 0;
    }
    else if (gradient <= 0)
    {
        ++m_negativeRun;
        const double n = m_negativeRun >= m_haiThreshold ? double(m_haiMultiplier) : 1.0;
        m_rate += n * delta;
    }
    else
    {
        m_rate *= std::max(0.0, 1.0 - m_beta * gradient);
        m_negativeRun = 0;
    }
    m_rate = std::clamp(m_rate, std::min(double(m_minRate.GetBitRate()), m_lineRate), m_lineRate);
    NS_LOG_DEBUG("rtt=" << rtt << " gradient=" << gradient << " rate=" << m_rate);
}

std::string
TimelyCongestionControl::GetName() const
{
    return "timely";
}

CcTraceState
TimelyCongestionControl::GetTraceState() const
{
    CcTraceState state;
    state.rate = double(GetRate().GetBitRate());
    state.rtt = m_lastRtt;
    return state;
}

Time
TimelyCongestionControl::GetRttDiff() const
{
    return Seconds(m_rttDiff);
}

uint32_t
TimelyCongestionControl::GetCompletions() const
{
    return m_completions;
}

} // namespace ns3
