#ifndef FABRIC_DCQCN_H
#define FABRIC_DCQCN_H

#include "roce-congestion-control.h"

#include "ns3/data-rate.h"
#include "ns3/event-id.h"
#include "ns3/nstime.h"
#include "ns3/queue-size.h"

#include <cstdint>
#include <string>

namespace ns3
{

/**
 * \brief DCQCN reaction point (RP) of one RoCE queue pair.
 *
 * Zhu et al., "Congestion Control for Large-Scale RDMA Deployments", SIGCOMM 2015, §3 (the RP
 * algorithm), with the state and parameters that Mellanox/NVIDIA ConnectX NICs expose (mlx5
 * roce_rp / mlxconfig names given below).
 *
 * State: current rate Rc, target rate Rt, alpha, the timer stage T and byte stage BC (rate
 * increase events counted since the last CNP) and the byte counter.
 *
 * - CNP: Rt <- Rc (see ClampTargetRate); Rc <- max(MinRate, Rc (1 - alpha/2));
 *   alpha <- (1 - g) alpha + g; T = BC = 0, byte counter = 0; the rate-increase timer and the
 *   alpha timer restart from now.
 * - Alpha timer (every AlphaTimer without a CNP): alpha <- (1 - g) alpha.
 * - Rate-increase event, raised by the increase timer (every RateIncreaseTimer) or by the byte
 *   counter (every ByteCounter bytes sent). T and BC are compared as they stand *before* the
 *   event is counted, so the first F events after a cut are fast recovery (as in QCN, the HPCC
 *   simulator and the NIC's rpg_threshold):
 *     max(T, BC) < F            fast recovery:  Rc <- (Rt + Rc) / 2
 *     min(T, BC) > F            hyper increase: Rt <- Rt + i R_HAI, i = min(T, BC) - F;
 *                                                Rc <- (Rt + Rc) / 2
 *     otherwise                 additive incr.: Rt <- Rt + R_AI;  Rc <- (Rt + Rc) / 2
 *   then the event is counted (T++ or BC++). Rt and Rc never exceed the line rate.
 * - One source only (ByteCounter 0B, or RateIncreaseTimer 0): the disabled source counts no
 *   events and must not veto hyper increase, so its stage is taken to be the other's. With the
 *   byte counter off this is the NIC's timer-only reaction point as the HPCC simulator has it
 *   (alibaba-edu/High-Precision-Congestion-Control, simulation/src/point-to-point/model/
 *   rdma-hw.cc, RateIncEventMlx/HyperIncreaseMlx, lines 683-738): T < F fast recovery, T = F
 *   additive, every later event hyper by a constant R_HAI (i = 1). The `scaled` preset runs so.
 *
 * Before the first CNP the QP is not rate limited: Rc = Rt = line rate and no timer runs (the
 * HPCC simulator also arms DCQCN timers at the first CNP; the NIC only creates a rate limiter
 * for a QP once it is notified). Once a QP has recovered to the line rate (Rt = Rc = line rate)
 * the increase timer stops and sent bytes are no longer counted: further increase events could
 * not change Rt or Rc, and the next CNP resets T, BC and the byte counter anyway. GetTimerStage()
 * and GetByteStage() therefore stop advancing there. The alpha timer keeps running until Stop(),
 * because alpha matters for the size of the next cut.
 *
 * Rates are kept as double bit/s internally so that repeated halving does not accumulate
 * integer truncation; GetRate() rounds to the nearest bit/s.
 *
 * Defaults and their sources (paper = DCQCN SIGCOMM 2015; NIC = ConnectX-4 and later firmware
 * defaults as dumped by mlxconfig; HPCC = alibaba-edu HPCC ns-3 simulator, rdma-hw.cc;
 * authors' sim = the DCQCN authors' ns-3 simulator configuration, bobzhuyb/ns3-rdma):
 *
 * | Attribute          | Default    | Source / NIC equivalent                                    |
 * |--------------------|------------|------------------------------------------------------------|
 * | G                  | 1/256      | paper (g = 1/256). NIC DCE_TCP_G = 1019/1024, i.e.         |
 * |                    |            | g = 5/1024, applied every DCE_TCP_RTT = 1 us.              |
 * | InitialAlpha       | 1.0        | paper (alpha starts at 1). NIC INITIAL_ALPHA_VALUE =       |
 * |                    |            | 1023/1024.                                                 |
 * | AlphaTimer         | 55 us      | paper (K = 55 us, longer than the NP's 50 us CNP interval |
 * |                    |            | so a flow that keeps getting CNPs never looks idle); HPCC  |
 * |                    |            | AlphaResumInterval = 55 us.                                |
 * | RateIncreaseTimer  | 55 us      | paper's tuned timer (docs/models.md#dcqcn). NIC            |
 * |                    |            | RPG_TIME_RESET = 300 us; HPCC RPTimer = 1500 us.           |
 * | ByteCounter        | 10MB       | paper (B = 10 MB, 10^7 bytes: at 40G the timer dominates). |
 * |                    |            | NIC RPG_BYTE_RESET = 32767 B (set "32767B" to model it).   |
 * | FastRecoveryStages | 5          | paper (F = 5), HPCC FastRecoveryTimes = 5. NIC             |
 * |                    |            | RPG_THRESHOLD = 1.                                         |
 * | RateAI             | 40Mbps     | paper's value for 40G links (authors' sim RATE_AI). NIC    |
 * |                    |            | RPG_AI_RATE = 5 Mb/s. At 400G, recovery by AI alone is    |
 * |                    |            | 10x slower relative to the link than in the paper.         |
 * | RateHAI            | 200Mbps    | authors' sim RATE_HAI = 200 Mb/s (5 x R_AI). NIC           |
 * |                    |            | RPG_HAI_RATE = 50 Mb/s.                                    |
 * | MinRate            | 100Mbps    | HPCC and authors' sim MinRate. NIC RPG_MIN_RATE = 1 Mb/s.  |
 * | RateScaleReference | 0bps       | 0: R_AI and R_HAI as given. Otherwise both are multiplied |
 * |                    |            | by line rate / this at Start(), as the HPCC simulator's   |
 * |                    |            | evaluation script (simulation/run.py) sets them: 5 Mb/s   |
 * |                    |            | and 50 Mb/s per 25 Gb/s of line rate (`dcqcn.preset:      |
 * |                    |            | scaled`, docs/models.md#dcqcn-presets).                   |
 * | ClampTargetRate    | true       | paper and authors' sim (CLAMP_TARGET_RATE 1): every CNP    |
 * |                    |            | sets Rt <- Rc. NIC CLAMP_TGT_RATE = 0 with                 |
 * |                    |            | CLAMP_TGT_RATE_AFTER_TIME_INC = 1 (also HPCC's default):   |
 * |                    |            | set false to model it.                                     |
 * | Variant            | paper      | paper: the rules above; mellanox: HPCC's CC_MODE 1 (below) |
 * | RateDecrease-      | 4 us       | mellanox only. HPCC RateDecreaseInterval = 4 us            |
 * |   Interval         |            | (rdma-hw.cc:77-81) and mix/config.txt:17                   |
 * |                    |            | RATE_DECREASE_INTERVAL 4; NIC rate_reduce_monitor_period.  |
 *
 * Not modelled in the paper variant: the NIC's rate_reduce_monitor_period (at most one cut per
 * 4 us; the NP's CNP interval already spaces CNPs; the mellanox variant has it as
 * RateDecreaseInterval), rate_to_set_on_first_cnp (0 = use the alpha cut) and rpg_min_dec_fac
 * (50 %; with alpha <= 1 a cut is never deeper than 50 % anyway).
 *
 * Variant `mellanox` (attribute Variant, key dcqcn.variant) is instead the reaction point of
 * the HPCC simulator's CC_MODE 1, "Mellanox's version of DCQCN"
 * (alibaba-edu/High-Precision-Congestion-Control, simulation/src/point-to-point/model/
 * rdma-hw.cc:618-738; the same code is inet-tub/ns3-datacenter simulator/ns-3.39/src/
 * point-to-point/model/rdma-hw.cc:650-777). There every ACK of an ECN-marked packet carries the
 * CNP flag (rdma-hw.cc:321-322) and the sender hands each flagged ACK to cnp_received_mlx
 * (rdma-hw.cc:419-424); here an ACK with CcFeedback::ecnEcho set, or a CNP packet, is that
 * signal (the plug-in turns the receivers' ECN echo on). The signal only sets two flags:
 *
 * - Signal: "CNP arrived" for the alpha update and for the rate decrease. The first signal of
 *   the QP instead sets alpha = InitialAlpha (the reference: 1), clears the alpha flag, starts
 *   the alpha timer (AlphaTimer from now) and the decrease check (RateDecreaseInterval + 1 ns
 *   from now) and sets Rt = Rc; it does not cut (rdma-hw.cc:638-653).
 * - Alpha timer, every AlphaTimer (ALPHA_RESUME_INTERVAL): alpha <- (1-g) alpha + g if a
 *   signal arrived since the last update, else (1-g) alpha; flag cleared (rdma-hw.cc:618-636).
 * - Decrease check, every RateDecreaseInterval (RATE_DECREASE_INTERVAL): if a signal arrived
 *   since the last check, Rt <- Rc (ClampTargetRate, or T > 0), Rc <- max(MinRate,
 *   Rc (1 - alpha/2)), T = 0, and the increase timer restarts from now (rdma-hw.cc:655-681).
 * - Increase timer, every RateIncreaseTimer (RP_TIMER) once the first cut happened:
 *   T < F fast recovery Rc <- Rc/2 + Rt/2; T = F additive Rt += R_AI; T > F hyper
 *   Rt += R_HAI (constant); Rt capped at the line rate, Rc <- Rc/2 + Rt/2; then T++
 *   (rdma-hw.cc:683-738). No byte counter (ByteCounter is ignored).
 *
 * Rates in this variant are whole bit/s with the reference's DataRate truncation (a product or
 * a half is truncated to an integer, rdma-hw.cc with ns-3's DataRate operators), and the timers
 * run until Stop(), as the reference's run until QpComplete (rdma-hw.cc:499-504).
 */
class DcqcnCongestionControl : public RoceCongestionControl
{
  public:
    /// Which reaction point runs (attribute Variant).
    enum Variant
    {
        PAPER,   ///< the DCQCN paper, one cut per CNP
        MELLANOX ///< the HPCC simulator's CC_MODE 1: flags, alpha and decrease timers
    };

