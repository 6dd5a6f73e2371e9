#include "icrc-trailer.h"

#include "ns3/abort.h"
#include "ns3/crc32.h"
#include "ns3/log.h"
#include "ns3/packet.h"

#include <cstring>
#include <iomanip>
#include <vector>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("IcrcTrailer");

NS_OBJECT_ENSURE_REGISTERED(IcrcTrailer);

namespace
{
/// InfiniBand's Local Route Header is not sent by RoCEv2; the ICRC covers 8 bytes of ones instead.
constexpr uint32_t kLrhStandIn = 8;
constexpr uint32_t kUdpHeaderSize = 8;
constexpr uint32_t kBthSize = 12;

/**
 * Replace the variant fields of the datagram that starts at buf[kLrhStandIn] with ones and
 * return the CRC-32 of the first `covered` bytes of buf. The first kLrhStandIn bytes of buf
 * are set here.
 */
uint32_t
MaskAndCrc(std::vector<uint8_t>& buf, uint32_t covered)
{
    std::memset(buf.data(), 0xFF, kLrhStandIn);
    uint8_t* ip = buf.data() + kLrhStandIn;
    uint32_t datagramLength = covered - kLrhStandIn;
    NS_ABORT_MSG_IF(datagramLength < 20 || (ip[0] >> 4) != 4,
                    "ICRC: the datagram does not start with an IPv4 header");
    uint32_t ipHeaderLength = (ip[0] & 0x0F) * 4u;
    NS_ABORT_MSG_IF(ipHeaderLength < 20 ||
                        ipHeaderLength + kUdpHeaderSize + kBthSize > datagramLength,
                    "ICRC: datagram too short for IPv4 + UDP + BTH");
    ip[1] = 0xFF;  // TOS: DSCP and ECN are rewritten by switches
    ip[8] = 0xFF;  // TTL: decremented per hop
    ip[10] = 0xFF; // header checksum: changes with TOS and TTL
    ip[11] = 0xFF;
    uint8_t* udp = ip + ipHeaderLength;
    udp[6] = 0xFF; // UDP checksum: may be filled in or cleared on the way
    udp[7] = 0xFF;
    uint8_t* bth = udp + kUdpHeaderSize;
    bth[4] = 0xFF; // FECN/BECN and reserved bits: may be set by the fabric
    return CRC32Calculate(buf.data(), static_cast<int>(covered));
}
} // namespace

TypeId
IcrcTrailer::GetTypeId()
{
    static TypeId tid = TypeId("ns3::IcrcTrailer")
                            .SetParent<Trailer>()
                            .SetGroupName("Fabric")
                            .AddConstructor<IcrcTrailer>();
    return tid;
}

IcrcTrailer::IcrcTrailer()
    : m_icrc(0)
{
}

IcrcTrailer::IcrcTrailer(uint32_t icrc)
    : m_icrc(icrc)
{
}

void
IcrcTrailer::SetIcrc(uint32_t icrc)
{
    m_icrc = icrc;
}

uint32_t
IcrcTrailer::GetIcrc() const
{
    return m_icrc;
}

uint32_t
IcrcTrailer::ComputeIcrc(const uint8_t* datagram, uint32_t length)
{
    // A copy is needed because the variant fields are masked; this function is for pcaps and
    // tests, not the per-packet path, so the allocation does not matter.
    std::vector<uint8_t> buf(kLrhStandIn + length);
    std::memcpy(buf.data() + kLrhStandIn, datagram, length);
    return MaskAndCrc(buf, kLrhStandIn + length);
}

uint32_t
IcrcTrailer::ComputeIcrc(Ptr<const Packet> datagram)
{
    uint32_t size = datagram->GetSize();
    NS_ABORT_MSG_IF(size < kSize, "ICRC: packet shorter than its ICRC trailer");
    std::vector<uint8_t> buf(kLrhStandIn + size);
    datagram->CopyData(buf.data() + kLrhStandIn, size);
    return MaskAndCrc(buf, kLrhStandIn + size - kSize);
}

TypeId
IcrcTrailer::GetInstanceTypeId() const
{
    return GetTypeId();
}

void
IcrcTrailer::Print(std::ostream& os) const
{
    // Restore the caller's stream state: Print is used inside longer packet printouts.
    std::ios_base::fmtflags flags = os.flags();
    char fill = os.fill();
    os << "icrc=0x" << std::hex << std::setw(8) << std::setfill('0') << m_icrc;
    os.flags(flags);
    os.fill(fill);
}

uint32_t
IcrcTrailer::GetSerializedSize() const
{
    return kSize;
}

void
IcrcTrailer::Serialize(Buffer::Iterator end) const
{
    // Trailers are handed an iterator at the end of the packet.
    end.Prev(kSize);
    end.WriteHtolsbU32(m_icrc);
}

uint32_t
IcrcTrailer::Deserialize(Buffer::Iterator end)
{
    end.Prev(kSize);
    m_icrc = end.ReadLsbtohU32();
    return kSize;
}

Ptr<Packet>
ZeroPayloadWithIcrc(uint32_t payloadBytes)
{
    static_assert(kIcrcBytes == IcrcTrailer::kSize, "the ICRC is four zero bytes here");
    return Create<Packet>(payloadBytes + kIcrcBytes);
}

} // namespace ns3
