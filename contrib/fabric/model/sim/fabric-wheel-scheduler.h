#ifndef FABRIC_WHEEL_SCHEDULER_H
#define FABRIC_WHEEL_SCHEDULER_H

#include "ns3/nstime.h"
#include "ns3/scheduler.h"
#include "ns3/simulator.h"

#include <cstddef>
#include <cstdint>
#include <vector>

namespace ns3
{

/**
 * \brief An ns-3 event scheduler built as a timing wheel with an overflow heap; it pops events
 * in exactly the order of PriorityQueueScheduler.
 *
 * PriorityQueueScheduler's binary heap cost about 15 % of the instructions of the simulation
 * loop (~300 instructions per pop, in std::__adjust_heap, with a few thousand pending events).
 * Almost every event of a fabric lands less than a microsecond ahead (serialization, cable
 * delay, pipeline latency), which a timing wheel serves in a few dozen instructions:
 *
 *  - the near future is a circular array of Buckets buckets (a power of two), each covering
 *    BucketWidth time steps (a power of two); bucket number = ts / BucketWidth, and the wheel
 *    holds the bucket numbers [base, base + Buckets), base being the bucket of the last popped
 *    event;
 *  - a bucket keeps its events sorted by (ts, uid) in a contiguous array popped from a head
 *    index. ns-3 gives every new event the largest uid so far, so an insert lands after every
 *    event with ts <= its ts: the scan from the back usually stops at once;
 *  - a bitmap (one bit per bucket) finds the next non-empty bucket a 64-bit word at a time;
 *  - events beyond the horizon (and, defensively, before base) go to a binary min-heap with
 *    PriorityQueueScheduler's comparator. They are never migrated: the next event is the
 *    earlier of the wheel's first event and the heap's top.
 *
 * The order is exactly ascending (ts, uid) — a total order since uids are unique — whatever
 * the sequence of operations (inserts in the past, or uids out of order as when
 * Simulator::SetScheduler moves events over, stay correct, only slower), so simulation results
 * are bit-identical to PriorityQueueScheduler's. Bucket storage keeps its capacity when it
 * empties, so the steady state allocates nothing; the hot path has no virtual call and no
 * callback. Event::impl is only copied, never dereferenced.
 *
 * \par Time Complexity
 *
 * Operation    | Amortized %Time               | Reason
 * :----------- | :---------------------------- | :-----
 * Insert()     | Constant (wheel), log (heap)  | append to a bucket, or std::push_heap()
 * IsEmpty()    | Constant                      | two counters
 * PeekNext()   | Buckets / 64 words at worst   | bitmap scan from base
 * RemoveNext() | same as PeekNext, log (heap)  | pop a bucket's head, or std::pop_heap()
 * Remove()     | Linear in the bucket or heap  | erase, or std::make_heap() like the original
 */
class FabricWheelScheduler : public Scheduler
{
  public:
    /**
     * \brief Register this type.
     * \return The object TypeId.
     */
    static TypeId GetTypeId();

    FabricWheelScheduler();
    ~FabricWheelScheduler() override;

    FabricWheelScheduler(const FabricWheelScheduler&) = delete;
    FabricWheelScheduler& operator=(const FabricWheelScheduler&) = delete;

    // Inherited
    void Insert(const Scheduler::Event& ev) override;
    bool IsEmpty() const override;
    Scheduler::Event PeekNext() const override;
    Scheduler::Event RemoveNext() override;
    /// Removes the event with ev's uid (ns-3's Event equality); does nothing if it is absent.
    void Remove(const Scheduler::Event& ev) override;

    /**
     * \brief Sets the time covered by one bucket, rounded up to a power of two time steps
     * (a width below one step becomes one step). Pending events are redistributed.
     * \param [in] width The bucket width.
     */
    void SetBucketWidth(Time width);
    /// \return The bucket width (a power of two time steps).
    Time GetBucketWidth() const;
    /**
     * \brief Sets the number of buckets of the wheel; NS_FATAL_ERROR unless a power of two
     * between 1 and 2^24. Pending events are redistributed.
     * \param [in] buckets The number of buckets.
     */
    void SetBuckets(uint32_t buckets);
    /// \return The number of buckets of the wheel.
    uint32_t GetBuckets() const;

    /**
     * \brief The simulation time, as Simulator::Now() gives it, in one load instead of three
     * out-of-line calls (Simulator::Now, GetImpl, the implementation's virtual Now: about 3 %
     * of the instructions of a run's event loop, bench/PROFILE.md round 7).
     *
     * Every ns-3 simulator implementation (the default one, the MPI granted-time-window and
     * null-message ones) sets its clock to the key of the event RemoveNext returns and then
     * runs that event. So while a FabricWheelScheduler is the simulator's scheduler and has
     * handed out an event, the time is that event's. Before that (building a scenario), and
     * when another scheduler serves, this asks the simulator. A scheduler that gives its events
     * to a successor (Simulator::SetScheduler) or disposes of them is destroyed right after,
     * and stops answering then.
     */
    static Time Now()
    {
        return s_serving ? TimeStep(s_serving->m_lastRemovedTs) : Simulator::Now();
    }

    /// \return The number of pending events in the wheel (diagnostics and tests).
    std::size_t GetWheelEvents() const;
    /// \return The number of pending events in the overflow heap (diagnostics and tests).
    std::size_t GetOverflowEvents() const;

  private:
    /**
     * \brief The events of one bucket, sorted by (ts, uid), live in m_events[m_head, m_end).
     *
     * Kept to 24 bytes (512 buckets = 12 KiB of headers): a raw array rather than a
     * std::vector plus a head index (32 bytes).
     */
    struct Bucket
    {
        Scheduler::Event* m_events = nullptr; //!< storage of m_capacity events
        uint32_t m_head = 0;                  //!< index of the earliest event
        uint32_t m_end = 0;                   //!< one past the latest event
        uint32_t m_capacity = 0;              //!< allocated events
    };

    /// RemoveNext without the bookkeeping for Now.
    Scheduler::Event TakeNext();

    /// The scheduler whose RemoveNext ran last, while it exists (Now).
    static FabricWheelScheduler* s_serving;
    /// The key time of the event RemoveNext returned last.
    uint64_t m_lastRemovedTs = 0;

    /// \return The slot of the earliest non-empty bucket; the wheel must not be empty.
    uint32_t FirstSlot() const;
    /// Inserts \p ev into the bucket of \p slot after every earlier event.
    void InsertInBucket(uint32_t slot, const Scheduler::Event& ev);
    /// Makes room for one more event at the end of \p b: slides or grows its storage.
    static void MakeRoom(Bucket& b);
    /// Empties the bucket of \p slot (keeping its storage) and clears its bit.
    void ResetBucket(uint32_t slot);
    /// Re-creates the wheel for a new geometry and re-inserts the pending events.
    void Rebuild(uint32_t shift, uint32_t buckets);

    uint32_t m_shift;                     //!< log2 of the bucket width in time steps
    uint32_t m_mask;                      //!< buckets - 1
    uint64_t m_base;                      //!< bucket number of the last popped event
    std::size_t m_wheelEvents;            //!< events in the wheel
    std::vector<Bucket> m_buckets;        //!< the wheel, indexed by bucket number & m_mask
    std::vector<uint64_t> m_occupied;     //!< one bit per non-empty bucket
    std::vector<Scheduler::Event> m_heap; //!< min-heap of events outside the wheel
};

} // namespace ns3

#endif
