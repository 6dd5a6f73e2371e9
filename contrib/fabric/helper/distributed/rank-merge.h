#ifndef FABRIC_RANK_MERGE_H
#define FABRIC_RANK_MERGE_H

#include "distributed/partitioned-run.h"
#include "host/flow-table.h"
#include "record/run-totals.h"

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace ns3
{

/// Where rank \p rank of a distributed run writes its share: <outDir>/rank-<rank>.
std::string RankDirectory(const std::string& outDir, uint32_t rank);

/// Writes a rank's counters and its partial flow records to <dir>/partial.json.
void WriteRankPartial(const std::string& dir,
                      const nlohmann::json& rankInfo,
                      const nlohmann::json& totals,
                      const FlowTable& table);

/// The ranks of a distributed run, merged.
struct RankMerge
{
    RunTotals totals;
    double wallSeconds = 0; ///< the slowest rank's loop
    Time simEnd;            ///< the latest rank's clock (all equal when flows finish)
    nlohmann::json ranks;   ///< each rank's wall time, events, RSS and synchronization wait
};

/**
 * \brief Rank 0's end of a distributed run: reads every rank's partial.json, adds the flow
 * records into \p table and the counters into one RunTotals, merges each trace CSV the ranks
 * wrote into one file in \p outDir (rows sorted by time, then text; gzip above \p gzipAbove),
 * moves the pcaps up, and removes the rank directories.
 */
RankMerge MergeRanks(const std::string& outDir,
                     uint32_t size,
                     uint64_t gzipAbove,
                     FlowTable& table);

/// Merges CSV files with one header into \p out: rows sorted by their leading time_ns field
/// (numerically), then as text. Throws std::runtime_error when headers differ.
void MergeCsvFiles(const std::vector<std::string>& parts,
                   const std::string& out,
                   uint64_t gzipAbove);

/// summary.json's "distributed" section.
nlohmann::json DescribeDistributedRun(const TopologySpec& spec,
                                      const PartitionPlan& plan,
                                      const RankMerge& merged,
                                      Time drain);

} // namespace ns3

#endif
