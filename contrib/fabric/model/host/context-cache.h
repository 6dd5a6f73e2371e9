#ifndef FABRIC_CONTEXT_CACHE_H
#define FABRIC_CONTEXT_CACHE_H

#include <cstdint>
#include <list>
#include <unordered_map>

namespace ns3
{

/**
 * \brief The NIC's on-chip cache of transport contexts (Jetty, channel or QP state), least
 * recently used out first. An operation touches the contexts it needs; a context that is not
 * cached must be re-read from host memory, which is what makes large numbers of endpoints and
 * peers slow on real NICs (docs/models.md#context-cache).
 */
class ContextCache
{
  public:
    /// \p capacityBytes 0: unlimited (every touch hits after the first).
    explicit ContextCache(uint64_t capacityBytes = 0)
        : m_capacity(capacityBytes)
    {
    }

    void SetCapacity(uint64_t bytes)
    {
        m_capacity = bytes;
    }

    /// Uses context \p key of \p bytes: true when it was cached. A miss loads it, evicting the
    /// least recently used contexts until it fits (a context larger than the cache never stays).
    bool Touch(uint64_t key, uint32_t bytes);

    uint64_t GetHits() const
    {
        return m_hits;
    }

    uint64_t GetMisses() const
    {
        return m_misses;
    }

    uint64_t GetUsedBytes() const
    {
        return m_used;
    }

  private:
    struct Entry
    {
        uint64_t key;
        uint32_t bytes;
    };

    uint64_t m_capacity;
    uint64_t m_used = 0;
    std::list<Entry> m_lru; ///< most recent first
    std::unordered_map<uint64_t, std::list<Entry>::iterator> m_index;
    uint64_t m_hits = 0;
    uint64_t m_misses = 0;
};

} // namespace ns3

#endif
