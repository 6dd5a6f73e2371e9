#include "build/fabric-builder.h"

#include "build/construction-defaults.h"
#include "build/route-computer.h"

#include "ns3/data-rate.h"
#include "ns3/double.h"
#include "ns3/mac48-address.h"
#include "ns3/node.h"
#include "ns3/nstime.h"
#include "ns3/object-factory.h"
#include "ns3/uinteger.h"

namespace ns3
{

uint32_t
SwitchHashSalt(uint32_t hashSalt, uint32_t node)
{
    return hashSalt * 2654435761u + node * 40503u + 1;
}

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
    // Every node exists on every rank (ns-3 ids and system ids agree across ranks); switches,
    // hosts, devices and tables only where they are simulated, plus the far device of each cut
    // cable. MAC addresses and random streams of what is not built are still consumed, so that
    // what is built gets the values one process would give it.
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
            if (!net.IsLocal(i))
            {
                continue;
            }
            Ptr<FabricSwitch> sw = CreateObject<FabricSwitch>();
            sw->TraceConnectWithoutContext(
                "Drop",
                MakeCallback(&FlowTable::DroppedForReason, PeekPointer(net.m_flows)));
            sw->SetAttribute("HashSalt", UintegerValue(SwitchHashSalt(hashSalt, i)));
            net.m_nodes.Get(i)->AggregateObject(sw);
            net.m_switches[i] = sw;
        }
        else
        {
            const uint32_t index = static_cast<uint32_t>(net.m_hostNodes.size());
            net.m_hostOfNode[i] = static_cast<int32_t>(index);
            net.m_hostNodes.push_back(i);
            Ptr<FabricHost> host;
            if (net.IsLocal(i))
            {
                host = CreateObject<FabricHost>();
                host->SetHostIndex(index);
                host->SetFlowTable(net.m_flows);
                net.m_nodes.Get(i)->AggregateObject(host);
            }
            net.m_hosts.push_back(host);
        }
    }

    ObjectFactory deviceFactory("ns3::FabricNetDevice");
    SetConstructionDefaults(deviceFactory);
    for (uint32_t li = 0; li < spec.links.size(); ++li)
    {
        const TopologyLink& l = spec.links[li];
        const uint32_t endNodes[2] = {l.a, l.b};
        const bool built = net.IsLocal(l.a) || net.IsLocal(l.b);
        Ptr<FabricChannel> channel;
        if (built)
        {
            channel = CreateObject<FabricChannel>();
            channel->SetAttribute("Delay", TimeValue(l.delay));
        }
        PortRef ends[2];
        for (int e = 0; e < 2; ++e)
        {
            const uint32_t node = endNodes[e];
            const uint32_t port = static_cast<uint32_t>(net.m_devices[node].size());
            net.m_portsOfNode[node].push_back(li);
            ends[e] = PortRef{node, port};
            if (!built)
            {
                Mac48Address::Allocate();
                stream += FabricNetDevice::kStreams;
                net.m_devices[node].push_back(nullptr);
                continue;
            }
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
            dev->SetIfIndex(port);
            dev->Attach(channel);
            net.m_devices[node].push_back(dev);
            const bool peerIsSwitch = spec.nodes[endNodes[1 - e]].isSwitch;
            if (net.m_switches[node])
            {
                net.m_switches[node]->AddPort(dev, peerIsSwitch ? 0 : 1);
            }
            else if (net.IsLocal(node))
            {
                net.m_hosts[net.m_hostOfNode[node]]->AddPort(dev);
            }
            // else: the far end of a cut cable, a device that is never driven here
        }
        net.m_linkEnds.emplace_back(ends[0], ends[1]);
    }
    // The switch each host hangs off (its first port's peer): strategies that keep state per
    // leaf (CONGA) name a destination by its leaf.
    auto leafOfHost = std::make_shared<std::vector<uint32_t>>(net.GetNHosts());
    for (uint32_t h = 0; h < net.GetNHosts(); ++h)
    {
        (*leafOfHost)[h] = net.PeerOf(net.m_hostNodes[h], 0).node;
    }
    for (uint32_t i = 0; i < n; ++i)
    {
        if (net.m_switches[i])
        {
            net.m_switches[i]->SetLeafOfHost(leafOfHost);
        }
    }
    Ptr<FabricSwitch> elsewhere; // stands for the switches of other ranks when counting streams
    for (uint32_t i = 0; i < n; ++i)
    {
        if (net.m_switches[i])
        {
            net.m_switches[i]->Initialize();
            stream += net.m_switches[i]->AssignStreams(stream);
        }
        else if (spec.nodes[i].isSwitch)
        {
            if (!elsewhere)
            {
                elsewhere = CreateObject<FabricSwitch>();
            }
            stream += elsewhere->GetStreamCount();
        }
    }
    net.InstallRoutes();
    return net;
}

void
FabricNetwork::InstallRoutes(const std::vector<bool>& linkUp)
{
    // Tables only where they are used: switches and multi-port hosts simulated here.
    std::vector<bool> wanted(m_spec.nodes.size());
    for (uint32_t i = 0; i < wanted.size(); ++i)
    {
        wanted[i] = IsLocal(i) && (m_switches[i] || m_portsOfNode[i].size() > 1);
    }
    std::vector<NodeRoutes> routes = ComputeRoutes(m_spec, m_portsOfNode, linkUp, wanted);
    for (uint32_t i = 0; i < routes.size(); ++i)
    {
        if (!wanted[i])
        {
            continue;
        }
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
    for (const PortRef& end : {a, b})
    {
        if (Ptr<FabricNetDevice> dev = GetDevice(end.node, end.port))
        {
            dev->SetLinkUp(up);
        }
    }
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
