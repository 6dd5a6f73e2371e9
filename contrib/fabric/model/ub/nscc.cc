#include "nscc.h"

#include "sim/fabric-now.h"
#include "sim/fabric-plugin.h"

#include "ns3/boolean.h"
#include "ns3/double.h"
#include "ns3/log.h"
#include "ns3/simulator.h"
#include "ns3/uinteger.h"

#include <algorithm>

namespace ns3
{

namespace
{

/// Bytes a link of \p rate carries in \p t (picoseconds, so that whole-microsecond products of
/// usual rates stay exact in a double).
double
BytesIn(Time t, DataRate rate)
{
    return double(t.GetPicoSeconds()) * double(rate.GetBitRate()) / 8e12;
}

} // namespace

NS_LOG_COMPONENT_DEFINE("Nscc");
NS_OBJECT_ENSURE_REGISTERED(NsccCongestionControl);
FABRIC_PLUGIN(
    FabricPlugin(PluginKind::CongestionControl,
                 "nscc",
                 &NsccCongestionControl::GetTypeId,
                 "Ultra Ethernet NSCC at the UB NICs (the switches mark ECN per switch.ecn)")
        .Transport("ub")
        .Section("nscc"));

TypeId
NsccCongestionControl::GetTypeId()
{
    // Sources of the defaults: nscc.h (uet-htsim UecSrc::initNsccParams).
    static TypeId tid =
        TypeId("ns3::NsccCongestionControl")
            .SetParent<UbCongestionControl>()
            .SetGroupName("Fabric")
            .AddConstructor<NsccCongestionControl>()
            .AddAttribute("NetworkRtt",
                          "Unloaded round trip of the fabric: sizes the BDP that scales the "
                          "constants, the initial base RTT and the maximum window.",
                          TimeValue(MicroSeconds(10)),
                          MakeTimeAccessor(&NsccCongestionControl::m_networkRtt),
                          MakeTimeChecker(NanoSeconds(1)))
            .AddAttribute("TrimmingEnabled",
                          "The switches trim instead of dropping (switch.trim.enabled sets it): "
                          "a 0 TargetDelay means 0.75 x NetworkRtt instead of NetworkRtt "
                          "(uet-htsim uec.cpp:107-111).",
                          BooleanValue(false),
                          MakeBooleanAccessor(&NsccCongestionControl::m_trimmingEnabled),
                          MakeBooleanChecker())
            .AddAttribute("TargetDelay",
                          "Target queuing delay T (0 = NetworkRtt without trimming, 0.75 x "
                          "NetworkRtt with TrimmingEnabled: uet-htsim uec.cpp:104-111).",
                          TimeValue(Time(0)),
                          MakeTimeAccessor(&NsccCongestionControl::m_targetAttr),
                          MakeTimeChecker(Time(0)))
            .AddAttribute("ReferenceRate",
                          "Link rate of the reference network the constants are given for.",
                          DataRateValue(DataRate("100Gbps")),
                          MakeDataRateAccessor(&NsccCongestionControl::m_referenceRate),
                          MakeDataRateChecker())
            .AddAttribute("ReferenceRtt",
                          "Round trip of the reference network the constants are given for.",
                          TimeValue(MicroSeconds(12)),
                          MakeTimeAccessor(&NsccCongestionControl::m_referenceRtt),
                          MakeTimeChecker(NanoSeconds(1)))
            .AddAttribute("FairIncrease",
                          "Fair increase per window of acknowledged bytes, in MTUs (scaled by a).",
                          DoubleValue(5.0),
                          MakeDoubleAccessor(&NsccCongestionControl::m_fairIncrease),
                          MakeDoubleChecker<double>(0.0))
            .AddAttribute("ProportionalGain",
                          "Proportional increase per window at zero delay, in MTUs (scaled by "
                          "a * b; alpha = gain * MTU * a * b / T).",
                          DoubleValue(4.0),
                          MakeDoubleAccessor(&NsccCongestionControl::m_proportionalGain),
                          MakeDoubleChecker<double>(0.0))
            .AddAttribute("Eta",
                          "Additive increase once per AdjustPeriod, in MTUs (scaled by a).",
                          DoubleValue(0.15),
                          MakeDoubleAccessor(&NsccCongestionControl::m_eta),
                          MakeDoubleChecker<double>(0.0))
            .AddAttribute("FastIncreaseScale",
                          "Fast increase: window growth per acknowledged byte (scaled by a).",
                          DoubleValue(0.25),
                          MakeDoubleAccessor(&NsccCongestionControl::m_fastIncreaseScale),
                          MakeDoubleChecker<double>(0.0))
            .AddAttribute("FastIncreaseDelay",
                          "Fast increase applies while the delay stays below this.",
                          TimeValue(MicroSeconds(1)),
                          MakeTimeAccessor(&NsccCongestionControl::m_fastIncreaseDelay),
                          MakeTimeChecker(Time(0)))
            .AddAttribute("Gamma",
                          "Multiplicative decrease: W *= 1 - Gamma * (D - T) / D.",
                          DoubleValue(0.8),
                          MakeDoubleAccessor(&NsccCongestionControl::m_gamma),
                          MakeDoubleChecker<double>(0.0, 1.0))
            .AddAttribute("MaxDecrease",
                          "Smallest factor one multiplicative decrease applies.",
                          DoubleValue(0.5),
                          MakeDoubleAccessor(&NsccCongestionControl::m_maxDecrease),
                          MakeDoubleChecker<double>(0.0, 1.0))
            .AddAttribute("DelayWeight",
                          "Weight of a new sample in the averaged queuing delay D.",
                          DoubleValue(0.0125),
                          MakeDoubleAccessor(&NsccCongestionControl::m_delayWeight),
                          MakeDoubleChecker<double>(0.0, 1.0))
            .AddAttribute("QuickAdaptGate",
                          "Quick adapt acts when fewer than max window / 2^gate bytes were "
                          "acknowledged in its interval.",
                          UintegerValue(3),
                          MakeUintegerAccessor(&NsccCongestionControl::m_quickAdaptGate),
                          MakeUintegerChecker<uint32_t>(0, 32))
            .AddAttribute("QuickAdaptDelayFactor",
                          "Quick adapt acts on a delay above this many target delays.",
                          DoubleValue(4.0),
                          MakeDoubleAccessor(&NsccCongestionControl::m_quickAdaptDelayFactor),
                          MakeDoubleChecker<double>(0.0))
            .AddAttribute("AdjustPackets",
                          "Fulfill adjustment after this many MTUs acknowledged (packets).",
                          UintegerValue(8),
                          MakeUintegerAccessor(&NsccCongestionControl::m_adjustPackets),
                          MakeUintegerChecker<uint32_t>(1))
            .AddAttribute("AdjustPeriod",
                          "Fulfill adjustment at least this often; Eta once per period "
                          "(0 = NetworkRtt).",
                          TimeValue(Time(0)),
                          MakeTimeAccessor(&NsccCongestionControl::m_adjustPeriodAttr),
                          MakeTimeChecker(Time(0)))
            .AddAttribute("MaxWindowBdp",
                          "Maximum window in BDPs (base RTT x line rate).",
                          DoubleValue(1.5),
                          MakeDoubleAccessor(&NsccCongestionControl::m_maxWindowBdp),
                          MakeDoubleChecker<double>(0.0))
            .AddAttribute("InitialWindow",
                          "Window of a new channel (0B = the maximum window).",
                          QueueSizeValue(QueueSize("0B")),
                          MakeQueueSizeAccessor(&NsccCongestionControl::m_initialWindow),
                          MakeQueueSizeChecker());
    return tid;
}

NsccCongestionControl::NsccCongestionControl() = default;

void
NsccCongestionControl::Start(DataRate lineRate, uint32_t mtu)
{
    m_lineRate = lineRate;
    m_mtu = mtu;
    m_minWindow = double(mtu) + kUbFrameOverhead;
    // uet-htsim (htsim/sim/uec.cpp:104-111): a given target wins; otherwise the network RTT,
    // or three quarters of it where switches trim (a trimmed packet costs a NACK, not a drop
    // and a timeout, so the sender can run the queues shorter).
    m_target = m_targetAttr.IsStrictlyPositive() ? m_targetAttr
               : m_trimmingEnabled               ? m_networkRtt * 0.75
                                                 : m_networkRtt;
    m_adjustPeriod = m_adjustPeriodAttr.IsStrictlyPositive() ? m_adjustPeriodAttr : m_networkRtt;
    double referenceBdp = BytesIn(m_referenceRtt, m_referenceRate);
    double networkBdp = BytesIn(m_networkRtt, lineRate);
    m_scaleA = networkBdp / referenceBdp;
    double scaleB = m_target.GetSeconds() / m_referenceRtt.GetSeconds();
    m_fi = m_fairIncrease * m_mtu * m_scaleA;
    m_etaScaled = m_eta * m_mtu * m_scaleA;
    m_alphaScaled = m_proportionalGain * m_mtu * m_scaleA * scaleB / m_target.GetSeconds();
    SetBaseRtt(m_networkRtt);
    m_window = m_initialWindow.GetValue() > 0 ? double(m_initialWindow.GetValue()) : m_maxWindow;
    m_window = std::max(m_window, m_minWindow);
    Time now = FabricNow();
    m_lastAdjust = now;
    m_lastDecrease = now;
    m_quickAdaptEnd = now;
}

void
NsccCongestionControl::SetBaseRtt(Time rtt)
{
    m_baseRtt = rtt;
    m_maxWindow = std::max(m_minWindow, m_maxWindowBdp * BytesIn(rtt, m_lineRate));
}

UbCci
NsccCongestionControl::OnSend(uint32_t frameBytes)
{
    m_inflight += frameBytes;
    return UbCci(); // NSCC reads ECN; the switches' C-AQM is not involved
}

void
NsccCongestionControl::UpdateAverageDelay(Time delay, bool marked)
{
    // An unmarked packet with a long delay was delayed elsewhere than at a marking queue:
    // it pulls the average towards a quarter of the base RTT rather than towards itself.
    Time sample = (!marked && delay > m_target) ? m_baseRtt / 4 : delay;
    m_avgDelay = m_avgDelay + (sample - m_avgDelay) * m_delayWeight;
}

bool
NsccCongestionControl::QuickAdapt(bool loss, bool marked, Time delay)
{
    bool taken = false;
    Time now = FabricNow();
    if (marked && m_bytesIgnored < m_bytesToIgnore)
    {
        taken = true; // marks of what was in flight when the window was last cut
    }
    else if (now > m_quickAdaptEnd)
    {
        bool trigger = m_quickAdaptTriggered || loss || delay > m_target * m_quickAdaptDelayFactor;
        double gate = m_maxWindow / double(uint64_t(1) << m_quickAdaptGate);
        if (m_quickAdaptStarted && trigger && m_achieved < gate)
        {
            m_window = std::max(m_achieved, m_minWindow);
            m_bytesToIgnore = m_inflight;
            m_bytesIgnored = 0;
            m_quickAdaptTriggered = false;
            taken = true;
        }
        m_achieved = 0;
        m_quickAdaptEnd = now + m_baseRtt + m_target;
        m_quickAdaptStarted = true;
    }
    if (taken)
    {
        m_pendingIncrease = 0;
        m_receivedSinceAdjust = 0;
    }
    return taken;
}

void
NsccCongestionControl::ProportionalIncrease(double acked, Time delay)
{
    if (delay < m_fastIncreaseDelay)
    {
        m_fastCount += acked;
        if (m_fastCount > m_window || m_fastIncreasing)
        {
            // A window's worth of ACKs saw an empty path: grow at once.
            m_window += acked * m_fastIncreaseScale * m_scaleA;
            m_fastIncreasing = true;
            m_quadrant = FAST_INCREASE;
            return;
        }
    }
    else
    {
        m_fastCount = 0;
    }
    m_fastIncreasing = false;
    m_pendingIncrease += m_alphaScaled * acked * (m_target - delay).GetSeconds();
    m_quadrant = PROPORTIONAL_INCREASE;
}

void
NsccCongestionControl::MultiplicativeDecrease()
{
    m_fastIncreasing = false;
    m_fastCount = 0;
    m_quadrant = MULTIPLICATIVE_DECREASE;
    Time now = FabricNow();
    if (m_avgDelay > m_target && now - m_lastDecrease > m_baseRtt)
    {
        double d = m_avgDelay.GetSeconds();
        double factor = 1.0 - m_gamma * (d - m_target.GetSeconds()) / d;
        m_window = std::max(m_window * std::max(factor, m_maxDecrease), m_minWindow);
        m_lastDecrease = now;
    }
}

void
NsccCongestionControl::FulfillAdjustment()
{
    Time now = FabricNow();
    m_window += m_pendingIncrease / m_window;
    if (now - m_lastAdjust >= m_adjustPeriod)
    {
        m_window += m_etaScaled;
        m_lastAdjust = now;
    }
    m_pendingIncrease = 0;
    m_receivedSinceAdjust = 0;
}

void
NsccCongestionControl::Clamp()
{
    m_window = std::min(std::max(m_window, m_minWindow), std::max(m_maxWindow, m_minWindow));
}

void
NsccCongestionControl::OnAck(const CcFeedback& fb)
{
    double acked = double(fb.ackedBytes);
    m_inflight = std::max(0.0, m_inflight - acked);
    m_achieved += acked;
    m_receivedSinceAdjust += acked;
    m_bytesIgnored += acked;
    bool marked = fb.ecnEcho;
    Time delay = m_avgDelay; // no RTT sample: the average stands in
    if (fb.rtt.IsStrictlyPositive())
    {
        if (fb.rtt < m_baseRtt)
        {
            SetBaseRtt(fb.rtt);
        }
        delay = fb.rtt - m_baseRtt;
        UpdateAverageDelay(delay, marked);
    }
    if (QuickAdapt(false, marked, delay))
    {
        m_quadrant = NONE;
        return;
    }
    if (!marked && delay >= m_target)
    {
        m_pendingIncrease += m_fi * acked;
        m_quadrant = FAIR_INCREASE;
    }
    else if (!marked)
    {
        ProportionalIncrease(acked, delay);
    }
    else if (delay >= m_target)
    {
        MultiplicativeDecrease();
    }
    else
    {
        m_quadrant = NO_CHANGE;
    }
    Clamp();
    if (m_receivedSinceAdjust > double(m_adjustPackets) * m_mtu ||
        FabricNow() - m_lastAdjust > m_adjustPeriod)
    {
        FulfillAdjustment();
    }
    Clamp();
}

void
NsccCongestionControl::OnLoss(uint32_t frameBytes)
{
    // UET's NACK: the lost packet counts as a marked sample of one network RTT of delay, and
    // asks quick adapt to look at the interval; otherwise its size comes off the window.
    double bytes = frameBytes;
    m_inflight = std::max(0.0, m_inflight - bytes);
    m_bytesIgnored += bytes;
    UpdateAverageDelay(m_networkRtt, true);
    m_quickAdaptTriggered = true;
    if (!QuickAdapt(true, true, Time(0)))
    {
        m_window -= bytes;
        Clamp();
    }
}

double
NsccCongestionControl::GetTraceValue() const
{
    return m_avgDelay.GetSeconds() * 1e6;
}

CcTraceState
NsccCongestionControl::GetTraceState() const
{
    CcTraceState state = UbCongestionControl::GetTraceState();
    state.utilisation = m_avgDelay.GetSeconds() / m_target.GetSeconds();
    return state;
}

} // namespace ns3
