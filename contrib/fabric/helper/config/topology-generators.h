#ifndef FABRIC_TOPOLOGY_GENERATORS_H
#define FABRIC_TOPOLOGY_GENERATORS_H

#include "config/config-error.h"
#include "config/topology-spec.h"

#include "ns3/data-rate.h"
#include "ns3/nstime.h"

#include <cstdint>
#include <optional>
#include <string>

/**
 * \file
 * Generators for the reference fabrics of docs/models.md#clos-sizing: star, two-tier Clos
 * (leaf/spine), three-tier fat-tree and the rail-optimized GPU cluster. Pure functions: the same
 * parameters always give the same TopologySpec, with the same node names in the same order.
 *
 * Node order (this is a contract — workloads say "host i" and mean the i-th host):
 *   all hosts first, in host-index order, then the switches tier by tier, bottom up.
 *   So TopologySpec::Hosts()[i] == i for every generated topology, and host i is named "h<i>"
 *   ("gpu<s>_<g>" in the rail fabric, where host index i = s * gpusPerServer + g, i.e. ranks
 *   0..G-1 on server 0, G..2G-1 on server 1, ...).
 *
 * Link order and direction: every link's `a` is the lower node (host, or the lower-tier switch)
 * and `b` the upper one. Host links come first in host order, then switch-to-switch links tier by
 * tier; parallel links between the same two switches are adjacent. Generated links have
 * sourceLine 0.
 *
 * Errors: invalid parameters throw TopologyParamError (a ConfigError) whose file is
 * "generator:<name>", line 0 and key the parameter's name as written in topology files
 * ("k", "down", "uplinks_per_leaf", ...), so the file reader can point at the offending line.
 */

namespace ns3
{

/**
 * \brief A ConfigError about one generator parameter. Keeps the bare message so that
 * ReadTopology can re-anchor the error at the parameter's line in the user's file.
 */
class TopologyParamError : public ConfigError
{
  public:
    TopologyParamError(const std::string& generator,
                       const std::string& key,
                       const std::string& message);

    /// The message without the "file: key: " prefix.
    const std::string& Message() const
    {
        return m_message;
    }

