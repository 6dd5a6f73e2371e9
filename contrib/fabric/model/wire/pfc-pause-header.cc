#include "pfc-pause-header.h"

#include "ns3/abort.h"
#include "ns3/log.h"

#include <iomanip>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("PfcPauseHeader");

NS_OBJECT_ENSURE_REGISTERED(PfcPauseHeader);

namespace
{
/// The reserved high octet of the priority-enable vector is sent as zero (802.3 Annex 31D).
constexpr uint16_t kEnableVectorMask = 0x00FF;
/// Bytes taken by opcode, enable vector and the eight timers; the rest of the payload is padding.
constexpr uint32_t kFieldsSize = 2 + 2 + 2 * PfcPauseHeader::kNumPriorities;
} // namespace

TypeId
PfcPauseHeader::GetTypeId()
{
    static TypeId tid = TypeId("ns3::PfcPauseHeader")
                            .SetParent<Header>()
                            .SetGroupName("Fabric")
                            .AddConstructor<PfcPauseHeader>();
    return tid;
}

PfcPauseHeader::PfcPauseHeader()
    : m_opcode(kOpcode),
      m_classEnableVector(0)
{
}

Mac48Address
PfcPauseHeader::DestinationAddress()
{
    return Mac48Address("01:80:C2:00:00:01");
}

Time
PfcPauseHeader::QuantaToTime(uint16_t quanta, const DataRate& rate)
{
    return rate.CalculateBitsTxTime(static_cast<uint32_t>(quanta) * kBitsPerQuantum);
}

void
PfcPauseHeader::SetPauseQuanta(uint8_t priority, uint16_t quanta)
{
    // Always-on check: asserts are compiled out against the packaged ns-3, and an out-of-range
    // priority would otherwise write past m_quanta.
    NS_ABORT_MSG_IF(priority >= kNumPriorities, "PFC priority " << +priority << " out of range");
    m_quanta[priority] = quanta;
    m_classEnableVector |= static_cast<uint16_t>(1U << priority);
}

uint16_t
PfcPauseHeader::GetPauseQuanta(uint8_t priority) const
{
    NS_ABORT_MSG_IF(priority >= kNumPriorities, "PFC priority " << +priority << " out of range");
    return m_quanta[priority];
}

bool
PfcPauseHeader::IsEnabled(uint8_t priority) const
{
    NS_ABORT_MSG_IF(priority >= kNumPriorities, "PFC priority " << +priority << " out of range");
    return (m_classEnableVector >> priority) & 1U;
}

void
PfcPauseHeader::SetClassEnableVector(uint16_t vector)
{
    m_classEnableVector = vector & kEnableVectorMask;
}

uint16_t
PfcPauseHeader::GetClassEnableVector() const
{
    return m_classEnableVector;
}

uint16_t
PfcPauseHeader::GetOpcode() const
{
    return m_opcode;
}

bool
PfcPauseHeader::IsValid() const
{
    return m_opcode == kOpcode;
}

TypeId
PfcPauseHeader::GetInstanceTypeId() const
{
    return GetTypeId();
}

void
PfcPauseHeader::Print(std::ostream& os) const
{
    // Restore the caller's stream state: Print is used inside longer packet printouts.
    std::ios_base::fmtflags flags = os.flags();
    char fill = os.fill();
    os << "opcode=0x" << std::hex << std::setw(4) << std::setfill('0') << m_opcode << " enable=0x"
       << std::setw(2) << m_classEnableVector << std::dec;
    for (uint8_t p = 0; p < kNumPriorities; ++p)
    {
        if (IsEnabled(p))
        {
            os << " p" << +p << "=" << m_quanta[p];
        }
    }
    os.flags(flags);
    os.fill(fill);
}

uint32_t
PfcPauseHeader::GetSerializedSize() const
{
    return kPayloadSize;
}

void
PfcPauseHeader::Serialize(Buffer::Iterator start) const
{
    Buffer::Iterator i = start;
    i.WriteHtonU16(m_opcode);
    i.WriteHtonU16(m_classEnableVector);
    for (uint16_t quanta : m_quanta)
    {
        // Timers of disabled priorities are sent as written; receivers ignore them.
        i.WriteHtonU16(quanta);
    }
    i.WriteU8(0, kPayloadSize - kFieldsSize);
}

uint32_t
PfcPauseHeader::Deserialize(Buffer::Iterator start)
{
    Buffer::Iterator i = start;
    m_opcode = i.ReadNtohU16();
    // Kept as received (reserved bits included) so a receiver can see exactly what was sent.
    m_classEnableVector = i.ReadNtohU16();
    for (uint16_t& quanta : m_quanta)
    {
        quanta = i.ReadNtohU16();
    }
    // The padding is skipped, not checked: reserved fields are ignored on receipt.
    if (!IsValid())
    {
        NS_LOG_LOGIC("MAC Control frame with opcode " << m_opcode << " is not a PFC frame");
    }
    return kPayloadSize;
}

} // namespace ns3
