#include "record/ideal-fct.h"

#include "config/attribute-values.h"
#include "link/frame-codec.h"
#include "wire/reth-header.h"
#include "wire/roce-frame-header.h"
#include "wire/ub-header.h"

#include "ns3/uinteger.h"

#include <algorithm>
#include <cmath>

namespace ns3
{

namespace
{

uint32_t
UintDefault(const std::string& attribute)
{
    return static_cast<uint32_t>(AttributeDefaultAs<UintegerValue>(attribute));
}

/// Seconds to send \p bytes at \p rate.
double
Serialize(double bytes, DataRate rate)
{
    return bytes * 8 / double(rate.GetBitRate());
}

} // namespace

FrameCosts
TransportFrameCosts(const std::string& transport)
{
    FrameCosts c;
    c.wireOverhead = UintDefault("ns3::FabricNetDevice::WireOverhead");
    if (transport == "ub")
    {
        c.mtu = UintDefault("ns3::UbNic::Mtu");
        c.dataHeader = kUbFrameOverhead;
        c.ackBytes =
            kUbFrameOverhead + kUbAckExtensionBytes + UintDefault("ns3::UbNic::SackBits") / 8;
    }
    else if (transport == "roce")
    {
        c.mtu = UintDefault("ns3::RdmaNic::Mtu");
        c.dataHeader = kRoceFrameOverhead;
        c.ackBytes = kRoceFrameOverhead + 4; // BTH + AETH
    }
    else
    {
        c.mtu = UintDefault("ns3::FabricHost::Mtu");
        c.dataHeader = kRoceFrameOverhead; // raw flows are sent as RoCE SENDs
    }
    return c;
}

BasePaths::BasePaths(const TopologySpec& topo)
    : m_topo(topo),
      m_hosts(topo.Hosts()),
      m_linksOf(topo.nodes.size())
{
    m_linkBps.reserve(topo.links.size());
    m_linkDelayPs.reserve(topo.links.size());
    for (uint32_t li = 0; li < topo.links.size(); ++li)
    {
        m_linksOf[topo.links[li].a].push_back(li);
        m_linksOf[topo.links[li].b].push_back(li);
        m_linkBps.push_back(topo.links[li].rate.GetBitRate());
        m_linkDelayPs.push_back(topo.links[li].delay.GetPicoSeconds());
    }
}

const std::vector<BasePaths::Label>&
BasePaths::From(uint32_t from)
{
    std::vector<Label>& best = m_labels;
    if (m_labelsFrom == from)
    {
        return best;
    }
    m_labelsFrom = from;
    // Breadth first, relaxing each layer completely before the next, so that every node's
    // label is final once its layer is done. Hosts other than the source do not forward.
    best.assign(m_topo.nodes.size(), Label{});
    best[from].hops = 0;
    best[from].bottleneck = UINT64_MAX;
    std::vector<uint32_t> layer = {from};
    while (!layer.empty())
    {
        std::vector<uint32_t> next;
        for (uint32_t u : layer)
        {
            if (u != from && !m_topo.nodes[u].isSwitch)
            {
                continue;
            }
            for (uint32_t li : m_linksOf[u])
            {
                const TopologyLink& l = m_topo.links[li];
                uint32_t v = l.a == u ? l.b : l.a;
                Label cand{best[u].hops + 1,
                           std::min<uint64_t>(best[u].bottleneck, m_linkBps[li]),
                           best[u].delayPs + m_linkDelayPs[li],
                           static_cast<int32_t>(li)};
                Label& cur = best[v];
                if (cur.hops < cand.hops)
                {
                    continue;
                }
                bool better = cur.hops > cand.hops || cand.bottleneck > cur.bottleneck ||
                              (cand.bottleneck == cur.bottleneck && cand.delayPs < cur.delayPs);
                if (better)
                {
                    if (cur.hops == UINT32_MAX)
                    {
                        next.push_back(v);
                    }
                    cur = cand;
                }
            }
        }
        layer = std::move(next);
    }
    return best;
}

std::vector<PathLink>
BasePaths::Between(uint32_t src, uint32_t dst)
{
    uint32_t from = m_hosts.at(src);
    const std::vector<Label>& best = From(from);
    std::vector<PathLink> path;
    for (uint32_t v = m_hosts.at(dst); v != from && best[v].via >= 0;)
    {
        const TopologyLink& l = m_topo.links[best[v].via];
        path.push_back(PathLink{l.rate, l.delay});
        v = l.a == v ? l.b : l.a;
    }
    std::reverse(path.begin(), path.end());
    return path;
}

Time
IdealFct(uint64_t bytes, const std::vector<PathLink>& path, const FrameCosts& c)
{
    if (path.empty())
    {
        return Time(0);
    }
    uint64_t frames = std::max<uint64_t>(1, (bytes + c.mtu - 1) / c.mtu);
    uint64_t perFrame = c.dataHeader + c.wireOverhead;
    // A short last frame is padded to the Ethernet minimum.
    uint64_t lastStored =
        std::max<uint64_t>(bytes - (frames - 1) * c.mtu + c.dataHeader, kMinFrameBytes);
    double last = double(lastStored + c.wireOverhead);
    double wire = double((frames - 1) * (c.mtu + perFrame)) + last + c.firstExtra;
    double largest = (frames > 1 ? double(c.mtu + perFrame) : last) + c.firstExtra; // the first
    DataRate slowest = path.front().rate;
    for (const PathLink& l : path)
    {
        slowest = std::min(slowest, l.rate);
    }
    double seconds = Serialize(wire - largest, slowest);
    double ack = std::max<uint32_t>(c.ackBytes, kMinFrameBytes) + c.wireOverhead;
    for (const PathLink& l : path)
    {
        seconds += l.delay.GetSeconds() + Serialize(largest, l.rate);
        if (c.ackBytes > 0)
        {
            seconds += l.delay.GetSeconds() + Serialize(ack, l.rate);
        }
    }
    return PicoSeconds(static_cast<int64_t>(std::llround(seconds * 1e12)));
}

std::vector<Time>
IdealFcts(const TopologySpec& topo, const std::string& transport, const FlowTable& flows)
{
    FrameCosts plain = TransportFrameCosts(transport);
    FrameCosts write = plain;
    write.firstExtra = transport == "roce" ? RethHeader::kSize : 0; // the WRITE's address
    BasePaths paths(topo);
    const std::vector<FlowRecord>& all = flows.All();
    // A READ (UB: also loads and atomics) moves its data from dst to src; the request is not
    // counted (one small frame).
    auto pathSource = [&](const FlowRecord& f) { return DataToRequester(f.verb) ? f.dst : f.src; };
    // Visit the flows source by source: BasePaths keeps the labels of one source at a time.
    std::vector<uint32_t> order(all.size());
    for (uint32_t i = 0; i < order.size(); ++i)
    {
        order[i] = i;
    }
    std::stable_sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) {
        return pathSource(all[a]) < pathSource(all[b]);
    });
    std::vector<Time> ideal(all.size());
    for (uint32_t i : order)
    {
        const FlowRecord& f = all[i];
        uint32_t src = pathSource(f);
        ideal[i] = IdealFct(f.bytes,
                            paths.Between(src, src == f.src ? f.dst : f.src),
                            f.verb == RdmaVerb::WRITE ? write : plain);
    }
    return ideal;
}

} // namespace ns3
