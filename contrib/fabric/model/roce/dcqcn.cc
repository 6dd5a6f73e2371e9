#include "dcqcn.h"

#include "sim/fabric-plugin.h"

#include "ns3/abort.h"
#include "ns3/boolean.h"
#include "ns3/double.h"
#include "ns3/enum.h"
#include "ns3/log.h"
#include "ns3/simulator.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <cmath>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("DcqcnCongestionControl");
NS_OBJECT_ENSURE_REGISTERED(DcqcnCongestionControl);
FABRIC_PLUGIN(FabricPlugin(PluginKind::CongestionControl,
                           "dcqcn",
                           &DcqcnCongestionControl::GetTypeId,
                           "DCQCN reaction point")
                  .Transport("roce")
                  .Section("dcqcn")
                  // The mellanox variant acts on ACKs of CE-marked packets (the paper variant
                  // ignores the echo; receivers only set a bit in their ACKs).
                  .EchoesEcn());

TypeId
DcqcnCongestionControl::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::DcqcnCongestionControl")
            .SetParent<RoceCongestionControl>()
            .SetGroupName("Fabric")
            .AddConstructor<DcqcnCongestionControl>()
            .AddAttribute("G",
                          "Gain g of the alpha estimate: alpha <- (1-g) alpha + g on a CNP, "
                          "alpha <- (1-g) alpha per AlphaTimer without one (paper: 1/256).",
                          DoubleValue(1.0 / 256),
                          MakeDoubleAccessor(&DcqcnCongestionControl::m_g),
                          MakeDoubleChecker<double>(0.0, 1.0))
            .AddAttribute("InitialAlpha",
                          "Alpha of a QP that has not seen a CNP yet (paper: 1).",
                          DoubleValue(1.0),
                          MakeDoubleAccessor(&DcqcnCongestionControl::m_initialAlpha),
                          MakeDoubleChecker<double>(0.0, 1.0))
            .AddAttribute("AlphaTimer",
                          "Alpha decays once per this period without a CNP; restarted by "
                          "every CNP (paper: 55us, above the 50us CNP interval). 0 disables "
                          "the decay.",
                          TimeValue(MicroSeconds(55)),
                          MakeTimeAccessor(&DcqcnCongestionControl::m_alphaTimer),
                          MakeTimeChecker(Time(0)))
            .AddAttribute("RateIncreaseTimer",
                          "Period of the rate-increase timer, restarted by every CNP (paper: "
                          "55us; NIC rpg_time_reset: 300us). 0 disables timer increases.",
                          TimeValue(MicroSeconds(55)),
                          MakeTimeAccessor(&DcqcnCongestionControl::m_increaseTimer),
                          MakeTimeChecker(Time(0)))
            .AddAttribute("ByteCounter",
                          "Bytes sent per byte-counter rate-increase event (paper: 10MB; NIC "
                          "rpg_byte_reset: 32767B). 0B disables byte-counter increases.",
                          QueueSizeValue(QueueSize("10MB")),
                          MakeQueueSizeAccessor(&DcqcnCongestionControl::m_byteCounterAttr),
                          MakeQueueSizeChecker())
            .AddAttribute("FastRecoveryStages",
                          "F: increase events of each kind spent in fast recovery before "
                          "additive increase; hyper increase once both counts exceed F "
                          "(paper: 5; NIC rpg_threshold: 1).",
                          UintegerValue(5),
                          MakeUintegerAccessor(&DcqcnCongestionControl::m_fastRecovery),
                          MakeUintegerChecker<uint32_t>())
            .AddAttribute("RateAI",
                          "R_AI, target-rate step of additive increase (paper, 40G links: "
                          "40Mbps; NIC rpg_ai_rate: 5Mbps).",
                          DataRateValue(DataRate("40Mbps")),
                          MakeDataRateAccessor(&DcqcnCongestionControl::m_rateAi),
                          MakeDataRateChecker())
            .AddAttribute("RateHAI",
                          "R_HAI, target-rate step of hyper increase, multiplied by the hyper "
                          "stage i (DCQCN authors' simulator: 200Mbps; NIC rpg_hai_rate: "
                          "50Mbps).",
                          DataRateValue(DataRate("200Mbps")),
                          MakeDataRateAccessor(&DcqcnCongestionControl::m_rateHai),
                          MakeDataRateChecker())
            .AddAttribute("RateScaleReference",
                          "0bps: RateAI and RateHAI apply as given. Otherwise they are the "
                          "steps for a link of this rate, scaled to the QP's line rate (HPCC "
                          "simulator's DCQCN evaluation: 5 and 50 Mbps per 25 Gbps).",
                          DataRateValue(DataRate(0)),
                          MakeDataRateAccessor(&DcqcnCongestionControl::m_rateScaleRef),
                          MakeDataRateChecker())
            .AddAttribute("MinRate",
                          "Floor of the current rate after a cut (HPCC simulator: 100Mbps; NIC "
                          "rpg_min_rate: 1Mbps). Capped at the line rate.",
                          DataRateValue(DataRate("100Mbps")),
                          MakeDataRateAccessor(&DcqcnCongestionControl::m_minRate),
                          MakeDataRateChecker())
            .AddAttribute("ClampTargetRate",
                          "true: every CNP sets the target rate to the current rate (paper). "
                          "false: only if a timer increase happened since the previous CNP "
                          "(NIC default clamp_tgt_rate=0, clamp_tgt_rate_after_time_inc=1).",
                          BooleanValue(true),
                          MakeBooleanAccessor(&DcqcnCongestionControl::m_clampTargetRate),
                          MakeBooleanChecker())
            .AddAttribute(
                "Variant",
                "paper: the DCQCN paper's reaction point, one cut per CNP (Zhu et al., "
                "SIGCOMM 2015, section 3). mellanox: the HPCC simulator's CC_MODE 1, "
                "\"Mellanox's version of DCQCN\" (alibaba-edu/High-Precision-Congestion-Control "
                "simulation/src/point-to-point/model/rdma-hw.cc:618-738): a CNP or an ACK with "
                "the ECN echo only sets flags; alpha is updated every AlphaTimer from whether one "
                "came, the rate is cut at most once per RateDecreaseInterval, the first one only "
                "starts the timers, increases come from the RateIncreaseTimer alone.",
                EnumValue(PAPER),
                MakeEnumAccessor(&DcqcnCongestionControl::m_variant),
                MakeEnumChecker(PAPER, "paper", MELLANOX, "mellanox"))
            .AddAttribute("RateDecreaseInterval",
                          "mellanox variant: the rate is cut at most once per this period, if "
                          "a CNP or ECN-echo ACK arrived since the previous check "
                          "(alibaba-edu/High-Precision-Congestion-Control "
                          "simulation/src/point-to-point/model/rdma-hw.cc:77-81 "
                          "RateDecreaseInterval 4 us; mix/config.txt:17 RATE_DECREASE_INTERVAL "
                          "4). Unused by the paper variant.",
                          TimeValue(MicroSeconds(4)),
                          MakeTimeAccessor(&DcqcnCongestionControl::m_decreaseInterval),
                          MakeTimeChecker(Time(0)));
    return tid;
}

