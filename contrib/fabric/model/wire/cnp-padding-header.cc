#include "cnp-padding-header.h"

#include "ns3/log.h"

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("CnpPaddingHeader");

NS_OBJECT_ENSURE_REGISTERED(CnpPaddingHeader);

TypeId
CnpPaddingHeader::GetTypeId()
{
    static TypeId tid = TypeId("ns3::CnpPaddingHeader")
                            .SetParent<Header>()
                            .SetGroupName("Fabric")
                            .AddConstructor<CnpPaddingHeader>();
    return tid;
}

TypeId
CnpPaddingHeader::GetInstanceTypeId() const
{
    return GetTypeId();
}

void
CnpPaddingHeader::Print(std::ostream& os) const
{
    os << "reserved[" << kSize << "]";
}

uint32_t
CnpPaddingHeader::GetSerializedSize() const
{
    return kSize;
}

void
CnpPaddingHeader::Serialize(Buffer::Iterator start) const
{
    start.WriteU8(0, kSize);
}

uint32_t
CnpPaddingHeader::Deserialize(Buffer::Iterator start)
{
    // Reserved bytes are ignored on receipt; only their length matters.
    return kSize;
}

} // namespace ns3
