// FrameFifo (link/frame-fifo.h): first in, first out through wrap-around and growth, iteration
// oldest first, and a popped element released at once (a frame's packet reference goes when the
// frame leaves the queue).

#include "link/frame-fifo.h"

#include "ns3/packet.h"

#include <gtest/gtest.h>
#include <vector>

namespace ns3
{
namespace
{

std::vector<int>
Contents(const FrameFifo<int>& fifo)
{
    std::vector<int> out;
    for (int v : fifo)
    {
        out.push_back(v);
    }
    return out;
}

TEST(FrameFifo, OrderThroughWrapAndGrowth)
{
    FrameFifo<int> fifo;
    EXPECT_TRUE(fifo.empty());
    int next = 0;
    int expected = 0;
    // Offset the head so that the growth from 8 to 16 slots happens with the contents wrapped.
    for (int i = 0; i < 6; ++i)
    {
        fifo.push_back(next++);
    }
    for (int i = 0; i < 5; ++i)
    {
        EXPECT_EQ(fifo.front(), expected++);
        fifo.pop_front();
    }
    for (int i = 0; i < 30; ++i)
    {
        fifo.push_back(next++);
    }
    EXPECT_EQ(fifo.size(), 31u);
    EXPECT_EQ(fifo.back(), next - 1);
    std::vector<int> all;
    for (int v = expected; v < next; ++v)
    {
        all.push_back(v);
    }
    EXPECT_EQ(Contents(fifo), all);
    while (!fifo.empty())
    {
        EXPECT_EQ(fifo.front(), expected++);
        fifo.pop_front();
    }
    EXPECT_EQ(expected, next);
    fifo.push_back(7);
    EXPECT_EQ(Contents(fifo), std::vector<int>{7});
    fifo.clear();
    EXPECT_TRUE(fifo.empty());
    EXPECT_EQ(fifo.begin(), fifo.end());
}

TEST(FrameFifo, RoomFollowsWhatIsQueued)
{
    FrameFifo<int> fifo;
    EXPECT_EQ(fifo.capacity(), 0u); // nothing allocated until the first push
    for (int i = 0; i < 1000; ++i)
    {
        fifo.push_back(i);
    }
    EXPECT_EQ(fifo.capacity(), 1024u);
    // Drained to 10 frames, the room has halved each time fewer than a quarter of it was in
    // use: 1024 -> 512 at 255 left, 256 at 127, 128 at 63, 64 at 31, 32 at 15.
    for (int i = 0; i < 990; ++i)
    {
        EXPECT_EQ(fifo.front(), i);
        fifo.pop_front();
    }
    EXPECT_EQ(fifo.capacity(), 32u);
    std::vector<int> rest;
    for (int v = 990; v < 1000; ++v)
    {
        rest.push_back(v);
    }
    EXPECT_EQ(Contents(fifo), rest);
    while (!fifo.empty())
    {
        fifo.pop_front();
    }
    EXPECT_EQ(fifo.capacity(), 8u);
}

TEST(FrameFifo, PopReleasesTheElement)
{
    FrameFifo<Ptr<Packet>> fifo;
    Ptr<Packet> p = Create<Packet>(100);
    EXPECT_EQ(p->GetReferenceCount(), 1u);
    fifo.push_back(p);
    fifo.push_back(Create<Packet>(1));
    EXPECT_EQ(p->GetReferenceCount(), 2u);
    fifo.pop_front();
    EXPECT_EQ(p->GetReferenceCount(), 1u);
    EXPECT_EQ(fifo.front()->GetSize(), 1u);
}

} // namespace
} // namespace ns3