  private:
    std::string m_message;
};

/**
 * One switch "sw0" (role "tor") with hosts h0..h{N-1} (role "host"), one link each.
 * Throws when hosts == 0.
 */
TopologySpec MakeStar(uint32_t hosts, DataRate rate, Time delay);

/**
 * Two-tier leaf/spine Clos built from k-port switches.
 *
 * Ports per leaf: `down` to hosts, `up` to spines (down + up <= k). Give either down/up, or an
 * oversubscription ratio "a:b" (down:up) that uses all k ports: down = k*a/(a+b), up = k - down
 * (k*a must be divisible by a+b). With neither, 1:1: down = up = k/2. With only one of down/up the
 * other is k minus it.
 *
 * Each leaf has `up` uplinks spread evenly over the spines: spines defaults to up (one link to each
 * spine); a smaller spine count is allowed when up is a multiple of it (up/spines parallel links
 * from each leaf to each spine). A spine has k ports, so leaves <= k * spines / up, which is also
 * the default (k leaves when spines == up: k*k/2 hosts at 1:1). hosts defaults to leaves * down;
 * fewer hosts fill the leaves in order and leave the last leaves' host ports empty.
 *
 * Names: hosts h<i> (role "host", group = leaf index), leaves leaf<j> (role "leaf", group j),
 * spines spine<s> (role "spine"). Host i is on leaf i / down, port i % down.
 * Link order: host links (host order), then leaf-major leaf-to-spine links
 * (leaf j: spine 0 x up/spines, spine 1 x up/spines, ...).
 */
struct Clos2Params
{
    uint32_t k = 64;              ///< ports per switch, even
    uint32_t down = 0;            ///< host ports per leaf (0: derive)
    uint32_t up = 0;              ///< spine ports per leaf (0: derive)
    std::string oversubscription; ///< "down:up" such as "3:1" (empty: use down/up, else 1:1)
    uint32_t leaves = 0;          ///< 0: the maximum, k * spines / up
    uint32_t spines = 0;          ///< 0: up (one link from each leaf to each spine)
    uint32_t hosts = 0;           ///< 0: leaves * down
    DataRate hostRate{"400Gbps"};
    DataRate fabricRate{"400Gbps"};
    Time hostDelay{NanoSeconds(150)};   ///< 30 m of cable
    Time fabricDelay{NanoSeconds(150)}; ///< 30 m of cable
};

TopologySpec MakeClos2(const Clos2Params& params);

/**
 * Three-tier k-ary fat-tree (Al-Fares et al.): k pods of k/2 edge and k/2 aggregation switches,
 * (k/2)^2 core switches, k^3/4 hosts, all links at one rate and delay.
 *
 * Wiring: edge e of pod p serves hosts p*(k/2)^2 + e*(k/2) ... + k/2 - 1 and links to every
 * aggregation switch of its pod; aggregation switch a of every pod links to cores
 * a*k/2 ... a*k/2 + k/2 - 1.
 * Names: h<i> (role "host", group = pod), edge<p>_<e> (role "edge", group p),
 * agg<p>_<a> (role "agg", group p), core<c> (role "core").
 * Node order: hosts, edges (pod-major), aggs (pod-major), cores.
 * Link order: host links, edge-agg links (pod, edge, agg), agg-core links (pod, agg, core).
 *
 * \param hosts 0 for the full k^3/4; fewer fill the edges in order.
 * Throws when k is odd or < 2, or hosts > k^3/4.
 */
TopologySpec MakeFatTree3(uint32_t k, DataRate rate, Time delay, uint32_t hosts = 0);

/**
 * Rail-optimized GPU cluster (docs/models.md#rail-optimized-cluster).
 *
 * Every server s has G GPUs "gpu<s>_<g>" (hosts, role "gpu", group = s) fully connected through
 * one NVSwitch "srv<s>-nvs" (a switch, role "nvswitch", group = s) by one NVLink link per GPU.
 * Each GPU also has its own NIC link to the leaf of its rail in its group:
 * "g<grp>-rail<g>" (role "leaf", group = grp), where grp = s / serversPerGroup. So a GPU host has
 * two links (NVLink and NIC); routing is by shortest path and never transits a host, so traffic
 * between two servers always leaves through the NICs, and traffic inside a server uses NVLink.
 *
 * Every rail leaf has uplinksPerLeaf links spread evenly over all spines "spine<x>" (role
 * "spine"), shared by all groups. Same-rail traffic within a group crosses one leaf; cross-rail or
 * cross-group traffic climbs to a spine.
 *
 * Assumptions (documented choices, see docs/models.md#reference-cluster):
 * - PCIe between GPU and NIC (Gen5 x16, 64 GB/s) is faster than the NIC (50 GB/s), so it is not
 *   a bottleneck and is not modelled as a separate link; the NIC link carries the NIC's rate.
 * - NVLink: 450 GB/s per GPU per direction; delay 10 ns (a short in-chassis trace; the NVSwitch's
 *   own forwarding latency belongs to the switch model, not the link).
 * - spines defaults to G (one spine plane per rail count, the usual rail-optimized build).
 * - uplinksPerLeaf defaults to the smallest multiple of spines that is >= the leaf's downlinks
 *   (servers in its group): 1:1 when that count is a multiple of the spine count (32 servers, 8
 *   spines: 4 links to each spine), otherwise every leaf still reaches every spine (2 servers,
 *   8 spines: one link to each spine, under-subscribed). An explicit value must be a multiple of
 *   spines.
 *
 * Node order: GPUs (server-major: host index = s * G + g), NVSwitches (server order), rail
 * leaves (group-major, rail-minor), spines.
 * Link order: NVLink links (host order), NIC links (host order), leaf-to-spine links (leaf-major,
 * then spine, parallel links adjacent).
 */
struct RailParams
{
    uint32_t servers = 2;
    uint32_t gpusPerServer = 8;
    uint32_t serversPerGroup = 32;
    uint32_t spines = 0;             ///< 0: gpusPerServer
    uint32_t uplinksPerLeaf = 0;     ///< 0: smallest multiple of spines >= the leaf's downlinks
    DataRate nvlinkRate{"3600Gbps"}; ///< 450 GB/s
    Time nvlinkDelay{NanoSeconds(10)};
    DataRate nicRate{"400Gbps"}; ///< 50 GB/s
    Time nicDelay{NanoSeconds(150)};
    DataRate fabricRate{"400Gbps"};
    Time fabricDelay{NanoSeconds(150)};
    /// > 0: model the PCIe link between each GPU and its NIC (Gen5 x16 = 64 GB/s): the NIC
    /// becomes a switch node "nic<s>_<g>" (role "nic", group s) between the GPU (PCIe link at
    /// this rate) and its rail leaf (NIC link). 0 (default): not modelled, PCIe being faster.
    DataRate pcieRate{0ULL};
    Time pcieDelay{NanoSeconds(5)};
    /// "dgx" (above) or "control" (docs/models.md#shared-interface): every server has controlGpus
    /// GPUs on PCIe peer links (controlPeerRate each) to a PCIe switch "srv<s>-pcie" (role
    /// "pcie-switch", in place of the NVSwitch), and one NIC "srv<s>-nic" (switch, role "nic") with
    /// controlNicPorts ports of controlNicPortRate on rails 0, 1, ... — behind ONE PCIe slot link
    /// of controlSlotRate to the PCIe switch, so the GPUs' traffic shares the slot (a shared
    /// bottleneck, not independent ports). Rails: controlNicPorts leaves per group.
    std::string serverType = "dgx";
    uint32_t controlGpus = 4;
    DataRate controlPeerRate{"256Gbps"};    ///< 32 GB/s, PCIe Gen4 x16
    DataRate controlSlotRate{"256Gbps"};    ///< 32 GB/s shared slot
    DataRate controlNicPortRate{"200Gbps"}; ///< 25 GB/s per port
    uint32_t controlNicPorts = 2;
};

/// With pcieRate > 0 or serverType "control" the node order is: GPUs (server-major), the
/// servers' NVSwitches / PCIe switches, the NIC nodes (server-major), rail leaves, spines; links:
/// GPU to NVSwitch / PCIe switch, then GPU to NIC node (pcie) or PCIe switch to NIC node (slot),
/// then NIC links, then leaf-to-spine links.
TopologySpec MakeRail(const RailParams& params);

/**
 * \brief The first structural problem found in a TopologySpec.
 */
struct TopologyProblem
{
    std::optional<uint32_t> node; ///< the node concerned, when there is one
    std::optional<uint32_t> link; ///< the link concerned, when there is one
    std::string message;
};

/**
 * Structural checks every usable topology passes: at least one host; node names non-empty and
 * unique; links refer to existing nodes and are not self-links; every node has a link; every host
 * can reach every other host through switches only (a BFS that never transits a host; a direct
 * host-to-host link counts). Returns the first problem, or nothing when the spec is sound.
 */
std::optional<TopologyProblem> FindTopologyProblem(const TopologySpec& spec);

/**
 * Throws ConfigError(spec.source, line, key, message) for FindTopologyProblem's result: key is the
 * node's name (or "links[j]"), line the link's sourceLine when known, else 0. For specs built in
 * code; ReadTopology reports the same problems with the file's lines and key paths.
 */
void ValidateTopology(const TopologySpec& spec);

} // namespace ns3

#endif
