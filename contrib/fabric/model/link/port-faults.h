#ifndef FABRIC_PORT_FAULTS_H
#define FABRIC_PORT_FAULTS_H

#include "frame-ref.h"
#include "sim/lazy-uniform-random.h"

#include <cstdint>
#include <memory>

namespace ns3
{

/**
 * \ingroup fabric
 * \brief What can go wrong at one port: the link's state, bit errors on arrival, and the
 * priorities a PFC watchdog drops.
 *
 * A link that is down sends nothing and loses what arrives. Each arriving frame but PFC frames
 * is lost with probability LossRate (independent bit errors, one draw per arriving frame while
 * the rate is above 0, from the port's own random stream). A priority being dropped loses what
 * is queued for it and what is offered to it. The port (FabricNetDevice) asks on its data path;
 * the questions are inline.
 */
class PortFaults
{
  public:
    bool IsLinkUp() const
    {
        return m_linkUp;
    }

    /// Sets the link state; returns whether it changed.
    bool SetLinkUp(bool up)
    {
        bool changed = up != m_linkUp;
        m_linkUp = up;
        return changed;
    }

    double GetLossRate() const
    {
        return m_lossRate;
    }

    void SetLossRate(double rate)
    {
        m_lossRate = rate;
    }

    /// Fixes the random stream of the loss draws.
    void SetStream(int64_t stream)
    {
        m_lossRng->SetStream(stream);
    }

    /// Whether an arriving \p frame is lost to a bit error (never a PFC frame; counted).
    bool LostOnArrival(const FrameRef& frame)
    {
        if (m_lossRate > 0 && m_lossRng->GetValue() < m_lossRate)
        {
            return LostUnlessPfc(frame);
        }
        return false;
    }

    uint64_t GetLostFrames() const
    {
        return m_lostFrames;
    }

    bool IsDropping(uint8_t priority) const
    {
        return (m_dropMask >> priority) & 1;
    }

    /// A PFC watchdog drops (true) or stops dropping \p priority.
    void SetDropping(uint8_t priority, bool dropping)
    {
        if (dropping)
        {
            m_dropMask |= static_cast<uint8_t>(1u << priority);
        }
        else
        {
            m_dropMask &= static_cast<uint8_t>(~(1u << priority));
        }
    }

  private:
    /// The draw said lost: so it is, unless the frame is a PFC frame (counted when lost).
    bool LostUnlessPfc(const FrameRef& frame);

    double m_lossRate = 0;
    bool m_linkUp = true;
    uint8_t m_dropMask = 0;
    uint64_t m_lostFrames = 0;
    /// Out of line: the port reads the fields above for every frame, and the generator (about
    /// 100 bytes) only when a loss rate is set.
    std::unique_ptr<LazyUniformRandom> m_lossRng = std::make_unique<LazyUniformRandom>();
};

} // namespace ns3

#endif
