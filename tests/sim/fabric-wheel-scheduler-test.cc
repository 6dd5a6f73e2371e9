// FabricWheelScheduler pops events in exactly PriorityQueueScheduler's order: both schedulers
// get the identical sequence of operations (random interleavings with many ties, events beyond
// the wheel's horizon, Remove in the wheel and in the overflow heap, empty/refill cycles and
// jumps far ahead) and must return the same events; a whole simulation through Simulator gives
// the same trace with either. Event::impl is a non-canonical address here, so a scheduler that
// dereferenced it would crash the test.

#include "sim/fabric-wheel-scheduler.h"

#include "ns3/event-id.h"
#include "ns3/nstime.h"
#include "ns3/object-factory.h"
#include "ns3/priority-queue-scheduler.h"
#include "ns3/simulator.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <gtest/gtest.h>
#include <random>
#include <string>
#include <tuple>
#include <unordered_map>
#include <vector>

namespace ns3
{
namespace test
{
namespace
{

using Event = Scheduler::Event;

Ptr<FabricWheelScheduler>
Wheel(uint32_t buckets, uint64_t widthPs)
{
    ObjectFactory f("ns3::FabricWheelScheduler");
    f.Set("Buckets", UintegerValue(buckets));
    f.Set("BucketWidth", TimeValue(PicoSeconds(widthPs)));
    return f.Create<FabricWheelScheduler>();
}

/// An event whose impl is distinct per uid and faults if ever dereferenced (non-canonical).
Event
MakeFakeEvent(uint64_t ts, uint32_t uid)
{
    Event ev;
    ev.impl = reinterpret_cast<EventImpl*>(uintptr_t(0xFAB0000000000000ull) | (uint64_t(uid) << 4));
    ev.key.m_ts = ts;
    ev.key.m_uid = uid;
    ev.key.m_context = uid % 7;
    return ev;
}

::testing::AssertionResult
SameEvent(const Event& wheel, const Event& ref)
{
    if (wheel.impl == ref.impl && wheel.key.m_ts == ref.key.m_ts &&
        wheel.key.m_uid == ref.key.m_uid && wheel.key.m_context == ref.key.m_context)
    {
        return ::testing::AssertionSuccess();
    }
    return ::testing::AssertionFailure()
           << "wheel (ts " << wheel.key.m_ts << ", uid " << wheel.key.m_uid << ") vs reference (ts "
           << ref.key.m_ts << ", uid " << ref.key.m_uid << ")";
}

/// Drives a FabricWheelScheduler and a PriorityQueueScheduler with the same operations.
class Twin
{
  public:
    explicit Twin(Ptr<FabricWheelScheduler> wheel)
        : m_wheel(wheel),
          m_ref(CreateObject<PriorityQueueScheduler>())
    {
    }

    /// Inserts a new event at \p ts with the next uid, as the simulator does.
    Event Insert(uint64_t ts)
    {
        return InsertEvent(MakeFakeEvent(ts, m_nextUid++));
    }

    Event InsertEvent(const Event& ev)
    {
        m_ref->Insert(ev);
        m_wheel->Insert(ev);
        m_index[ev.key.m_uid] = m_live.size();
        m_live.push_back(ev);
        m_maxWheel = std::max(m_maxWheel, m_wheel->GetWheelEvents());
        m_maxOverflow = std::max(m_maxOverflow, m_wheel->GetOverflowEvents());
        return ev;
    }

