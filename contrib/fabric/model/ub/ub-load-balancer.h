#ifndef FABRIC_UB_LOAD_BALANCER_H
#define FABRIC_UB_LOAD_BALANCER_H

#include "sim/lazy-uniform-random.h"

#include "ns3/object.h"

#include <cstdint>
#include <deque>
#include <string>

namespace ns3
{

/**
 * \brief Chooses the entropy value of each packet a UB transport channel sends (a strategy
 * object). Switches hash the entropy alone to pick among equal-cost next hops, so the policy
 * decides how a channel's packets spread over the paths.
 *
 * Entropies are UDP source ports in the dynamic range 49152..65535: the policy works with
 * indices, Port() maps them.
 */
class UbLoadBalancer : public Object
{
  public:
    static TypeId GetTypeId();

    /// \p flowEntropy: the channel's own value (what per-flow hashing would use).
    virtual void Start(uint16_t flowEntropy)
    {
        m_base = flowEntropy;
    }

    virtual uint16_t NextEntropy() = 0;

    /// An ACK came back for a packet sent with \p entropy, congestion-marked or not.
    virtual void OnFeedback(uint16_t entropy, bool congested)
    {
    }

    virtual std::string GetName() const = 0;

    virtual int64_t AssignStreams(int64_t stream)
    {
        return 0;
    }

    /// The UDP source port of entropy index \p i above \p base.
    static uint16_t Port(uint16_t base, uint32_t i)
    {
        return static_cast<uint16_t>(49152 + (uint32_t(base) - 49152 + i) % 16384);
    }

  protected:
    uint16_t m_base = 49152;
};

/// ECMP: every packet carries the channel's entropy, so a channel keeps one path.
class UbFixedEntropy : public UbLoadBalancer
{
  public:
    static TypeId GetTypeId();

    uint16_t NextEntropy() override
    {
        return m_base;
    }

    std::string GetName() const override
    {
        return "ecmp";
    }
};

/// Oblivious spraying: entropies base, base+1, ... base+E-1 in turn, one per packet.
class UbObliviousSpray : public UbLoadBalancer
{
  public:
    static TypeId GetTypeId();
    uint16_t NextEntropy() override;

    std::string GetName() const override
    {
        return "oblivious";
    }

  private:
    uint32_t m_entropies;
    uint32_t m_next = 0;
};

/**
 * \brief Adaptive spraying in the spirit of Ultra Ethernet's REPS (recycled entropy packet
 * spraying): entropies whose packets came back unmarked are kept in a FIFO and reused; when the
 * FIFO is empty a fresh entropy is drawn at random among E. An entropy whose packet came back
 * marked (ECN CE or C-AQM C) is not recycled, so traffic leaves congested paths within an RTT.
 */
class UbAdaptiveSpray : public UbLoadBalancer
{
  public:
    static TypeId GetTypeId();
    UbAdaptiveSpray();
    uint16_t NextEntropy() override;
    void OnFeedback(uint16_t entropy, bool congested) override;

    std::string GetName() const override
    {
        return "adaptive";
    }

    int64_t AssignStreams(int64_t stream) override;

  private:
    uint32_t m_entropies;
    std::deque<uint16_t> m_recycled;
    LazyUniformRandom m_rng;
};

} // namespace ns3

#endif
