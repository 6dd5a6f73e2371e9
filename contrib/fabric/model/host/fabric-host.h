#ifndef FABRIC_HOST_H
#define FABRIC_HOST_H

#include "flow-table.h"
#include "link/fabric-net-device.h"

#include "ns3/event-id.h"
#include "ns3/object.h"

#include <algorithm>
#include <cstdint>
#include <deque>
#include <vector>

namespace ns3
{

/**
 * \ingroup fabric
 * \brief A transport installed on a FabricHost (RoCEv2, Unified Bus): it supplies frames to the
 * host's port scheduler and takes the frames that arrive.
 *
 * The host owns the ports and decides when one may send; the transport only says what it would
 * send. PFC resumes and pacing wake-ups are the host's: a transport reports through \p wake when
 * it could send next (FabricHost::IsPaused lowers it to the end of a pause).
 */
class HostPortClient
{
  public:
    virtual ~HostPortClient() = default;
    /// Port \p port is idle and up: enqueue at most one frame on it and return true, or
    /// return false having lowered \p wake to the earliest time something may become eligible
    /// (Time::Max(): nothing until a frame arrives or the port goes idle).
    virtual bool OfferFrame(uint32_t port, Time now, Time* wake) = 0;
    /// A frame arrived on one of the host's ports.
    virtual void ReceiveFrame(FabricNetDevice* port, WireFrame& frame) = 0;
    /// A frame the host sent or was sent was lost on one of its ports.
    virtual void LoseFrame(FabricNetDevice* port, const QueuedFrame& item) = 0;
};

/**
 * \ingroup fabric
 * \brief A host NIC that sends raw flows and sinks what arrives.
 *
 * Raw flows have no congestion control or reliability: each sends its bytes in MTU-sized
 * RoCEv2 SEND frames (so pcaps decode), paced at the flow's rate or at line rate. Flows that
 * share a port are served round-robin, one frame at a time, pulled by the port when it goes idle;
 * a flow whose priority is paused by PFC waits without blocking the others. This is the
 * workload that exercises the fabric before (and independently of) the transports.
 *
 * The sink side counts every data frame addressed to this host into the FlowTable.
 *
 * The host owns its ports and runs the one port scheduler of the node: when a port is idle it
 * asks the installed transport (HostPortClient, SetClient) for its next frame, or serves its own
 * raw flows when none is installed; it arms one wake-up per port for the earliest pause end or
 * pacing time any of them reported.
 */
class FabricHost : public Object, public FabricPortOwner
{
  public:
    static TypeId GetTypeId();
    FabricHost();

    void SetHostIndex(uint32_t index)
    {
        m_hostIndex = index;
    }

    uint32_t GetHostIndex() const
    {
        return m_hostIndex;
    }

    void SetFlowTable(Ptr<FlowTable> table)
    {
        m_flows = table;
    }

    uint32_t AddPort(Ptr<FabricNetDevice> device);

    uint32_t GetNPorts() const
    {
        return static_cast<uint32_t>(m_ports.size());
    }

    Ptr<FabricNetDevice> GetPort(uint32_t i) const
    {
        return m_ports[i].device;
    }

    /// Equal-cost egress ports per destination host (same scheme as FabricSwitch).
    void SetRoutes(std::vector<uint32_t> groupOfHost, std::vector<std::vector<uint16_t>> groups);

    /// The port a flow to \p dstHost with this entropy leaves by (multi-port hosts hash the
    /// entropy over the equal-cost ports, as a multi-port NIC would).
    uint32_t EgressPortFor(uint32_t dstHost, uint16_t entropy) const;

    Ptr<FlowTable> GetFlowTable() const
    {
        return m_flows;
    }

    /// Schedules a flow already added to the FlowTable (this host is its source).
    void StartFlowAt(uint32_t flowId);

    /// Hands the ports to a transport: it supplies their frames and takes what arrives.
    void SetClient(HostPortClient* client)
    {
        m_client = client;
    }

    /// Offers port \p portIndex its next frame if one is eligible now; otherwise arms a wake-up
    /// (transports call it when they have something new to send).
    void ServePort(uint32_t portIndex);

    /// Whether \p port is paused for \p priority; if so, lowers \p wake to the pause's end.
    static bool IsPaused(const FabricNetDevice& port, uint8_t priority, Time* wake)
    {
        if (!port.IsPaused(priority))
        {
            return false;
        }
        *wake = std::min(*wake, port.GetPausedUntil(priority));
        return true;
    }

    uint32_t GetPayloadMtu() const
    {
        return m_mtu;
    }

    uint64_t GetUnroutableFrames() const
    {
        return m_misdelivered;
    }

  protected:
    void DoDispose() override;

  private:
    struct ActiveFlow
    {
        uint32_t id;
        uint64_t remaining;
        uint32_t psn;
        Time nextSend; ///< pacing: earliest time of the next frame
    };

    struct Port
    {
        Ptr<FabricNetDevice> device;
        std::deque<ActiveFlow> flows; ///< round-robin order
        EventId wakeup;
    };

    void StartFlow(uint32_t flowId);

    bool PullsWhenIdle() const override
    {
        return true;
    }

    void PortIdle(FabricNetDevice* device) override;
    /// The raw flows' turn on an idle port (HostPortClient::OfferFrame for the host's own).
    bool OfferRawFrame(uint32_t portIndex, Time now, Time* wake);
    // FabricPortOwner
    void FrameReceived(FabricNetDevice* device, WireFrame& received) override;
    /// The flow's scripted rate at \p now (0 = line rate).
    static DataRate RateAt(const FlowRecord& f, Time now);
    /// End of the current off phase of a periodic or stopped flow (<= now when it may send).
    static Time OffUntil(const FlowRecord& f, Time now);
    void FrameLost(FabricNetDevice* device, const QueuedFrame& item) override;

    uint32_t m_hostIndex = 0;
    uint32_t m_mtu;
    Ptr<FlowTable> m_flows;
    std::vector<Port> m_ports;
    HostPortClient* m_client = nullptr; ///< the installed transport; null: raw flows
    std::vector<uint32_t> m_groupOfHost;
    std::vector<std::vector<uint16_t>> m_groups;
    uint64_t m_misdelivered = 0;
};

} // namespace ns3

#endif