DcqcnCongestionControl::DcqcnCongestionControl()
{
    NS_LOG_FUNCTION(this);
}

DcqcnCongestionControl::~DcqcnCongestionControl()
{
    // The timers hold a raw pointer to this object: never let one fire after it is gone.
    CancelTimers();
}

void
DcqcnCongestionControl::DoDispose()
{
    NS_LOG_FUNCTION(this);
    CancelTimers();
    RoceCongestionControl::DoDispose();
}

void
DcqcnCongestionControl::CancelTimers()
{
    m_alphaEvent.Cancel();
    m_increaseEvent.Cancel();
    m_decreaseEvent.Cancel();
}

void
DcqcnCongestionControl::Start(DataRate lineRate)
{
    NS_LOG_FUNCTION(this << lineRate);
    NS_ABORT_MSG_IF(lineRate.GetBitRate() == 0, "DCQCN needs a non-zero line rate");
    NS_ABORT_MSG_IF(m_byteCounterAttr.GetUnit() != QueueSizeUnit::BYTES,
                    "DcqcnCongestionControl::ByteCounter must be given in bytes, not packets");
    NS_ABORT_MSG_IF(m_variant == MELLANOX && !m_decreaseInterval.IsStrictlyPositive(),
                    "DcqcnCongestionControl::RateDecreaseInterval must be positive with "
                    "Variant mellanox");
    CancelTimers();
    m_lineRate = static_cast<double>(lineRate.GetBitRate());
    const double scale = m_rateScaleRef.GetBitRate() == 0
                             ? 1.0
                             : m_lineRate / static_cast<double>(m_rateScaleRef.GetBitRate());
    m_ai = scale * static_cast<double>(m_rateAi.GetBitRate());
    m_hai = scale * static_cast<double>(m_rateHai.GetBitRate());
    m_rc = m_lineRate;
    m_rt = m_lineRate;
    m_alpha = m_initialAlpha;
    m_timerStage = 0;
    m_byteStage = 0;
    m_bytes = 0;
    m_running = true;
    // Not rate limited until the first CNP: no timers, no byte counting.
    m_limited = false;
    // mellanox: the steps are added to a DataRate (whole bit/s) in the reference.
    m_mlxAi = static_cast<uint64_t>(std::llround(m_ai));
    m_mlxHai = static_cast<uint64_t>(std::llround(m_hai));
    m_firstSignal = true;
    m_alphaSignal = false;
    m_decreaseSignal = false;
}

