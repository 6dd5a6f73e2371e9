#ifndef FABRIC_FRAME_FIFO_H
#define FABRIC_FRAME_FIFO_H

#include <cstddef>
#include <cstdint>
#include <iterator>
#include <memory>
#include <utility>

namespace ns3
{

/**
 * \brief A first-in first-out queue of frames that holds no memory while empty.
 *
 * Every port has a dozen queues (eight priorities, PFC frames, frames on the cable) and most of
 * them stay empty for a whole run: a 16 384-host fabric has 65 536 ports. std::deque allocates
 * a 512-byte block and its map when it is constructed, about 6 KiB per port in all, which made
 * up most of a large fabric's memory before any frame moved. This ring buffer allocates on the
 * first push, doubles when full and halves when three quarters are free, so that a queue that
 * held thousands of frames once does not keep their room for the rest of the run (peak memory
 * follows what is queued at once, as std::deque's does). Pops release the element at once (a
 * frame's reference to its packet goes when it leaves, as with std::deque::pop_front).
 *
 * T must be default-constructible and movable.
 */
template <typename T>
class FrameFifo
{
  public:
    FrameFifo() = default;
    FrameFifo(const FrameFifo&) = delete;
    FrameFifo& operator=(const FrameFifo&) = delete;

    bool empty() const
    {
        return m_size == 0;
    }

    size_t size() const
    {
        return m_size;
    }

    T& front()
    {
        return m_slots[m_head];
    }

    const T& front() const
    {
        return m_slots[m_head];
    }

    T& back()
    {
        return m_slots[(m_head + m_size - 1) & m_mask];
    }

    void push_back(T&& item)
    {
        if (m_size == m_capacity)
        {
            Grow();
        }
        // A free slot always holds a T() (pop_front and Grow leave it so), whose destructor
        // does nothing: construct over it instead of assigning. Assignment would first read
        // the slot to release what it holds, and a slot last used many frames ago is a cache
        // miss on every enqueue of a large fabric (perm-1024: 79 % of Enqueue's time).
        ::new (static_cast<void*>(&m_slots[(m_head + m_size) & m_mask])) T(std::move(item));
        ++m_size;
    }

    void push_back(const T& item)
    {
        T copy(item);
        push_back(std::move(copy));
    }

    void pop_front()
    {
        m_slots[m_head] = T();
        m_head = (m_head + 1) & m_mask;
        --m_size;
        if (m_size < m_capacity / 4 && m_capacity > kFirstCapacity)
        {
            Resize(m_capacity / 2);
        }
    }

    /// Slots allocated (for tests: memory follows what is queued).
    size_t capacity() const
    {
        return m_capacity;
    }

    void clear()
    {
        while (!empty())
        {
            pop_front();
        }
    }

    /// Read-only iteration, oldest first.
    class const_iterator
    {
      public:
        using iterator_category = std::forward_iterator_tag;
        using value_type = T;
        using difference_type = std::ptrdiff_t;
        using pointer = const T*;
        using reference = const T&;

        const_iterator(const FrameFifo* fifo, size_t index)
            : m_fifo(fifo),
              m_index(index)
        {
        }

        const T& operator*() const
        {
            return m_fifo->m_slots[(m_fifo->m_head + m_index) & m_fifo->m_mask];
        }

        const T* operator->() const
        {
            return &**this;
        }

        const_iterator& operator++()
        {
            ++m_index;
            return *this;
        }

        bool operator==(const const_iterator& other) const
        {
            return m_index == other.m_index;
        }

        bool operator!=(const const_iterator& other) const
        {
            return m_index != other.m_index;
        }

      private:
        const FrameFifo* m_fifo;
        size_t m_index;
    };

    const_iterator begin() const
    {
        return const_iterator(this, 0);
    }

    const_iterator end() const
    {
        return const_iterator(this, m_size);
    }

  private:
    void Grow()
    {
        Resize(m_capacity == 0 ? kFirstCapacity : 2 * m_capacity);
    }

    void Resize(size_t capacity)
    {
        std::unique_ptr<T[]> slots(new T[capacity]);
        for (size_t i = 0; i < m_size; ++i)
        {
            slots[i] = std::move(m_slots[(m_head + i) & m_mask]);
        }
        m_slots = std::move(slots);
        m_capacity = capacity;
        m_mask = capacity - 1;
        m_head = 0;
    }

    static constexpr size_t kFirstCapacity = 8; // a power of two: indices wrap with a mask

    std::unique_ptr<T[]> m_slots;
    size_t m_capacity = 0;
    size_t m_mask = 0;
    size_t m_head = 0;
    size_t m_size = 0;
};

} // namespace ns3

#endif
