#ifndef FABRIC_LAZY_UNIFORM_RANDOM_H
#define FABRIC_LAZY_UNIFORM_RANDOM_H

#include "mrg32k3a-stream.h"

#include "ns3/ptr.h"
#include "ns3/random-variable-stream.h"

#include <cstdint>
#include <optional>

namespace ns3
{

/**
 * \brief The numbers of a UniformRandomVariable on a named stream, made at the first draw.
 *
 * A UniformRandomVariable made by CreateObject sets its attributes and makes an RngStream on an
 * automatic stream number, and AssignStreams makes a second one on the stream it names. Most
 * devices and switches never draw (no loss rate, no queue between the ECN thresholds), so this
 * class makes nothing until the first draw.
 *
 * On a named stream it then draws from an Mrg32k3aStream at the stream ns-3 would use (seed,
 * 2^63 + stream, run: RandomVariableStream::SetStream), which gives RngStream's numbers without
 * the 41 M instructions ns-3 spends on its first RngStream of a process, and applies
 * UniformRandomVariable::GetValue's arithmetic with the Min, Max and Antithetic defaults of the
 * time of that draw (a run does not change them after building the fabric). On the automatic
 * stream (-1), whose number depends on how many variables were made before, it makes ns-3's own
 * variable. Every random variable of the fabric is given its stream (the AssignStreams of
 * devices, switch stages, load balancers and NICs).
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
        Make();
        return Draw(m_min, m_max);
    }

    /// An integer in [min, max].
    uint32_t GetInteger(uint32_t min, uint32_t max)
    {
        Make();
        return static_cast<uint32_t>(
            Draw(static_cast<double>(min), static_cast<double>(max) + 1.0));
    }

    /// Drops the variable (DoDispose); a later draw starts the same stream over.
    void Dispose();

  private:
    void Make()
    {
        if (!m_rng && !m_automatic)
        {
            MakeStream();
        }
    }

    void MakeStream();

    /// UniformRandomVariable::GetValue(min, max), operation for operation.
    double Draw(double min, double max)
    {
        if (m_automatic)
        {
            return m_automatic->GetValue(min, max);
        }
        double v = min + m_rng->RandU01() * (max - min);
        if (m_antithetic)
        {
            v = min + (max - v);
        }
        return v;
    }

    int64_t m_stream = -1;
    std::optional<Mrg32k3aStream> m_rng;
    double m_min = 0.0;
    double m_max = 1.0;
    bool m_antithetic = false;
    Ptr<UniformRandomVariable> m_automatic; ///< ns-3's variable on an automatic stream
};

} // namespace ns3

#endif
