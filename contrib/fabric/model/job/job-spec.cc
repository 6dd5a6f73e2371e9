#include "job-spec.h"

#include <map>
#include <set>
#include <stdexcept>

namespace ns3
{

const char*
JobPhaseKindName(JobPhaseKind kind)
{
    switch (kind)
    {
    case JobPhaseKind::COMPUTE:
        return "compute";
    case JobPhaseKind::UPDATE:
        return "update";
    case JobPhaseKind::COLLECTIVE:
        return "collective";
    case JobPhaseKind::P2P:
        return "p2p";
    case JobPhaseKind::ALL_TO_ALL:
        return "all_to_all";
    }
    return "?";
}

std::vector<uint32_t>
JobPhaseSpec::Members(uint32_t groupSize) const
{
    std::set<uint32_t> members;
    if (kind == JobPhaseKind::P2P)
    {
        members = {from, to};
    }
    else if (kind == JobPhaseKind::ALL_TO_ALL && !senders.empty() && !receivers.empty())
    {
        members.insert(senders.begin(), senders.end());
        members.insert(receivers.begin(), receivers.end());
    }
    else
    {
        for (uint32_t p = 0; p < groupSize; ++p)
        {
            members.insert(p);
        }
    }
    return {members.begin(), members.end()};
}

std::vector<std::vector<uint32_t>>
JobSpec::Groups(const std::string& group) const
{
    const uint32_t n = Ranks();
    if (group == "all")
    {
        std::vector<uint32_t> all(n);
        for (uint32_t r = 0; r < n; ++r)
        {
            all[r] = r;
        }
        return {all};
    }
    // Coordinates of rank r: t fastest, then e, d, p. The group key is r with the group's own
    // coordinate zeroed; members are listed in that coordinate's order.
    const std::vector<std::pair<std::string, uint32_t>> dims = {{"tp", tp},
                                                                {"ep", ep},
                                                                {"dp", dp},
                                                                {"pp", pp}};
    uint32_t stride = 1;
    uint32_t size = 0;
    for (const auto& [dim, extent] : dims)
    {
        if (dim == group)
        {
            size = extent;
            break;
        }
        stride *= extent;
    }
    if (size == 0)
    {
        throw std::invalid_argument("unknown group '" + group + "' (tp, ep, dp, pp, all)");
    }
    std::map<uint32_t, std::vector<uint32_t>> byKey;
    for (uint32_t r = 0; r < n; ++r)
    {
        uint32_t coordinate = (r / stride) % size;
        byKey[r - coordinate * stride].push_back(r);
    }
    std::vector<std::vector<uint32_t>> groups;
    for (auto& [key, members] : byKey)
    {
        groups.push_back(std::move(members));
    }
    return groups;
}

} // namespace ns3
