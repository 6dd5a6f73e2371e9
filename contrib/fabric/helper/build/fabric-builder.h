#ifndef FABRIC_BUILDER_H
#define FABRIC_BUILDER_H

#include "config/topology-spec.h"
#include "host/fabric-host.h"
#include "host/flow-table.h"
#include "link/fabric-channel.h"
#include "link/fabric-net-device.h"
#include "switch/fabric-switch.h"

#include "ns3/node-container.h"

#include <string>
#include <vector>

namespace ns3
{

/// One end of a link: node index (TopologySpec order) and port index on that node.
struct PortRef
{
    uint32_t node = 0;
    uint32_t port = 0;
};

/**
 * \brief A fabric built from a TopologySpec: ns-3 nodes with FabricSwitch / FabricHost
 * aggregated, devices, channels and forwarding tables.
 *
 * Devices, switches and hosts take their parameters from the attribute defaults in force when
 * Build() runs (Config::SetDefault, the command line or a scenario file), except each link's
 * rate and delay, which come from the spec.
 */
class FabricNetwork
{
  public:
    /// Builds everything; \p hashSalt seeds the per-switch ECMP salts, \p stream the RNGs.
    /// A distributed run passes each node's MPI rank (\p rankOfNode, by spec index) and its own
    /// \p rank: every rank creates every ns-3 node (with its rank as system id), but switches,
    /// hosts, devices and forwarding tables only for its own nodes, plus the far device of each
    /// cut cable; GetSwitch, GetHost and GetDevice are null for the rest. What it does build
    /// gets the MAC addresses and random streams one process would give it.
    static FabricNetwork Build(const TopologySpec& spec,
                               uint32_t hashSalt,
                               int64_t stream,
                               const std::vector<uint32_t>& rankOfNode = {},
                               uint32_t rank = 0);

    const TopologySpec& Spec() const
    {
        return m_spec;
    }

    uint32_t GetNHosts() const
    {
        return static_cast<uint32_t>(m_hostNodes.size());
    }

    Ptr<Node> GetNode(uint32_t specIndex) const
    {
        return m_nodes.Get(specIndex);
    }

    const std::string& NodeName(uint32_t specIndex) const
    {
        return m_spec.nodes[specIndex].name;
    }

    /// Node (spec index) of host i.
    uint32_t NodeOfHost(uint32_t host) const
    {
        return m_hostNodes[host];
    }

    /// Host index of a node, or -1 for switches.
    int32_t HostOfNode(uint32_t node) const
    {
        return m_hostOfNode[node];
    }

    Ptr<FabricHost> GetHost(uint32_t host) const
    {
        return m_hosts[host];
    }

    Ptr<FabricSwitch> GetSwitch(uint32_t node) const
    {
        return m_switches[node];
    }

    Ptr<FabricNetDevice> GetDevice(uint32_t node, uint32_t port) const;

    uint32_t GetNPorts(uint32_t node) const
    {
        return static_cast<uint32_t>(m_portsOfNode[node].size());
    }

    /// Both ends of link \p i (a = port on spec.links[i].a).
    std::pair<PortRef, PortRef> LinkEnds(uint32_t i) const
    {
        return m_linkEnds[i];
    }

    /// The node and port at the far end of (node, port).
    PortRef PeerOf(uint32_t node, uint32_t port) const;

    Ptr<FlowTable> GetFlowTable() const
    {
        return m_flows;
    }

    /// Whether node \p specIndex is simulated by this process (always, unless distributed).
    bool IsLocal(uint32_t specIndex) const
    {
        return m_rankOfNode.empty() || m_rankOfNode[specIndex] == m_rank;
    }

    bool IsHostLocal(uint32_t host) const
    {
        return IsLocal(m_hostNodes[host]);
    }

    /// Calls \p f(node, port, device) for every port of the nodes this process simulates.
    template <typename F>
    void ForEachLocalPort(F&& f) const
    {
        for (uint32_t n = 0; n < m_devices.size(); ++n)
        {
            if (!IsLocal(n))
            {
                continue;
            }
            for (uint32_t p = 0; p < m_devices[n].size(); ++p)
            {
                f(n, p, m_devices[n][p]);
            }
        }
    }

    /// Recomputes every forwarding table, skipping links marked down.
    void InstallRoutes(const std::vector<bool>& linkUp = {});
    /// Fails or restores link \p i now: frames queued for it or on the cable are dropped and
    /// counted (reason "link down"), and every forwarding table is recomputed at once (routing
    /// converges instantly; frames already routed to the dead port are lost).
    void SetLinkUp(uint32_t link, bool up);

    bool IsLinkUp(uint32_t link) const
    {
        return m_linkUp.empty() || m_linkUp[link];
    }

  private:
    TopologySpec m_spec;
    NodeContainer m_nodes;
    std::vector<Ptr<FabricSwitch>> m_switches; ///< by node; null for hosts and other ranks'
    std::vector<Ptr<FabricHost>> m_hosts;      ///< by host index; null for other ranks'

    std::vector<uint32_t> m_hostNodes;
    std::vector<int32_t> m_hostOfNode;
    std::vector<std::vector<uint32_t>> m_portsOfNode; ///< link index of each port
    std::vector<std::vector<Ptr<FabricNetDevice>>> m_devices;
    std::vector<std::pair<PortRef, PortRef>> m_linkEnds;
    std::vector<bool> m_linkUp;
    Ptr<FlowTable> m_flows;
    std::vector<uint32_t> m_rankOfNode; ///< empty: one process simulates everything
    uint32_t m_rank = 0;
};

/// HashSalt of the switch at spec index \p node in a fabric built with \p hashSalt (the
/// scenario's switch.hash_salt): distinct per switch and independent of the seed, so that the
/// tiers do not hash alike (no polarization).
uint32_t SwitchHashSalt(uint32_t hashSalt, uint32_t node);

} // namespace ns3

#endif
