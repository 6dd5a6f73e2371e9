// Switches on the path between two hosts (helper/build/path-hops.h), counted by hand on the
// generators' wiring (helper/config/topology-generators.h).

#include "build/path-hops.h"
#include "config/topology-generators.h"

#include <gtest/gtest.h>

namespace ns3
{
namespace test
{
namespace
{

TEST(PathHops, StarClosAndFatTree)
{
    TopologySpec star = MakeStar(4, DataRate("400Gbps"), NanoSeconds(150));
    PathHops starHops(star);
    EXPECT_EQ(starHops.Between(0, 3), 1u);
    EXPECT_EQ(starHops.Between(2, 2), 0u);

    // 2-tier Clos, 4 hosts per leaf: hosts 0 and 3 share leaf0 (1 switch); host 4 is on leaf1,
    // reached through a spine (leaf, spine, leaf: 3 switches).
    Clos2Params p;
    p.k = 8;
    p.down = 4;
    p.up = 4;
    p.leaves = 3;
    TopologySpec clos = MakeClos2(p);
    PathHops closHops(clos);
    EXPECT_EQ(closHops.Between(0, 3), 1u);
    EXPECT_EQ(closHops.Between(0, 4), 3u);
    EXPECT_EQ(closHops.Between(4, 0), 3u);
    EXPECT_EQ(closHops.Between(0, 3), 1u); // asked again after another source: the same

    // k = 4 fat tree: 2 hosts per edge, 4 per pod. Same edge 1; same pod, other edge: edge,
    // aggregation, edge = 3; other pod: edge, agg, core, agg, edge = 5.
    TopologySpec ft = MakeFatTree3(4, DataRate("100Gbps"), NanoSeconds(100));
    PathHops ftHops(ft);
    EXPECT_EQ(ftHops.Between(0, 1), 1u);
    EXPECT_EQ(ftHops.Between(0, 2), 3u);
    EXPECT_EQ(ftHops.Between(0, 4), 5u);
    EXPECT_EQ(ftHops.Between(15, 0), 5u);
}

} // namespace
} // namespace test
} // namespace ns3
