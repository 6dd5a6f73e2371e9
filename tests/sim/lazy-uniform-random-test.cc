// LazyUniformRandom draws the numbers of a UniformRandomVariable made at construction on the
// same stream, and makes nothing before its first draw: building devices that never draw takes
// no automatic stream number (a variable made by CreateObject takes one, so each device built
// would advance RngSeedManager's counter).

#include "link/fabric-net-device.h"
#include "sim/lazy-uniform-random.h"

#include "ns3/object.h"
#include "ns3/random-variable-stream.h"
#include "ns3/rng-seed-manager.h"

#include <gtest/gtest.h>

namespace ns3
{
namespace test
{
namespace
{

TEST(LazyUniformRandom, DrawsTheNumbersOfAVariableMadeAtConstruction)
{
    Ptr<UniformRandomVariable> eager = CreateObject<UniformRandomVariable>();
    eager->SetStream(17);
    LazyUniformRandom lazy;
    lazy.SetStream(17);
    for (int i = 0; i < 100; ++i)
    {
        ASSERT_EQ(lazy.GetValue(), eager->GetValue()) << "draw " << i;
        ASSERT_EQ(lazy.GetInteger(0, 63), eager->GetInteger(0, 63)) << "draw " << i;
    }
    // A new stream starts over, as SetStream does.
    eager->SetStream(3);
    lazy.SetStream(3);
    EXPECT_EQ(lazy.GetValue(), eager->GetValue());
}

TEST(LazyUniformRandom, DevicesThatNeverDrawMakeNoRandomStream)
{
    // GetNextStreamIndex hands out (and counts) automatic stream numbers.
    const uint64_t before = RngSeedManager::GetNextStreamIndex();
    for (int i = 0; i < 8; ++i)
    {
        Ptr<FabricNetDevice> dev = CreateObject<FabricNetDevice>();
        dev->AssignStreams(100 + i);
        dev->Dispose();
    }
    EXPECT_EQ(RngSeedManager::GetNextStreamIndex(), before + 1);
}

} // namespace
} // namespace test
} // namespace ns3