    /// Peeks and pops both; they must agree, and the popped keys must strictly increase.
    ::testing::AssertionResult Pop(Event* popped = nullptr)
    {
        if (m_wheel->IsEmpty() || m_ref->IsEmpty())
        {
            return ::testing::AssertionFailure() << "Pop on an empty schedule";
        }
        Event peekW = m_wheel->PeekNext();
        Event peekR = m_ref->PeekNext();
        auto same = SameEvent(peekW, peekR);
        if (!same)
        {
            return same << " (PeekNext)";
        }
        Event w = m_wheel->RemoveNext();
        Event r = m_ref->RemoveNext();
        same = SameEvent(w, r);
        if (!same)
        {
            return same << " (RemoveNext)";
        }
        if (!SameEvent(w, peekW))
        {
            return ::testing::AssertionFailure() << "RemoveNext differs from PeekNext";
        }
        if (m_popped != 0 && !(m_last.key < w.key))
        {
            return ::testing::AssertionFailure() << "keys not increasing at uid " << w.key.m_uid;
        }
        m_last = w;
        ++m_popped;
        Forget(w.key.m_uid);
        if (m_wheel->IsEmpty() != m_ref->IsEmpty())
        {
            return ::testing::AssertionFailure() << "IsEmpty differs";
        }
        if (popped)
        {
            *popped = w;
        }
        return ::testing::AssertionSuccess();
    }

    ::testing::AssertionResult Drain()
    {
        while (!m_ref->IsEmpty())
        {
            auto ok = Pop();
            if (!ok)
            {
                return ok;
            }
        }
        if (!m_wheel->IsEmpty() || m_wheel->GetWheelEvents() != 0 ||
            m_wheel->GetOverflowEvents() != 0)
        {
            return ::testing::AssertionFailure() << "wheel not empty after the reference";
        }
        return ::testing::AssertionSuccess();
    }

    /// Removes \p ev from both; \return true if it was in the overflow heap.
    bool Remove(const Event& ev)
    {
        std::size_t before = m_wheel->GetOverflowEvents();
        m_wheel->Remove(ev);
        m_ref->Remove(ev);
        Forget(ev.key.m_uid);
        return m_wheel->GetOverflowEvents() + 1 == before;
    }

    uint64_t LastTs() const
    {
        return m_popped == 0 ? 0 : m_last.key.m_ts;
    }

    Ptr<FabricWheelScheduler> m_wheel;
    Ptr<PriorityQueueScheduler> m_ref;
    std::vector<Event> m_live; ///< pending events (order irrelevant)
    std::size_t m_maxWheel = 0;
    std::size_t m_maxOverflow = 0;
    uint64_t m_popped = 0;

  private:
    void Forget(uint32_t uid)
    {
        auto it = m_index.find(uid);
        if (it == m_index.end())
        {
            return;
        }
        std::size_t i = it->second;
        m_index.erase(it);
        if (i + 1 != m_live.size())
        {
            m_live[i] = m_live.back();
            m_index[m_live[i].key.m_uid] = i;
        }
        m_live.pop_back();
    }

    uint32_t m_nextUid = 0;
    Event m_last{};
    std::unordered_map<uint32_t, std::size_t> m_index;
};

/// A timestamp at or after \p now: ties, inside the first bucket, across the wheel, around its
/// horizon and far beyond it, for a wheel of \p buckets x \p width.
uint64_t
DrawTs(std::mt19937_64& rng, uint64_t now, uint64_t buckets, uint64_t width, uint64_t recentTs)
{
    const uint64_t horizon = buckets * width;
    auto uniform = [&rng](uint64_t lo, uint64_t hi) {
        return std::uniform_int_distribution<uint64_t>(lo, hi)(rng);
    };
    uint32_t kind = std::uniform_int_distribution<uint32_t>(0, 99)(rng);
    if (kind < 20)
    {
        return now; // a tie with the current time (ScheduleNow)
    }
    if (kind < 35)
    {
        return std::max(now, recentTs); // a tie with a pending event
    }
    if (kind < 55)
    {
        return now + uniform(0, 2 * width);
    }
    if (kind < 80)
    {
        return now + uniform(0, horizon + width);
    }
    if (kind < 92)
    {
        return now + uniform(horizon > 2 * width ? horizon - 2 * width : 0, horizon + 2 * width);
    }
    return now + uniform(horizon, 1000 * horizon);
}

struct Geometry
{
    uint32_t buckets;
    uint64_t widthPs;

