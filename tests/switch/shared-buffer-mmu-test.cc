// SharedBufferMmu accounting: where each frame is charged, when XOFF/XON are asked for, when a
// frame is dropped. Sizes are chosen so every expectation follows from the rules by hand.

#include "../fabric-sim-util.h"
#include "switch/shared-buffer-mmu.h"

#include "ns3/boolean.h"
#include "ns3/double.h"
#include "ns3/queue-size.h"
#include "ns3/uinteger.h"

namespace ns3
{
namespace test
{
namespace
{

constexpr uint32_t kF = 1000; // frame bytes

Ptr<SharedBufferMmu>
MakeMmu(bool dynamic, uint32_t nPorts = 4)
{
    Ptr<SharedBufferMmu> m = CreateObject<SharedBufferMmu>();
    m->SetAttribute("BufferSize", QueueSizeValue(QueueSize("100000B")));
    m->SetAttribute("Headroom", QueueSizeValue(QueueSize("3000B")));
    m->SetAttribute("XoffThreshold", QueueSizeValue(QueueSize("10000B")));
    m->SetAttribute("XonThreshold", QueueSizeValue(QueueSize("5000B")));
    m->SetAttribute("XonOffset", QueueSizeValue(QueueSize("2000B")));
    m->SetAttribute("DynamicThreshold", BooleanValue(dynamic));
    m->SetAttribute("Alpha", DoubleValue(0.5));
    m->SetAttribute("LosslessPriorities", UintegerValue(0x08));
    m->Configure(nPorts);
    return m;
}

TEST(SharedBufferMmu, PoolIsBufferMinusHeadroomReserve)
{
    Ptr<SharedBufferMmu> m = MakeMmu(false);
    // 4 ports x 1 lossless priority x 3000 B reserved.
    EXPECT_EQ(m->GetSharedPoolSize(), 100000u - 4 * 3000u);
}

TEST(SharedBufferMmu, StaticXoffAtThresholdThenHeadroomThenDrop)
{
    Ptr<SharedBufferMmu> m = MakeMmu(false);
    bool xoff = false;
    for (int i = 0; i < 9; ++i)
    {
        ASSERT_EQ(m->Admit(1, 3, kF, &xoff), SharedBufferMmu::ADMIT);
        ASSERT_FALSE(xoff) << "frame " << i;
    }
    // The 10th frame brings the ingress to 10000 B = XOFF.
    EXPECT_EQ(m->Admit(1, 3, kF, &xoff), SharedBufferMmu::ADMIT);
    EXPECT_TRUE(xoff);
    EXPECT_TRUE(m->IsPaused(1, 3));
    // Paused: the next 3 frames go to the 3000 B headroom, the 4th overflows it.
    for (int i = 0; i < 3; ++i)
    {
        EXPECT_EQ(m->Admit(1, 3, kF, &xoff), SharedBufferMmu::ADMIT);
        EXPECT_FALSE(xoff);
    }
    EXPECT_EQ(m->GetHeadroomBytes(1, 3), 3000u);
    EXPECT_EQ(m->Admit(1, 3, kF, &xoff), SharedBufferMmu::DROP_HEADROOM);
    EXPECT_EQ(m->GetIngressBytes(1, 3), 13000u);
    // Another port is unaffected.
    EXPECT_EQ(m->Admit(2, 3, kF, &xoff), SharedBufferMmu::ADMIT);
    EXPECT_FALSE(m->IsPaused(2, 3));
}

TEST(SharedBufferMmu, XonOnlyAfterHeadroomDrainedAndSharedAtXon)
{
    Ptr<SharedBufferMmu> m = MakeMmu(false);
    bool xoff = false;
    for (int i = 0; i < 12; ++i) // 10 shared + 2 headroom
    {
        m->Admit(0, 3, kF, &xoff);
    }
    std::vector<std::pair<uint32_t, uint8_t>> resume;
    // Departures release headroom first (2 frames), then shared: 10000 → 5000 needs 5 more.
    for (int i = 0; i < 6; ++i)
    {
        m->Release(0, 3, kF, &resume);
        ASSERT_TRUE(resume.empty()) << "departure " << i;
    }
    EXPECT_EQ(m->GetHeadroomBytes(0, 3), 0u);
    m->Release(0, 3, kF, &resume); // shared now 5000 = XON
    ASSERT_EQ(resume.size(), 1u);
    EXPECT_EQ(resume[0].first, 0u);
    EXPECT_EQ(resume[0].second, 3);
    EXPECT_FALSE(m->IsPaused(0, 3));
}

TEST(SharedBufferMmu, LossyPriorityTailDropsWhenPoolFull)
{
    Ptr<SharedBufferMmu> m = MakeMmu(false);
    bool xoff = false;
    uint64_t pool = m->GetSharedPoolSize(); // 88000
    uint64_t admitted = 0;
    while (m->Admit(0, 1, kF, &xoff) == SharedBufferMmu::ADMIT)
    {
        admitted += kF;
        ASSERT_FALSE(xoff);
    }
    EXPECT_EQ(admitted, pool / kF * kF);
    EXPECT_EQ(m->Admit(3, 1, kF, &xoff), SharedBufferMmu::DROP_LOSSY);
    // Lossless traffic still has its headroom: a full pool pauses and charges headroom.
    EXPECT_EQ(m->Admit(2, 3, kF, &xoff), SharedBufferMmu::ADMIT);
    EXPECT_TRUE(xoff);
    EXPECT_EQ(m->GetHeadroomBytes(2, 3), kF);
}

TEST(SharedBufferMmu, DynamicThresholdIsAlphaTimesFreePool)
{
    Ptr<SharedBufferMmu> m = MakeMmu(true);
    const double pool = m->GetSharedPoolSize(); // 88000
    bool xoff = false;
    // Port 0 alone: pauses at the first n with n*F >= 0.5 * (pool - n*F) → n >= pool / (3F).
    int n = 0;
    do
    {
        m->Admit(0, 3, kF, &xoff);
        ++n;
    } while (!xoff);
    EXPECT_EQ(n, static_cast<int>(std::ceil(pool / (3.0 * kF))));
    EXPECT_EQ(m->XoffThreshold(), static_cast<uint64_t>(0.5 * (pool - n * kF)));
}

TEST(SharedBufferMmu, DisabledPfcMakesEveryPriorityLossy)
{
    Ptr<SharedBufferMmu> m = CreateObject<SharedBufferMmu>();
    m->SetAttribute("BufferSize", QueueSizeValue(QueueSize("10000B")));
    m->SetAttribute("PfcEnabled", BooleanValue(false));
    m->Configure(4);
    EXPECT_EQ(m->GetSharedPoolSize(), 10000u); // no headroom reserved
    bool xoff = false;
    for (int i = 0; i < 10; ++i)
    {
        EXPECT_EQ(m->Admit(0, 3, kF, &xoff), SharedBufferMmu::ADMIT);
    }
    EXPECT_EQ(m->Admit(0, 3, kF, &xoff), SharedBufferMmu::DROP_LOSSY);
    EXPECT_FALSE(xoff);
}

TEST(SharedBufferMmu, HeadroomLargerThanBufferIsRejected)
{
    Ptr<SharedBufferMmu> m = CreateObject<SharedBufferMmu>();
    m->SetAttribute("BufferSize", QueueSizeValue(QueueSize("10000B")));
    m->SetAttribute("Headroom", QueueSizeValue(QueueSize("3000B")));
    EXPECT_THROW(m->Configure(4), std::invalid_argument);
}

} // namespace
} // namespace test
} // namespace ns3
