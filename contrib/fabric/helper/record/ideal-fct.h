#ifndef FABRIC_IDEAL_FCT_H
#define FABRIC_IDEAL_FCT_H

#include "config/topology-spec.h"
#include "host/flow-table.h"

#include "ns3/data-rate.h"
#include "ns3/nstime.h"

#include <cstdint>
#include <string>
#include <vector>

namespace ns3
{

/// What a flow's frames cost on the wire with a given transport.
struct FrameCosts
{
    uint32_t mtu = 4096;       ///< payload bytes per data frame
    uint32_t dataHeader = 0;   ///< bytes a data frame adds to its payload (headers, ICRC)
    uint32_t wireOverhead = 0; ///< preamble, FCS, inter-frame gap of every frame
    uint32_t ackBytes = 0;     ///< the acknowledgement that completes a reliable flow; 0:
                               ///< the flow ends when its last byte arrives (raw)
    uint32_t firstExtra = 0;   ///< extension header of the first frame only (RoCE WRITE: RETH)
};

/// FrameCosts of \p transport (raw, roce, ub) from the current attribute defaults (Mtu,
/// WireOverhead, SackBits): what the NICs of a run are built with.
FrameCosts TransportFrameCosts(const std::string& transport);

/// One link of a path, in the direction of the data.
struct PathLink
{
    DataRate rate;
    Time delay;
};

/**
 * \brief The path a lone flow between two hosts takes: fewest hops, and among those the
 * largest bottleneck rate, then the least propagation delay. Searches once per source host.
 */
class BasePaths
{
  public:
    explicit BasePaths(const TopologySpec& topo);
    /// Host indices \p src to \p dst, links in the direction of the data; empty when the hosts
    /// are not connected.
    std::vector<PathLink> Between(uint32_t src, uint32_t dst);

  private:
    /// Best way to reach a node from a source: (hops, -bottleneck rate, delay), and the link.
    struct Label
    {
        uint32_t hops = UINT32_MAX;
        uint64_t bottleneck = 0;
        int64_t delayPs = 0;
        int32_t via = -1;
    };

    const std::vector<Label>& From(uint32_t node);

    const TopologySpec& m_topo;
    std::vector<uint32_t> m_hosts;
    std::vector<std::vector<uint32_t>> m_linksOf; ///< per node: indices of its links
    /// Per link: its rate in bit/s and its delay in ps (read once: the search relaxes each
    /// link twice per source, and DataRate/Time accessors are out-of-line calls).
    std::vector<uint64_t> m_linkBps;
    std::vector<int64_t> m_linkDelayPs;
    /// The labels of the last source searched (flows are asked for source by source; keeping
    /// every source's labels took hosts x nodes x 24 bytes, 0.5 GB at 4096 hosts).
    uint32_t m_labelsFrom = UINT32_MAX;
    std::vector<Label> m_labels;
};

/**
 * The completion time of a flow of \p bytes alone on \p path with store-and-forward switches
 * (docs/models.md#ideal-fct):
 *
 *   n = ceil(bytes / mtu) frames; every frame costs payload + dataHeader + wireOverhead on the
 *   wire (a short one padded to the 60-byte Ethernet minimum first; the first frame carries
 *   firstExtra more); W = the flow's wire bytes, F = its largest frame's (the first);
 *   R_b = the slowest link's rate.
 *   data  = sum_l d_l + (W - F) / R_b + sum_l F / R_l     (the bottleneck sends the flow back
 *           to back; every other link adds one largest frame store-and-forward: a short last
 *           frame waits behind the full frame before it)
 *   ack   = sum_l (d_l + A / R_l), A = max(ackBytes, 60) + wireOverhead   (0 for raw flows)
 *   ideal = data + ack
 *
 * With equal link rates this is exact for a lone flow: the first link serializes W back to
 * back, each further hop ends one frame later; the acknowledgement returns the same way.
 */
Time IdealFct(uint64_t bytes, const std::vector<PathLink>& path, const FrameCosts& costs);

/// The ideal FCT of every flow of \p flows on \p topo with \p transport's frames.
std::vector<Time> IdealFcts(const TopologySpec& topo,
                            const std::string& transport,
                            const FlowTable& flows);

} // namespace ns3

#endif
