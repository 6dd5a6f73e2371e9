#ifndef FABRIC_PFC_PAUSE_HEADER_H
#define FABRIC_PFC_PAUSE_HEADER_H

#include "ns3/data-rate.h"
#include "ns3/header.h"
#include "ns3/mac48-address.h"
#include "ns3/nstime.h"

#include <array>
#include <cstdint>

namespace ns3
{

/**
 * \brief Priority-based Flow Control (PFC) pause frame payload.
 *
 * Follows IEEE 802.1Qbb (PFC, 802.1Q clause 36) with the frame format of IEEE 802.3 Annex 31D,
 * the priority-based variant of the Annex 31B PAUSE frame. It is the MAC Control payload that
 * follows an Ethernet header with destination 01:80:C2:00:00:01 and EtherType 0x8808; all
 * fields are big-endian:
 *
 * \verbatim
   offset  size  field
        0     2  MAC Control opcode, 0x0101 (PFC)
        2     2  priority-enable vector: high octet reserved (zero), bit i of the low octet
                 means "timer i is valid" for priority i
        4    16  time[0..7]: pause time per priority, in quanta of 512 bit times
       20    26  reserved, transmitted as zero (pads the payload to 46 bytes)
   \endverbatim
 *
 * 46 bytes is the minimum Ethernet payload, so the frame is 60 bytes without FCS (64 with).
 * A priority whose enable bit is set with a zero timer means "resume now" (XON).
 */
class PfcPauseHeader : public Header
{
  public:
    static constexpr uint16_t kEtherType = 0x8808;   //!< MAC Control EtherType
    static constexpr uint16_t kOpcode = 0x0101;      //!< MAC Control opcode of PFC
    static constexpr uint8_t kNumPriorities = 8;     //!< 802.1p priorities covered by a frame
    static constexpr uint32_t kBitsPerQuantum = 512; //!< length of one pause quantum in bit times
    static constexpr uint32_t kPayloadSize = 46;     //!< serialized size, including the padding

    /**
     * \brief Get the type ID.
     * \return the object TypeId
     */
    static TypeId GetTypeId();

    /// Creates a valid PFC payload (opcode 0x0101) that pauses no priority.
    PfcPauseHeader();

    /**
     * \return the reserved multicast address PFC frames are sent to (01:80:C2:00:00:01);
     *         802.1D bridges never forward it, so a pause only reaches the link peer.
     */
    static Mac48Address DestinationAddress();

    /**
     * \brief Convert pause quanta to time on a link of the given rate.
     * \param quanta pause time in quanta of 512 bit times
     * \param rate the link's data rate
     * \return the pause duration
     */
    static Time QuantaToTime(uint16_t quanta, const DataRate& rate);

    /**
     * \brief Set the pause time of one priority and mark it enabled.
     * \param priority the priority, 0..7
     * \param quanta the pause time in quanta of 512 bit times; 0 resumes the priority
     */
    void SetPauseQuanta(uint8_t priority, uint16_t quanta);

    /**
     * \param priority the priority, 0..7
     * \return the pause time of that priority in quanta (meaningful only if IsEnabled())
     */
    uint16_t GetPauseQuanta(uint8_t priority) const;

    /**
     * \param priority the priority, 0..7
     * \return true if the frame carries a valid timer for that priority
     */
    bool IsEnabled(uint8_t priority) const;

    /**
     * \brief Set the whole priority-enable vector.
     * \param vector bit i enables priority i; the reserved high octet is cleared
     */
    void SetClassEnableVector(uint16_t vector);

    /// \return the priority-enable vector as carried on the wire
    uint16_t GetClassEnableVector() const;

    /// \return the MAC Control opcode (0x0101 unless a different frame was deserialized)
    uint16_t GetOpcode() const;

    /**
     * \return true if the opcode is PFC's. A MAC Control frame with another opcode (for
     *         example 802.3x PAUSE, 0x0001) deserializes without error but must not be acted on.
     */
    bool IsValid() const;

    TypeId GetInstanceTypeId() const override;
    void Print(std::ostream& os) const override;
    uint32_t GetSerializedSize() const override;
    void Serialize(Buffer::Iterator start) const override;
    uint32_t Deserialize(Buffer::Iterator start) override;

  private:
    uint16_t m_opcode;                               //!< MAC Control opcode
    uint16_t m_classEnableVector;                    //!< priority-enable vector
    std::array<uint16_t, kNumPriorities> m_quanta{}; //!< pause time per priority
};

} // namespace ns3

#endif // FABRIC_PFC_PAUSE_HEADER_H
