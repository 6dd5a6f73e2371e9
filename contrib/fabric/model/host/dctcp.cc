#include "dctcp.h"

#include "sim/fabric-plugin.h"

#include "ns3/abort.h"
#include "ns3/double.h"
#include "ns3/log.h"

#include <algorithm>
#include <cmath>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("DctcpCongestionControl");
NS_OBJECT_ENSURE_REGISTERED(DctcpCongestionControl);
FABRIC_PLUGIN(FabricPlugin(PluginKind::CongestionControl,
                           "dctcp",
                           &DctcpCongestionControl::GetTypeId,
                           "DCTCP sender (receivers echo ECN in ACKs)")
                  .Transport("roce")
                  .Section("dctcp")
                  .EchoesEcn());
// The same class on the UB window; its keys keep their section (the switches mark ECN per
// switch.ecn and every UB ACK echoes the mark).
FABRIC_PLUGIN(FabricPlugin(PluginKind::CongestionControl,
                           "dctcp",
                           &DctcpCongestionControl::GetTypeId,
                           "DCTCP on the UB window (the switches mark ECN per switch.ecn)")
                  .Transport("ub")
                  .Section("ub_dctcp"));

TypeId
DctcpCongestionControl::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::DctcpCongestionControl")
            .SetParent<FabricCongestionControl>()
            .SetGroupName("Fabric")
            .AddConstructor<DctcpCongestionControl>()
            .AddAttribute("G",
                          "Gain g of alpha <- (1-g) alpha + g F, once per window of data "
                          "(DCTCP paper §3.4: 1/16).",
                          DoubleValue(1.0 / 16),
                          MakeDoubleAccessor(&DctcpCongestionControl::m_g),
                          MakeDoubleChecker<double>(0.0, 1.0))
            .AddAttribute("InitialAlpha",
                          "Alpha before the first estimate (Linux dctcp_alpha_on_init: 1).",
                          DoubleValue(1.0),
                          MakeDoubleAccessor(&DctcpCongestionControl::m_initialAlpha),
                          MakeDoubleChecker<double>(0.0, 1.0))
            .AddAttribute("InitialWindow",
                          "Window at the start of a message; 0B = line rate x BaseRtt (the "
                          "HPCC simulator's BDP window).",
                          QueueSizeValue(QueueSize("0B")),
                          MakeQueueSizeAccessor(&DctcpCongestionControl::m_initialWindow),
                          MakeQueueSizeChecker())
            .AddAttribute("BaseRtt",
                          "Round trip a 0B InitialWindow is sized for.",
                          TimeValue(MicroSeconds(4)),
                          MakeTimeAccessor(&DctcpCongestionControl::m_baseRtt),
                          MakeTimeChecker(Time(0)))
            .AddAttribute("AdditiveIncrease",
                          "Window growth per window acknowledged outside CWR; 0B = one MTU "
                          "(paper: one segment per RTT).",
                          QueueSizeValue(QueueSize("0B")),
                          MakeQueueSizeAccessor(&DctcpCongestionControl::m_additiveIncrease),
                          MakeQueueSizeChecker())
            .AddAttribute("MaxWindow",
                          "Ceiling of the window; 0B = none (Linux's snd_cwnd_clamp default). "
                          "The window grows only while it limits the QP, so a QP that its line "
                          "rate limits stays near line rate x RTT without a ceiling.",
                          QueueSizeValue(QueueSize("0B")),
                          MakeQueueSizeAccessor(&DctcpCongestionControl::m_maxWindow),
                          MakeQueueSizeChecker())
            .AddAttribute("MinWindow",
                          "Floor of the window after a cut; 0B = one full packet (the NIC "
                          "always lets one out).",
                          QueueSizeValue(QueueSize("0B")),
                          MakeQueueSizeAccessor(&DctcpCongestionControl::m_minWindow),
                          MakeQueueSizeChecker());
    return tid;
}

DctcpCongestionControl::DctcpCongestionControl() = default;

DctcpCongestionControl::~DctcpCongestionControl() = default;

