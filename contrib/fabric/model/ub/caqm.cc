#include "caqm.h"

#include "link/frame-codec.h"
#include "sim/fabric-now.h"
#include "sim/fabric-plugin.h"
#include "switch/fabric-switch.h"
#include "ub-header-view.h"
#include "wire/ub-header.h"

#include "ns3/double.h"
#include "ns3/log.h"
#include "ns3/simulator.h"

#include <algorithm>
#include <cmath>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("Caqm");
NS_OBJECT_ENSURE_REGISTERED(CaqmCongestionControl);
NS_OBJECT_ENSURE_REGISTERED(CaqmSwitch);
FABRIC_PLUGIN(FabricPlugin(PluginKind::CongestionControl,
                           "caqm",
                           &CaqmCongestionControl::GetTypeId,
                           "C-AQM at the UB NICs (the switches run the caqm stage)")
                  .Transport("ub")
                  .Section("caqm")
                  .SwitchStage("caqm"));
FABRIC_PLUGIN(
    FabricPlugin(
        PluginKind::EgressStage,
        "caqm",
        &CaqmSwitch::GetTypeId,
        "C-AQM at the switches: grants or refuses the window increases UB data frames request")
        .Section("caqm_switch")
        .MtuAttribute("Mtu"));

TypeId
CaqmCongestionControl::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::CaqmCongestionControl")
            .SetParent<UbCongestionControl>()
            .SetGroupName("Fabric")
            .AddConstructor<CaqmCongestionControl>()
            .AddAttribute("Alpha",
                          "Congestion avoidance: MTUs of increase requested per window of packets.",
                          DoubleValue(0.5),
                          MakeDoubleAccessor(&CaqmCongestionControl::m_alpha),
                          MakeDoubleChecker<double>(0.0))
            .AddAttribute("Beta",
                          "Window decrease per congestion-marked packet, in MTUs.",
                          DoubleValue(0.5),
                          MakeDoubleAccessor(&CaqmCongestionControl::m_beta),
                          MakeDoubleChecker<double>(0.0))
            .AddAttribute("Gamma",
                          "At or below one MTU a decrease halves the window down to Gamma MTUs.",
                          DoubleValue(0.5),
                          MakeDoubleAccessor(&CaqmCongestionControl::m_gamma),
                          MakeDoubleChecker<double>(0.0))
            .AddAttribute("Theta",
                          "RTTs without marks or refusals after which slow start resumes.",
                          DoubleValue(10.0),
                          MakeDoubleAccessor(&CaqmCongestionControl::m_theta),
                          MakeDoubleChecker<double>(0.0))
            .AddAttribute("HintUnit",
                          "Bytes per unit of the 8-bit Hint field.",
                          QueueSizeValue(QueueSize("32B")),
                          MakeQueueSizeAccessor(&CaqmCongestionControl::m_hintUnit),
                          MakeQueueSizeChecker())
            .AddAttribute("InitialWindow",
                          "Window of a new channel (0B = 10 MTU).",
                          QueueSizeValue(QueueSize("0B")),
                          MakeQueueSizeAccessor(&CaqmCongestionControl::m_initialWindow),
                          MakeQueueSizeChecker())
            .AddAttribute("InitialRtt",
                          "RTT assumed until the first sample (sets the slow-start return time).",
                          TimeValue(MicroSeconds(10)),
                          MakeTimeAccessor(&CaqmCongestionControl::m_initialRtt),
                          MakeTimeChecker(NanoSeconds(1)));
    return tid;
}

CaqmCongestionControl::CaqmCongestionControl() = default;

void
CaqmCongestionControl::Start(DataRate lineRate, uint32_t mtu)
{
    m_mtu = mtu;
    m_window = m_initialWindow.GetValue() > 0 ? double(m_initialWindow.GetValue()) : 10.0 * mtu;
    m_srtt = m_initialRtt;
    m_slowStart = true;
}

