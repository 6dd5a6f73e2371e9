#ifndef FABRIC_CONWEAVE_RECORDER_H
#define FABRIC_CONWEAVE_RECORDER_H

#include "build/fabric-builder.h"
#include "switch/conweave-load-balancer.h"
#include "trace/csv-writer.h"

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace ns3
{

/**
 * \brief ConWeave's traces of a run (switch.lb: conweave; nothing otherwise): conweave.csv, a
 * row per event (time_ns, switch, event, flow_id, queue, frames, bytes, old_path, new_path,
 * reason): `reroute` (a source ToR moved a flow; paths as out-ports hop by hop; reason
 * reply_timeout or epoch_expiry), `queue` (a destination ToR's reorder queue now holds frames /
 * bytes), `flush` (a reorder queue released its frames; reason tail or timeout); and the
 * "conweave" object of summary.json (reroutes, flushes by TAIL and by timeout, held frames,
 * reorder-queue peaks, control frames by type).
 */
class ConWeaveRecorder
{
  public:
    ConWeaveRecorder(const FabricNetwork* net, const std::string& outDir);
    /// Connects the trace sources (no-op unless the switches run ConWeave).
    void Start();
    void Finish(uint64_t gzipAbove);
    /// Adds the "conweave" object to \p summary.
    void Summarize(nlohmann::json& summary) const;

  private:
    struct Tap
    {
        ConWeaveRecorder* recorder;
        uint32_t node;
        void Reroute(uint32_t flowId, uint64_t oldPath, uint64_t newPath, uint8_t reason);
        void Queue(uint32_t queue, uint32_t flowId, uint32_t frames, uint64_t bytes);
        void Flush(uint32_t queue, uint32_t flowId, uint32_t frames, bool byTail);
    };

    const FabricNetwork* m_net;
    std::vector<std::pair<uint32_t, Ptr<ConWeaveLoadBalancer>>> m_balancers; ///< (node, lb)
    std::vector<Tap> m_taps;
    CsvWriter m_csv;
};

} // namespace ns3

#endif
