#ifndef FABRIC_RUN_RECORDER_H
#define FABRIC_RUN_RECORDER_H

#include "build/fabric-builder.h"
#include "config/scenario-config.h"
#include "record/fabric-idleness.h"
#include "record/hpcc-outputs.h"
#include "record/sampling-ticker.h"
#include "trace/csv-writer.h"

#include "ns3/pcap-file-wrapper.h"

#include <deque>
#include <memory>
#include <string>
#include <vector>

namespace ns3
{

/**
 * \brief Writes a run's time-series traces while it runs: queues.csv (sampled egress queue
 * depth), pfc.csv (every PFC frame sent and received), rates.csv (per-flow delivered rate),
 * trims.csv (every payload a switch trimmed; only when some switch has trimming enabled, so runs
 * without trimming keep their set of files), credits.csv (sampled credit state of every port
 * under credit-based flow control; only then), buffer-thresholds.csv (sampled per-queue buffer
 * thresholds, with switch.mmu abm or dynamic with a lossy alpha; only then), optional pcaps, and
 * the HPCC-family simulators'
 * fct.txt, pfc.txt and qlen.txt when trace.hpcc names them (record/hpcc-outputs.h). Files are
 * committed (renamed into place) by Finish().
 */
class RunRecorder
{
  public:
    RunRecorder(const FabricNetwork* net, const TraceConfig& config, const std::string& outDir);
    void Start();

    /// Samplers sleep while \p idleness says the fabric is idle and wake at its announcements
    /// (none: they always tick). Before Start().
    void SetIdleness(FabricIdleness* idleness)
    {
        m_idleness = idleness;
    }

    /// Flushes and renames every file into place.
    void Finish();

  private:
    struct SampledPort
    {
        uint32_t node;
        uint32_t port;
        std::array<uint64_t, kFabricPriorities> last{};
    };

    void SampleQueues();
    /// credits.csv: per (port, credited lane), rows while credits are in use, held or pending.
    void SampleCredits();
    /// Ticks \p sampler every \p interval from \p first on, sleeping through idle time.
    std::unique_ptr<SamplingTicker> Every(Time interval,
                                          Time first,
                                          void (RunRecorder::*sampler)());
    void QueueChanged(uint32_t node, uint32_t port, uint8_t priority, uint64_t bytes);
    bool Traced(uint32_t port) const;
    void SampleRates();
    void PfcEvent(uint32_t node, uint32_t port, bool sent, uint8_t priority, uint16_t quanta);

    /// One port's PFC trace sink. A callback per port made on it carries (node, port) without
    /// ns-3's argument binding: 1 024 bound callbacks connected by name were 4.8 M instructions
    /// of a 128-host run's start.
    struct PfcTap
    {
        RunRecorder* recorder;
        uint32_t node;
        uint32_t port;

        void Sent(uint8_t priority, uint16_t quanta)
        {
            recorder->PfcEvent(node, port, true, priority, quanta);
        }

        void Received(uint8_t priority, uint16_t quanta)
        {
            recorder->PfcEvent(node, port, false, priority, quanta);
        }
    };

    void WatchdogEvent(uint32_t node, uint32_t port, uint8_t priority, bool triggered);
    void TrimEvent(uint32_t node, uint32_t flowId, uint32_t port, uint32_t cutBytes);

    const FabricNetwork* m_net;
    TraceConfig m_config;
    std::string m_outDir;
    CsvWriter m_queues;
    CsvWriter m_pfc;
    CsvWriter m_rates;
    CsvWriter m_cc;
    CsvWriter m_trims;   ///< open only when a local switch trims
    CsvWriter m_credits; ///< open only when ports use credit-based flow control
    /// buffer-thresholds.csv: open only when a local switch's buffer policy sets per-queue
    /// thresholds on lossy egress queues (switch.mmu abm, or dynamic with a lossy alpha).
    CsvWriter m_thresholds;

    /// A switch port whose queues' thresholds are sampled.
    struct ThresholdPort
    {
        uint32_t node;
        uint32_t port;
        Ptr<SharedBufferMmu> mmu;
        std::array<uint64_t, kFabricPriorities> last{};
    };

    std::vector<ThresholdPort> m_thresholdPorts;
    std::unique_ptr<SamplingTicker> m_thresholdTicker;
    /// buffer-thresholds.csv: every sampled queue's bytes, threshold, n_p and mu.
    void SampleThresholds();

    struct CreditPort
    {
        uint32_t node;
        uint32_t port;
        std::array<bool, kFabricPriorities> lastBusy{};
    };

    std::vector<CreditPort> m_creditPorts;
    std::unique_ptr<SamplingTicker> m_creditTicker;
    std::vector<SampledPort> m_sampled;
    std::deque<PfcTap> m_pfcTaps; ///< a deque: the callbacks hold their addresses
    std::vector<uint64_t> m_lastDelivered;
    std::vector<Ptr<PcapFileWrapper>> m_pcaps;
    std::unique_ptr<SamplingTicker> m_queueTicker;
    std::unique_ptr<SamplingTicker> m_rateTicker;
    FabricIdleness* m_idleness = nullptr;
    std::unique_ptr<HpccOutputs> m_hpcc; ///< only when trace.hpcc names a file
};

} // namespace ns3

#endif
