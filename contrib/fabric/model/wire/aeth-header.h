#ifndef FABRIC_AETH_HEADER_H
#define FABRIC_AETH_HEADER_H

#include "ns3/header.h"

#include <cstdint>

namespace ns3
{

/**
 * \brief InfiniBand ACK Extended Transport Header, which follows the BTH of ACKs and READ
 * responses (see RoceOpcodeHasAeth()).
 *
 * Follows IBA vol. 1 section 9.3.5 (AETH). 4 bytes, big-endian:
 *
 * \verbatim
   byte 0      Syndrome: bit 7 reserved (0), bits 6-5 kind, bits 4-0 value
                 kind 00 ACK      value = credit count (0x1F: no end-to-end credits)
                 kind 01 RNR NAK  value = RNR timer code
                 kind 10 reserved
                 kind 11 NAK      value = NAK code (NakCode)
   bytes 1-3   MSN, message sequence number (24 bits)
   \endverbatim
 */
class AethHeader : public Header
{
  public:
    static constexpr uint32_t kSize = 4;             //!< serialized size in bytes
    static constexpr uint32_t kMsnMask = 0x00FFFFFF; //!< the MSN is 24 bits wide

    /// Error codes carried in a NAK syndrome's low five bits.
    enum NakCode : uint8_t
    {
        NAK_PSN_SEQUENCE_ERROR = 0,       //!< out-of-sequence request: go back to the ACKed PSN
        NAK_INVALID_REQUEST = 1,          //!< unsupported or malformed request
        NAK_REMOTE_ACCESS_ERROR = 2,      //!< R_Key or address check failed
        NAK_REMOTE_OPERATIONAL_ERROR = 3, //!< responder could not complete the request
        NAK_INVALID_RD_REQUEST = 4,       //!< invalid Reliable Datagram request
        /// Not in the IBTA specification (a reserved code): the packet with the NAK's PSN
        /// arrived trimmed (a switch cut its payload, NDP-style); resend that packet alone.
        NAK_TRIMMED = 5,
    };

    /**
     * \brief Get the type ID.
     * \return the object TypeId
     */
    static TypeId GetTypeId();

    /// An ACK with no end-to-end credits (syndrome 0x1F) and MSN 0.
    AethHeader();

    /**
     * \param credits the credit count, 0..31; 0x1F means "no end-to-end flow control", which
     *        is what RoCE NICs advertise
     * \return the syndrome of a positive acknowledgement
     */
    static uint8_t MakeAckSyndrome(uint8_t credits = 0x1F);

    /**
     * \param timer the RNR timer code, 0..31 (an index into IBA's table of delays)
     * \return the syndrome of a receiver-not-ready NAK
     */
    static uint8_t MakeRnrNakSyndrome(uint8_t timer);

    /**
     * \param code a NakCode
     * \return the syndrome of a NAK with that code
     */
    static uint8_t MakeNakSyndrome(uint8_t code);

    /// \param syndrome the raw syndrome byte (see the Make*Syndrome helpers)
    void SetSyndrome(uint8_t syndrome);
    /// \return the raw syndrome byte
    uint8_t GetSyndrome() const;

    /// \param msn the message sequence number; bits above 24 are dropped
    void SetMsn(uint32_t msn);
    /// \return the 24-bit message sequence number
    uint32_t GetMsn() const;

    /// \return true if the syndrome is a positive ACK
    bool IsAck() const;
    /// \return true if the syndrome is a receiver-not-ready NAK
    bool IsRnrNak() const;
    /// \return true if the syndrome is a NAK (not counting RNR NAKs, which have their own kind)
    bool IsNak() const;
    /// \return the credit count of an ACK
    uint8_t GetCreditCount() const;
    /// \return the timer code of an RNR NAK
    uint8_t GetRnrTimer() const;
    /// \return the NakCode of a NAK
    uint8_t GetNakCode() const;

    TypeId GetInstanceTypeId() const override;
    void Print(std::ostream& os) const override;
    uint32_t GetSerializedSize() const override;
    void Serialize(Buffer::Iterator start) const override;
    uint32_t Deserialize(Buffer::Iterator start) override;

  private:
    uint8_t m_syndrome; //!< Syndrome
    uint32_t m_msn;     //!< MSN, 24 bits
};

} // namespace ns3

#endif // FABRIC_AETH_HEADER_H
