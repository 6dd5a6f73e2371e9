#ifndef FABRIC_FLOWLET_TABLE_H
#define FABRIC_FLOWLET_TABLE_H

#include "ns3/nstime.h"

#include <algorithm>
#include <cstdint>
#include <unordered_map>
#include <vector>

namespace ns3
{

/**
 * \ingroup fabric-switch-pipeline
 * \brief The flowlet state of a switch: per flow key, the port its current flowlet uses and when
 * its last frame passed.
 *
 * A flowlet is a burst of one flow's frames separated from the next burst by more than a gap
 * (Kandula et al., "Dynamic load balancing without packet reordering", CCR 2007; LetFlow,
 * Vanini et al., NSDI 2017): when the gap exceeds the difference in path delays, the next burst
 * may take another path without arriving before the previous one. The key is a flow hash
 * (FabricFlowHash), so a sprayed Unified Bus channel is one flow per entropy. Exact keys rather
 * than a hashed hardware table: no two flows share a flowlet.
 */
class FlowletTable
{
  public:
    /// The port of the flowlet \p key's frame belongs to at \p now, or -1 when the frame starts
    /// a new flowlet (first frame of the flow, a gap above \p gap, or the port no longer in
    /// \p group after a route change); the caller then chooses and calls Assign.
    int Lookup(uint32_t key, Time now, Time gap, const std::vector<uint16_t>& group)
    {
        Entry& e = m_entries[key];
        int64_t t = now.GetTimeStep();
        bool fresh = e.lastSeen < 0 || t - e.lastSeen > gap.GetTimeStep() ||
                     std::find(group.begin(), group.end(), e.port) == group.end();
        e.lastSeen = t;
        m_last = &e;
        return fresh ? -1 : e.port;
    }

    /// The port of the flowlet the last Lookup started.
    void Assign(uint16_t port)
    {
        m_last->port = port;
        ++m_flowlets;
    }

    /// Flowlets started so far.
    uint64_t GetFlowletCount() const
    {
        return m_flowlets;
    }

  private:
    struct Entry
    {
        int64_t lastSeen = -1; ///< time step of the flow's last frame, -1: none yet
        uint16_t port = 0;
    };

    std::unordered_map<uint32_t, Entry> m_entries;
    Entry* m_last = nullptr; ///< the entry of the last Lookup (stable: node-based map)
    uint64_t m_flowlets = 0;
};

} // namespace ns3

#endif
