#ifndef FABRIC_PORT_QUEUES_H
#define FABRIC_PORT_QUEUES_H

#include "fabric-frames.h"
#include "frame-fifo.h"

#include "ns3/packet.h"
#include "ns3/ptr.h"

#include <array>
#include <cstdint>

namespace ns3
{

/**
 * \ingroup fabric
 * \brief The egress queues of one port and the scheduler that picks among them.
 *
 * Eight data queues, one per priority (IEEE 802.1Q traffic class), and a control queue for PFC
 * frames that is always served first and never paused. Data is served by strict priority (7
 * highest) or by deficit weighted round robin (DWRR, Shreedhar and Varghese, SIGCOMM 1995) with
 * one quantum for every priority. Which priorities may send at all (not paused, holding the
 * credits their head frame needs) is the caller's question: Select asks it through a predicate,
 * so the queues know nothing of PFC or credits.
 *
 * Everything here sits on the transmit path of every frame and is inline.
 */
class PortQueues
{
  public:
    PortQueues() = default;
    PortQueues(const PortQueues&) = delete;
    PortQueues& operator=(const PortQueues&) = delete;

    /// Serves data by DWRR (true) or strict priority (false, the default).
    void SetDwrr(bool dwrr)
    {
        m_dwrr = dwrr;
    }

    bool IsDwrr() const
    {
        return m_dwrr;
    }

    /// Bytes each priority may send per DWRR round.
    void SetDwrrQuantum(uint32_t bytes)
    {
        m_quantum = bytes;
    }

    uint32_t GetDwrrQuantum() const
    {
        return m_quantum;
    }

    /// Bit p set when data queue p holds a frame.
    uint8_t NonEmptyMask() const
    {
        return m_nonEmpty;
    }

    /// Appends a data frame to its priority's queue; returns that queue's new byte count.
    uint64_t Push(QueuedFrame&& item)
    {
        uint8_t p = item.priority;
        m_bytes[p] += item.bytes;
        m_queues[p].push_back(std::move(item));
        m_nonEmpty |= static_cast<uint8_t>(1u << p);
        return m_bytes[p];
    }

    /// Removes the head of data queue \p p (which must hold a frame).
    QueuedFrame TakeHead(uint8_t p)
    {
        QueuedFrame item = std::move(m_queues[p].front());
        m_queues[p].pop_front();
        if (m_queues[p].empty())
        {
            m_nonEmpty &= static_cast<uint8_t>(~(1u << p));
        }
        m_bytes[p] -= item.bytes;
        return item;
    }

    /// Picks the next data priority to serve, or -1 when no queue that holds a frame is
    /// \p eligible (a callable bool(uint8_t priority), asked only of queues holding a frame, in
    /// the order the scheduler visits them: it may count stalls).
    template <typename Eligible>
    int Select(Eligible&& eligible)
    {
        if (!m_dwrr)
        {
            for (uint32_t waiting = m_nonEmpty; waiting != 0;)
            {
                int p = 31 - __builtin_clz(waiting); // the highest priority with frames
                if (eligible(static_cast<uint8_t>(p)))
                {
                    return p;
                }
                waiting &= ~(1u << p);
            }
            return -1;
        }
        // DWRR: visit priorities round-robin; a priority keeps the turn while its deficit
        // covers its head frame, then the next one gets a fresh quantum.
        bool anyEligible = false;
        for (uint8_t p = 0; p < kFabricPriorities; ++p)
        {
            if (!m_queues[p].empty() && eligible(p))
            {
                anyEligible = true;
            }
        }
        if (!anyEligible)
        {
            return -1;
        }
        for (;;)
        {
            uint8_t p = m_next;
            if (!m_queues[p].empty() && eligible(p))
            {
                if (!m_turnStarted)
                {
                    m_deficit[p] += m_quantum;
                    m_turnStarted = true;
                }
                if (m_deficit[p] >= static_cast<int64_t>(m_queues[p].front().bytes))
                {
                    m_deficit[p] -= m_queues[p].front().bytes;
                    return p;
                }
            }
            // The turn ends: an emptied queue forfeits its deficit, a paused one keeps it.
            if (m_queues[p].empty())
            {
                m_deficit[p] = 0;
            }
            m_turnStarted = false;
            m_next = static_cast<uint8_t>((m_next + 1) % kFabricPriorities);
        }
    }

    const FrameFifo<QueuedFrame>& Queue(uint8_t p) const
    {
        return m_queues[p];
    }

    uint64_t Bytes(uint8_t p) const
    {
        return m_bytes[p];
    }

    uint64_t TotalBytes() const
    {
        uint64_t total = 0;
        for (auto b : m_bytes)
        {
            total += b;
        }
        return total;
    }

    /// PFC frames waiting, served before any data.
    FrameFifo<Ptr<Packet>>& Control()
    {
        return m_control;
    }

    const FrameFifo<Ptr<Packet>>& Control() const
    {
        return m_control;
    }

    /// Empties every queue without accounting (the port is being disposed of).
    void Clear()
    {
        for (auto& q : m_queues)
        {
            q.clear();
        }
        m_control.clear();
    }

  private:
    // What every transmission reads first, together at the front.
    uint8_t m_nonEmpty = 0; ///< bit p set when m_queues[p] holds a frame
    bool m_dwrr = false;
    bool m_turnStarted = false; ///< DWRR: m_next has had its quantum this turn
    uint8_t m_next = 0;         ///< DWRR: the priority whose turn it is
    uint32_t m_quantum = 9216;
    std::array<uint64_t, kFabricPriorities> m_bytes{};
    FrameFifo<Ptr<Packet>> m_control;
    std::array<FrameFifo<QueuedFrame>, kFabricPriorities> m_queues;
    std::array<int64_t, kFabricPriorities> m_deficit{};
};

} // namespace ns3

#endif
