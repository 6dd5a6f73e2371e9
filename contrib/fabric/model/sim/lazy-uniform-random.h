#ifndef FABRIC_LAZY_UNIFORM_RANDOM_H
#define FABRIC_LAZY_UNIFORM_RANDOM_H

#include "ns3/ptr.h"
#include "ns3/random-variable-stream.h"

#include <cstdint>

namespace ns3
{

/**
 * \brief A UniformRandomVariable that is made at its first draw, on the stream named before.
 *
 * A UniformRandomVariable made by CreateObject sets its attributes and makes an RngStream on an
 * automatic stream number, and AssignStreams makes a second one on the stream it names. The
 * first RngStream of a process also computes ns-3's MRG32k3a power-of-two tables (about 41 M
 * instructions, bench/PROFILE.md "Start-up"). Most devices and switches never draw (no loss
 * rate, no queue between the ECN thresholds), so a run that never draws skips all of it.
 *
 * The numbers are those of a variable made at construction: a stream named by SetStream
 * depends only on the seed, the stream and the run (RngStream), and the variable takes the
 * attribute defaults (Min, Max, Antithetic) of the time it is made, which a run does not
 * change between building the fabric and the first draw. Every random variable of the fabric
 * is given its stream (the AssignStreams of devices, switch stages, load balancers and NICs),
 * so none takes an automatic stream number, whose value would depend on how many variables
 * were made before it.
 */
class LazyUniformRandom
{
  public:
    /// The stream the variable draws from (as RandomVariableStream::SetStream; -1 = automatic);
    /// a variable already made starts over on it, as SetStream does.
    void SetStream(int64_t stream);

    /// A value in [Min, Max) (the UniformRandomVariable's attributes, 0 and 1 by default).
    double GetValue()
    {
        return Variable()->GetValue();
    }

    /// An integer in [min, max].
    uint32_t GetInteger(uint32_t min, uint32_t max)
    {
        return Variable()->GetInteger(min, max);
    }

    /// Drops the variable (DoDispose); a later draw makes a new one on the same stream.
    void Dispose()
    {
        m_variable = nullptr;
    }

  private:
    UniformRandomVariable* Variable()
    {
        if (!m_variable)
        {
            Make();
        }
        return PeekPointer(m_variable);
    }

    void Make();

    int64_t m_stream = -1;
    Ptr<UniformRandomVariable> m_variable;
};

} // namespace ns3

#endif
