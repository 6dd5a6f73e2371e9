#ifndef FABRIC_CAQM_H
#define FABRIC_CAQM_H

#include "sim/lazy-uniform-random.h"
#include "switch/switch-stages.h"
#include "ub-congestion-control.h"

#include <vector>

namespace ns3
{

/**
 * \file
 * C-AQM (Confined Active Queue Management), Unified Bus's congestion control, in which the
 * switches grant or refuse every window increase before the queue builds.
 *
 * From the UB base specification (section 6.6.1.3, as publicly described):
 *  - every DATA packet carries the 16-bit CCI: C (congestion seen), I (increase request still
 *    granted), Hint (8-bit requested increase); the sender sends C = 0, I = 1, Hint = what it
 *    wants;
 *  - each switch on the path approves the request or refuses it (I = 0) from its spare
 *    resources, or marks the packet (C = 1, I = 0) when congested; Loc = 1 says the marking hop
 *    was the last one;
 *  - the receiver echoes, per ACK, C = the number of marked packets, I and the sum of the
 *    granted hints since the last ACK (CETPH of TPACK-CC);
 *  - the sender (specification table 6-11): C > 0, I = 0: reduce the window; C > 0, I = 1:
 *    add Hint, then reduce per C; C = 0, I = 1: add Hint; both 0: unchanged. A packet may be
 *    sent while window - in flight >= its size.
 * Not in the public specification text (assumptions, taken from the reference switch and host
 * algorithms of the public ns-3 UB simulator, open-usim/ns-3-ub, and the openEuler TCP-CAQM
 * kernel code):
 *  - switch credit (per egress port, every UpdatePeriod T):
 *    CC = lambda * (T * R / 8 - bytes sent in the period + TargetQueue - queue bytes -
 *    credit granted in the period); per DATA packet at dequeue: already marked -> return
 *    beta * MTU of credit; CC >= hint -> grant, CC -= hint; 0 <= CC < hint -> mark with
 *    MarkProbability (deficit DC += beta * MTU), else grant from DC if DC >= hint, else refuse;
 *    CC < 0 -> mark, CC += beta * MTU. Signed arithmetic throughout (the reference casts a
 *    possibly negative value to unsigned). The update is applied lazily at the next dequeue
 *    (same values as a periodic timer: a period without dequeues has sent nothing and granted
 *    nothing), with the queue read at that dequeue;
 *  - host: slow start requests one MTU per packet (Hint = MTU / HintUnit); congestion
 *    avoidance requests alpha * MTU^2 / window per packet (alpha * MTU per window of packets,
 *    i.e. per RTT — the kernel's form; the reference simulator's request is in mixed units and
 *    far smaller), the fraction carried to the next packet; any C or refused I enters
 *    congestion avoidance, and theta RTTs without either return to slow start; a decrease is
 *    window = max(window - C * beta * MTU, MTU / 2), halved towards gamma * MTU when at or below
 *    one MTU, and never below one MTU; the initial window is 10 MTU.
 */
class CaqmCongestionControl : public UbCongestionControl
{
  public:
    static TypeId GetTypeId();
    CaqmCongestionControl();

    void Start(DataRate lineRate, uint32_t mtu) override;

    uint64_t GetWindow() const override
    {
        return static_cast<uint64_t>(m_window);
    }

    UbCci OnSend(uint32_t frameBytes) override;
    void OnAck(const CcFeedback& feedback) override;

    std::string GetName() const override
    {
        return "caqm";
    }

    bool InSlowStart() const
    {
        return m_slowStart;
    }

  private:
    double m_alpha;
    double m_beta;
    double m_gamma;
    double m_theta;
    QueueSize m_hintUnit;
    QueueSize m_initialWindow;
    Time m_initialRtt;

    uint32_t m_mtu = 4096;
    double m_window = 0;
    double m_requestCarry = 0; ///< congestion avoidance: fraction of a hint unit not yet asked
    bool m_slowStart = true;
    Time m_srtt;
    Time m_lastCongestion;
};

/**
 * \ingroup fabric-switch-pipeline
 * \brief The switch side of C-AQM, an egress stage: credit per egress port, decided as each UB
 * DATA packet leaves (see the file comment for the algorithm and what is assumed). A switch
 * runs it when its Caqm attribute is set.
 */
class CaqmSwitch : public EgressStage
{
  public:
    static TypeId GetTypeId();
    CaqmSwitch();

    /// One entry per port of the switch: its rate and whether its peer is a host.
    void AddPort(DataRate rate, bool towardHost);
    /// The CCI the packet leaves with. \p queueBytes: the port's queue as the packet leaves.
    UbCci OnDequeue(uint32_t port, UbCci cci, uint64_t queueBytes, uint32_t frameBytes);

    // EgressStage: one port entry per switch port; rewrites the CCI of UB DATA frames leaving.
    void Install(const FabricSwitch& sw) override;

    bool RunsOnDequeue() const override
    {
        return true;
    }

    StageVerdict OnDequeue(FabricNetDevice& port, QueuedFrame& item) override;

    int64_t GetStreamCount() const override
    {
        return 1;
    }

    int64_t AssignStreams(int64_t stream) override;

    uint64_t GetMarkedPackets() const
    {
        return m_marked;
    }

    uint64_t GetRefusedIncreases() const
    {
        return m_refused;
    }

    /// Credit of a port after its last update (bytes; tests).
    double GetCredit(uint32_t port) const
    {
        return m_ports[port].credit;
    }

  private:
    struct PortState
    {
        DataRate rate;
        bool towardHost = false;
        double credit = 0;      ///< CC
        double deficit = 0;     ///< DC
        uint64_t sentBytes = 0; ///< in the current period
        double granted = 0;     ///< credit granted in the current period
        int64_t period = -1;    ///< index of the current period
    };

    void Update(PortState& p, uint64_t queueBytes);

    Time m_updatePeriod;
    double m_lambda;
    double m_beta;
    double m_markProbability;
    QueueSize m_targetQueue;
    QueueSize m_hintUnit;
    QueueSize m_mtu;
    std::vector<PortState> m_ports;
    LazyUniformRandom m_rng;
    uint64_t m_marked = 0;
    uint64_t m_refused = 0;
};

} // namespace ns3

#endif
