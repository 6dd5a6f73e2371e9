#include "conservation.h"

namespace ns3
{

ConservationReport
CheckConservation(const FabricNetwork& net)
{
    Ptr<FlowTable> table = net.GetFlowTable();
    ConservationReport r;
    r.flows.resize(table->GetN());
    auto count = [&](uint32_t flowId, uint64_t payload) {
        if (flowId != kNoFlow && flowId < r.flows.size())
        {
            r.flows[flowId].inFlight += payload;
        }
    };
    const TopologySpec& spec = net.Spec();
    for (uint32_t n = 0; n < spec.nodes.size(); ++n)
    {
        for (uint32_t p = 0; p < net.GetNPorts(n); ++p)
        {
            Ptr<FabricNetDevice> dev = net.GetDevice(n, p);
            for (uint8_t q = 0; q < kFabricPriorities; ++q)
            {
                for (const QueuedFrame& f : dev->GetQueue(q))
                {
                    count(f.flowId, f.payloadBytes);
                }
            }
            for (const auto& [flowId, payload] : dev->GetOnWire())
            {
                count(flowId, payload);
            }
        }
    }
    for (uint32_t i = 0; i < table->GetN(); ++i)
    {
        const FlowRecord& f = table->Get(i);
        FlowBalance& b = r.flows[i];
        b.sent = f.sentBytes;
        b.delivered = f.deliveredBytes;
        b.dropped = f.droppedBytes;
        b.discarded = f.discardedBytes;
        r.unbalancedFlows += b.Balanced() ? 0 : 1;
        r.total.sent += b.sent;
        r.total.delivered += b.delivered;
        r.total.dropped += b.dropped;
        r.total.discarded += b.discarded;
        r.total.inFlight += b.inFlight;
    }
    return r;
}

} // namespace ns3
