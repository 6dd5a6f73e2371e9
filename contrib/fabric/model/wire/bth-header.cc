#include "bth-header.h"

#include "ns3/log.h"

#include <iomanip>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("BthHeader");

NS_OBJECT_ENSURE_REGISTERED(BthHeader);

namespace
{
// Bit positions inside the flag bytes; see the layout in bth-header.h.
constexpr uint8_t kSeBit = 0x80;        // byte 1
constexpr uint8_t kMigReqBit = 0x40;    // byte 1
constexpr uint8_t kPadCountShift = 4;   // byte 1, bits 5-4
constexpr uint8_t kPadCountMask = 0x03; // PadCnt is two bits wide
constexpr uint8_t kFecnBit = 0x80;      // byte 4
constexpr uint8_t kBecnBit = 0x40;      // byte 4
constexpr uint8_t kAckReqBit = 0x80;    // byte 8
} // namespace

TypeId
BthHeader::GetTypeId()
{
    static TypeId tid = TypeId("ns3::BthHeader")
                            .SetParent<Header>()
                            .SetGroupName("Fabric")
                            .AddConstructor<BthHeader>();
    return tid;
}

BthHeader::BthHeader()
    : m_opcode(0),
      m_solicited(false),
      m_migReq(false),
      m_padCount(0),
      m_pkey(kDefaultPartitionKey),
      m_fecn(false),
      m_becn(false),
      m_destQp(0),
      m_ackReq(false),
      m_psn(0)
{
}

void
BthHeader::SetOpcode(uint8_t opcode)
{
    m_opcode = opcode;
}

uint8_t
BthHeader::GetOpcode() const
{
    return m_opcode;
}

void
BthHeader::SetSolicitedEvent(bool se)
{
    m_solicited = se;
}

bool
BthHeader::GetSolicitedEvent() const
{
    return m_solicited;
}

void
BthHeader::SetMigReq(bool migReq)
{
    m_migReq = migReq;
}

bool
BthHeader::GetMigReq() const
{
    return m_migReq;
}

void
BthHeader::SetPadCount(uint8_t padCount)
{
    m_padCount = padCount & kPadCountMask;
}

uint8_t
BthHeader::GetPadCount() const
{
    return m_padCount;
}

void
BthHeader::SetPartitionKey(uint16_t pkey)
{
    m_pkey = pkey;
}

uint16_t
BthHeader::GetPartitionKey() const
{
    return m_pkey;
}

void
BthHeader::SetFecn(bool fecn)
{
    m_fecn = fecn;
}

bool
BthHeader::GetFecn() const
{
    return m_fecn;
}

void
BthHeader::SetBecn(bool becn)
{
    m_becn = becn;
}

bool
BthHeader::GetBecn() const
{
    return m_becn;
}

void
BthHeader::SetDestQp(uint32_t qp)
{
    m_destQp = qp & kMask24;
}

uint32_t
BthHeader::GetDestQp() const
{
    return m_destQp;
}

void
BthHeader::SetAckRequest(bool ackReq)
{
    m_ackReq = ackReq;
}

bool
BthHeader::GetAckRequest() const
{
    return m_ackReq;
}

void
BthHeader::SetPsn(uint32_t psn)
{
    m_psn = psn & kMask24;
}

uint32_t
BthHeader::GetPsn() const
{
    return m_psn;
}

TypeId
BthHeader::GetInstanceTypeId() const
{
    return GetTypeId();
}

void
BthHeader::Print(std::ostream& os) const
{
    // Restore the caller's stream state: Print is used inside longer packet printouts.
    std::ios_base::fmtflags flags = os.flags();
    char fill = os.fill();
    os << "opcode=0x" << std::hex << std::setw(2) << std::setfill('0') << +m_opcode << std::dec
       << " se=" << m_solicited << " m=" << m_migReq << " pad=" << +m_padCount << " pkey=0x"
       << std::hex << m_pkey << std::dec << " fecn=" << m_fecn << " becn=" << m_becn
       << " dqp=" << m_destQp << " a=" << m_ackReq << " psn=" << m_psn;
    os.flags(flags);
    os.fill(fill);
}

uint32_t
BthHeader::GetSerializedSize() const
{
    return kSize;
}

void
BthHeader::Serialize(Buffer::Iterator start) const
{
    Buffer::Iterator i = start;
    i.WriteU8(m_opcode);
    // TVer (bits 3-0) is always 0: the only transport header version defined.
    i.WriteU8((m_solicited ? kSeBit : 0) | (m_migReq ? kMigReqBit : 0) |
              static_cast<uint8_t>(m_padCount << kPadCountShift));
    i.WriteHtonU16(m_pkey);
    // Byte 4 and the 24-bit DestQP share one big-endian word, as do byte 8 and the PSN.
    uint32_t word = m_destQp;
    word |= static_cast<uint32_t>((m_fecn ? kFecnBit : 0) | (m_becn ? kBecnBit : 0)) << 24;
    i.WriteHtonU32(word);
    word = m_psn | (static_cast<uint32_t>(m_ackReq ? kAckReqBit : 0) << 24);
    i.WriteHtonU32(word);
}

uint32_t
BthHeader::Deserialize(Buffer::Iterator start)
{
    Buffer::Iterator i = start;
    m_opcode = i.ReadU8();
    uint8_t flags = i.ReadU8();
    m_solicited = flags & kSeBit;
    m_migReq = flags & kMigReqBit;
    m_padCount = (flags >> kPadCountShift) & kPadCountMask;
    // TVer and the reserved bits are not kept: the model only ever sends version 0 with zero
    // reserved bits, and it does not model malformed headers.
    m_pkey = i.ReadNtohU16();
    uint32_t word = i.ReadNtohU32();
    m_fecn = (word >> 24) & kFecnBit;
    m_becn = (word >> 24) & kBecnBit;
    m_destQp = word & kMask24;
    word = i.ReadNtohU32();
    m_ackReq = (word >> 24) & kAckReqBit;
    m_psn = word & kMask24;
    return kSize;
}

} // namespace ns3
