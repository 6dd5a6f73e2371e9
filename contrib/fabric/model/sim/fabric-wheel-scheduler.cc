#include "fabric-wheel-scheduler.h"

#include "ns3/assert.h"
#include "ns3/fatal-error.h"
#include "ns3/log.h"
#include "ns3/uinteger.h"

#include <algorithm>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("FabricWheelScheduler");
NS_OBJECT_ENSURE_REGISTERED(FabricWheelScheduler);

FabricWheelScheduler* FabricWheelScheduler::s_serving = nullptr;

namespace
{

/// 2048 ps x 512 buckets span 1.05 us, beyond the serialization, cable and pipeline delays
/// that most events wait. Measured on perm-128, perm-1024 and incast-32 (bench/PROFILE.md):
/// 2 ns buckets (a few events each) beat 256 ps x 4096 by 5-20 % of the loop time, because the
/// wheel's memory (headers and bucket storage) then stays in cache.
constexpr uint32_t kDefaultShift = 11;
constexpr uint32_t kDefaultBuckets = 512;
constexpr uint32_t kMaxBuckets = 1u << 24;
/// First allocation of a bucket: most buckets hold one or two events at a time.
constexpr uint32_t kMinCapacity = 4;

/// (ts, uid) order, ns-3's EventKey operator<.
inline bool
Earlier(const Scheduler::EventKey& a, const Scheduler::EventKey& b)
{
    return a < b;
}

/// PriorityQueueScheduler's comparator (std::greater<Event>): a min-heap on (ts, uid).
struct Later
{
    bool operator()(const Scheduler::Event& a, const Scheduler::Event& b) const
    {
        return a.key > b.key;
    }
};

/// \return The smallest s with 2^s >= steps (0 for steps <= 1).
uint32_t
CeilLog2(uint64_t steps)
{
    uint32_t s = 0;
    while (s < 63 && (uint64_t(1) << s) < steps)
    {
        ++s;
    }
    return s;
}

} // namespace

TypeId
FabricWheelScheduler::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::FabricWheelScheduler")
            .SetParent<Scheduler>()
            .SetGroupName("Fabric")
            .AddConstructor<FabricWheelScheduler>()
            .AddAttribute("BucketWidth",
                          "Time covered by one bucket of the wheel, rounded up to a power of two "
                          "time steps. Events sharing a bucket are kept sorted by insertion into "
                          "a small array, so it should hold few events at a time.",
                          TimeValue(PicoSeconds(uint64_t(1) << kDefaultShift)),
                          MakeTimeAccessor(&FabricWheelScheduler::SetBucketWidth,
                                           &FabricWheelScheduler::GetBucketWidth),
                          MakeTimeChecker())
            .AddAttribute("Buckets",
                          "Number of buckets of the wheel (a power of two). Events later than "
                          "Buckets x BucketWidth after the last popped event wait in a binary "
                          "heap instead.",
                          UintegerValue(kDefaultBuckets),
                          MakeUintegerAccessor(&FabricWheelScheduler::SetBuckets,
                                               &FabricWheelScheduler::GetBuckets),
                          MakeUintegerChecker<uint32_t>());
    return tid;
}

FabricWheelScheduler::FabricWheelScheduler()
    : m_shift(kDefaultShift),
      m_mask(0),
      m_base(0),
      m_wheelEvents(0)
{
    NS_LOG_FUNCTION(this);
    // Built here for the defaults, so that a scheduler created with new works too; the attribute
    // setters that CreateObject and ObjectFactory call next rebuild it only for another geometry.
    Rebuild(kDefaultShift, kDefaultBuckets);
}

FabricWheelScheduler::~FabricWheelScheduler()
{
    NS_LOG_FUNCTION(this);
    if (s_serving == this)
    {
        s_serving = nullptr;
    }
    for (Bucket& b : m_buckets)
    {
        delete[] b.m_events;
    }
}

// No NS_LOG_FUNCTION in Insert, IsEmpty, PeekNext and RemoveNext: they run once or twice per
// event, and even a disabled log component costs a test per call in a logging build.

void
FabricWheelScheduler::Insert(const Event& ev)
{
    const uint64_t bucket = ev.key.m_ts >> m_shift;
    // Unsigned: a bucket before base wraps to a huge distance and goes to the heap too.
    if (bucket - m_base <= m_mask)
    {
        InsertInBucket(static_cast<uint32_t>(bucket) & m_mask, ev);
    }
    else
    {
        m_heap.push_back(ev);
        std::push_heap(m_heap.begin(), m_heap.end(), Later());
    }
}

