#include "credit-flow-control.h"

#include "wire/credit-update-header.h"

#include "ns3/abort.h"

namespace ns3
{

CreditFlowControl::CreditFlowControl(uint32_t cellBytes,
                                     uint32_t cells,
                                     uint8_t laneMask,
                                     bool shared)
    : m_cellBytes(cellBytes),
      m_cells(cells),
      m_laneMask(laneMask),
      m_shared(shared)
{
    NS_ABORT_MSG_IF(cellBytes == 0, "a credit cell must hold at least one byte");
}

void
CreditFlowControl::Apply(const CreditUpdateHeader& frame)
{
    for (uint8_t lane = 0; lane < kFabricPriorities; ++lane)
    {
        if (!frame.HasLane(lane) || !IsCredited(lane))
        {
            continue;
        }
        Lane& l = m_lanes[lane];
        if (frame.GetKind() == CreditUpdateHeader::UPDATE)
        {
            l.returned += frame.GetCount(lane);
            continue;
        }
        // SYNC: the peer's cumulative returns modulo 2^32. They never run behind what arrived
        // before (credit frames stay in order on the link), so the 32-bit difference is what
        // lost UPDATEs left out.
        uint32_t missing = frame.GetCount(lane) - static_cast<uint32_t>(l.returned);
        l.returned += missing;
    }
}

void
CreditFlowControl::Free(uint8_t lane, uint32_t bytes, bool held)
{
    Lane& l = m_lanes[lane];
    uint32_t cells = CellsOf(bytes);
    if (held)
    {
        NS_ABORT_MSG_IF(l.held < cells, "credit lane " << +lane << " frees cells it never held");
        l.held -= cells;
    }
    l.freed += cells;
}

bool
CreditFlowControl::HasPending() const
{
    for (const Lane& l : m_lanes)
    {
        if (l.freed != l.returnedSent)
        {
            return true;
        }
    }
    return false;
}

void
CreditFlowControl::FillUpdate(CreditUpdateHeader* frame)
{
    frame->SetKind(CreditUpdateHeader::UPDATE);
    for (uint8_t lane = 0; lane < kFabricPriorities; ++lane)
    {
        Lane& l = m_lanes[lane];
        if (l.freed != l.returnedSent)
        {
            frame->SetCount(lane, static_cast<uint32_t>(l.freed - l.returnedSent));
            l.returnedSent = l.freed;
        }
    }
}

void
CreditFlowControl::FillSync(CreditUpdateHeader* frame)
{
    frame->SetKind(CreditUpdateHeader::SYNC);
    for (uint8_t lane = 0; lane < kFabricPriorities; ++lane)
    {
        if (IsCredited(lane))
        {
            Lane& l = m_lanes[lane];
            frame->SetCount(lane, static_cast<uint32_t>(l.freed));
            l.returnedSent = l.freed;
        }
    }
}

} // namespace ns3
