#ifndef FABRIC_HOST_TRANSPORT_H
#define FABRIC_HOST_TRANSPORT_H

#include "fabric-host.h"
#include "flow-table.h"

#include "ns3/object.h"

#include <cstdint>
#include <string>

namespace ns3
{

/**
 * \brief A reliable transport installed on a host NIC (RoCEv2 RC, Unified Bus).
 *
 * The scenario runner, the collective engine and the studies drive every transport through
 * this interface: post the flows of the run's FlowTable, script losses and congestion
 * notifications, and audit the transport state at the end. Each flow is one message.
 */
class HostTransport : public Object
{
  public:
    static TypeId GetTypeId();

    /// Takes over the ports of \p host (its devices now call this transport) and its flows.
    virtual void Install(Ptr<FabricHost> host) = 0;
    /// Posts flow \p flowId (this host posts it) at its start time, or now if that has passed.
    virtual void StartFlowAt(uint32_t flowId) = 0;
    /// Studies: lose the first transmission of packet \p index of flow \p flowId at this
    /// (receiving) host, counted as a fabric drop.
    virtual void LoseFirstTransmission(uint32_t flowId, uint32_t index) = 0;
    /// Studies: a congestion notification for the sender of \p flowId, now.
    virtual void InjectCnp(uint32_t flowId) = 0;
    /// End-of-run audit: "" when every finished message is fully acknowledged by its sender
    /// and fully received by its receiver, else what is inconsistent.
    virtual std::string AuditTransportState(const FlowTable& flows) const = 0;
    /// Why an unfinished flow this host sends is stuck (for flows.csv).
    virtual std::string StuckReason(uint32_t flowId) const = 0;
    /// Bytes of transport context this NIC holds at its peak (QP, Jetty and channel contexts).
    virtual uint64_t GetPeakStateBytes() const = 0;

    /// Fixes the transport's random streams; returns how many it used.
    virtual int64_t AssignStreams(int64_t stream)
    {
        return 0;
    }
};

} // namespace ns3

#endif