bool
FabricWheelScheduler::IsEmpty() const
{
    return m_wheelEvents == 0 && m_heap.empty();
}

Scheduler::Event
FabricWheelScheduler::PeekNext() const
{
    NS_ASSERT_MSG(!IsEmpty(), "FabricWheelScheduler::PeekNext on an empty schedule");
    if (m_wheelEvents != 0)
    {
        const Bucket& b = m_buckets[FirstSlot()];
        const Event& first = b.m_events[b.m_head];
        if (m_heap.empty() || Earlier(first.key, m_heap.front().key))
        {
            return first;
        }
    }
    return m_heap.front();
}

Scheduler::Event
FabricWheelScheduler::RemoveNext()
{
    NS_ASSERT_MSG(!IsEmpty(), "FabricWheelScheduler::RemoveNext on an empty schedule");
    const Event next = TakeNext();
    s_serving = this;
    m_lastRemovedTs = next.key.m_ts;
    return next;
}

Scheduler::Event
FabricWheelScheduler::TakeNext()
{
    if (m_wheelEvents != 0)
    {
        const uint32_t slot = FirstSlot();
        Bucket& b = m_buckets[slot];
        const Event first = b.m_events[b.m_head];
        if (m_heap.empty() || Earlier(first.key, m_heap.front().key))
        {
            --m_wheelEvents;
            if (++b.m_head == b.m_end)
            {
                ResetBucket(slot);
            }
            // The bucket of a wheel event is in [base, base + buckets): base only moves ahead.
            m_base = first.key.m_ts >> m_shift;
            return first;
        }
    }
    const Event next = m_heap.front();
    std::pop_heap(m_heap.begin(), m_heap.end(), Later());
    m_heap.pop_back();
    // Every wheel event is later than next, so base may move up to next's bucket (even far
    // ahead of an empty wheel) without leaving any of them behind; an event inserted in the
    // past must not move it back, or the wheel would hold buckets beyond base + buckets.
    const uint64_t bucket = next.key.m_ts >> m_shift;
    if (bucket > m_base)
    {
        m_base = bucket;
    }
    return next;
}

void
FabricWheelScheduler::Remove(const Event& ev)
{
    NS_LOG_FUNCTION(this << ev.impl << ev.key.m_ts << ev.key.m_uid);
    const uint64_t bucket = ev.key.m_ts >> m_shift;
    if (bucket - m_base <= m_mask)
    {
        const uint32_t slot = static_cast<uint32_t>(bucket) & m_mask;
        Bucket& b = m_buckets[slot];
        Event* first = b.m_events + b.m_head;
        Event* last = b.m_events + b.m_end;
        Event* it = std::find(first, last, ev);
        if (it != last)
        {
            std::copy(it + 1, last, it);
            --m_wheelEvents;
            if (--b.m_end == b.m_head)
            {
                ResetBucket(slot);
            }
            return;
        }
    }
    // Inserted beyond the horizon (or before base) and never migrated: in the heap, removed as
    // PriorityQueueScheduler does.
    auto it = std::find(m_heap.begin(), m_heap.end(), ev);
    if (it != m_heap.end())
    {
        m_heap.erase(it);
        std::make_heap(m_heap.begin(), m_heap.end(), Later());
    }
}

void
FabricWheelScheduler::SetBucketWidth(Time width)
{
    NS_LOG_FUNCTION(this << width);
    if (width.IsStrictlyNegative())
    {
        NS_FATAL_ERROR("FabricWheelScheduler: BucketWidth must not be negative (got " << width
                                                                                      << ")");
    }
    Rebuild(CeilLog2(static_cast<uint64_t>(width.GetTimeStep())), m_mask + 1);
}

Time
FabricWheelScheduler::GetBucketWidth() const
{
    return TimeStep(uint64_t(1) << m_shift);
}

void
FabricWheelScheduler::SetBuckets(uint32_t buckets)
{
    NS_LOG_FUNCTION(this << buckets);
    if (buckets == 0 || (buckets & (buckets - 1)) != 0 || buckets > kMaxBuckets)
    {
        NS_FATAL_ERROR("FabricWheelScheduler: Buckets must be a power of two between 1 and "
                       << kMaxBuckets << " (got " << buckets << ")");
    }
    Rebuild(m_shift, buckets);
}

uint32_t
FabricWheelScheduler::GetBuckets() const
{
    return m_mask + 1;
}

std::size_t
FabricWheelScheduler::GetWheelEvents() const
{
    return m_wheelEvents;
}