    static TypeId GetTypeId();
    DcqcnCongestionControl();
    ~DcqcnCongestionControl() override;

    /// Rc = Rt = \p lineRate, alpha = InitialAlpha, counters zero, no timer running.
    void Start(DataRate lineRate) override;
    /// Cancels the timers; later CNPs and sent bytes are ignored until the next Start().
    void Stop() override;
    /// Current rate Rc.
    DataRate GetRate() const override;
    void OnCnp() override;
    /// mellanox: an ACK with the ECN echo set is a congestion signal (as a CNP); paper: ignored.
    void OnAck(const CcFeedback& ack) override;
    /// Drives the byte counter (only while the QP is rate limited, see the class notes).
    void OnBytesSent(uint32_t bytes) override;
    /// "dcqcn".
    std::string GetName() const override;
    /// Alpha.
    double GetTraceValue() const override;
    /// Alpha and the target rate Rt.
    CcTraceState GetTraceState() const override;

    /// Target rate Rt.
    DataRate GetTargetRate() const;
    /// Alpha, the estimate of how congested the path is (0..1).
    double GetAlpha() const;
    /// T: rate-increase timer expiries since the last CNP.
    uint32_t GetTimerStage() const;
    /// BC: byte-counter rate-increase events since the last CNP.
    uint32_t GetByteStage() const;
    /// Bytes counted towards the next byte-counter event.
    uint64_t GetByteCount() const;
    /// Whether the rate limiter is active (a CNP arrived and the QP has not recovered yet).
    bool IsRateLimited() const;

