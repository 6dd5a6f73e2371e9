#include "mrg32k3a-stream.h"

#include "ns3/fatal-error.h"

#include <array>

namespace ns3
{
namespace
{

constexpr uint64_t kM1 = 4294967087;
constexpr uint64_t kM2 = 4294944443;

using Matrix = std::array<std::array<uint64_t, 3>, 3>;
using Vector = std::array<uint64_t, 3>;

/// A * B mod m; entries below m < 2^32, so each product fits 64 bits and a sum of three
/// reduced products does too.
Matrix
Multiply(const Matrix& a, const Matrix& b, uint64_t m)
{
    Matrix c{};
    for (int i = 0; i < 3; ++i)
    {
        for (int j = 0; j < 3; ++j)
        {
            uint64_t sum = 0;
            for (int k = 0; k < 3; ++k)
            {
                sum += a[i][k] * b[k][j] % m;
            }
            c[i][j] = sum % m;
        }
    }
    return c;
}

Vector
Multiply(const Matrix& a, const Vector& v, uint64_t m)
{
    Vector out{};
    for (int i = 0; i < 3; ++i)
    {
        uint64_t sum = 0;
        for (int k = 0; k < 3; ++k)
        {
            sum += a[i][k] * v[k] % m;
        }
        out[i] = sum % m;
    }
    return out;
}

/// The highest power of two a stream needs: stream bits (64) above 2^127.
constexpr int kPowers = 127 + 64;

/// A1^(2^n) and A2^(2^n) for n in [0, kPowers), each the square of the one before.
struct PowerTable
{
    std::array<Matrix, kPowers> a1;
    std::array<Matrix, kPowers> a2;

    PowerTable()
    {
        // The transition matrices, negative multipliers taken mod m.
        a1[0] = Matrix{{{0, 1, 0}, {0, 0, 1}, {kM1 - 810728, 1403580, 0}}};
        a2[0] = Matrix{{{0, 1, 0}, {0, 0, 1}, {kM2 - 1370589, 0, 527612}}};
        for (int n = 1; n < kPowers; ++n)
        {
            a1[n] = Multiply(a1[n - 1], a1[n - 1], kM1);
            a2[n] = Multiply(a2[n - 1], a2[n - 1], kM2);
        }
    }
};

const PowerTable&
Powers()
{
    static const PowerTable table;
    return table;
}

/// state = A^(nth * 2^by) state, one power of two per set bit of nth.
void
Advance(uint64_t nth, int by, Vector& s1, Vector& s2)
{
    const PowerTable& powers = Powers();
    for (int bit = 0; bit < 64; ++bit)
    {
        if ((nth >> bit) & 1)
        {
            s1 = Multiply(powers.a1[by + bit], s1, kM1);
            s2 = Multiply(powers.a2[by + bit], s2, kM2);
        }
    }
}

} // namespace

Mrg32k3aStream::Mrg32k3aStream(uint32_t seed, uint64_t stream, uint64_t substream)
{
    if (seed == 0 || seed >= kM2)
    {
        NS_FATAL_ERROR("invalid Seed " << seed);
    }
    Vector s1{seed, seed, seed};
    Vector s2{seed, seed, seed};
    Advance(stream, 127, s1, s2);
    Advance(substream, 76, s1, s2);
    for (int i = 0; i < 3; ++i)
    {
        m_state[i] = static_cast<double>(s1[i]);
        m_state[3 + i] = static_cast<double>(s2[i]);
    }
}

} // namespace ns3