std::size_t
FabricWheelScheduler::GetOverflowEvents() const
{
    return m_heap.size();
}

uint32_t
FabricWheelScheduler::FirstSlot() const
{
    // Every wheel event's bucket is in [base, base + buckets), so the buckets in circular order
    // from base's slot are in time order: the first set bit from there is the earliest bucket.
    const uint32_t start = static_cast<uint32_t>(m_base) & m_mask;
    const uint32_t word = start >> 6;
    const uint64_t bits = m_occupied[word] & (~uint64_t(0) << (start & 63));
    if (bits != 0)
    {
        return (word << 6) | static_cast<uint32_t>(__builtin_ctzll(bits));
    }
    // The word count is a power of two. The last round revisits start's word, whose bits at
    // and after start are known clear: what remains are the buckets before start (wrapped).
    const uint32_t words = static_cast<uint32_t>(m_occupied.size());
    for (uint32_t i = 1; i <= words; ++i)
    {
        const uint32_t w = (word + i) & (words - 1);
        if (m_occupied[w] != 0)
        {
            return (w << 6) | static_cast<uint32_t>(__builtin_ctzll(m_occupied[w]));
        }
    }
    NS_ASSERT_MSG(false, "FabricWheelScheduler: no occupied bucket but the wheel holds events");
    return 0;
}

void
FabricWheelScheduler::InsertInBucket(uint32_t slot, const Event& ev)
{
    Bucket& b = m_buckets[slot];
    if (b.m_end == b.m_capacity)
    {
        MakeRoom(b);
    }
    // ns-3 gives the new event the largest uid so far, so it goes after every event with
    // ts <= its ts: scanning from the back usually stops at the first comparison. Comparing the
    // full (ts, uid) key keeps the order exact even when uids come out of order (events moved
    // over by Simulator::SetScheduler).
    Event* events = b.m_events;
    uint32_t pos = b.m_end;
    while (pos != b.m_head && Earlier(ev.key, events[pos - 1].key))
    {
        events[pos] = events[pos - 1];
        --pos;
    }
    events[pos] = ev;
    ++b.m_end;
    m_occupied[slot >> 6] |= uint64_t(1) << (slot & 63);
    ++m_wheelEvents;
}

void
FabricWheelScheduler::MakeRoom(Bucket& b)
{
    const uint32_t live = b.m_end - b.m_head;
    if (b.m_head != 0 && live <= b.m_capacity / 2)
    {
        // Pops freed at least half the storage at the front: slide the events down rather
        // than grow (a bucket that is popped and refilled, as by ScheduleNow, stays bounded).
        std::copy(b.m_events + b.m_head, b.m_events + b.m_end, b.m_events);
    }
    else
    {
        const uint32_t capacity = std::max(kMinCapacity, b.m_capacity * 2);
        // Default-initialized: Event is trivial, nothing to construct.
        Event* events = new Event[capacity];
        std::copy(b.m_events + b.m_head, b.m_events + b.m_end, events);
        delete[] b.m_events;
        b.m_events = events;
        b.m_capacity = capacity;
    }
    b.m_head = 0;
    b.m_end = live;
}

void
FabricWheelScheduler::ResetBucket(uint32_t slot)
{
    Bucket& b = m_buckets[slot];
    b.m_head = 0;
    b.m_end = 0;
    m_occupied[slot >> 6] &= ~(uint64_t(1) << (slot & 63));
}

void
FabricWheelScheduler::Rebuild(uint32_t shift, uint32_t buckets)
{
    if (!m_buckets.empty() && shift == m_shift && buckets == m_mask + 1)
    {
        return;
    }
    NS_LOG_FUNCTION(this << shift << buckets);
    std::vector<Event> pending;
    pending.reserve(m_wheelEvents + m_heap.size());
    for (Bucket& b : m_buckets)
    {
        pending.insert(pending.end(), b.m_events + b.m_head, b.m_events + b.m_end);
        delete[] b.m_events;
    }
    pending.insert(pending.end(), m_heap.begin(), m_heap.end());
    m_heap.clear();

    // Base only needs to be at or before the next event for speed; any value is correct since
    // Insert sends whatever falls outside the wheel to the heap.
    m_base = (m_base << m_shift) >> shift;
    m_shift = shift;
    m_mask = buckets - 1;
    m_buckets.assign(buckets, Bucket());
    m_occupied.assign((buckets + 63) / 64, 0);
    m_wheelEvents = 0;
    for (const Event& ev : pending)
    {
        Insert(ev);
    }
}

} // namespace ns3
