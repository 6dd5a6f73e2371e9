// GoogleTest entry point. The fabric library sets picosecond time resolution as it loads
// (model/sim/picosecond-resolution.cc); the first test checks that it did.

#include "ns3/nstime.h"

#include <gtest/gtest.h>

TEST(TimeResolution, FabricRunsAtPicoseconds)
{
    EXPECT_EQ(ns3::Time::GetResolution(), ns3::Time::PS);
    EXPECT_EQ(ns3::PicoSeconds(18600).GetPicoSeconds(), 18600);
}

int
main(int argc, char** argv)
{
    ::testing::InitGoogleTest(&argc, argv);
    return RUN_ALL_TESTS();
}
