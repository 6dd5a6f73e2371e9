#ifndef FABRIC_TESTS_UB_TEST_UTIL_H
#define FABRIC_TESTS_UB_TEST_UTIL_H

// In-process Unified Bus fabrics for the tests/ub suites: one UbNic per host, UB requests added
// to the flow table and posted through the NIC of their source host.

#include "../fabric-sim-util.h"
#include "record/conservation.h"
#include "ub/ub-nic.h"

#include <vector>

namespace ns3
{
namespace test
{

/// One UbNic per host of \p net (attribute defaults as set by the test).
inline std::vector<Ptr<UbNic>>
InstallUb(FabricNetwork& net)
{
    std::vector<Ptr<UbNic>> nics;
    for (uint32_t h = 0; h < net.GetNHosts(); ++h)
    {
        nics.push_back(CreateObject<UbNic>());
        nics.back()->Install(net.GetHost(h));
    }
    return nics;
}

struct UbRequest
{
    uint32_t src = 0;
    uint32_t dst = 0;
    uint64_t bytes = 0;
    Time start;
    uint16_t endpoint = 0;
    UbOrder order = UbOrder::NONE;
    std::vector<uint32_t> after;
    uint16_t entropy = 0; ///< 0: 49152 + 7 src + dst (as AddFlow)
    uint8_t priority = 3;
    RdmaVerb verb = RdmaVerb::WRITE;
};

/// Adds request \p r to the flow table and posts it on its source NIC; returns the flow id.
inline uint32_t
PostUb(FabricNetwork& net, std::vector<Ptr<UbNic>>& nics, const UbRequest& r)
{
    FlowRecord rec;
    rec.src = r.src;
    rec.dst = r.dst;
    rec.bytes = r.bytes;
    rec.start = r.start;
    rec.priority = r.priority;
    rec.entropy = r.entropy ? r.entropy : static_cast<uint16_t>(49152 + r.src * 7 + r.dst);
    rec.verb = r.verb;
    rec.endpoint = r.endpoint;
    rec.order = static_cast<uint8_t>(r.order);
    rec.after = r.after;
    uint32_t id = net.GetFlowTable()->Add(rec);
    nics[r.src]->StartFlowAt(id);
    return id;
}

/// Picoseconds to serialize \p bytes at \p rate (exact for the rates used here).
inline int64_t
SerPs(uint64_t bytes, DataRate rate)
{
    unsigned __int128 ps = static_cast<unsigned __int128>(bytes) * 8 * 1000000000000ull;
    return static_cast<int64_t>(ps / rate.GetBitRate());
}

} // namespace test
} // namespace ns3

#endif
