// Mrg32k3aStream and LazyUniformRandom against ns-3's own generator: for several seeds, runs
// (substreams) and named streams, including streams with high bits set, every draw equals the
// draw of a UniformRandomVariable on the same stream, to the last bit.

#include "sim/lazy-uniform-random.h"
#include "sim/mrg32k3a-stream.h"

#include "ns3/boolean.h"
#include "ns3/config.h"
#include "ns3/double.h"
#include "ns3/random-variable-stream.h"
#include "ns3/rng-seed-manager.h"
#include "ns3/rng-stream.h"

#include <cstdint>
#include <gtest/gtest.h>
#include <vector>

namespace ns3
{
namespace test
{
namespace
{

/// Restores the process-wide seed, run and UniformRandomVariable defaults a test changes.
class RngSettings : public ::testing::Test
{
  protected:
    void TearDown() override
    {
        RngSeedManager::SetSeed(m_seed);
        RngSeedManager::SetRun(m_run);
        Config::SetDefault("ns3::UniformRandomVariable::Min", DoubleValue(0.0));
        Config::SetDefault("ns3::UniformRandomVariable::Max", DoubleValue(1.0));
        Config::SetDefault("ns3::RandomVariableStream::Antithetic", BooleanValue(false));
    }

    uint32_t m_seed = RngSeedManager::GetSeed();
    uint64_t m_run = RngSeedManager::GetRun();
};

const std::vector<uint64_t> kStreams =
    {0, 1, 2, 7, 100, 12345, (uint64_t{1} << 40) + 3, (uint64_t{1} << 63) + 5, ~uint64_t{0}};

TEST(Mrg32k3aStream, DrawsRngStreamsNumbers)
{
    for (uint32_t seed : {1u, 2u, 12345u, 4294944442u})
    {
        for (uint64_t substream : {uint64_t{0}, uint64_t{1}, uint64_t{9}, uint64_t{1} << 50})
        {
            for (uint64_t stream : kStreams)
            {
                RngStream reference(seed, stream, substream);
                Mrg32k3aStream ours(seed, stream, substream);
                for (int i = 0; i < 50; ++i)
                {
                    ASSERT_EQ(ours.RandU01(), reference.RandU01())
                        << "seed " << seed << " stream " << stream << " substream " << substream
                        << " draw " << i;
                }
            }
        }
    }
}

TEST_F(RngSettings, LazyUniformRandomDrawsTheVariablesNumbers)
{
    for (uint32_t seed : {1u, 3u})
    {
        for (uint64_t run : {1u, 4u})
        {
            RngSeedManager::SetSeed(seed);
            RngSeedManager::SetRun(run);
            for (int64_t stream : {int64_t{0}, int64_t{5}, int64_t{1} << 33})
            {
                Ptr<UniformRandomVariable> eager = CreateObject<UniformRandomVariable>();
                eager->SetStream(stream);
                LazyUniformRandom lazy;
                lazy.SetStream(stream);
                for (int i = 0; i < 200; ++i)
                {
                    ASSERT_EQ(lazy.GetValue(), eager->GetValue()) << "draw " << i;
                    ASSERT_EQ(lazy.GetInteger(0, 63), eager->GetInteger(0, 63)) << "draw " << i;
                    ASSERT_EQ(lazy.GetInteger(7, 7), eager->GetInteger(7, 7));
                }
            }
        }
    }
}

TEST_F(RngSettings, LazyUniformRandomTakesTheDefaultsOfItsFirstDraw)
{
    Config::SetDefault("ns3::UniformRandomVariable::Min", DoubleValue(2.5));
    Config::SetDefault("ns3::UniformRandomVariable::Max", DoubleValue(4.0));
    Ptr<UniformRandomVariable> eager = CreateObject<UniformRandomVariable>();
    eager->SetStream(11);
    eager->SetAntithetic(true);
    Config::SetDefault("ns3::RandomVariableStream::Antithetic", BooleanValue(true));
    LazyUniformRandom lazy;
    lazy.SetStream(11);
    for (int i = 0; i < 100; ++i)
    {
        const double v = lazy.GetValue();
        ASSERT_EQ(v, eager->GetValue()) << "draw " << i;
        ASSERT_GE(v, 2.5);
        ASSERT_LT(v, 4.0);
    }
}

} // namespace
} // namespace test
} // namespace ns3
