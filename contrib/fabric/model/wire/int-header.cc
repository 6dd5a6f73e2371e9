#include "int-header.h"

#include "ns3/packet.h"

#include <algorithm>
#include <cstring>

namespace ns3
{

namespace
{

/// Ethernet rates by code: the speeds a datacenter port runs at (IEEE 802.3), in Gb/s.
constexpr double kIntRatesGbps[] = {0, 1, 10, 25, 40, 50, 100, 200, 400, 800, 1600, 3200};
constexpr uint8_t kIntRateCodes = sizeof(kIntRatesGbps) / sizeof(kIntRatesGbps[0]);

} // namespace

NS_OBJECT_ENSURE_REGISTERED(IntHeader);

DataRate
IntRateOfCode(uint8_t code)
{
    return code < kIntRateCodes ? DataRate(static_cast<uint64_t>(kIntRatesGbps[code] * 1e9))
                                : DataRate(0);
}

uint8_t
IntRateCode(DataRate rate)
{
    for (uint8_t c = 1; c < kIntRateCodes; ++c)
    {
        if (static_cast<uint64_t>(kIntRatesGbps[c] * 1e9) == rate.GetBitRate())
        {
            return c;
        }
    }
    return 0;
}

IntHop
IntHop::Stamp(DataRate rate, Time now, uint64_t txBytes, uint64_t queueBytes)
{
    return Stamp(IntRateCode(rate), now, txBytes, queueBytes);
}

IntHop
IntHop::Stamp(uint8_t rateCode, Time now, uint64_t txBytes, uint64_t queueBytes)
{
    IntHop h;
    h.rateCode = rateCode;
    h.time = static_cast<uint32_t>(now.GetNanoSeconds() & ((1u << kIntTimeBits) - 1));
    h.bytes = static_cast<uint32_t>((txBytes / kIntBytesUnit) & ((1u << kIntBytesBits) - 1));
    h.qlen = static_cast<uint16_t>(
        std::min<uint64_t>(queueBytes / kIntQlenUnit, (1u << kIntQlenBits) - 1));
    return h;
}

uint64_t
IntHop::NanosSince(const IntHop& earlier) const
{
    return (time - earlier.time) & ((1u << kIntTimeBits) - 1);
}

uint64_t
IntHop::BytesSince(const IntHop& earlier) const
{
    return uint64_t((bytes - earlier.bytes) & ((1u << kIntBytesBits) - 1)) * kIntBytesUnit;
}

uint64_t
IntHop::Encode() const
{
    return uint64_t(rateCode & 0xF) << 60 | uint64_t(time & 0xFFFFFF) << 36 |
           uint64_t(bytes & 0xFFFFF) << 16 | qlen;
}

IntHop
IntHop::Decode(uint64_t word)
{
    IntHop h;
    h.rateCode = static_cast<uint8_t>(word >> 60);
    h.time = static_cast<uint32_t>(word >> 36) & 0xFFFFFF;
    h.bytes = static_cast<uint32_t>(word >> 16) & 0xFFFFF;
    h.qlen = static_cast<uint16_t>(word);
    return h;
}

namespace
{

void
WriteBe64(uint8_t* p, uint64_t v)
{
    for (int i = 7; i >= 0; --i)
    {
        p[i] = static_cast<uint8_t>(v);
        v >>= 8;
    }
}

uint64_t
ReadBe64(const uint8_t* p)
{
    uint64_t v = 0;
    for (int i = 0; i < 8; ++i)
    {
        v = v << 8 | p[i];
    }
    return v;
}

} // namespace

void
IntStack::Write(uint8_t* out) const
{
    out[0] = kIntVersion << 4;
    out[1] = kIntMaxHops;
    out[2] = hopCount;
    out[3] = 0;
    for (uint32_t i = 0; i < kIntMaxHops; ++i)
    {
        WriteBe64(out + kIntShimBytes + i * kIntHopBytes,
                  i < RecordedHops() ? hops[i].Encode() : 0);
    }
}

bool
IntStack::Read(const uint8_t* in)
{
    if (in[0] >> 4 != kIntVersion || in[1] != kIntMaxHops)
    {
        return false;
    }
    hopCount = in[2];
    for (uint32_t i = 0; i < kIntMaxHops; ++i)
    {
        hops[i] = i < RecordedHops()
                      ? IntHop::Decode(ReadBe64(in + kIntShimBytes + i * kIntHopBytes))
                      : IntHop();
    }
    return true;
}

void
PushIntHop(uint8_t* stack, const IntHop& hop)
{
    uint8_t count = stack[2];
    if (count < kIntMaxHops)
    {
        WriteBe64(stack + kIntShimBytes + count * kIntHopBytes, hop.Encode());
    }
    if (count < 0xFF)
    {
        stack[2] = count + 1;
    }
}

IntHeader::IntHeader(const IntStack& stack)
    : m_stack(stack)
{
}

TypeId
IntHeader::GetTypeId()
{
    static TypeId tid = TypeId("ns3::IntHeader")
                            .SetParent<Header>()
                            .SetGroupName("Fabric")
                            .AddConstructor<IntHeader>();
    return tid;
}

TypeId
IntHeader::GetInstanceTypeId() const
{
    return GetTypeId();
}

uint32_t
IntHeader::GetSerializedSize() const
{
    return kIntHeaderBytes;
}

void
IntHeader::Serialize(Buffer::Iterator start) const
{
    uint8_t b[kIntHeaderBytes];
    m_stack.Write(b);
    start.Write(b, kIntHeaderBytes);
}

uint32_t
IntHeader::Deserialize(Buffer::Iterator start)
{
    uint8_t b[kIntHeaderBytes];
    start.Read(b, kIntHeaderBytes);
    m_stack.Read(b);
    return kIntHeaderBytes;
}

void
IntHeader::Print(std::ostream& os) const
{
    os << "INT hops=" << unsigned(m_stack.hopCount);
    for (uint32_t i = 0; i < m_stack.RecordedHops(); ++i)
    {
        const IntHop& h = m_stack.hops[i];
        os << " [" << h.GetLineRate() << " t=" << h.time << " tx=" << h.bytes << " q=" << h.qlen
           << "]";
    }
}

} // namespace ns3
