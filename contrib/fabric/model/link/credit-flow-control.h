#ifndef FABRIC_CREDIT_FLOW_CONTROL_H
#define FABRIC_CREDIT_FLOW_CONTROL_H

#include "fabric-frames.h"

#include <array>
#include <cstdint>

namespace ns3
{

class CreditUpdateHeader;

/**
 * \ingroup fabric
 * \brief The credit state of one port under credit-based flow control (CBFC), both roles.
 *
 * As a sender the port holds, per lane (a priority in the lane mask), the credits its peer
 * advertised: `cells` buffer cells of `cellBytes` each. A frame of `b` bytes needs
 * ceil(b / cellBytes) credits and is sent only while the port holds that many; credits come back
 * in the peer's credit frames. The sender keeps cumulative counts (sent, returned), so that a
 * SYNC, which carries the peer's cumulative returns, repairs whatever lost UPDATEs left out:
 * available = cells − (sent − returned).
 *
 * As a receiver the port counts, per lane, the cells its buffer holds for frames that arrived
 * (held), the cells freed since (freed, cumulative) and the part of those not yet returned
 * (pending). Its owner frees a frame's cells when the frame leaves the buffer (a switch: when it
 * leaves the egress queue; a host: on arrival); a frame lost on arrival frees them at once.
 *
 * Both ends of a link advertise the same buffer (the port's CreditBuffer attribute). Exclusive
 * mode gives every credited lane its own `cells`; shared mode (as the public ns-3 Unified Bus
 * simulator also offers) lets all credited lanes of the port draw from one pool of `cells`: a
 * lane may send while the credits all lanes have out leave room for its frame.
 */
class CreditFlowControl
{
  public:
    CreditFlowControl(uint32_t cellBytes, uint32_t cells, uint8_t laneMask, bool shared = false);

    bool IsShared() const
    {
        return m_shared;
    }

    bool IsCredited(uint8_t lane) const
    {
        return lane < kFabricPriorities && ((m_laneMask >> lane) & 1u) != 0;
    }

    uint32_t CellsOf(uint32_t bytes) const
    {
        return (bytes + m_cellBytes - 1) / m_cellBytes;
    }

    uint32_t GetCellBytes() const
    {
        return m_cellBytes;
    }

    uint32_t GetAdvertisedCells() const
    {
        return m_cells;
    }

    // --- sender -------------------------------------------------------------------------
    /// Credits (cells) this port may still spend on \p lane.
    uint64_t Available(uint8_t lane) const
    {
        uint64_t inUse = 0;
        if (m_shared)
        {
            for (const Lane& l : m_lanes)
            {
                inUse += l.sent - l.returned;
            }
        }
        else
        {
            inUse = m_lanes[lane].sent - m_lanes[lane].returned;
        }
        return inUse >= m_cells ? 0 : m_cells - inUse;
    }

    bool CanSend(uint8_t lane, uint32_t bytes) const
    {
        return CellsOf(bytes) <= Available(lane);
    }

    void Consume(uint8_t lane, uint32_t bytes)
    {
        m_lanes[lane].sent += CellsOf(bytes);
    }

    /// Applies a received UPDATE (adds) or SYNC (absolute cumulative returns).
    void Apply(const CreditUpdateHeader& frame);

    /// Cumulative cells sent / returned on \p lane (the sender's view).
    uint64_t GetSent(uint8_t lane) const
    {
        return m_lanes[lane].sent;
    }

    uint64_t GetReturned(uint8_t lane) const
    {
        return m_lanes[lane].returned;
    }

    // --- receiver -----------------------------------------------------------------------
    void Hold(uint8_t lane, uint32_t bytes)
    {
        m_lanes[lane].held += CellsOf(bytes);
    }

    /// The cells of a frame leave the buffer (\p held: it was counted by Hold; a frame lost on
    /// arrival was not).
    void Free(uint8_t lane, uint32_t bytes, bool held);

    uint64_t GetHeld(uint8_t lane) const
    {
        return m_lanes[lane].held;
    }

    /// Freed cells not yet carried by a credit frame.
    uint64_t GetPending(uint8_t lane) const
    {
        return m_lanes[lane].freed - m_lanes[lane].returnedSent;
    }

    bool HasPending() const;
    /// Fills an UPDATE with every pending count and marks them returned.
    void FillUpdate(CreditUpdateHeader* frame);
    /// Fills a SYNC with the cumulative returns of every lane (pending ones included).
    void FillSync(CreditUpdateHeader* frame);

  private:
    struct Lane
    {
        uint64_t sent = 0;         ///< sender: cells spent, cumulative
        uint64_t returned = 0;     ///< sender: cells returned by the peer, cumulative
        uint64_t held = 0;         ///< receiver: cells of frames in the buffer
        uint64_t freed = 0;        ///< receiver: cells freed, cumulative
        uint64_t returnedSent = 0; ///< receiver: cells carried by credit frames, cumulative
    };

    uint32_t m_cellBytes;
    uint32_t m_cells;
    uint8_t m_laneMask;
    bool m_shared;
    std::array<Lane, kFabricPriorities> m_lanes{};
};

} // namespace ns3

#endif