UbCci
CaqmCongestionControl::OnSend(uint32_t frameBytes)
{
    if (!m_slowStart && FabricNow() - m_lastCongestion > m_srtt * m_theta)
    {
        m_slowStart = true;
    }
    double unit = double(std::max<uint64_t>(1, m_hintUnit.GetValue()));
    double request;
    if (m_slowStart || m_window < m_mtu)
    {
        request = m_mtu / unit;
    }
    else
    {
        m_requestCarry += m_alpha * double(m_mtu) * m_mtu / m_window / unit;
        request = std::floor(m_requestCarry);
        m_requestCarry -= request;
    }
    UbCci cci;
    cci.enabled = true;
    cci.hint = static_cast<uint8_t>(std::min(255.0, request));
    cci.increase = cci.hint > 0;
    return cci;
}

void
CaqmCongestionControl::OnAck(const CcFeedback& fb)
{
    if (fb.rtt.IsStrictlyPositive())
    {
        m_srtt = m_srtt + (fb.rtt - m_srtt) / 8;
    }
    if (fb.congestedCount > 0 || !fb.increase)
    {
        // Marked or refused: the path has no spare credit; stop doubling.
        m_slowStart = false;
        m_lastCongestion = FabricNow();
    }
    if (fb.increase)
    {
        m_window += double(fb.hintSum) * double(m_hintUnit.GetValue());
    }
    if (fb.congestedCount > 0)
    {
        double mtu = m_mtu;
        m_window = std::max(m_window - fb.congestedCount * m_beta * mtu, mtu / 2);
        if (m_window <= mtu)
        {
            m_window = std::max(m_window / 2, m_gamma * mtu);
        }
    }
    m_window = std::max(m_window, double(m_mtu));
}

TypeId
CaqmSwitch::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::CaqmSwitch")
            .SetParent<EgressStage>()
            .SetGroupName("Fabric")
            .AddConstructor<CaqmSwitch>()
            .AddAttribute("UpdatePeriod",
                          "Period of the credit update of each egress port.",
                          TimeValue(NanoSeconds(500)),
                          MakeTimeAccessor(&CaqmSwitch::m_updatePeriod),
                          MakeTimeChecker(NanoSeconds(1)))
            .AddAttribute("Lambda",
                          "Smoothing of the credit update.",
                          DoubleValue(0.5),
                          MakeDoubleAccessor(&CaqmSwitch::m_lambda),
                          MakeDoubleChecker<double>(0.0, 1.0))
            .AddAttribute("Beta",
                          "Credit returned per marked packet, in MTUs.",
                          DoubleValue(0.5),
                          MakeDoubleAccessor(&CaqmSwitch::m_beta),
                          MakeDoubleChecker<double>(0.0))
            .AddAttribute("MarkProbability",
                          "Probability of marking when credit is short but not negative.",
                          DoubleValue(0.1),
                          MakeDoubleAccessor(&CaqmSwitch::m_markProbability),
                          MakeDoubleChecker<double>(0.0, 1.0))
            .AddAttribute("TargetQueue",
                          "Queue the port lets build before it stops granting (Qt).",
                          QueueSizeValue(QueueSize("40960B")),
                          MakeQueueSizeAccessor(&CaqmSwitch::m_targetQueue),
                          MakeQueueSizeChecker())
            .AddAttribute("HintUnit",
                          "Bytes per unit of the Hint field (as the hosts).",
                          QueueSizeValue(QueueSize("32B")),
                          MakeQueueSizeAccessor(&CaqmSwitch::m_hintUnit),
                          MakeQueueSizeChecker())
            .AddAttribute("Mtu",
                          "Packet size the credit return is counted in.",
                          QueueSizeValue(QueueSize("4096B")),
                          MakeQueueSizeAccessor(&CaqmSwitch::m_mtu),
                          MakeQueueSizeChecker());
    return tid;
}

CaqmSwitch::CaqmSwitch()
{
}

void
CaqmSwitch::AddPort(DataRate rate, bool towardHost)
{
    PortState p;
    p.rate = rate;
    p.towardHost = towardHost;
    m_ports.push_back(p);
}

