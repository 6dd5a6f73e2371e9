#ifndef FABRIC_CONSERVATION_H
#define FABRIC_CONSERVATION_H

#include "build/fabric-builder.h"

#include <cstdint>
#include <vector>

namespace ns3
{

/// Where every payload byte of one flow is at the end of a run.
struct FlowBalance
{
    uint64_t sent = 0;
    uint64_t delivered = 0;
    uint64_t dropped = 0;
    uint64_t discarded = 0; ///< reached the receiver and thrown away (duplicates, go-back-N)
    uint64_t inFlight = 0;  ///< counted in queues and on wires, not inferred

    bool Balanced() const
    {
        return sent == delivered + dropped + discarded + inFlight;
    }
};

struct ConservationReport
{
    std::vector<FlowBalance> flows;
    FlowBalance total;
    uint32_t unbalancedFlows = 0;

    bool Ok() const
    {
        return unbalancedFlows == 0 && total.Balanced();
    }
};

/// Counts every flow's bytes still inside the fabric (egress queues and cables) and checks
/// sent = delivered + dropped + in flight per flow and in total.
ConservationReport CheckConservation(const FabricNetwork& net);

/// Payload bytes of each flow in this process's egress queues and on its cables (frames sent
/// to another rank count until they arrive there).
std::vector<uint64_t> CountInFlight(const FabricNetwork& net);

/// Balances each flow of \p table against \p inFlight (by flow id).
ConservationReport BalanceFlows(const FlowTable& table, const std::vector<uint64_t>& inFlight);

} // namespace ns3

#endif
