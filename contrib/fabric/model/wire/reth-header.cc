#include "reth-header.h"

#include "ns3/log.h"

#include <iomanip>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("RethHeader");

NS_OBJECT_ENSURE_REGISTERED(RethHeader);

TypeId
RethHeader::GetTypeId()
{
    static TypeId tid = TypeId("ns3::RethHeader")
                            .SetParent<Header>()
                            .SetGroupName("Fabric")
                            .AddConstructor<RethHeader>();
    return tid;
}

RethHeader::RethHeader()
    : m_virtualAddress(0),
      m_remoteKey(0),
      m_dmaLength(0)
{
}

void
RethHeader::SetVirtualAddress(uint64_t va)
{
    m_virtualAddress = va;
}

uint64_t
RethHeader::GetVirtualAddress() const
{
    return m_virtualAddress;
}

void
RethHeader::SetRemoteKey(uint32_t rkey)
{
    m_remoteKey = rkey;
}

uint32_t
RethHeader::GetRemoteKey() const
{
    return m_remoteKey;
}

void
RethHeader::SetDmaLength(uint32_t length)
{
    m_dmaLength = length;
}

uint32_t
RethHeader::GetDmaLength() const
{
    return m_dmaLength;
}

TypeId
RethHeader::GetInstanceTypeId() const
{
    return GetTypeId();
}

void
RethHeader::Print(std::ostream& os) const
{
    // Restore the caller's stream state: Print is used inside longer packet printouts.
    std::ios_base::fmtflags flags = os.flags();
    char fill = os.fill();
    os << "va=0x" << std::hex << m_virtualAddress << " rkey=0x" << m_remoteKey << std::dec
       << " dmalen=" << m_dmaLength;
    os.flags(flags);
    os.fill(fill);
}

uint32_t
RethHeader::GetSerializedSize() const
{
    return kSize;
}

void
RethHeader::Serialize(Buffer::Iterator start) const
{
    Buffer::Iterator i = start;
    i.WriteHtonU64(m_virtualAddress);
    i.WriteHtonU32(m_remoteKey);
    i.WriteHtonU32(m_dmaLength);
}

uint32_t
RethHeader::Deserialize(Buffer::Iterator start)
{
    Buffer::Iterator i = start;
    m_virtualAddress = i.ReadNtohU64();
    m_remoteKey = i.ReadNtohU32();
    m_dmaLength = i.ReadNtohU32();
    return kSize;
}

} // namespace ns3