void
DcqcnCongestionControl::Stop()
{
    NS_LOG_FUNCTION(this);
    CancelTimers();
    m_running = false;
    m_limited = false;
}

DataRate
DcqcnCongestionControl::GetRate() const
{
    return DataRate(static_cast<uint64_t>(std::llround(m_rc)));
}

void
DcqcnCongestionControl::OnCnp()
{
    NS_LOG_FUNCTION(this);
    NS_ASSERT_MSG(m_lineRate > 0, "DcqcnCongestionControl::OnCnp before Start");
    if (!m_running)
    {
        // A CNP can still be in flight when the QP completes.
        NS_LOG_LOGIC("CNP after Stop ignored");
        return;
    }
    if (m_variant == MELLANOX)
    {
        MlxSignal();
        return;
    }
    // The paper always remembers the pre-cut rate as the target. The NIC (clamp_tgt_rate=0)
    // keeps the older, higher target when no timer increase happened since the previous cut,
    // so a burst of CNPs does not also drag down the rate the QP recovers towards.
    if (m_clampTargetRate || m_timerStage > 0)
    {
        m_rt = m_rc;
    }
    // The cut uses alpha as it stood before this CNP (paper's RP algorithm order).
    const double floor = std::min(static_cast<double>(m_minRate.GetBitRate()), m_lineRate);
    m_rc = std::max(floor, m_rc * (1.0 - m_alpha / 2.0));
    m_alpha = (1.0 - m_g) * m_alpha + m_g;
    m_timerStage = 0;
    m_byteStage = 0;
    m_bytes = 0;
    m_limited = true;

    // Both timers measure time since the latest CNP.
    CancelTimers();
    if (m_alphaTimer.IsStrictlyPositive())
    {
        m_alphaEvent =
            Simulator::Schedule(m_alphaTimer, &DcqcnCongestionControl::AlphaTimerExpired, this);
    }
    if (m_increaseTimer.IsStrictlyPositive())
    {
        m_increaseEvent = Simulator::Schedule(m_increaseTimer,
                                              &DcqcnCongestionControl::IncreaseTimerExpired,
                                              this);
    }
    NS_LOG_DEBUG("CNP: Rc=" << m_rc << " Rt=" << m_rt << " alpha=" << m_alpha);
}

void
DcqcnCongestionControl::OnAck(const CcFeedback& ack)
{
    // The paper's reaction point hears of congestion through CNPs only.
    if (m_variant == MELLANOX && ack.ecnEcho && m_running)
    {
        // rdma-hw.cc:419-424: a CNP-flagged ACK goes to cnp_received_mlx.
        MlxSignal();
    }
}

void
DcqcnCongestionControl::OnBytesSent(uint32_t bytes)
{
    NS_LOG_FUNCTION(this << bytes);
    const uint64_t threshold = m_byteCounterAttr.GetValue();
    if (!m_running || !m_limited || threshold == 0 || m_variant == MELLANOX)
    {
        return;
    }
    m_bytes += bytes;
    // One call may complete several byte-counter periods (large frames, small ByteCounter);
    // the remainder carries over so every byte is counted exactly once.
    while (m_limited && m_bytes >= threshold)
    {
        m_bytes -= threshold;
        RateIncrease(IncreaseSource::BYTES);
    }
}

std::string
DcqcnCongestionControl::GetName() const
{
    return "dcqcn";
}

double
DcqcnCongestionControl::GetTraceValue() const
{
    return m_alpha;
}

CcTraceState
DcqcnCongestionControl::GetTraceState() const
{
    CcTraceState state;
    state.rate = double(GetRate().GetBitRate());
    state.alpha = m_alpha;
    state.targetRate = m_rt;
    return state;
}

DataRate
DcqcnCongestionControl::GetTargetRate() const
{
    return DataRate(static_cast<uint64_t>(std::llround(m_rt)));
}

double
DcqcnCongestionControl::GetAlpha() const
{
    return m_alpha;
}

uint32_t
DcqcnCongestionControl::GetTimerStage() const
{
    return m_timerStage;
}

