#include "timely.h"

#include "sim/fabric-plugin.h"

#include "ns3/abort.h"
#include "ns3/double.h"
#include "ns3/enum.h"
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
            .AddAttribute(
                "Variant",
                "When TIMELY updates and how it increases. paper: Algorithm 1 of the SIGCOMM "
                "2015 paper: an update per Segment of acknowledged payload; below TLow the rate "
                "grows by AdditiveIncrease, HaiMultiplier x AdditiveIncrease only after "
                "HaiThreshold gradients <= 0 in a row. simulator: the HPCC-family simulators "
                "(alibaba-edu/High-Precision-Congestion-Control rdma-hw.cc:923-993, "
                "inet-tub/ns3-datacenter rdma-hw.cc:1103-1173): an update once per round trip "
                "(the ACK passes the snd_nxt of the previous update), every increase counts "
                "towards HaiMultiplier x AdditiveIncrease after HaiThreshold, whole-bit/s "
                "rates, whole-ns RTTs.",
                EnumValue(PAPER),
                MakeEnumAccessor(&TimelyCongestionControl::m_variant),
                MakeEnumChecker(PAPER, "paper", SIMULATOR, "simulator"))
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
                          "Additive increment delta per completion (paper: 10Mbps); the simulator "
                          "variant's RATE_AI.",
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
                          "increase (paper: 5); simulator variant: increases since the last "
                          "decrease before RATE_HAI (inet-tub/ns3-datacenter rdma-hw.cc:1140: 5).",
                          UintegerValue(5),
                          MakeUintegerAccessor(&TimelyCongestionControl::m_haiThreshold),
                          MakeUintegerChecker<uint32_t>())
            .AddAttribute("HaiMultiplier",
                          "N: hyper-active increase adds N x AdditiveIncrease (paper: 5); the "
                          "simulator variant's RATE_HAI / RATE_AI (alibaba-edu/"
                          "High-Precision-Congestion-Control simulation/run.py:133-134: 5).",
                          UintegerValue(5),
                          MakeUintegerAccessor(&TimelyCongestionControl::m_haiMultiplier),
                          MakeUintegerChecker<uint32_t>(1))
            .AddAttribute("Segment",
                          "Payload acknowledged per completion event (paper: 16-64 KB); paper "
                          "variant only.",
                          QueueSizeValue(QueueSize("16KiB")),
                          MakeQueueSizeAccessor(&TimelyCongestionControl::m_segment),
                          MakeQueueSizeChecker())
            .AddAttribute("MinRate",
                          "Floor of the rate (alibaba-edu/High-Precision-Congestion-Control "
                          "rdma-hw.cc:22-26: 100Mbps).",
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
    m_lineRateBps = lineRate.GetBitRate();
    m_curRate = m_lineRateBps; // rdma-hw.cc:269-270: tmly.m_curRate = the NIC's rate
    m_ackedBytes = 0;
    m_lastUpdateSeq = 0;
    m_lastRttNs = 0;
    m_rttDiffNs = 0;
    m_incStage = 0;
}

void
TimelyCongestionControl::Stop()
{
}

DataRate
TimelyCongestionControl::GetRate() const
{
    if (m_variant == SIMULATOR)
    {
        return DataRate(m_curRate);
    }
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
    if (m_variant == SIMULATOR)
    {
        SimulatorAck(ack);
        return;
    }
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

void
TimelyCongestionControl::SimulatorAck(const CcFeedback& ack)
{
    // HandleAckTimely (ns3-datacenter rdma-hw.cc:1103-1111): the ACK's sequence is the
    // cumulative payload acknowledged; an ACK that does not pass the snd_nxt recorded at the
    // last update goes to FastReactTimely, which does nothing (:1172-1173).
    m_ackedBytes += ack.ackedBytes;
    if (m_ackedBytes <= m_lastUpdateSeq)
    {
        return;
    }
    // The reference's RTT: now minus the send time the ACK echoes (:1114), in nanosecond time
    // steps; the fabric's picosecond sample is truncated to whole nanoseconds.
    SimulatorUpdate(ack.rtt.GetNanoSeconds(), m_ackedBytes + ack.inflightBytes);
    m_lastRtt = ack.rtt;
}

void
TimelyCongestionControl::SimulatorUpdate(int64_t rttNs, uint64_t sndNxt)
{
    ++m_completions;
    if (m_lastUpdateSeq != 0) // not the first RTT (:1116)
    {
        const int64_t newRttDiff = rttNs - m_lastRttNs;
        const double rttDiff = (1 - m_alpha) * m_rttDiffNs + m_alpha * newRttDiff; // :1118
        const double gradient = rttDiff / double(m_minRtt.GetNanoSeconds());       // :1119
        const int64_t tLow = m_tLow.GetNanoSeconds();
        const int64_t tHigh = m_tHigh.GetNanoSeconds();
        bool inc = false;
        double c = 0;
        if (rttNs < tLow) // :1126-1138
        {
            inc = true;
        }
        else if (rttNs > tHigh)
        {
            c = 1 - m_beta * (1 - double(tHigh) / double(rttNs));
        }
        else if (gradient <= 0)
        {
            inc = true;
        }
        else
        {
            c = std::max(0.0, 1 - m_beta * gradient);
        }
        const uint64_t ai = m_additiveIncrease.GetBitRate();
        if (inc) // :1139-1151: RATE_AI for the first HaiThreshold increases, then RATE_HAI
        {
            m_curRate += m_incStage < m_haiThreshold ? ai : uint64_t(m_haiMultiplier) * ai;
            m_curRate = std::min(m_curRate, m_lineRateBps);
            ++m_incStage;
        }
        else // :1152-1158: DataRate * double truncates to whole bit/s
        {
            const uint64_t minRate = std::min(m_minRate.GetBitRate(), m_lineRateBps);
            m_curRate = std::max(minRate, static_cast<uint64_t>(double(m_curRate) * c));
            m_incStage = 0;
        }
        m_rttDiffNs = rttDiff;
        NS_LOG_DEBUG("rtt=" << rttNs << "ns gradient=" << gradient << (inc ? " ^ " : " v ")
                            << m_curRate);
    }
    if (sndNxt > m_lastUpdateSeq) // :1166-1170
    {
        m_lastUpdateSeq = sndNxt;
        m_lastRttNs = rttNs;
    }
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
    if (m_variant == SIMULATOR)
    {
        return Time::FromDouble(m_rttDiffNs, Time::NS);
    }
    return Seconds(m_rttDiff);
}

uint32_t
TimelyCongestionControl::GetCompletions() const
{
    return m_completions;
}

} // namespace ns3
