#include "fabric-builder.h"

#include "route-computer.h"

#include "ns3/data-rate.h"
#include "ns3/double.h"
#include "ns3/mac48-address.h"
#include "ns3/node.h"
#include "ns3/nstime.h"
#include "ns3/object-factory.h"
#include "ns3/uinteger.h"

namespace ns3
{

FabricNetwork
FabricNetwork::Build(const TopologySpec& spec,
                     uint32_t hashSalt,
                     int64_t stream,
                     const std::vector<uint32_t>& rankOfNode,
                     uint32_t rank)
{
    FabricNetwork net;
    net.m_spec = spec;
    const uint32_t n = static_cast<uint32_t>(spec.nodes.size());
    net.m_rankOfNode = rankOfNode;
    net.m_rank = rank;
    for (uint32_t i = 0; i < n; ++i)
    {
        net.m_nodes.Add(CreateObject<Node>(rankOfNode.empty() ? 0 : rankOfNode[i]));
    }
    net.m_switches.assign(n, nullptr);
    net.m_hostOfNode.assign(n, -1);
    net.m_portsOfNode.assign(n, {});
    net.m_devices.assign(n, {});
    net.m_flows = CreateObject<FlowTable>();

    for (uint32_t i = 0; i < n; ++i)
    {
        if (spec.nodes[i].isSwitch)
        {
            Ptr<FabricSwitch> sw = CreateObject<FabricSwitch>();
            sw->TraceConnectWithoutContext(
                "Drop",
                MakeCallback(&FlowTable::DroppedForReason, PeekPointer(net.m_flows)));
            // Distinct, seed-independent salts per switch: tiers must not hash alike.
            sw->SetAttribute("HashSalt", UintegerValue(hashSalt * 2654435761u + i * 40503u + 1));
            net.m_nodes.Get(i)->AggregateObject(sw);
            net.m_switches[i] = sw;
        }
        else
        {
            Ptr<FabricHost> host = CreateObject<FabricHost>();
            host->SetHostIndex(static_cast<uint32_t>(net.m_hosts.size()));
            host->SetFlowTable(net.m_flows);
            net.m_nodes.Get(i)->AggregateObject(host);
            net.m_hostOfNode[i] = static_cast<int32_t>(net.m_hosts.size());
            net.m_hostNodes.push_back(i);
            net.m_hosts.push_back(host);
        }
    }

    ObjectFactory deviceFactory("ns3::FabricNetDevice");
    for (uint32_t li = 0; li < spec.links.size(); ++li)
    {
        const TopologyLink& l = spec.links[li];
        Ptr<FabricChannel> channel = CreateObject<FabricChannel>();
        channel->SetAttribute("Delay", TimeValue(l.delay));
        PortRef ends[2];
        uint32_t endNodes[2] = {l.a, l.b};
        for (int e = 0; e < 2; ++e)
        {
            uint32_t node = endNodes[e];
            deviceFactory.Set("DataRate", DataRateValue(l.rate));
            ObjectFactory factory = deviceFactory;
            if (l.lossRate >= 0)
            {
                factory.Set("LossRate", DoubleValue(l.lossRate));
            }
            Ptr<FabricNetDevice> dev = factory.Create<FabricNetDevice>();
            dev->SetAddress(Mac48Address::Allocate());
            stream += dev->AssignStreams(stream);
            net.m_nodes.Get(node)->AddDevice(dev);
            uint32_t port = static_cast<uint32_t>(net.m_devices[node].size());
            dev->SetIfIndex(port);
            dev->Attach(channel);
            net.m_devices[node].push_back(dev);
            net.m_portsOfNode[node].push_back(li);
            if (net.m_switches[node])
            {
                net.m_switches[node]->AddPort(dev);
            }
            else
            {
                net.m_hosts[net.m_hostOfNode[node]]->AddPort(dev);
            }
            ends[e] = PortRef{node, port};
        }
        net.m_linkEnds.emplace_back(ends[0], ends[1]);
    }
    for (uint32_t i = 0; i < n; ++i)
    {
        if (net.m_switches[i])
        {
            net.m_switches[i]->Initialize();
            stream += net.m_switches[i]->AssignStreams(stream);
        }
    }
    net.InstallRoutes();
    return net;
}

void
FabricNetwork::InstallRoutes(const std::vector<bool>& linkUp)
{
    std::vector<NodeRoutes> routes = ComputeRoutes(m_spec, m_portsOfNode, linkUp);
    for (uint32_t i = 0; i < routes.size(); ++i)
    {
        if (m_switches[i])
        {
            m_switches[i]->SetRoutes(std::move(routes[i].groupOfHost), std::move(routes[i].groups));
        }
        else
        {
            m_hosts[m_hostOfNode[i]]->SetRoutes(std::move(routes[i].groupOfHost),
                                                std::move(routes[i].groups));
        }
    }
}

void
FabricNetwork::SetLinkUp(uint32_t link, bool up)
{
    m_linkUp.resize(m_spec.links.size(), true);
    m_linkUp[link] = up;
    auto [a, b] = m_linkEnds[link];
    GetDevice(a.node, a.port)->SetLinkUp(up);
    GetDevice(b.node, b.port)->SetLinkUp(up);
    InstallRoutes(m_linkUp);
}

Ptr<FabricNetDevice>
FabricNetwork::GetDevice(uint32_t node, uint32_t port) const
{
    return m_devices[node][port];
}

PortRef
FabricNetwork::PeerOf(uint32_t node, uint32_t port) const
{
    const auto& ends = m_linkEnds[m_portsOfNode[node][port]];
    return (ends.first.node == node && ends.first.port == port) ? ends.second : ends.first;
}

} // namespace ns3
