#ifndef FABRIC_RATE_DCTCP_H
#define FABRIC_RATE_DCTCP_H

#include "roce-congestion-control.h"

#include "ns3/data-rate.h"

#include <cstdint>
#include <string>

namespace ns3
{

/**
 * \brief Rate-based DCTCP of one RoCE queue pair (`cc: dctcp-rate`): the HPCC simulator's
 * CC_MODE 8.
 *
 * alibaba-edu/High-Precision-Congestion-Control simulation/src/point-to-point/model/rdma-hw.cc
 * HandleAckDctcp (rdma-hw.cc:998-1050; inet-tub/ns3-datacenter has the same code at
 * simulator/ns-3.39/src/point-to-point/model/rdma-hw.cc:1179-1234). The QP is paced at a rate
 * (the NIC paces at GetRate()), not limited by a window. Receivers echo the CE mark of a data
 * packet in the ACK it triggers (the reference's CNP flag, rdma-hw.cc:318-322; here the BTH
 * BECN bit, RdmaNic::EcnEcho, which `cc: dctcp-rate` turns on). In bytes of payload, with
 * ackSeq the payload acknowledged since Start and sndNxt = ackSeq + the payload in flight after
 * the ACK, per ACK:
 *
 * - ecnCnt += 1 if the ACK echoes ECN (ACKs are counted, not bytes: one per packet with
 *   `roce.ack_interval: 1`, as the reference acknowledges every packet).
 * - If ackSeq > lastUpdateSeq (a window of data is acknowledged: a new batch): on the first
 *   batch lastUpdateSeq = sndNxt, batch = sndNxt / MTU + 1 (ecnCnt kept); afterwards
 *   alpha <- (1 - G) alpha + G min(1, ecnCnt / batch), lastUpdateSeq = sndNxt, ecnCnt = 0,
 *   batch = (sndNxt - ackSeq) / MTU + 1 (integer division).
 * - In CWR, an ACK with ackSeq > highSeq ends it.
 * - An ECN-echoed ACK outside CWR: rate <- max(MinRate, rate x (1 - alpha / 2)), truncated to
 *   whole bit/s as the reference's DataRate operator* is; then CWR with highSeq = sndNxt (at
 *   most one cut per window of data).
 * - Outside CWR on a new batch (after the cut check, so not on the ACK that cut): rate <-
 *   min(line rate, rate + RateAi).
 *
 * The QP starts at line rate with alpha = InitialAlpha (rdma-hw.cc:239-241,
 * rdma-queue-pair.cc:60-65). CNPs are ignored (the reference's receivers send none in this
 * mode).
 *
 * | Attribute    | Default   | Source                                                        |
 * |--------------|-----------|---------------------------------------------------------------|
 * | RateAi       | 1000Mbps  | HPCC simulator mix/config.txt:25 DCTCP_RATE_AI 1000Mb/s       |
 * |              |           | (rdma-hw.cc:167-171 DctcpRateAI)                              |
 * | G            | 1/256     | mix/config.txt:20 EWMA_GAIN 0.00390625 (rdma-hw.cc:57 m_g)    |
 * | InitialAlpha | 1         | rdma-queue-pair.cc:63 dctcp.m_alpha = 1                       |
 * | MinRate      | 100Mbps   | mix/config.txt:24 MIN_RATE 100Mb/s (rdma-hw.cc:22 MinRate)    |
 *
 * Where it differs from the reference: sequence numbers are 64-bit (the reference's uint32_t
 * ack_seq wraps after 4 GiB); the NIC reports only ACKs that acknowledge new data (the
 * reference also runs duplicate ACKs and NACKs through HandleAckDctcp). The window the
 * reference puts on every QP (HAS_WIN, VAR_WIN, GLOBAL_T) is the NIC's, not this class's:
 * `roce.rate_window` / `roce.rate_window_scaled` (RdmaNic::RateWindow).
 */
class RateDctcpCongestionControl : public RoceCongestionControl
{
  public:
    static TypeId GetTypeId();
    RateDctcpCongestionControl();
    ~RateDctcpCongestionControl() override;

    using FabricCongestionControl::Start;
    using RoceCongestionControl::Start;
    /// Rate = line rate, alpha = InitialAlpha, no batch yet, not in CWR.
    void Start(DataRate lineRate) override;
    void Stop() override;
    DataRate GetRate() const override;
    /// Ignored: the ECN echo in ACKs is the signal.
    void OnCnp() override;
    void OnBytesSent(uint32_t bytes) override;
    void OnAck(const CcFeedback& ack) override;
    /// "dctcp-rate".
    std::string GetName() const override;
    /// Alpha.
    double GetTraceValue() const override;

    double GetAlpha() const;
    /// Whether a cut happened and no ACK has passed the sndNxt of that cut yet.
    bool InCwr() const;

  private:
    // Attributes
    DataRate m_rateAi;
    double m_g;
    double m_initialAlpha;
    DataRate m_minRate;

    // State (the reference's RdmaQueuePair::dctcp and m_rate)
    uint64_t m_mtu{0};      ///< payload bytes of a full packet (the reference's m_mtu)
    uint64_t m_lineRate{0}; ///< bit/s (m_max_rate)
    uint64_t m_rate{0};     ///< bit/s
    double m_alpha{1};
    uint64_t m_ackSeq{0};        ///< payload acknowledged since Start (ack_seq)
    uint64_t m_lastUpdateSeq{0}; ///< sndNxt at the last alpha update; 0: none yet
    uint64_t m_ecnCnt{0};        ///< ECN-echoed ACKs since the last alpha update
    uint64_t m_batchSize{0};     ///< packets the next alpha update divides by
    bool m_cwr{false};           ///< caState == 1
    uint64_t m_highSeq{0};       ///< CWR ends once ackSeq passes this
};

} // namespace ns3

#endif
