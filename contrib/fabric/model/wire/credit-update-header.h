#ifndef FABRIC_CREDIT_UPDATE_HEADER_H
#define FABRIC_CREDIT_UPDATE_HEADER_H

#include "ns3/header.h"
#include "ns3/mac48-address.h"

#include <array>
#include <cstdint>

namespace ns3
{

/**
 * \brief Payload of a link-level credit frame of credit-based flow control (CBFC).
 *
 * Credit-based flow control (the Unified Bus link layer's CBFC, InfiniBand's link-level flow
 * control) lets a port send a frame of a virtual lane (here: a priority) only while it holds
 * credits for it; the receiver returns credits as frames leave its buffer. No standard Ethernet
 * frame carries them, so the simulator sends them as a link-local Ethernet frame with the IEEE
 * 802 Local Experimental EtherType 0x88B5 to 01:80:C2:00:00:0E (a reserved address bridges do
 * not forward: credits concern one link). Wireshark shows the frame as Ethernet II with
 * "Local Experimental Ethertype 1" and the payload as data; the layout, big-endian:
 *
 * \verbatim
   offset  size  field
        0     1  kind: 1 UPDATE (credits returned since the last frame, per lane)
                       2 SYNC   (absolute: all credits ever returned, modulo 2^32, per lane)
                       3 REQUEST (the sender asks for a SYNC: it is blocked and may have
                                  lost credits; carries no counts)
        1     1  lane mask: bit i set = the count of lane i is valid
        2     2  reserved, zero
        4    32  count[0..7]: credits (cells) per lane, uint32
       36    10  reserved, zero (pads the payload to the 46-byte Ethernet minimum)
   \endverbatim
 *
 * The frame is 60 bytes without FCS, like a PFC frame, and costs the same wire time.
 */
class CreditUpdateHeader : public Header
{
  public:
    static constexpr uint16_t kEtherType = 0x88B5; //!< IEEE 802 Local Experimental 1
    static constexpr uint8_t kNumLanes = 8;        //!< one lane per 802.1p priority
    static constexpr uint32_t kPayloadSize = 46;   //!< serialized size, with the padding

    enum Kind : uint8_t
    {
        UPDATE = 1,
        SYNC = 2,
        REQUEST = 3
    };

    static TypeId GetTypeId();
    CreditUpdateHeader();

    /// The link-local destination of credit frames (01:80:C2:00:00:0E).
    static Mac48Address DestinationAddress();

    void SetKind(Kind kind)
    {
        m_kind = kind;
    }

    Kind GetKind() const
    {
        return static_cast<Kind>(m_kind);
    }

    /// Sets the count of one lane and marks it valid.
    void SetCount(uint8_t lane, uint32_t credits);
    uint32_t GetCount(uint8_t lane) const;
    bool HasLane(uint8_t lane) const;

    uint8_t GetLaneMask() const
    {
        return m_laneMask;
    }

    /// Whether the kind is one this simulator knows (1..3).
    bool IsValid() const;

    TypeId GetInstanceTypeId() const override;
    void Print(std::ostream& os) const override;
    uint32_t GetSerializedSize() const override;
    void Serialize(Buffer::Iterator start) const override;
    uint32_t Deserialize(Buffer::Iterator start) override;

  private:
    uint8_t m_kind;
    uint8_t m_laneMask;
    std::array<uint32_t, kNumLanes> m_counts{};
};

} // namespace ns3

#endif // FABRIC_CREDIT_UPDATE_HEADER_H
