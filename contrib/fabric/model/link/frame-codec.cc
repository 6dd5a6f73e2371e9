#include "frame-codec.h"

#include "wire/ethernet-ipv4-udp.h"

#include "ns3/ethernet-header.h"
#include "ns3/fatal-error.h"

#include <cstring>

namespace ns3
{

namespace
{

/// A header made of given bytes: how RewriteFrameFront puts an edited front back.
class FrontBytesHeader : public Header
{
  public:
    static constexpr uint32_t kMaxBytes = 128;

    FrontBytesHeader(const uint8_t* bytes, uint32_t count)
        : m_count(count)
    {
        std::memcpy(m_bytes, bytes, count);
    }

    static TypeId GetTypeId()
    {
        static TypeId tid =
            TypeId("ns3::FrontBytesHeader").SetParent<Header>().SetGroupName("Fabric");
        return tid;
    }

    TypeId GetInstanceTypeId() const override
    {
        return GetTypeId();
    }

    uint32_t GetSerializedSize() const override
    {
        return m_count;
    }

    void Serialize(Buffer::Iterator start) const override
    {
        start.Write(m_bytes, m_count);
    }

    uint32_t Deserialize(Buffer::Iterator start) override
    {
        start.Read(m_bytes, m_count);
        return m_count;
    }

    void Print(std::ostream& os) const override
    {
        os << m_count << " bytes";
    }

