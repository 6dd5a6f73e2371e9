#include "swift.h"

#include "sim/fabric-now.h"
#include "sim/fabric-plugin.h"

#include "ns3/abort.h"
#include "ns3/double.h"
#include "ns3/log.h"
#include "ns3/simulator.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <cmath>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("SwiftCongestionControl");
NS_OBJECT_ENSURE_REGISTERED(SwiftCongestionControl);
FABRIC_PLUGIN(FabricPlugin(PluginKind::CongestionControl,
                           "swift",
                           &SwiftCongestionControl::GetTypeId,
                           "Swift window control")
                  .Transport("roce")
                  .Section("swift")
                  .MtuAttribute("Mtu"));

TypeId
SwiftCongestionControl::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::SwiftCongestionControl")
            .SetParent<RoceCongestionControl>()
            .SetGroupName("Fabric")
            .AddConstructor<SwiftCongestionControl>()
            .AddAttribute("BaseTarget",
                          "Target delay of one hop with few flows (Swift paper §3.5).",
                          TimeValue(MicroSeconds(5)),
                          MakeTimeAccessor(&SwiftCongestionControl::m_baseTarget),
                          MakeTimeChecker(Time(0)))
            .AddAttribute("PerHopScaling",
                          "h: target added per switch hop (§3.5).",
                          TimeValue(MicroSeconds(1)),
                          MakeTimeAccessor(&SwiftCongestionControl::m_perHop),
                          MakeTimeChecker(Time(0)))
            .AddAttribute("Hops",
                          "Switch hops the target is scaled by; 0 = the QP's own path (the "
                          "paper reads them from the IP TTL, htsim from the route), 1 when the "
                          "NIC does not know it.",
                          UintegerValue(0),
                          MakeUintegerAccessor(&SwiftCongestionControl::m_hops),
                          MakeUintegerChecker<uint32_t>())
            .AddAttribute("FsRange",
                          "fs_range: most target flow scaling adds, reached at FsMinCwnd (§3.5). "
                          "0 disables flow scaling.",
                          TimeValue(MicroSeconds(5)),
                          MakeTimeAccessor(&SwiftCongestionControl::m_fsRange),
                          MakeTimeChecker(Time(0)))
            .AddAttribute("FsMinCwnd",
                          "fs_min_cwnd, packets: at or below it flow scaling adds FsRange.",
                          DoubleValue(0.1),
                          MakeDoubleAccessor(&SwiftCongestionControl::m_fsMinCwnd),
                          MakeDoubleChecker<double>(1e-9))
            .AddAttribute("FsMaxCwnd",
                          "fs_max_cwnd, packets: at or above it flow scaling adds nothing.",
                          DoubleValue(100),
                          MakeDoubleAccessor(&SwiftCongestionControl::m_fsMaxCwnd),
                          MakeDoubleChecker<double>(1e-9))
            .AddAttribute("AdditiveIncrease",
                          "ai, packets per RTT while the delay is below target.",
                          DoubleValue(1.0),
                          MakeDoubleAccessor(&SwiftCongestionControl::m_ai),
                          MakeDoubleChecker<double>(0.0))
            .AddAttribute("Beta",
                          "Multiplicative decrease constant beta.",
                          DoubleValue(0.8),
                          MakeDoubleAccessor(&SwiftCongestionControl::m_beta),
                          MakeDoubleChecker<double>(0.0, 1.0))
            .AddAttribute("MaxMdf",
                          "max_mdf: largest fraction of cwnd one decrease removes.",
                          DoubleValue(0.5),
                          MakeDoubleAccessor(&SwiftCongestionControl::m_maxMdf),
                          MakeDoubleChecker<double>(0.0, 1.0))
            .AddAttribute("MinCwnd",
                          "Floor of cwnd, packets (below 1 the QP is paced).",
                          DoubleValue(0.001),
                          MakeDoubleAccessor(&SwiftCongestionControl::m_minCwnd),
                          MakeDoubleChecker<double>(1e-9))
            .AddAttribute("MaxCwnd",
                          "Ceiling and initial value of cwnd; 0B = line rate x (BaseTarget + "
                          "hops x PerHopScaling).",
                          QueueSizeValue(QueueSize("0B")),
                          MakeQueueSizeAccessor(&SwiftCongestionControl::m_maxCwndAttr),
                          MakeQueueSizeChecker())
            .AddAttribute("Mtu",
                          "Payload bytes of one packet, the unit of cwnd (set from host.mtu).",
                          UintegerValue(4096),
                          MakeUintegerAccessor(&SwiftCongestionControl::m_mtu),
                          MakeUintegerChecker<uint32_t>(1));
    return tid;
}

