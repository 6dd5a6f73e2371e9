#ifndef FABRIC_SCENARIO_CONFIG_H
#define FABRIC_SCENARIO_CONFIG_H

#include "config/config-collective.h"
#include "config/topology-spec.h"
#include "host/flow-table.h"
#include "job/job-spec.h"

#include "ns3/data-rate.h"
#include "ns3/nstime.h"

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>
#include <yaml-cpp/yaml.h>

namespace ns3
{

/// One flow of an explicit flow list.
struct FlowSpec
{
    uint32_t src = 0; ///< host index
    uint32_t dst = 0; ///< host index
    uint64_t bytes = 0;
    Time start;
    DataRate rate{0ULL}; ///< 0 = line rate
    uint8_t priority = 3;
    bool ecn = true;
    RdmaVerb verb = RdmaVerb::WRITE; ///< RoCE: write, send or read
    uint16_t endpoint = 0;           ///< UB: Jetty of the source host
    uint8_t order = 0;               ///< UB: 0 none, 1 after the flows listed, 2 strict
    std::vector<uint32_t> after;     ///< UB: flows that must execute first
    bool uno = false;                ///< UB: service: uno (unreliable, no order)
    std::string serviceKey;          ///< where service: uno was asked for (later refusals)
    int serviceLine = 0;
    std::vector<std::pair<Time, DataRate>> rateSchedule; ///< raw flows: (after start, rate)
    Time period;                                         ///< raw flows: periodic bursts
    Time onTime;
};

/// A packet to lose on its first transmission (retransmission studies).
struct PacketLoss
{
    uint32_t flow = 0;
    uint32_t packet = 0; ///< index within the message
};

/// What a link event does: fail, come back, run degraded, or return to its built state.
enum class LinkAction : uint8_t
{
    DOWN,
    UP,
    DEGRADE,
    RESTORE
};

/// A link failing, coming back, degrading or being restored at a given time. A degrade changes
/// only what it names (both directions): the rate, the delay added to the cable's own, the
/// probability that a frame is lost on arrival.
struct LinkEvent
{
    Time at;
    uint32_t link = 0; ///< index into topology.links
    bool up = false;   ///< DOWN / UP: the state the link goes to
    LinkAction action = LinkAction::DOWN;
    std::optional<DataRate> rate;    ///< DEGRADE: the link's rate from now on
    std::optional<Time> addedDelay;  ///< DEGRADE: delay on top of the cable's own
    std::optional<double> errorRate; ///< DEGRADE: frame loss probability at each end
};

/// A host NIC starting (or ending) a PFC storm: it stops draining and keeps its switch paused.
struct StormEvent
{
    Time at;
    uint32_t host = 0;
    uint8_t priority = 3;
    bool stop = false;
};

/// What the run records besides flows, links and the summary (the trace: section; its
/// defaults are in the scenario key table, config-trace.cc).
struct TraceConfig
{
    Time queueInterval;
    bool queueOnChange = false;          ///< a row at every change instead of every interval
    std::vector<std::string> queueNodes; ///< empty = every switch
    std::vector<uint32_t> queuePorts;    ///< empty = every port
    uint8_t queuePriorities = 0;         ///< bit mask
    uint64_t gzipAbove = 0;              ///< traces larger than this are stored as .csv.gz
    Time rateInterval;
    bool pcap = false;
    std::vector<std::string> pcapNodes; ///< empty = every node
    uint32_t pcapSnapLen = 65535;       ///< bytes of each frame stored in the pcaps
    bool sleepWhenIdle = true;          ///< samplers skip idle time (same files as ticking)

    /// trace.hpcc: the output files of the HPCC-family simulators (record/hpcc-outputs.h).
    struct Hpcc
    {
        std::string fct;       ///< fct.txt path under the run directory; empty: not written
        std::string pfc;       ///< pfc.txt path; empty: not written
        std::string qlen;      ///< qlen.txt path; empty: not written
        bool conweave = false; ///< fct.txt in ConWeave's columns instead of HPCC's
        Time qlenStart;        ///< QLEN_MON_START
        Time qlenEnd;          ///< QLEN_MON_END
        Time qlenInterval;     ///< qlen_mon_interval (a sample of every switch port)
        Time qlenDump;         ///< qlen_dump_interval (a histogram dump at multiples of it)
        /// From the keys read before trace: the id each spec node has in the files (HPCC
        /// topology.txt ids; empty: the spec index), the dport column of an HPCC flow.txt per
        /// flow (empty: 100), host.mtu (HPCC's packet_payload_size) and stop_time.
        std::vector<uint32_t> nodeIds;
        std::vector<uint16_t> dports;
        uint32_t payloadBytes = 0;
        Time stopTime;

