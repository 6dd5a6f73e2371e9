#ifndef FABRIC_TOPOLOGY_SPEC_H
#define FABRIC_TOPOLOGY_SPEC_H

#include "ns3/data-rate.h"
#include "ns3/nstime.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace ns3
{

/**
 * \brief A fabric described as plain data: what the topology files and generators produce and
 * what FabricBuilder turns into ns-3 nodes, devices and channels. Keeping it free of ns-3
 * objects lets readers and generators be tested without running a simulation.
 */
struct TopologyNode
{
    std::string name;      ///< unique, used in traces ("h3", "leaf2", "srv1-nvs")
    bool isSwitch = false; ///< switches forward; hosts only send and receive
    std::string role;      ///< free-form: "host", "gpu", "tor", "leaf", "spine", "core", "nvswitch"
    int32_t group = -1;    ///< pod / server / group index where the generator has one
};

struct TopologyLink
{
    uint32_t a = 0;       ///< index into TopologySpec::nodes
    uint32_t b = 0;       ///< index into TopologySpec::nodes
    DataRate rate;        ///< per direction
    Time delay;           ///< propagation delay (cable length at 5 ns/m)
    double lossRate = -1; ///< probability a frame is lost on this cable; < 0: the default
    int sourceLine = 0;   ///< line in the topology file, 0 for generated links
};

struct TopologySpec
{
    std::string source; ///< file name or "generator:<name>", for messages
    std::vector<TopologyNode> nodes;
    std::vector<TopologyLink> links;

    std::optional<uint32_t> Find(const std::string& name) const;
    std::vector<uint32_t> Hosts() const;    ///< host node indices in declaration order
    std::vector<uint32_t> Switches() const; ///< switch node indices in declaration order
};

} // namespace ns3

#endif