  private:
    uint32_t m_count;
    uint8_t m_bytes[kMaxBytes];
};

/// Applies \p edit to the IPv4 header of an Ethernet/IPv4 \p frame and writes the header
/// checksum again: the one way a switch rewrites an IPv4 field (ECN, DSCP, identification).
template <typename Edit>
void
EditIpv4Header(Packet& frame, Edit edit)
{
    uint8_t front[kEthernetHeaderBytes + kIpv4HeaderBytes];
    if (frame.CopyData(front, sizeof front) < sizeof front)
    {
        return;
    }
    uint8_t* ip = front + kEthernetHeaderBytes;
    edit(ip);
    WriteIpv4Checksum(ip);
    RewriteFrameFront(frame, front, sizeof front);
}

/// Writes \p dscp into the TOS byte of the IPv4 header at \p ip, keeping its ECN bits.
void
WriteDscp(uint8_t* ip, uint8_t dscp)
{
    ip[1] = static_cast<uint8_t>((dscp << 2) | (ip[1] & 0x3));
}

/// Ethernet + IPv4 (no options) + UDP: where a transport header starts.
constexpr uint32_t kTransportOffset = kEthernetHeaderBytes + kIpv4HeaderBytes + kUdpHeaderBytes;

/// One registered view. Plain data, constant-initialized, so that views may register from any
/// static initializer of the library, in any order.
struct TransportViewSlot
{
    TransportViewParser parse;
    uint16_t udpPort;
    uint8_t id;
    TelemetryLocator locate; ///< null: the transport carries no telemetry
};

/// The views in registration order. ParseFrame compares the frame's port with each in turn:
/// with a few views that takes fewer instructions per frame than a table indexed by port bits
/// (measured with callgrind on examples/incast.yaml and examples/spray-vs-ecmp.yaml).
struct TransportViewTable
{
    TransportViewSlot slots[kMaxTransportViews];
    uint32_t count;
    /// Bytes ParseFrame copies: up to the end of the longest registered view.
    uint32_t copyBytes;
};

TransportViewTable g_views = {{}, 0, kTransportOffset};
} // namespace

void
RegisterTransportView(uint16_t udpPort, TransportViewParser parse, uint32_t bytesNeeded, uint8_t id)
{
    if (id == kNoTransport || !parse)
    {
        NS_FATAL_ERROR("transport view for UDP port " << udpPort << ": needs a parser and an id "
                                                      << "other than " << +kNoTransport);
    }
    if (bytesNeeded > kMaxTransportViewBytes)
    {
        NS_FATAL_ERROR("transport view " << +id << " (UDP port " << udpPort << ") reads "
                                         << bytesNeeded << " bytes, more than the "
                                         << kMaxTransportViewBytes << " ParseFrame copies");
    }
    for (uint32_t i = 0; i < g_views.count; ++i)
    {
        const TransportViewSlot& v = g_views.slots[i];
        if (v.udpPort == udpPort || v.id == id)
        {
            NS_FATAL_ERROR("transport view " << +id << " (UDP port " << udpPort
                                             << ") clashes with view " << +v.id << " (UDP port "
                                             << v.udpPort << ")");
        }
    }
    if (g_views.count == kMaxTransportViews)
    {
        NS_FATAL_ERROR("transport view " << +id << " (UDP port " << udpPort << "): more than "
                                         << kMaxTransportViews << " views");
    }
    g_views.slots[g_views.count++] = {parse, udpPort, id, nullptr};
    if (kTransportOffset + bytesNeeded > g_views.copyBytes)
    {
        g_views.copyBytes = kTransportOffset + bytesNeeded;
    }
}

void
RegisterTelemetryLocator(uint8_t id, TelemetryLocator locate)
{
    for (uint32_t i = 0; i < g_views.count; ++i)
    {
        if (g_views.slots[i].id == id)
        {
            g_views.slots[i].locate = locate;
            return;
        }
    }
    NS_FATAL_ERROR("telemetry locator for transport view " << +id << ": no such view");
}

uint32_t
TelemetryOffset(const FrameInfo& info)
{
    for (uint32_t i = 0; i < g_views.count; ++i)
    {
        const TransportViewSlot& v = g_views.slots[i];
        if (v.id == info.transport)
        {
            return v.locate ? v.locate(info) : 0;
        }
    }
    return 0;
}

bool
ParseFrame(const Ptr<const Packet>& frame, FrameInfo* info)
{
    uint8_t b[kTransportOffset + kMaxTransportViewBytes];
    uint32_t size = frame->GetSize();
    info->frameBytes = size;
    uint32_t want = g_views.copyBytes;
    uint32_t n = frame->CopyData(b, size < want ? size : want);
    if (n < kEthernetHeaderBytes)
    {
        return false;
    }
    info->etherType = ReadBe16(b + 12);
    info->transport = kNoTransport;
    info->entropyOnlyHash = false;
    if (info->etherType != 0x0800)
    {
        return true;
    }
    if (n < kTransportOffset)
    {
        return false;
    }
    const uint8_t* ip = b + kEthernetHeaderBytes;
    uint8_t tos = ip[1];
    info->priority = static_cast<uint8_t>((tos >> 2) >> 3);
    info->ecn = tos & 0x3;
    info->trimmed = ((tos >> 2) & 0x7) == kTrimmedDscpCode;
    info->protocol = ip[9];
    info->srcIp = ReadBe32(ip + 12);
    info->dstIp = ReadBe32(ip + 16);
    const uint8_t* udp = ip + kIpv4HeaderBytes;
    info->srcPort = ReadBe16(udp);
    info->dstPort = ReadBe16(udp + 2);
    if (info->protocol == 17)
    {
        for (uint32_t i = 0; i < g_views.count; ++i)
        {
            const TransportViewSlot& v = g_views.slots[i];
            if (v.udpPort == info->dstPort)
            {
                if (v.parse(udp + kUdpHeaderBytes, n - kTransportOffset, info))
                {
                    info->transport = v.id;
                }
                break;
            }
        }
    }
    return true;
}

uint16_t
ReadIpv4Identification(const Ptr<const Packet>& frame)
{
    uint8_t b[kEthernetHeaderBytes + 6];
    if (frame->CopyData(b, sizeof b) < sizeof b)
    {
        return 0;
    }
    return ReadBe16(b + kEthernetHeaderBytes + 4);
}

void
WriteIpv4Identification(Ptr<Packet> frame, uint16_t id)
{
    EditIpv4Header(*frame, [id](uint8_t* ip) {
        ip[4] = static_cast<uint8_t>(id >> 8);
        ip[5] = static_cast<uint8_t>(id);
    });
}

Ptr<Packet>
TrimFrame(const Ptr<Packet>& frame, uint32_t keepBytes, uint8_t priority)
{
    Ptr<Packet> cut = frame->CreateFragment(0, keepBytes);
    const uint16_t totalLength = static_cast<uint16_t>(cut->GetSize() - kEthernetHeaderBytes);
    EditIpv4Header(*cut, [priority, totalLength](uint8_t* ip) {
        WriteDscp(ip, static_cast<uint8_t>((priority << 3) | kTrimmedDscpCode));
        ip[2] = static_cast<uint8_t>(totalLength >> 8);
        ip[3] = static_cast<uint8_t>(totalLength);
    });
    return cut;
}

void
RewriteFrameFront(Packet& frame, const uint8_t* bytes, uint32_t count)
{
    NS_ASSERT(count <= FrontBytesHeader::kMaxBytes);
    frame.RemoveAtStart(count);
    frame.AddHeader(FrontBytesHeader(bytes, count));
}

void
MarkCongestionExperienced(Ptr<Packet> frame)
{
    EditIpv4Header(*frame, [](uint8_t* ip) { ip[1] |= 0x3; }); // ECN field = CE (RFC 3168)
}

void
SetFramePriority(Ptr<Packet> frame, uint8_t priority)
{
    EditIpv4Header(*frame,
                   [priority](uint8_t* ip) { WriteDscp(ip, static_cast<uint8_t>(priority << 3)); });
}

} // namespace ns3
