#include "aeth-header.h"

#include "ns3/log.h"

#include <iomanip>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("AethHeader");

NS_OBJECT_ENSURE_REGISTERED(AethHeader);

namespace
{
// The syndrome's kind sits in bits 6-5 (bit 7 is reserved), its value in bits 4-0.
constexpr uint8_t kKindMask = 0x60;
constexpr uint8_t kValueMask = 0x1F;
constexpr uint8_t kKindAck = 0x00;
constexpr uint8_t kKindRnrNak = 0x20;
constexpr uint8_t kKindNak = 0x60;
} // namespace

TypeId
AethHeader::GetTypeId()
{
    static TypeId tid = TypeId("ns3::AethHeader")
                            .SetParent<Header>()
                            .SetGroupName("Fabric")
                            .AddConstructor<AethHeader>();
    return tid;
}

AethHeader::AethHeader()
    : m_syndrome(MakeAckSyndrome()),
      m_msn(0)
{
}

uint8_t
AethHeader::MakeAckSyndrome(uint8_t credits)
{
    return kKindAck | (credits & kValueMask);
}

uint8_t
AethHeader::MakeRnrNakSyndrome(uint8_t timer)
{
    return kKindRnrNak | (timer & kValueMask);
}

uint8_t
AethHeader::MakeNakSyndrome(uint8_t code)
{
    return kKindNak | (code & kValueMask);
}

void
AethHeader::SetSyndrome(uint8_t syndrome)
{
    m_syndrome = syndrome;
}

uint8_t
AethHeader::GetSyndrome() const
{
    return m_syndrome;
}

void
AethHeader::SetMsn(uint32_t msn)
{
    m_msn = msn & kMsnMask;
}

uint32_t
AethHeader::GetMsn() const
{
    return m_msn;
}

bool
AethHeader::IsAck() const
{
    return (m_syndrome & kKindMask) == kKindAck;
}

bool
AethHeader::IsRnrNak() const
{
    return (m_syndrome & kKindMask) == kKindRnrNak;
}

bool
AethHeader::IsNak() const
{
    return (m_syndrome & kKindMask) == kKindNak;
}

uint8_t
AethHeader::GetCreditCount() const
{
    return m_syndrome & kValueMask;
}

uint8_t
AethHeader::GetRnrTimer() const
{
    return m_syndrome & kValueMask;
}

uint8_t
AethHeader::GetNakCode() const
{
    return m_syndrome & kValueMask;
}

TypeId
AethHeader::GetInstanceTypeId() const
{
    return GetTypeId();
}

void
AethHeader::Print(std::ostream& os) const
{
    // Restore the caller's stream state: Print is used inside longer packet printouts.
    std::ios_base::fmtflags flags = os.flags();
    char fill = os.fill();
    os << "syndrome=0x" << std::hex << std::setw(2) << std::setfill('0') << +m_syndrome << std::dec;
    if (IsAck())
    {
        os << " (ACK credits=" << +GetCreditCount() << ")";
    }
    else if (IsRnrNak())
    {
        os << " (RNR NAK timer=" << +GetRnrTimer() << ")";
    }
    else if (IsNak())
    {
        os << " (NAK code=" << +GetNakCode() << ")";
    }
    os << " msn=" << m_msn;
    os.flags(flags);
    os.fill(fill);
}

uint32_t
AethHeader::GetSerializedSize() const
{
    return kSize;
}

void
AethHeader::Serialize(Buffer::Iterator start) const
{
    // Syndrome and MSN form one big-endian word.
    start.WriteHtonU32((static_cast<uint32_t>(m_syndrome) << 24) | m_msn);
}

uint32_t
AethHeader::Deserialize(Buffer::Iterator start)
{
    uint32_t word = start.ReadNtohU32();
    m_syndrome = static_cast<uint8_t>(word >> 24);
    m_msn = word & kMsnMask;
    return kSize;
}

} // namespace ns3
