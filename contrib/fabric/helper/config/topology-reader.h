#ifndef FABRIC_TOPOLOGY_READER_H
#define FABRIC_TOPOLOGY_READER_H

#include "config/config-error.h"
#include "config/topology-spec.h"

#include "ns3/data-rate.h"
#include "ns3/nstime.h"

#include <string>
#include <yaml-cpp/yaml.h>

/**
 * \file
 * Reads a fabric topology from YAML into a TopologySpec. Two forms (topologies/README.md has the
 * same text with examples):
 *
 * 1. Explicit nodes and links
 *
 *        description: "optional free text"
 *        rate: 400Gbps            # optional file-wide link defaults (else LinkDefaults)
 *        cable: 30m               # or delay: 150ns
 *        nodes:
 *          - {name: h0, type: host}               # type: host | switch (required)
 *          - {name: sw0, type: switch, role: tor}  # role: free text, optional; group: integer
 *        links:
 *          - {a: h0, b: sw0, rate: 400Gbps, cable: 30m}  # or delay: 150ns; count: n parallel
 *
 *    Host index i is the i-th node of type host in file order. Node names: letters, digits,
 *    '_', '-', '.'. role defaults to "host" / "switch", group to -1. Each link entry makes
 *    `count` (default 1) identical links; rate and delay default to the file-wide values.
 *    A cable length converts to delay at 5 ns/m (30m -> 150 ns); `delay` and `cable` are
 *    mutually exclusive.
 *
 * 2. Generator and parameters (see topology-generators.h for the wiring and node order)
 *
 *        generator: star        # hosts (required), rate, delay | cable
 *        generator: clos2       # k (required); oversubscription: "3:1" or down/up; leaves,
 *                               # spines, hosts; rate, delay|cable (both tiers), host_rate,
 *                               # host_delay|host_cable, fabric_rate, fabric_delay|fabric_cable
 *        generator: fat-tree3   # k (required), hosts, rate, delay | cable
 *        generator: rail        # servers (required), gpus_per_server (8), servers_per_group (32),
 *                               # spines (= gpus_per_server), uplinks_per_leaf, nvlink_rate
 *                               # (450GB/s), nvlink_delay|nvlink_cable (10ns), nic_rate,
 *                               # nic_delay|nic_cable, fabric_rate, fabric_delay|fabric_cable,
 *                               # rate, delay|cable (defaults for nic_* and fabric_*)
 *
 *    Link rates and delays not given fall back to `rate`/`delay`/`cable`, then to LinkDefaults.
 *    Counts given in a file must be at least 1 (leave a key out to get its default).
 *
 * Errors are ConfigErrors reading "FILE:LINE: KEY: message". KEY is the path from the document
 * root: "links[2].rate", "nodes[0].name", "k" — prefixed with keyPath when the topology is
 * embedded in another document ("topology.links[2].rate"). List indices are 0-based; LINE is
 * 1-based. Unknown keys are errors. Checked: YAML syntax, missing file, missing keys, malformed
 * or non-positive rates and malformed/negative delays, unknown node names in links, duplicate
 * names, self-links, nodes without links, and that every host reaches every other host through
 * switches only (routing never transits a host).
 */

namespace ns3
{

/// Rate and delay for links whose file gives neither (30 m of cable = 150 ns).
struct LinkDefaults
{
    DataRate rate{"400Gbps"};
    Time delay{NanoSeconds(150)};
};

/**
 * Loads a YAML document. A missing/unreadable file throws ConfigError(path, 0, "", ...); a syntax
 * error throws ConfigError(path, <1-based line>, "", <parser message>).
 */
YAML::Node LoadYamlFile(const std::string& path);

/// LoadYamlFile + ReadTopology with the path as file name and the document root as the topology.
TopologySpec ReadTopologyFile(const std::string& path,
                              const LinkDefaults& defaults = LinkDefaults());

/**
 * Reads a topology from an already parsed node (e.g. the `topology:` mapping of a scenario file).
 * \param node the topology mapping
 * \param fileName file name for messages and TopologySpec::source
 * \param keyPath dotted path of \p node in its document ("" when it is the root, "topology")
 * \param defaults rate and delay for links that do not give theirs
 */
TopologySpec ReadTopology(const YAML::Node& node,
                          const std::string& fileName,
                          const std::string& keyPath,
                          const LinkDefaults& defaults = LinkDefaults());

} // namespace ns3

#endif
