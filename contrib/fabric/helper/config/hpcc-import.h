#ifndef FABRIC_HPCC_IMPORT_H
#define FABRIC_HPCC_IMPORT_H

#include "config/config-error.h"
#include "config/scenario-config.h"
#include "config/topology-spec.h"

#include <cstdint>
#include <limits>
#include <string>
#include <vector>

/**
 * \file
 * Imports the plain-text inputs of the HPCC ns-3 simulator (alibaba-edu/High-Precision-Congestion-
 * Control: simulation/mix/topology.txt and flow.txt) and of simulators derived from it such as
 * ConWeave. The formats are whitespace-separated columns, one record per line
 * (topologies/README.md has the same text):
 *
 * topology.txt
 *
 *        N_nodes N_switches N_links          line 1
 *        <N_switches switch node ids>        line 2 (omitted when N_switches is 0)
 *        src dst rate delay error_rate       N_links lines, e.g. "0 8 100Gbps 0.001ms 0"
 *
 *    Node ids run 0..N_nodes-1; ids not on line 2 are hosts. rate is an ns-3 data rate with a unit
 *    (bps, Kbps/kbps, Mbps, Gbps, also b/s, Bps, B/s forms); delay an ns-3 time with a unit (s, ms,
 *    us, ns, ps); error_rate the per-packet loss probability of the link, 0..1. Links are
 *    bidirectional; parallel links are kept.
 *
 * flow.txt
 *
 *        N_flows                              line 1
 *        src dst priority dport size start_time   N_flows lines (HPCC), e.g. "2 1 3 100 200000 2.0"
 *        src dst priority size start_time         or (ConWeave: no dport column)
 *
 *    src and dst are node ids of hosts; priority (HPCC's "pg") is the traffic class 0..7; dport is
 *    the UDP destination port and is ignored (ports are the transport's business here); size is
 *    the message size in bytes; start_time is in seconds as a decimal number ("2", "2.0000001",
 *    "1.5e-6"). The first flow line decides between the 6- and 5-column layouts; every other line
 *    must have the same number of columns. Flows keep file order (HPCC requires ascending
 *    start_time; this reader does not).
 *
 * Mapping: hosts become TopologySpec nodes "h<id>" (role "host") in increasing id order, followed
 * by the switches "sw<id>" (role "switch") in increasing id order, so host index i is the i-th
 * host by id. FlowSpec src/dst are those host indices, start is exact to the picosecond (the
 * decimal text is converted without floating point; digits below 1 ps are rounded half up), and
 * rate (line), ecn (on) and verb (write) keep the FlowSpec defaults. The start time is built with
 * PicoSeconds(): exact at the picosecond resolution the fabric library sets as it loads.
 *
 * Leniency: blank lines and trailing whitespace (also CR of CRLF files) are ignored everywhere, as
 * HPCC's stream reader ignores them. Records after the count on line 1 are ignored, as HPCC
 * ignores them (its shipped mix/topology.txt says 65 links and lists some 259, mix/flow.txt says
 * 2 flows and lists some 256, then notes), with one warning naming the file and the first ignored
 * line; HpccCounts::STRICT (fabric-run --strict-import) refuses them instead. Fewer records than
 * counted is always an error. Stricter than HPCC: each record must be on its own line, integers
 * must be plain decimal, and the topology must pass FindTopologyProblem (every node linked,
 * every host reaching every other through switches).
 *
 * Errors are ConfigErrors reading "FILE:LINE: FIELD: message", FIELD being a column name above
 * ("start_time", "src", "rate", "error_rate", ...), "switch_ids" for line 2, "columns" for a wrong
 * number of columns, "N_nodes"/"N_switches"/"N_links"/"N_flows" for the counts (a count that
 * disagrees with the records is reported on line 1) and "node <id>" for a node-level problem
 * (reported on line 1 for a host, line 2 for a switch).
 */

namespace ns3
{

/// A topology.txt after import: the fabric plus what TopologySpec has no field for.
struct HpccTopology
{
    /// hostIndexOfNodeId value of a node that is a switch.
    static constexpr uint32_t kNotAHost = std::numeric_limits<uint32_t>::max();

    TopologySpec spec;                       ///< hosts by id, then switches by id
    std::vector<double> linkErrorRate;       ///< per spec.links entry: the error_rate column
    std::vector<uint32_t> hostIndexOfNodeId; ///< HPCC node id -> host index (or kNotAHost)
    std::vector<uint32_t> nodeIndexOfNodeId; ///< HPCC node id -> index into spec.nodes
};

/// What to do with records after the count on line 1.
enum class HpccCounts
{
    AS_HPCC, ///< ignore them, as HPCC does, with one warning on stderr
    STRICT,  ///< refuse them: ConfigError on line 1 naming the count and the first extra line
    /// ignore them without a warning: a second read of a file whose first read warns
    /// (hpcc-config.cc reads the topology and flows before the scenario reader does)
    AS_HPCC_SILENT,
};

/// The fabric-run --strict-import switch: the ns-3 GlobalValue "FabricStrictImport" (false by
/// default) as an HpccCounts.
HpccCounts HpccCountsFromGlobal();

/**
 * Reads an HPCC topology.txt. spec.source is \p path; each link's sourceLine is its line in the
 * file. Throws ConfigError (path, line, field) for every problem, ConfigError(path, 0, "", ...)
 * when the file cannot be opened.
 */
HpccTopology ReadHpccTopology(const std::string& path, HpccCounts counts = HpccCounts::AS_HPCC);

/**
 * Reads an HPCC (6-column) or ConWeave (5-column) flow.txt whose node ids refer to \p topo.
 * Throws ConfigError naming \p path, the line and the field.
 */
std::vector<FlowSpec> ReadHpccFlows(const std::string& path,
                                    const HpccTopology& topo,
                                    HpccCounts counts = HpccCounts::AS_HPCC);

} // namespace ns3

#endif