  protected:
    void DoDispose() override;

  private:
    /// Which source raised a rate-increase event.
    enum class IncreaseSource
    {
        TIMER,
        BYTES
    };

    void AlphaTimerExpired();
    /// mellanox: a CNP or an ECN-echo ACK (cnp_received_mlx).
    void MlxSignal();
    /// mellanox: the alpha timer (UpdateAlphaMlx).
    void MlxUpdateAlpha();
    /// mellanox: the decrease check (CheckRateDecreaseMlx).
    void MlxCheckDecrease();
    /// mellanox: the rate-increase timer (RateIncEventTimerMlx).
    void MlxIncreaseTimer();
    void IncreaseTimerExpired();
    /// Applies one increase event and counts it in T or BC.
    void RateIncrease(IncreaseSource source);
    /// Ends rate limiting once Rt and Rc have reached the line rate.
    void CheckRecovered();
    void CancelTimers();

    // Attributes
    double m_g;                  ///< alpha gain g
    double m_initialAlpha;       ///< alpha at Start()
    Time m_alphaTimer;           ///< alpha decay period K
    Time m_increaseTimer;        ///< rate-increase timer period
    QueueSize m_byteCounterAttr; ///< bytes per byte-counter event (as configured)
    uint32_t m_fastRecovery;     ///< F
    DataRate m_rateAi;           ///< R_AI
    DataRate m_rateHai;          ///< R_HAI
    DataRate m_rateScaleRef;     ///< line rate R_AI and R_HAI are given for (0: as given)
    DataRate m_minRate;          ///< floor of Rc after a cut
    bool m_clampTargetRate;      ///< Rt <- Rc on every CNP (paper) or only after a timer increase
    Variant m_variant;           ///< paper or mellanox reaction point
    Time m_decreaseInterval;     ///< mellanox: period of the decrease check

    // State
    double m_lineRate{0}; ///< bit/s, 0 until Start()
    double m_ai{0};       ///< R_AI at this line rate, bit/s
    double m_hai{0};      ///< R_HAI at this line rate, bit/s
    double m_rc{0};       ///< current rate, bit/s
    double m_rt{0};       ///< target rate, bit/s
    double m_alpha{1};
    uint32_t m_timerStage{0}; ///< T
    uint32_t m_byteStage{0};  ///< BC
    uint64_t m_bytes{0};      ///< byte counter
    bool m_running{false};    ///< between Start() and Stop()
    bool m_limited{false};    ///< rate limiter active: CNP seen, not yet recovered
    // mellanox state (rdma-queue-pair.h:37-47, mlx)
    bool m_firstSignal{true};     ///< no CNP or ECN echo seen yet (m_first_cnp)
    bool m_alphaSignal{false};    ///< signal since the last alpha update (m_alpha_cnp_arrived)
    bool m_decreaseSignal{false}; ///< signal since the last decrease check
    uint64_t m_mlxAi{0};          ///< R_AI at this line rate, whole bit/s
    uint64_t m_mlxHai{0};         ///< R_HAI at this line rate, whole bit/s
    EventId m_alphaEvent;
    EventId m_increaseEvent;
    EventId m_decreaseEvent; ///< mellanox decrease check
};

} // namespace ns3

#endif