uint32_t
DcqcnCongestionControl::GetByteStage() const
{
    return m_byteStage;
}

uint64_t
DcqcnCongestionControl::GetByteCount() const
{
    return m_bytes;
}

bool
DcqcnCongestionControl::IsRateLimited() const
{
    return m_limited;
}

void
DcqcnCongestionControl::AlphaTimerExpired()
{
    m_alpha = (1.0 - m_g) * m_alpha;
    NS_LOG_DEBUG("alpha decay: " << m_alpha);
    m_alphaEvent =
        Simulator::Schedule(m_alphaTimer, &DcqcnCongestionControl::AlphaTimerExpired, this);
}

void
DcqcnCongestionControl::IncreaseTimerExpired()
{
    RateIncrease(IncreaseSource::TIMER);
    if (m_limited)
    {
        m_increaseEvent = Simulator::Schedule(m_increaseTimer,
                                              &DcqcnCongestionControl::IncreaseTimerExpired,
                                              this);
    }
}

void
DcqcnCongestionControl::RateIncrease(IncreaseSource source)
{
    // The stages count the events before this one: the first F events after a cut are fast
    // recovery, the (F+1)-th is the first additive increase.
    const uint32_t f = m_fastRecovery;
    // A disabled source (ByteCounter 0B, RateIncreaseTimer 0) never counts events, so it must not
    // hold the QP out of hyper increase: the stage is then the other source's alone. With the byte
    // counter off this is the NIC's timer-only reaction point as the HPCC simulator implements it
    // (rdma-hw.cc RateIncEventMlx: stage < F fast recovery, = F additive, > F hyper by R_HAI).
    const bool timerOn = m_increaseTimer.IsStrictlyPositive();
    const bool bytesOn = m_byteCounterAttr.GetValue() > 0;
    const bool bothOn = timerOn && bytesOn;
    const uint32_t timerStage = timerOn ? m_timerStage : m_byteStage;
    const uint32_t byteStage = bytesOn ? m_byteStage : m_timerStage;
    const uint32_t maxStage = std::max(timerStage, byteStage);
    const uint32_t minStage = std::min(timerStage, byteStage);
    if (maxStage < f)
    {
        // Fast recovery: close half the gap to the rate before the cut.
        NS_LOG_LOGIC("fast recovery");
    }
    else if (minStage > f)
    {
        // Hyper increase: both the timer and the byte counter agree the path has been free for
        // a while; probe faster and faster (paper: i = min(T, BC) - F). A single source steps by
        // R_HAI per event, as the NIC does (HPCC simulator rdma-hw.cc HyperIncreaseMlx).
        const double i = bothOn ? static_cast<double>(minStage - f) : 1.0;
        m_rt = std::min(m_lineRate, m_rt + i * m_hai);
        NS_LOG_LOGIC("hyper increase, i=" << i);
    }
    else
    {
        m_rt = std::min(m_lineRate, m_rt + m_ai);
        NS_LOG_LOGIC("additive increase");
    }
    m_rc = (m_rt + m_rc) / 2.0;
    if (source == IncreaseSource::TIMER)
    {
        ++m_timerStage;
    }
    else
    {
        ++m_byteStage;
    }
    NS_LOG_DEBUG("increase (" << (source == IncreaseSource::TIMER ? "timer" : "bytes")
                              << ") T=" << m_timerStage << " BC=" << m_byteStage << " Rc=" << m_rc
                              << " Rt=" << m_rt);
    CheckRecovered();
}

void
DcqcnCongestionControl::CheckRecovered()
{
    // Halving the gap only approaches the line rate; below 1 bit/s the rounded rate already is
    // the line rate, so snap to it and stop the increase machinery (see class notes).
    if (m_rt >= m_lineRate && m_lineRate - m_rc < 1.0)
    {
        m_rt = m_lineRate;
        m_rc = m_lineRate;
        m_limited = false;
        m_bytes = 0;
        m_increaseEvent.Cancel();
        NS_LOG_DEBUG("recovered to line rate");
    }
}

// Mellanox's DCQCN as the HPCC simulator has it (CC_MODE 1). Every function below names the
// reference function it follows (alibaba-edu/High-Precision-Congestion-Control,
// simulation/src/point-to-point/model/rdma-hw.cc) and schedules its events in the same order, so
// that timers falling on the same instant run in the reference's order.

namespace
{

/// ns-3's DataRate(uint64_t) built from a double (DataRate * double, DataRate / double in the
/// reference): truncated to whole bit/s.
uint64_t
Truncated(double bps)
{
    return static_cast<uint64_t>(bps);
}

} // namespace