        bool Any() const
        {
            return !fct.empty() || !pfc.empty() || !qlen.empty();
        }
    } hpcc;
};

/**
 * \brief A scenario file after parsing and validation: everything fabric-run needs.
 *
 * Model parameters are kept as (attribute path, value) pairs applied with Config::SetDefault
 * before the fabric is built, so the file, --set and --attr all end in ns-3 attributes. The
 * other values come from the keys of the scenario key table (config-table.h), which holds
 * their defaults: the members here are only zero until LoadScenario fills them.
 */
struct ScenarioConfig
{
    std::string file;
    std::string name;
    YAML::Node document; ///< after --set overrides, recorded in summary.json
    TopologySpec topology;
    std::vector<std::pair<std::string, std::string>> attributes;
    std::vector<FlowSpec> flows; ///< the workload, expanded to flows
    std::vector<LinkEvent> linkEvents;
    std::vector<StormEvent> stormEvents;
    std::vector<std::pair<Time, uint32_t>> cnpEvents; ///< (time, flow): scripted CNPs (RoCE)
    std::string transport;                            ///< raw (no reliability, no CC), roce or ub
    std::vector<PacketLoss> losses;
    TraceConfig trace;
    Time stopTime;
    uint64_t seed = 0;
    uint32_t hashSalt = 0;
    Time deadlockCheckInterval;
    Time deadlockTimeout;
    uint32_t payloadMtu = 0;     ///< host.mtu
    CollectiveConfig collective; ///< workload.type collective: the `collective:` section
    std::vector<JobSpec> jobs;   ///< workload.type job: workload.jobs
    std::string scheduler;       ///< simulator.scheduler, a TypeId name
    /// hpcc_config: what each config.txt key that is not simply applied became (hpcc-config.h)
    std::vector<std::string> importNotes;
    /// "FILE:LINE: KEY: ..." for settings that run but cost something the user should know
    /// (fabric-run prints each as "fabric-run: warning: ..."; summary.json keeps them)
    std::vector<std::string> warnings;
};

class YamlFields;

/// Reads scenario key \p key of \p fields as the value of ns-3 attribute \p attribute: checked
/// and normalized by the attribute's own type, an error naming file, line and key otherwise.
void AddAttributeFromKey(ScenarioConfig& cfg,
                         YamlFields& fields,
                         const std::string& key,
                         const std::string& attribute);

/// Applies one "--set a.b.c=value" to a scenario document (value parsed as YAML).
void ApplyOverride(YAML::Node& document, const std::string& assignment);

/// Reads a scenario file, applies overrides, validates everything; throws ConfigError.
ScenarioConfig LoadScenario(const std::string& path,
                            const std::vector<std::string>& overrides,
                            const std::string& sourceRoot);

/// fabric-run --hpcc-config FILE: the scenario {hpcc_config: {file: FILE, simulator: NAME}}
/// (hpcc-config.h), with overrides; messages name \p configPath.
ScenarioConfig LoadHpccConfigScenario(const std::string& configPath,
                                      const std::string& simulator,
                                      const std::vector<std::string>& overrides,
                                      const std::string& sourceRoot);

/// The headroom one (port, priority) needs so that nothing is lost while a PFC pause travels
/// one hop: the bytes the upstream can start sending before the pause reaches it — the pause
/// waits behind at most one frame and one other PFC frame, serializes, and crosses the cable,
/// while data already on the cable keeps coming — plus the last frame it started, plus the
/// frame that triggered the pause, which itself lands in headroom when the shared pool is full.
/// \p frameBytes is the largest frame stored, \p wireOverhead the per-frame preamble/FCS/IFG.
uint64_t OneHopHeadroomBytes(DataRate rate,
                             Time cableDelay,
                             uint32_t frameBytes,
                             uint32_t wireOverhead);

/// Text for `fabric-run --help`: every key of the scenario key table with its meaning, unit
/// and default (config-help.cc).
std::string ScenarioKeysHelp();

} // namespace ns3

#endif
