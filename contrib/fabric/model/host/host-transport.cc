#include "host-transport.h"

namespace ns3
{

NS_OBJECT_ENSURE_REGISTERED(HostTransport);

TypeId
HostTransport::GetTypeId()
{
    static TypeId tid = TypeId("ns3::HostTransport").SetParent<Object>().SetGroupName("Fabric");
    return tid;
}

} // namespace ns3
