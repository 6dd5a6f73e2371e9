#include "context-cache.h"

namespace ns3
{

bool
ContextCache::Touch(uint64_t key, uint32_t bytes)
{
    auto it = m_index.find(key);
    if (it != m_index.end())
    {
        m_lru.splice(m_lru.begin(), m_lru, it->second);
        ++m_hits;
        return true;
    }
    ++m_misses;
    if (m_capacity > 0 && bytes > m_capacity)
    {
        return false;
    }
    while (m_capacity > 0 && m_used + bytes > m_capacity && !m_lru.empty())
    {
        m_used -= m_lru.back().bytes;
        m_index.erase(m_lru.back().key);
        m_lru.pop_back();
    }
    m_lru.push_front(Entry{key, bytes});
    m_index[key] = m_lru.begin();
    m_used += bytes;
    return false;
}

} // namespace ns3
