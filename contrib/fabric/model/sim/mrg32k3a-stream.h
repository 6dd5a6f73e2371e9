#ifndef FABRIC_MRG32K3A_STREAM_H
#define FABRIC_MRG32K3A_STREAM_H

#include <cstdint>

namespace ns3
{

/**
 * \brief L'Ecuyer's MRG32k3a generator on one stream and substream: the numbers of ns-3's
 * RngStream, made without its start-up cost.
 *
 * ns-3's RngStream places stream s, substream r at A^(s * 2^127 + r * 2^76) times the seed
 * vector (P. L'Ecuyer, R. Simard, E. J. Chen, W. D. Kelton, "An Object-Oriented
 * Random-Number Package with Many Long Streams and Substreams", Operations Research 50(6),
 * 2002). It computes the matrices A^(2^n) it needs for that once per process, from scratch for
 * each n and in floating-point modular arithmetic: about 41 M instructions, 5 ms of a
 * 128-host incast run (bench/PROFILE.md "Start-up"). This class squares each matrix once from
 * the previous one in exact 64-bit integer arithmetic (a few thousand multiplications). The
 * states are the same integers, so RandU01, which repeats RngStream's floating-point
 * recurrence operation for operation, returns the same doubles (tests/sim/mrg32k3a-stream-test.cc
 * compares them with ns-3's UniformRandomVariable draw for draw).
 */
class Mrg32k3aStream
{
  public:
    /// The stream as RngStream(seed, stream, substream) starts it; seed in [1, 2^32 - 22853).
    Mrg32k3aStream(uint32_t seed, uint64_t stream, uint64_t substream);

    /// The next number in [0, 1), as RngStream::RandU01.
    double RandU01()
    {
        constexpr double m1 = 4294967087.0;
        constexpr double m2 = 4294944443.0;
        constexpr double norm = 1.0 / (m1 + 1.0);
        const double p1 = Step(m_state, 1, 1403580.0, 810728.0, m1);
        const double p2 = Step(m_state + 3, 2, 527612.0, 1370589.0, m2);
        return (p1 > p2) ? (p1 - p2) * norm : (p1 - p2 + m1) * norm;
    }

  private:
    /// One component's recurrence, as RngStream writes it: p = (a * s[recent] - b * s[0]) mod
    /// m, then s shifts by one and takes p. Every product and difference is an integer under
    /// 2^53, exact in a double.
    static double Step(double* s, int recent, double a, double b, double m)
    {
        double p = a * s[recent] - b * s[0];
        p -= static_cast<int32_t>(p / m) * m;
        if (p < 0.0)
        {
            p += m;
        }
        s[0] = s[1];
        s[1] = s[2];
        s[2] = p;
        return p;
    }

    double m_state[6]; ///< two components of three values each, as in RngStream
};

} // namespace ns3

#endif
