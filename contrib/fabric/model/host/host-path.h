#ifndef FABRIC_HOST_PATH_H
#define FABRIC_HOST_PATH_H

#include "ns3/nstime.h"

#include <string>
#include <utility>
#include <vector>

namespace ns3
{

/**
 * \brief The stages of a NIC's host interface a remote request crosses outside the fabric
 * (docs/models.md#remote-read-stages): how the request gets from software to the NIC, how the
 * NIC's pipelines delay its frames, how the target reaches its memory, and how the completion
 * gets back to software. Each stage is a fixed latency; stages overlap freely between requests
 * (a pipeline, not a server), so independent requests posted together finish together.
 *
 * Where each applies (NicTransport, RdmaNic, UbNic):
 *  - Submit(): between the post (the flow's start) and the NIC's request pipeline
 *    (RequestLauncher): software post, descriptor build, PCIe doorbell, descriptor DMA read or
 *    one on-chip bus crossing, sequence-number allocation;
 *  - pipeline: the sending NIC's TX and the receiving NIC's RX pipeline, every data frame,
 *    applied together where the frame arrives (FabricNetDevice RxLatency = 2 passes);
 *  - TargetMemory(): at the responder, before a READ's, load's, store's or atomic's response
 *    may leave: DMA read over PCIe or an on-chip bus crossing, then the DRAM access;
 *  - Completion(): at the requester, from the last response (or the ACK) to the completion
 *    reported to the application and its request slot freed: payload DMA write (data back
 *    only), completion DMA write or on-chip bus crossing, CQ poll, library poll.
 */
struct HostPathStages
{
    Time post;            ///< software post through the interface library
    Time descriptorBuild; ///< building the request descriptor in memory
    Time doorbell;        ///< PCIe doorbell write (MMIO)
    Time descriptorFetch; ///< the NIC's DMA read of the descriptor
    Time submitBus;       ///< on-chip bus crossing to the controller
    Time sequence;        ///< sequence-number (PSN) allocation
    Time pipeline;        ///< one pass through a NIC pipeline (TX or RX), cycles / clock
    Time targetDmaRead;   ///< the target NIC's DMA read of host memory over PCIe
    Time targetBus;       ///< the target controller's on-chip bus crossing to memory
    Time dram;            ///< the target DRAM access (an open row: a row hit)
    Time payloadWrite;    ///< DMA write of the response payload at the requester
    Time completionWrite; ///< DMA write of the completion record
    Time completionBus;   ///< on-chip bus crossing of the completion
    Time cqPoll;          ///< software polling the completion queue
    Time libraryPoll;     ///< the interface library's poll

    Time Submit() const
    {
        return post + descriptorBuild + doorbell + descriptorFetch + submitBus + sequence;
    }

    Time TargetMemory() const
    {
        return targetDmaRead + targetBus + dram;
    }

    /// \p dataBack: the request brings data back (READ, load, atomic): its payload is written.
    Time Completion(bool dataBack) const
    {
        return (dataBack ? payloadWrite : Time(0)) + completionWrite + completionBus + cqPoll +
               libraryPoll;
    }

    /// Whether any stage takes time (otherwise the NIC behaves exactly as without them).
    bool Any() const
    {
        return Submit().IsStrictlyPositive() || pipeline.IsStrictlyPositive() ||
               TargetMemory().IsStrictlyPositive() || Completion(true).IsStrictlyPositive();
    }
};

/// One named placement of the host interface: the stage attributes it sets.
struct HostPathPreset
{
    std::string name;
    std::string description;
    /// (attribute name on RdmaNic and UbNic, value as the attribute parses it); every stage
    /// attribute is listed, so a preset replaces whatever was set before it.
    std::vector<std::pair<std::string, std::string>> values;
};

/// none, pcie, pcie_nic_cpu, onchip, load (Datacenter networks, chapter 7, §7.3.3).
const std::vector<HostPathPreset>& HostPathPresets();

/// The NIC attributes of the host path stages, in table order: what every preset sets.
std::vector<std::string> HostPathStageAttributes();

} // namespace ns3

#endif