void
DctcpCongestionControl::Start(DataRate lineRate, uint32_t mtu)
{
    NS_LOG_FUNCTION(this << lineRate << mtu);
    for (const QueueSize* q : {&m_initialWindow, &m_additiveIncrease, &m_minWindow, &m_maxWindow})
    {
        NS_ABORT_MSG_IF(q->GetUnit() != QueueSizeUnit::BYTES,
                        "DctcpCongestionControl window sizes must be given in bytes");
    }
    const CcSender& sender = Sender();
    const double packet = sender.packetBytes ? double(sender.packetBytes) : double(mtu);
    m_lineRate = lineRate;
    m_increase = m_additiveIncrease.GetValue() ? double(m_additiveIncrease.GetValue()) : mtu;
    m_floor = m_minWindow.GetValue() ? double(m_minWindow.GetValue()) : packet;
    m_packet = sender.packetMustFit ? packet : 0.0;
    double bdp = std::round(lineRate.GetBitRate() / 8.0 * m_baseRtt.GetSeconds());
    m_cwnd = m_initialWindow.GetValue() ? double(m_initialWindow.GetValue()) : bdp;
    m_cwnd = std::max(m_cwnd, m_floor);
    m_alpha = m_initialAlpha;
    m_ackedTotal = 0;
    m_sentTotal = 0;
    m_windowEnd = 0;
    m_firstWindow = true;
    m_windowAcked = 0;
    m_windowMarked = 0;
    m_cwr = false;
    m_cwrEnd = 0;
}

DataRate
DctcpCongestionControl::GetRate() const
{
    return m_lineRate;
}

void
DctcpCongestionControl::OnAck(const CcFeedback& ack)
{
    m_ackedTotal += ack.ackedBytes;
    if (ack.ackedBytes > 0 || ack.inflightBytes > 0)
    {
        // SND.NXT. A UB congestion notice that acknowledges nothing says nothing of it.
        m_sentTotal = m_ackedTotal + ack.inflightBytes;
    }
    m_windowAcked += ack.ackedBytes;
    m_windowMarked += ack.ecnEcho ? ack.ackedBytes : 0;
    if (m_ackedTotal > m_windowEnd)
    {
        // A window of data is acknowledged: the fraction of it that was marked is one sample.
        if (!m_firstWindow && m_windowAcked > 0)
        {
            double f = double(m_windowMarked) / double(m_windowAcked);
            m_alpha = (1.0 - m_g) * m_alpha + m_g * f;
            NS_LOG_DEBUG("F=" << f << " alpha=" << m_alpha);
        }
        m_firstWindow = false;
        m_windowEnd = m_sentTotal;
        m_windowAcked = 0;
        m_windowMarked = 0;
    }
    if (m_cwr && m_ackedTotal > m_cwrEnd)
    {
        m_cwr = false;
    }
    if (ack.ecnEcho && !m_cwr)
    {
        Cut(1.0 - m_alpha / 2.0);
    }
    else if (!m_cwr && WasWindowLimited(ack))
    {
        m_cwnd += m_increase * double(ack.ackedBytes) / m_cwnd;
        const uint64_t cap = m_maxWindow.GetValue();
        if (cap > 0)
        {
            m_cwnd = std::min(m_cwnd, std::max(double(cap), m_floor));
        }
    }
}

void
DctcpCongestionControl::OnLoss(uint32_t /* frameBytes */)
{
    if (!m_cwr)
    {
        Cut(0.5);
    }
}

void
DctcpCongestionControl::Cut(double factor)
{
    m_cwnd = std::max(m_floor, m_cwnd * factor);
    m_cwr = true;
    m_cwrEnd = m_sentTotal;
    NS_LOG_DEBUG("cut: cwnd=" << m_cwnd);
}

bool
DctcpCongestionControl::WasWindowLimited(const CcFeedback& ack) const
{
    // Between two ACKs the window and the first unacknowledged byte stay put while the bytes
    // sent only grow, so the bytes outstanding just before this ACK show whether the window
    // stopped the sender at some time since the previous ACK: Linux's tcp_is_cwnd_limited for
    // that interval. The RoCE NIC sends while they are below the window
    // (RdmaNic::WindowOpen): it was stopped when they reached it. The UB NIC sends a frame only
    // if it fits (UbNic::NextPsn): it was stopped when one more would not have. A sender held
    // back by its pacer or by the end of its data is not, and its window must not grow
    // (RFC 7661 §4.1: cwnd only grows while it is used).
    const double outstanding = double(ack.inflightBytes + ack.ackedBytes);
    return m_packet > 0 ? outstanding + m_packet > m_cwnd : outstanding >= m_cwnd;
}

uint64_t
DctcpCongestionControl::GetWindow() const
{
    return static_cast<uint64_t>(std::llround(m_cwnd));
}

std::string
DctcpCongestionControl::GetName() const
{
    return "dctcp";
}

double
DctcpCongestionControl::GetTraceValue() const
{
    return m_alpha;
}

double
DctcpCongestionControl::GetAlpha() const
{
    return m_alpha;
}

bool
DctcpCongestionControl::InCwr() const
{
    return m_cwr;
}

} // namespace ns3
