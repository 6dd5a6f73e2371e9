#include "record/conservation.h"

#include "ns3/simulator.h"

namespace ns3
{

std::vector<uint64_t>
CountInFlight(const FabricNetwork& net)
{
    Ptr<FlowTable> table = net.GetFlowTable();
    std::vector<uint64_t> inFlight(table->GetN(), 0);
    auto count = [&](uint32_t flowId, uint64_t payload) {
        if (flowId != kNoFlow && flowId < inFlight.size())
        {
            inFlight[flowId] += payload;
        }
    };
    Time now = Simulator::Now();
    net.ForEachLocalPort([&](uint32_t, uint32_t, const Ptr<FabricNetDevice>& dev) {
        for (uint8_t q = 0; q < kFabricPriorities; ++q)
        {
            for (const QueuedFrame& f : dev->GetQueue(q))
            {
                count(f.flowId, f.payloadBytes);
            }
        }
        for (const WireFrame& f : dev->GetOnWire())
        {
            count(f.flowId, f.payloadBytes);
        }
        for (const WireFrame& f : dev->GetRxPipeline()) // arrived, not yet at the NIC
        {
            count(f.flowId, f.payloadBytes);
        }
        for (const auto& f : dev->GetRemoteOnWire())
        {
            if (f.arrival > now)
            {
                count(f.flowId, f.payload);
            }
        }
    });
    return inFlight;
}

ConservationReport
BalanceFlows(const FlowTable& table, const std::vector<uint64_t>& inFlight)
{
    ConservationReport r;
    r.flows.resize(table.GetN());
    for (uint32_t i = 0; i < table.GetN(); ++i)
    {
        const FlowRecord& f = table.Get(i);
        FlowBalance& b = r.flows[i];
        b.sent = f.sentBytes;
        b.delivered = f.deliveredBytes;
        b.dropped = f.droppedBytes;
        b.discarded = f.discardedBytes;
        b.inFlight = i < inFlight.size() ? inFlight[i] : 0;
        r.unbalancedFlows += b.Balanced() ? 0 : 1;
        r.total.sent += b.sent;
        r.total.delivered += b.delivered;
        r.total.dropped += b.dropped;
        r.total.discarded += b.discarded;
        r.total.inFlight += b.inFlight;
    }
    return r;
}

ConservationReport
CheckConservation(const FabricNetwork& net)
{
    return BalanceFlows(*net.GetFlowTable(), CountInFlight(net));
}

} // namespace ns3
