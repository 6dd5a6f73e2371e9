#ifndef FABRIC_NIC_PORT_BINDER_H
#define FABRIC_NIC_PORT_BINDER_H

#include "build/fabric-builder.h"
#include "collective/collective-engine.h"

#include "ns3/ptr.h"
#include "ns3/simple-ref-count.h"

#include <cstdint>
#include <vector>

namespace ns3
{

class FabricSwitch;

/**
 * \brief Binds a collective's flows to ports of multi-port NICs (CollectiveEngine::PortsPerNic,
 * docs/models.md#shared-interface).
 *
 * A NIC that is a node of its own (role "nic": the control server's dual-port NIC, a modelled
 * PCIe NIC) carries a queue pair on one port. Bind() tells every NIC node of the source's and of
 * the destination's server to send the flow's frames — data one way, ACKs the other, both
 * carrying the flow id as their QP — through entry \p port of its equal-cost group toward the
 * peer: on the control server, the port to rail \p port. Hosts without NIC nodes (GPUs on their
 * rail leaf) have one port and nothing to bind.
 */
class NicPortBinder : public SimpleRefCount<NicPortBinder>
{
  public:
    explicit NicPortBinder(const FabricNetwork& net);

    void Bind(uint32_t flowId, uint32_t srcHost, uint32_t dstHost, uint32_t port) const;

    /// The engine's callback.
    CollectiveEngine::PortBinder AsCallback() const;

  private:
    void BindAt(int32_t server, uint32_t flowId, uint32_t port) const;

    std::vector<int32_t> m_serverOfHost;                  ///< topology group of each host
    std::vector<std::vector<Ptr<FabricSwitch>>> m_nicsOf; ///< by server: its local NIC nodes
};

} // namespace ns3

#endif