void
CaqmSwitch::Install(const FabricSwitch& sw)
{
    for (uint32_t i = 0; i < sw.GetNPorts(); ++i)
    {
        AddPort(sw.GetPort(i)->GetDataRate(), sw.IsPortTowardHost(i));
    }
}

StageVerdict
CaqmSwitch::OnDequeue(FabricNetDevice& port, QueuedFrame& item)
{
    FrameInfo& info = item.info; // parsed when first queued
    if (item.flowId == kNoFlow || !item.hasInfo || !IsUbFrame(info) ||
        !UbOpcode::UbCarriesPsn(info.opcode))
    {
        return StageVerdict::Pass();
    }
    // The UB view keeps the CCI in aux16 (ub-header-view.h).
    UbCci in = UbCci::Decode(info.aux16);
    UbCci out = OnDequeue(port.GetPortIndex(), in, port.GetTotalQueueBytes(), item.bytes);
    uint16_t field = out.Encode();
    if (field != info.aux16)
    {
        // Only the two CCI bytes change (ub-header.h: bytes 2-3 of the UB transport header).
        constexpr uint32_t kCciEnd = kEthernetIpv4UdpBytes + 4;
        uint8_t front[kCciEnd];
        item.frame->CopyData(front, kCciEnd);
        front[kCciEnd - 2] = static_cast<uint8_t>(field >> 8);
        front[kCciEnd - 1] = static_cast<uint8_t>(field);
        RewriteFrameFront(*item.frame.Peek(), front, kCciEnd);
        info.aux16 = field;
    }
    return StageVerdict::Pass();
}

int64_t
CaqmSwitch::AssignStreams(int64_t stream)
{
    m_rng.SetStream(stream);
    return 1;
}

void
CaqmSwitch::Update(PortState& p, uint64_t queueBytes)
{
    int64_t period = FabricNow().GetTimeStep() / m_updatePeriod.GetTimeStep();
    if (period == p.period)
    {
        return;
    }
    // The update at the start of this period uses the last complete one; when periods passed
    // without a dequeue, the last complete period sent and granted nothing.
    bool previousWasLast = period == p.period + 1;
    double sent = previousWasLast ? double(p.sentBytes) : 0.0;
    double granted = previousWasLast ? p.granted : 0.0;
    double capacity = m_updatePeriod.GetSeconds() * p.rate.GetBitRate() / 8.0;
    p.credit = m_lambda *
               (capacity - sent + double(m_targetQueue.GetValue()) - double(queueBytes) - granted);
    p.sentBytes = 0;
    p.granted = 0;
    p.deficit = 0;
    p.period = period;
}

UbCci
CaqmSwitch::OnDequeue(uint32_t port, UbCci cci, uint64_t queueBytes, uint32_t frameBytes)
{
    PortState& p = m_ports[port];
    Update(p, queueBytes);
    p.sentBytes += frameBytes;
    if (!cci.enabled)
    {
        return cci;
    }
    double returned = m_beta * double(m_mtu.GetValue());
    double hint = cci.increase ? double(cci.hint) * double(m_hintUnit.GetValue()) : 0.0;
    auto mark = [&]() {
        cci.congested = true;
        cci.increase = false;
        cci.lastHop = p.towardHost;
        ++m_marked;
    };
    if (cci.congested)
    {
        // Marked upstream: its sender will shrink by beta MTU, which frees that much here.
        p.credit += returned;
        p.granted -= returned;
    }
    else if (p.credit >= hint)
    {
        p.credit -= hint;
        p.granted += hint;
    }
    else if (p.credit >= 0)
    {
        if (m_rng.GetValue() < m_markProbability)
        {
            mark();
            p.deficit += returned;
        }
        else if (p.deficit >= hint)
        {
            p.deficit -= hint;
        }
        else
        {
            cci.increase = false;
            ++m_refused;
        }
    }
    else
    {
        mark();
        p.credit += returned;
    }
    return cci;
}

} // namespace ns3