SwiftCongestionControl::SwiftCongestionControl() = default;

SwiftCongestionControl::~SwiftCongestionControl() = default;

void
SwiftCongestionControl::Start(DataRate lineRate)
{
    NS_ABORT_MSG_IF(lineRate.GetBitRate() == 0, "Swift needs a non-zero line rate");
    NS_ABORT_MSG_IF(m_maxCwndAttr.GetUnit() != QueueSizeUnit::BYTES,
                    "SwiftCongestionControl::MaxCwnd must be given in bytes");
    NS_ABORT_MSG_IF(m_fsMinCwnd >= m_fsMaxCwnd,
                    "SwiftCongestionControl: FsMinCwnd must be below FsMaxCwnd");
    m_lineRate = lineRate;
    double bytes = double(m_maxCwndAttr.GetValue());
    if (bytes == 0)
    {
        Time t = m_baseTarget + m_perHop * int64_t(GetHops());
        bytes = std::round(lineRate.GetBitRate() / 8.0 * t.GetSeconds());
    }
    m_maxCwnd = std::max(bytes / m_mtu, m_minCwnd);
    m_cwnd = m_maxCwnd;
    m_lastDelay = Time(0);
    m_lastDecrease = Time(0);
    m_decreased = false;
}

void
SwiftCongestionControl::SetPathHops(uint32_t switches)
{
    m_pathHops = switches;
}

uint32_t
SwiftCongestionControl::GetHops() const
{
    if (m_hops > 0)
    {
        return m_hops; // configured
    }
    return m_pathHops > 0 ? m_pathHops : 1;
}

void
SwiftCongestionControl::Stop()
{
}

DataRate
SwiftCongestionControl::GetRate() const
{
    if (m_cwnd >= 1.0 || !m_lastDelay.IsStrictlyPositive())
    {
        return m_lineRate;
    }
    // pacing_delay = rtt / cwnd between packets: cwnd packets per RTT.
    double bps = m_cwnd * m_mtu * 8.0 / m_lastDelay.GetSeconds();
    return DataRate(
        static_cast<uint64_t>(std::llround(std::min(bps, double(m_lineRate.GetBitRate())))));
}

void
SwiftCongestionControl::OnCnp()
{
}

void
SwiftCongestionControl::OnBytesSent(uint32_t bytes)
{
}

Time
SwiftCongestionControl::GetTargetDelay() const
{
    Time target = m_baseTarget + m_perHop * int64_t(GetHops());
    const double range = m_fsRange.GetSeconds();
    if (range > 0)
    {
        const double a = range / (1.0 / std::sqrt(m_fsMinCwnd) - 1.0 / std::sqrt(m_fsMaxCwnd));
        const double b = -a / std::sqrt(m_fsMaxCwnd);
        const double fs = std::clamp(a / std::sqrt(m_cwnd) + b, 0.0, range);
        target += Seconds(fs);
    }
    return target;
}

void
SwiftCongestionControl::OnAck(const CcFeedback& ack)
{
    const Time delay = ack.rtt;
    m_lastDelay = delay;
    const Time target = GetTargetDelay();
    const double acked = double(ack.ackedBytes) / m_mtu;
    if (delay < target)
    {
        m_cwnd += m_cwnd >= 1.0 ? m_ai * acked / m_cwnd : m_ai * acked;
    }
    else
    {
        const Time now = FabricNow();
        if (!m_decreased || now - m_lastDecrease >= delay)
        {
            const double excess = (delay - target).GetSeconds() / delay.GetSeconds();
            m_cwnd *= std::max(1.0 - m_beta * excess, 1.0 - m_maxMdf);
            m_lastDecrease = now;
            m_decreased = true;
        }
    }
    m_cwnd = std::clamp(m_cwnd, m_minCwnd, m_maxCwnd);
    NS_LOG_DEBUG("delay=" << delay << " target=" << target << " cwnd=" << m_cwnd);
}

uint64_t
SwiftCongestionControl::GetWindow() const
{
    return std::max<uint64_t>(1, static_cast<uint64_t>(std::llround(m_cwnd * m_mtu)));
}

std::string
SwiftCongestionControl::GetName() const
{
    return "swift";
}

CcTraceState
SwiftCongestionControl::GetTraceState() const
{
    CcTraceState state;
    state.rate = double(GetRate().GetBitRate());
    state.windowBytes = GetWindow();
    state.rtt = m_lastDelay;
    return state;
}

double
SwiftCongestionControl::GetCwndPackets() const
{
    return m_cwnd;
}

} // namespace ns3
