// Port state for tests of load balancers that read it: a 2-tier Clos whose source leaf's
// uplinks are paused (PFC from the spine) and loaded with queued bytes by hand, so that the
// strategy's choice can be compared with the state the test set.

#ifndef FABRIC_TEST_UPLINK_STATE_H
#define FABRIC_TEST_UPLINK_STATE_H

#include "../fabric-sim-util.h"
#include "switch/fabric-switch.h"
#include "wire/bth-header.h"

namespace ns3
{
namespace test
{

struct UplinkFabric
{
    FabricNetwork net;
    uint32_t leaf = 0;             ///< node of host 0's leaf
    std::vector<uint32_t> uplinks; ///< its ports toward spines, in port order

    /// A Clos with \p k-port switches (k/2 uplinks per leaf) and the switches' current
    /// attribute defaults.
    explicit UplinkFabric(uint32_t k)
    {
        Clos2Params p;
        p.k = k;
        net = FabricNetwork::Build(MakeClos2(p), 0, 0);
        leaf = net.PeerOf(net.NodeOfHost(0), 0).node;
        for (uint32_t port = 0; port < net.GetNPorts(leaf); ++port)
        {
            if (net.Spec().nodes[net.PeerOf(leaf, port).node].isSwitch)
            {
                uplinks.push_back(port);
            }
        }
    }

    Ptr<FabricSwitch> Leaf() const
    {
        return net.GetSwitch(leaf);
    }

    /// The spine pauses priority 0 of uplink \p i for the longest pause (335 us at 100 Gb/s).
    void Pause(uint32_t i)
    {
        PortRef peer = net.PeerOf(leaf, uplinks[i]);
        net.GetDevice(peer.node, peer.port)->SendPause(0, 65535);
    }

    /// Queues \p frames frames of 1000 bytes at priority 0 on uplink \p i (they wait behind a
    /// pause; the spine ignores them: they are no IP frames).
    void Load(uint32_t i, uint32_t frames)
    {
        for (uint32_t n = 0; n < frames; ++n)
        {
            QueuedFrame item;
            item.frame = FrameRef(Create<Packet>(1000));
            item.bytes = 1000;
            net.GetDevice(leaf, uplinks[i])->Enqueue(std::move(item));
        }
    }

    /// A frame of one flow from host 0 to the last host (on another leaf), priority 0.
    FrameInfo Frame(uint16_t entropy = 50000) const
    {
        FrameInfo f;
        f.etherType = 0x0800;
        f.protocol = 17;
        f.srcIp = HostIpv4(0).Get();
        f.dstIp = HostIpv4(net.GetNHosts() - 1).Get();
        f.srcPort = entropy;
        f.dstPort = kRoceV2UdpPort;
        return f;
    }

    /// The index in uplinks of the port the leaf chooses for \p f.
    uint32_t Choose(const FrameInfo& f)
    {
        uint32_t port = Leaf()->SelectEgressPort(f);
        return static_cast<uint32_t>(std::find(uplinks.begin(), uplinks.end(), port) -
                                     uplinks.begin());
    }
};

} // namespace test
} // namespace ns3

#endif
