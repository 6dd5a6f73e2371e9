#include "build/nic-port-binder.h"

#include "switch/fabric-switch.h"

namespace ns3
{

NicPortBinder::NicPortBinder(const FabricNetwork& net)
{
    const TopologySpec& spec = net.Spec();
    for (uint32_t h = 0; h < net.GetNHosts(); ++h)
    {
        m_serverOfHost.push_back(spec.nodes[net.NodeOfHost(h)].group);
    }
    for (uint32_t n = 0; n < spec.nodes.size(); ++n)
    {
        const TopologyNode& node = spec.nodes[n];
        Ptr<FabricSwitch> sw = node.isSwitch ? net.GetSwitch(n) : nullptr;
        if (!sw || node.role != "nic" || node.group < 0)
        {
            continue; // not a NIC node, or simulated by another process
        }
        if (m_nicsOf.size() <= static_cast<size_t>(node.group))
        {
            m_nicsOf.resize(node.group + 1);
        }
        m_nicsOf[node.group].push_back(sw);
    }
}

void
NicPortBinder::BindAt(int32_t server, uint32_t flowId, uint32_t port) const
{
    if (server < 0 || static_cast<size_t>(server) >= m_nicsOf.size())
    {
        return;
    }
    for (const Ptr<FabricSwitch>& nic : m_nicsOf[server])
    {
        nic->BindConnectionToPort(flowId, static_cast<uint16_t>(port));
    }
}

void
NicPortBinder::Bind(uint32_t flowId, uint32_t srcHost, uint32_t dstHost, uint32_t port) const
{
    BindAt(m_serverOfHost.at(srcHost), flowId, port);
    BindAt(m_serverOfHost.at(dstHost), flowId, port);
}

CollectiveEngine::PortBinder
NicPortBinder::AsCallback() const
{
    return MakeCallback(&NicPortBinder::Bind, Ptr<const NicPortBinder>(this));
}

} // namespace ns3