void
DcqcnCongestionControl::MlxSignal()
{
    // cnp_received_mlx, rdma-hw.cc:638-653.
    m_alphaSignal = true;
    m_decreaseSignal = true;
    if (m_firstSignal)
    {
        // The first signal only starts the machinery: alpha from its initial value, the alpha
        // timer, and the decrease check 1 ns after an alpha update that falls on the same
        // instant (rdma-hw.cc:648).
        m_alpha = m_initialAlpha;
        m_alphaSignal = false;
        if (m_alphaTimer.IsStrictlyPositive())
        {
            m_alphaEvent =
                Simulator::Schedule(m_alphaTimer, &DcqcnCongestionControl::MlxUpdateAlpha, this);
        }
        m_decreaseEvent = Simulator::Schedule(m_decreaseInterval + NanoSeconds(1),
                                              &DcqcnCongestionControl::MlxCheckDecrease,
                                              this);
        // RateOnFirstCnp 1: Rt = Rc = the current rate (the line rate).
        m_rt = m_rc;
        m_firstSignal = false;
        m_limited = true;
        NS_LOG_DEBUG("first signal: timers started, alpha=" << m_alpha);
    }
}

void
DcqcnCongestionControl::MlxUpdateAlpha()
{
    // UpdateAlphaMlx, rdma-hw.cc:618-633.
    if (m_alphaSignal)
    {
        m_alpha = (1 - m_g) * m_alpha + m_g;
    }
    else
    {
        m_alpha = (1 - m_g) * m_alpha;
    }
    m_alphaSignal = false;
    m_alphaEvent = Simulator::Schedule(m_alphaTimer, &DcqcnCongestionControl::MlxUpdateAlpha, this);
}

void
DcqcnCongestionControl::MlxCheckDecrease()
{
    // CheckRateDecreaseMlx, rdma-hw.cc:655-678: the next check is scheduled first.
    m_decreaseEvent =
        Simulator::Schedule(m_decreaseInterval, &DcqcnCongestionControl::MlxCheckDecrease, this);
    if (!m_decreaseSignal)
    {
        return;
    }
    // CLAMP_TARGET_RATE 0: the target keeps its value when no timer increase came since the
    // last cut.
    if (m_clampTargetRate || m_timerStage != 0)
    {
        m_rt = m_rc;
    }
    const uint64_t floor = std::min(m_minRate.GetBitRate(), static_cast<uint64_t>(m_lineRate));
    const uint64_t cut = Truncated(m_rc * (1 - m_alpha / 2));
    m_rc = static_cast<double>(std::max(floor, cut));
    m_timerStage = 0;
    m_decreaseSignal = false;
    m_increaseEvent.Cancel();
    if (m_increaseTimer.IsStrictlyPositive())
    {
        m_increaseEvent =
            Simulator::Schedule(m_increaseTimer, &DcqcnCongestionControl::MlxIncreaseTimer, this);
    }
    NS_LOG_DEBUG("cut: Rc=" << m_rc << " Rt=" << m_rt << " alpha=" << m_alpha);
}

void
DcqcnCongestionControl::MlxIncreaseTimer()
{
    // RateIncEventTimerMlx and RateIncEventMlx, rdma-hw.cc:683-697: rescheduled first.
    m_increaseEvent =
        Simulator::Schedule(m_increaseTimer, &DcqcnCongestionControl::MlxIncreaseTimer, this);
    const uint64_t line = static_cast<uint64_t>(m_lineRate);
    uint64_t rc = static_cast<uint64_t>(m_rc);
    uint64_t rt = static_cast<uint64_t>(m_rt);
    if (m_timerStage < m_fastRecovery)
    {
        // FastRecoveryMlx, rdma-hw.cc:699-706.
        NS_LOG_LOGIC("fast recovery");
    }
    else
    {
        // ActiveIncreaseMlx (T = F) and HyperIncreaseMlx (T > F), rdma-hw.cc:708-738.
        rt += m_timerStage == m_fastRecovery ? m_mlxAi : m_mlxHai;
        rt = std::min(rt, line);
        NS_LOG_LOGIC((m_timerStage == m_fastRecovery ? "additive" : "hyper") << " increase");
    }
    rc = Truncated(rc / 2.0) + Truncated(rt / 2.0);
    m_rc = static_cast<double>(rc);
    m_rt = static_cast<double>(rt);
    ++m_timerStage;
    NS_LOG_DEBUG("increase: T=" << m_timerStage << " Rc=" << m_rc << " Rt=" << m_rt);
}

} // namespace ns3
