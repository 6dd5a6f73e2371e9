#include "credit-update-header.h"

#include "ns3/abort.h"

namespace ns3
{

NS_OBJECT_ENSURE_REGISTERED(CreditUpdateHeader);

namespace
{
/// Kind, lane mask, reserved half-word and eight counts; the rest of the payload is padding.
constexpr uint32_t kFieldsSize = 1 + 1 + 2 + 4 * CreditUpdateHeader::kNumLanes;
} // namespace

TypeId
CreditUpdateHeader::GetTypeId()
{
    static TypeId tid = TypeId("ns3::CreditUpdateHeader")
                            .SetParent<Header>()
                            .SetGroupName("Fabric")
                            .AddConstructor<CreditUpdateHeader>();
    return tid;
}

CreditUpdateHeader::CreditUpdateHeader()
    : m_kind(UPDATE),
      m_laneMask(0)
{
}

Mac48Address
CreditUpdateHeader::DestinationAddress()
{
    return Mac48Address("01:80:C2:00:00:0E");
}

void
CreditUpdateHeader::SetCount(uint8_t lane, uint32_t credits)
{
    NS_ABORT_MSG_IF(lane >= kNumLanes, "credit lane " << +lane << " out of range");
    m_counts[lane] = credits;
    m_laneMask |= static_cast<uint8_t>(1u << lane);
}

uint32_t
CreditUpdateHeader::GetCount(uint8_t lane) const
{
    NS_ABORT_MSG_IF(lane >= kNumLanes, "credit lane " << +lane << " out of range");
    return m_counts[lane];
}

bool
CreditUpdateHeader::HasLane(uint8_t lane) const
{
    return lane < kNumLanes && ((m_laneMask >> lane) & 1u) != 0;
}

bool
CreditUpdateHeader::IsValid() const
{
    return m_kind >= UPDATE && m_kind <= REQUEST;
}

TypeId
CreditUpdateHeader::GetInstanceTypeId() const
{
    return GetTypeId();
}

void
CreditUpdateHeader::Print(std::ostream& os) const
{
    os << (m_kind == UPDATE ? "UPDATE" : m_kind == SYNC ? "SYNC" : "REQUEST");
    for (uint8_t l = 0; l < kNumLanes; ++l)
    {
        if (HasLane(l))
        {
            os << " vl" << +l << "=" << m_counts[l];
        }
    }
}

uint32_t
CreditUpdateHeader::GetSerializedSize() const
{
    return kPayloadSize;
}

void
CreditUpdateHeader::Serialize(Buffer::Iterator start) const
{
    Buffer::Iterator i = start;
    i.WriteU8(m_kind);
    i.WriteU8(m_laneMask);
    i.WriteHtonU16(0);
    for (uint32_t c : m_counts)
    {
        i.WriteHtonU32(c);
    }
    i.WriteU8(0, kPayloadSize - kFieldsSize);
}

uint32_t
CreditUpdateHeader::Deserialize(Buffer::Iterator start)
{
    Buffer::Iterator i = start;
    m_kind = i.ReadU8();
    m_laneMask = i.ReadU8();
    i.ReadNtohU16();
    for (uint32_t& c : m_counts)
    {
        c = i.ReadNtohU32();
    }
    return kPayloadSize;
}

} // namespace ns3