    /// For SCOPED_TRACE.
    std::string Describe() const
    {
        return "buckets " + std::to_string(buckets) + ", width " + std::to_string(widthPs);
    }
};

const std::vector<Geometry> kGeometries =
    {{1, 1}, {2, 1}, {4, 16}, {16, 4}, {64, 1}, {128, 8}, {4096, 256}, {512, 2048}};

TEST(FabricWheelScheduler, TypeIdAndAttributes)
{
    TypeId tid = FabricWheelScheduler::GetTypeId();
    EXPECT_EQ(tid.GetName(), "ns3::FabricWheelScheduler");
    EXPECT_EQ(tid.GetParent(), Scheduler::GetTypeId());
    EXPECT_EQ(tid.GetGroupName(), "Fabric");

    ObjectFactory f("ns3::FabricWheelScheduler");
    Ptr<FabricWheelScheduler> byDefault = f.Create<FabricWheelScheduler>();
    EXPECT_EQ(byDefault->GetBuckets(), 512u);
    EXPECT_EQ(byDefault->GetBucketWidth(), PicoSeconds(2048));
    EXPECT_TRUE(byDefault->IsEmpty());

    // Rounded up to a power of two time steps (picoseconds here); below one step is one step.
    EXPECT_EQ(Wheel(64, 300)->GetBucketWidth(), PicoSeconds(512));
    EXPECT_EQ(Wheel(64, 512)->GetBucketWidth(), PicoSeconds(512));
    EXPECT_EQ(Wheel(64, 0)->GetBucketWidth(), PicoSeconds(1));
    EXPECT_EQ(Wheel(1, 1)->GetBuckets(), 1u);
    UintegerValue buckets;
    Wheel(32, 8)->GetAttribute("Buckets", buckets);
    EXPECT_EQ(buckets.Get(), 32u);
}

// Hand-derived order on 4 buckets of 4 ps (horizon 16 ps): (ts, uid) ascending, with events in
// the heap and a wrap-around of the wheel.
TEST(FabricWheelScheduler, PopsByTimeThenUid)
{
    Twin t(Wheel(4, 4));
    for (uint64_t ts : {5, 3, 5, 100, 3, 17, 15, 0}) // uids 0..7
    {
        t.Insert(ts);
    }
    // Buckets 0..3 (ts < 16) are in the wheel; 17 (bucket 4) and 100 go to the heap.
    EXPECT_EQ(t.m_wheel->GetWheelEvents(), 6u);
    EXPECT_EQ(t.m_wheel->GetOverflowEvents(), 2u);

    std::vector<std::pair<uint64_t, uint32_t>> order;
    auto pop = [&]() {
        Event ev;
        bool ok = t.Pop(&ev);
        EXPECT_TRUE(ok);
        order.emplace_back(ok ? ev.key.m_ts : 0, ok ? ev.key.m_uid : 0);
        return ok;
    };
    for (int i = 0; i < 4; ++i)
    {
        ASSERT_TRUE(pop());
    }
    // Base is now bucket 1 (ts 5): bucket 4 (ts 19) wraps into slot 0, bucket 5 (ts 20) does not
    // fit; uid 8 ties with uid 2 at ts 5 and goes after it.
    t.Insert(5);  // uid 8
    t.Insert(20); // uid 9
    t.Insert(19); // uid 10
    EXPECT_EQ(t.m_wheel->GetOverflowEvents(), 3u);
    while (!t.m_ref->IsEmpty())
    {
        ASSERT_TRUE(pop());
    }
    std::vector<std::pair<uint64_t, uint32_t>> expected = {{0, 7},
                                                           {3, 1},
                                                           {3, 4},
                                                           {5, 0},
                                                           {5, 2},
                                                           {5, 8},
                                                           {15, 6},
                                                           {17, 5},
                                                           {19, 10},
                                                           {20, 9},
                                                           {100, 3}};
    EXPECT_EQ(order, expected);
    EXPECT_TRUE(t.m_wheel->IsEmpty());
}

TEST(FabricWheelScheduler, RandomInterleavingsMatchPriorityQueue)
{
    for (const Geometry& g : kGeometries)
    {
        SCOPED_TRACE(g.Describe());
        Twin t(Wheel(g.buckets, g.widthPs));
        ASSERT_EQ(t.m_wheel->GetBuckets(), g.buckets);
        ASSERT_EQ(t.m_wheel->GetBucketWidth(), PicoSeconds(g.widthPs));
        std::mt19937_64 rng(1000 + g.buckets * 31 + g.widthPs);
        uint64_t recent = 0;
        // Phases that grow the schedule to a few thousand events and drain it (to empty every
        // fourth phase).
        for (int phase = 0; phase < 16; ++phase)
        {
            const uint32_t insertPercent = phase % 2 == 0 ? 65 : 35;
            for (int op = 0; op < 6000; ++op)
            {
                bool insert = t.m_ref->IsEmpty() ||
                              std::uniform_int_distribution<uint32_t>(0, 99)(rng) < insertPercent;
                if (insert)
                {
                    uint64_t ts = DrawTs(rng, t.LastTs(), g.buckets, g.widthPs, recent);
                    t.Insert(ts);
                    recent = ts;
                }
                else
                {
                    ASSERT_TRUE(t.Pop());
                }
            }
            if (phase % 4 == 3)
            {
                ASSERT_TRUE(t.Drain());
            }
        }
        ASSERT_TRUE(t.Drain());
        EXPECT_GT(t.m_popped, 40000u);
        EXPECT_GT(t.m_maxWheel, 0u);
        EXPECT_GT(t.m_maxOverflow, 0u);
    }
}

TEST(FabricWheelScheduler, RemoveInWheelAndOverflow)
{
    for (const Geometry& g : kGeometries)
    {
        SCOPED_TRACE(g.Describe());
        Twin t(Wheel(g.buckets, g.widthPs));
        std::mt19937_64 rng(77 + g.buckets);
        uint64_t recent = 0;
        uint32_t fromWheel = 0;
        uint32_t fromHeap = 0;
        for (int op = 0; op < 30000; ++op)
        {
            uint32_t kind = std::uniform_int_distribution<uint32_t>(0, 99)(rng);
            if (kind < 55 || t.m_live.empty())
            {
                recent = DrawTs(rng, t.LastTs(), g.buckets, g.widthPs, recent);
                t.Insert(recent);
            }
            else if (kind < 80)
            {
                ASSERT_TRUE(t.Pop());
            }
            else
            {
                Event victim =
                    t.m_live[std::uniform_int_distribution<std::size_t>(0,
                                                                        t.m_live.size() - 1)(rng)];
                (t.Remove(victim) ? fromHeap : fromWheel)++;
                if (!t.m_ref->IsEmpty())
                {
                    ASSERT_TRUE(t.Pop());
                }
            }
        }
        ASSERT_TRUE(t.Drain());
        EXPECT_GT(fromWheel, 100u);
        EXPECT_GT(fromHeap, 100u);
    }
}

// The first, a middle and the last event of a bucket, the only event of a bucket (its bit must
// clear), an event of the heap, and events already popped or removed (no-ops, as for the
// reference).
TEST(FabricWheelScheduler, RemoveEdgeCases)
{
    Twin t(Wheel(8, 4));
    Event a = t.Insert(9); // bucket 2: a, b, c, d
    Event b = t.Insert(9);
    Event c = t.Insert(10);
    Event d = t.Insert(11);
    Event e = t.Insert(21); // bucket 5, alone
    Event f = t.Insert(29); // bucket 7
    Event g = t.Insert(40); // beyond the horizon (bucket 10)
    Event h = t.Insert(41);
    Event first = t.Insert(1);
    EXPECT_EQ(t.m_wheel->GetOverflowEvents(), 2u);
    EXPECT_FALSE(t.Remove(b)); // middle of bucket 2
    EXPECT_FALSE(t.Remove(a)); // first of bucket 2
    EXPECT_FALSE(t.Remove(d)); // last of bucket 2
    EXPECT_FALSE(t.Remove(e)); // the only one of bucket 5
    EXPECT_TRUE(t.Remove(g));  // heap
    Event popped;
    ASSERT_TRUE(t.Pop(&popped));
    EXPECT_EQ(popped.key.m_uid, first.key.m_uid);
    t.Remove(first); // already popped
    t.Remove(b);     // already removed
    EXPECT_EQ(t.m_wheel->GetWheelEvents() + t.m_wheel->GetOverflowEvents(), 3u);
    ASSERT_TRUE(t.Pop(&popped));
    EXPECT_EQ(popped.key.m_uid, c.key.m_uid);
    ASSERT_TRUE(t.Pop(&popped)); // bucket 5 was emptied by Remove: skipped
    EXPECT_EQ(popped.key.m_uid, f.key.m_uid);
    t.Insert(30);
    ASSERT_TRUE(t.Drain());
    (void)h;
}

// Drain to empty and refill many times, and jump: with an empty wheel the next event is far in
// the future (heap); popping it moves base there, so events just after it use the wheel again.
TEST(FabricWheelScheduler, EmptyRefillAndJumpFarAhead)
{
    Twin t(Wheel(16, 4)); // horizon 64 ps
    std::mt19937_64 rng(5);
    uint64_t recent = 0;
    for (int cycle = 0; cycle < 200; ++cycle)
    {
        int n = std::uniform_int_distribution<int>(1, 60)(rng);
        for (int i = 0; i < n; ++i)
        {
            recent = DrawTs(rng, t.LastTs(), 16, 4, recent);
            t.Insert(recent);
        }
        ASSERT_TRUE(t.Drain());

        // The jump: one event far ahead of an empty wheel.
        const uint64_t far = t.LastTs() + 1000000 + 37 * cycle;
        t.Insert(far);
        EXPECT_EQ(t.m_wheel->GetOverflowEvents(), 1u);
        Event popped;
        ASSERT_TRUE(t.Pop(&popped));
        EXPECT_EQ(popped.key.m_ts, far);
        // Within the horizon of the new base: all in the wheel.
        t.Insert(far);
        t.Insert(far + 3);
        t.Insert(far + 60);
        t.Insert(far + 1);
        EXPECT_EQ(t.m_wheel->GetOverflowEvents(), 0u);
        EXPECT_EQ(t.m_wheel->GetWheelEvents(), 4u);
        ASSERT_TRUE(t.Pop());
        ASSERT_TRUE(t.Pop());
        // Refill while non-empty, then empty again.
        t.Insert(far + 200);
        t.Insert(t.LastTs());
        ASSERT_TRUE(t.Drain());
    }
}

// Outside the contract but kept exact: events inserted before the last popped one (they go to
// the heap; popping them must not move base back) and uids out of order at equal times (as
// when Simulator::SetScheduler moves the pending events of another scheduler over in (ts, uid)
// order after newer ones were inserted). Arbitrary (ts, uid) inserts interleaved with pops.
TEST(FabricWheelScheduler, OutOfContractInsertsStayOrdered)
{
    for (const Geometry& g : kGeometries)
    {
        SCOPED_TRACE(g.Describe());
        Twin t(Wheel(g.buckets, g.widthPs));
        std::mt19937_64 rng(9 + g.buckets);
        std::vector<uint32_t> uids(20000);
        for (uint32_t i = 0; i < uids.size(); ++i)
        {
            uids[i] = i;
        }
        std::shuffle(uids.begin(), uids.end(), rng);
        const uint64_t horizon = g.buckets * g.widthPs;
        uint64_t now = 0;
        for (uint32_t uid : uids)
        {
            uint32_t kind = std::uniform_int_distribution<uint32_t>(0, 99)(rng);
            uint64_t ts = kind < 70
                              ? now + std::uniform_int_distribution<uint64_t>(0, horizon)(rng)
                              : std::uniform_int_distribution<uint64_t>(0, now + 2 * horizon)(rng);
            t.InsertEvent(MakeFakeEvent(ts, uid));
            if (std::uniform_int_distribution<uint32_t>(0, 99)(rng) < 45)
            {
                Event w = t.m_wheel->RemoveNext();
                Event r = t.m_ref->RemoveNext();
                ASSERT_TRUE(SameEvent(w, r));
                now = std::max(now, w.key.m_ts);
            }
        }
        // Both schedulers agree; the keys just are not increasing across the past inserts.
        while (!t.m_ref->IsEmpty())
        {
            Event w = t.m_wheel->RemoveNext();
            Event r = t.m_ref->RemoveNext();
            ASSERT_TRUE(SameEvent(w, r));
        }
        EXPECT_TRUE(t.m_wheel->IsEmpty());
    }
}

// Changing the geometry with events pending redistributes them.
TEST(FabricWheelScheduler, AttributeChangeKeepsPendingEvents)
{
    Twin t(Wheel(64, 8));
    std::mt19937_64 rng(3);
    uint64_t recent = 0;
    for (int i = 0; i < 500; ++i)
    {
        recent = DrawTs(rng, 0, 64, 8, recent);
        t.Insert(recent);
    }
    for (int i = 0; i < 100; ++i)
    {
        ASSERT_TRUE(t.Pop());
    }
    t.m_wheel->SetAttribute("Buckets", UintegerValue(4));
    t.m_wheel->SetAttribute("BucketWidth", TimeValue(PicoSeconds(100)));
    EXPECT_EQ(t.m_wheel->GetBucketWidth(), PicoSeconds(128));
    EXPECT_EQ(t.m_wheel->GetWheelEvents() + t.m_wheel->GetOverflowEvents(), 400u);
    for (int i = 0; i < 500; ++i)
    {
        recent = DrawTs(rng, t.LastTs(), 4, 128, recent);
        t.Insert(recent);
        ASSERT_TRUE(t.Pop());
    }
    ASSERT_TRUE(t.Drain());
}

TEST(FabricWheelSchedulerDeathTest, BucketsMustBeAPowerOfTwo)
{
    Ptr<FabricWheelScheduler> s = CreateObject<FabricWheelScheduler>();
    EXPECT_DEATH(s->SetAttribute("Buckets", UintegerValue(1000)), "power of two");
    EXPECT_DEATH(s->SetAttribute("Buckets", UintegerValue(0)), "power of two");
    EXPECT_EQ(s->GetBuckets(), 512u);
}

// A whole simulation through Simulator: events that schedule events (now, soon, far), with
// Cancel and Simulator::Remove, give the same trace with either scheduler.
struct SimTrace
{
    std::mt19937_64 rng{42};
    std::vector<std::tuple<int64_t, uint32_t, uint32_t>> fired; ///< (ps, id, context)
    std::vector<EventId> pending;
    uint32_t nextId = 0;
    uint32_t budget = 0;
    uint32_t removedPending = 0; ///< Simulator::Remove of events still in the scheduler
};

SimTrace* g_trace = nullptr;

void ScheduleOne();

void
Fire(uint32_t id)
{
    g_trace->fired.emplace_back(Simulator::Now().GetPicoSeconds(), id, Simulator::GetContext());
    uint32_t children = std::uniform_int_distribution<uint32_t>(0, 3)(g_trace->rng);
    for (uint32_t i = 0; i < children && g_trace->budget > 0; ++i)
    {
        ScheduleOne();
    }
    uint32_t kind = std::uniform_int_distribution<uint32_t>(0, 19)(g_trace->rng);
    if (kind < 2 && !g_trace->pending.empty())
    {
        std::size_t i = std::uniform_int_distribution<std::size_t>(0, g_trace->pending.size() - 1)(
            g_trace->rng);
        if (kind == 0)
        {
            g_trace->removedPending += Simulator::IsExpired(g_trace->pending[i]) ? 0 : 1;
            Simulator::Remove(g_trace->pending[i]);
        }
        else
        {
            Simulator::Cancel(g_trace->pending[i]);
        }
    }
}

void
ScheduleOne()
{
    --g_trace->budget;
    uint32_t id = g_trace->nextId++;
    uint32_t kind = std::uniform_int_distribution<uint32_t>(0, 9)(g_trace->rng);
    uint64_t delay = kind < 2   ? 0
                     : kind < 7 ? std::uniform_int_distribution<uint64_t>(0, 2000)(g_trace->rng)
                     : kind < 9
                         ? std::uniform_int_distribution<uint64_t>(0, 100000)(g_trace->rng)
                         : std::uniform_int_distribution<uint64_t>(0, 50000000)(g_trace->rng);
    if (id % 3 == 0)
    {
        // Another node's event (no EventId to cancel).
        Simulator::ScheduleWithContext(id % 13, PicoSeconds(delay), &Fire, id);
        return;
    }
    EventId ev = Simulator::Schedule(PicoSeconds(delay), &Fire, id);
    if (g_trace->pending.size() < 64)
    {
        g_trace->pending.push_back(ev);
    }
    else
    {
        g_trace->pending[id % 64] = ev;
    }
}

SimTrace
RunSimulation(ObjectFactory scheduler)
{
    SimTrace trace;
    trace.budget = 20000;
    g_trace = &trace;
    Simulator::SetScheduler(scheduler);
    for (int i = 0; i < 300; ++i)
    {
        ScheduleOne();
    }
    Simulator::Run();
    Simulator::Destroy();
    g_trace = nullptr;
    return trace;
}

TEST(FabricWheelScheduler, SimulatorRunIsIdentical)
{
    SimTrace ref = RunSimulation(ObjectFactory("ns3::PriorityQueueScheduler"));
    ASSERT_GT(ref.fired.size(), 10000u);
    EXPECT_GT(ref.removedPending, 100u);
    for (const Geometry& g :
         {Geometry{512, 2048}, Geometry{4096, 256}, Geometry{16, 64}, Geometry{1, 1}})
    {
        ObjectFactory f("ns3::FabricWheelScheduler");
        f.Set("Buckets", UintegerValue(g.buckets));
        f.Set("BucketWidth", TimeValue(PicoSeconds(g.widthPs)));
        SimTrace wheel = RunSimulation(f);
        EXPECT_TRUE(wheel.fired == ref.fired) << "buckets " << g.buckets;
        EXPECT_EQ(wheel.removedPending, ref.removedPending);
    }
}

// Hold model: a steady schedule of ~4000 events; each pop schedules one event later by a
// fabric-like delay (ties, serialization, cable and pipeline, a few timers), a million times.
// Both schedulers must pop the same events. (Timed, this loop gave 12.6 M pops/s for
// PriorityQueueScheduler and 40.1 M for the wheel; speed is measured in bench/, not here.)
TEST(FabricWheelScheduler, HoldModelMatchesPriorityQueue)
{
    std::mt19937_64 rng(11);
    std::vector<uint64_t> delays(1 << 16);
    for (uint64_t& d : delays)
    {
        uint32_t kind = std::uniform_int_distribution<uint32_t>(0, 99)(rng);
        d = kind < 10   ? 0
            : kind < 50 ? std::uniform_int_distribution<uint64_t>(1000, 100000)(rng)
            : kind < 95 ? std::uniform_int_distribution<uint64_t>(10000, 600000)(rng)
                        : std::uniform_int_distribution<uint64_t>(1000000, 50000000)(rng);
    }
    const uint32_t kPending = 4000;
    const uint32_t kOps = 1000000;
    auto run = [&](Ptr<Scheduler> s) {
        uint32_t uid = 0;
        for (uint32_t i = 0; i < kPending; ++i)
        {
            s->Insert(MakeFakeEvent(delays[i] + delays[i + kPending], uid++));
        }
        uint64_t checksum = 0;
        for (uint32_t i = 0; i < kOps; ++i)
        {
            Event ev = s->RemoveNext();
            checksum = checksum * 31 + ev.key.m_uid;
            s->Insert(MakeFakeEvent(ev.key.m_ts + delays[i & 0xffff], uid++));
        }
        while (!s->IsEmpty())
        {
            checksum = checksum * 31 + s->RemoveNext().key.m_uid;
        }
        return checksum;
    };
    EXPECT_EQ(run(CreateObject<PriorityQueueScheduler>()),
              run(CreateObject<FabricWheelScheduler>()));
}

} // namespace
} // namespace test
} // namespace ns3
