#ifndef FABRIC_UB_RECORDER_H
#define FABRIC_UB_RECORDER_H

#include "host/host-transport.h"
#include "trace/csv-writer.h"

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace ns3
{

/**
 * \brief Unified Bus traces of a run: reorder.csv (time_ns, flow_id, packets, bytes: a
 * request's out-of-order data held at its receiver, a row at every change) and the UB figures
 * of summary.json (reorder peaks, resent packets, context misses, channels, state bytes).
 */
class UbRecorder
{
  public:
    UbRecorder(const std::vector<Ptr<HostTransport>>& nics, const std::string& outDir);
    /// Connects the trace sources (no-op unless the NICs are UbNics).
    void Start();
    void Finish(uint64_t gzipAbove);
    /// Adds the "ub" object to \p summary.
    void Summarize(nlohmann::json& summary) const;

  private:
    void Reorder(uint32_t flowId, uint32_t packets, uint64_t bytes);

    std::vector<Ptr<HostTransport>> m_nics;
    bool m_active = false;
    CsvWriter m_reorder;
};

} // namespace ns3

#endif
