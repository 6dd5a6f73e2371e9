#ifndef FABRIC_BTH_HEADER_H
#define FABRIC_BTH_HEADER_H

#include "ns3/header.h"

#include <cstdint>

namespace ns3
{

/// UDP destination port IANA assigned to RoCEv2; Wireshark decodes it as InfiniBand.
constexpr uint16_t kRoceV2UdpPort = 4791;

/**
 * BTH opcodes of the Reliable Connected transport (IBA vol. 1 ch. 9: opcode bits 7-5 select
 * the transport, 000 for RC, bits 4-0 the operation), plus the Congestion Notification Packet
 * of the RoCEv2 annex (A17), opcode 0x81.
 */
namespace RoceOpcode
{
constexpr uint8_t SEND_FIRST = 0x00;
constexpr uint8_t SEND_MIDDLE = 0x01;
constexpr uint8_t SEND_LAST = 0x02;
constexpr uint8_t SEND_LAST_WITH_IMMEDIATE = 0x03;
constexpr uint8_t SEND_ONLY = 0x04;
constexpr uint8_t SEND_ONLY_WITH_IMMEDIATE = 0x05;
constexpr uint8_t RDMA_WRITE_FIRST = 0x06;
constexpr uint8_t RDMA_WRITE_MIDDLE = 0x07;
constexpr uint8_t RDMA_WRITE_LAST = 0x08;
constexpr uint8_t RDMA_WRITE_LAST_WITH_IMMEDIATE = 0x09;
constexpr uint8_t RDMA_WRITE_ONLY = 0x0A;
constexpr uint8_t RDMA_WRITE_ONLY_WITH_IMMEDIATE = 0x0B;
constexpr uint8_t RDMA_READ_REQUEST = 0x0C;
constexpr uint8_t RDMA_READ_RESPONSE_FIRST = 0x0D;
constexpr uint8_t RDMA_READ_RESPONSE_MIDDLE = 0x0E;
constexpr uint8_t RDMA_READ_RESPONSE_LAST = 0x0F;
constexpr uint8_t RDMA_READ_RESPONSE_ONLY = 0x10;
constexpr uint8_t ACKNOWLEDGE = 0x11;
constexpr uint8_t ATOMIC_ACKNOWLEDGE = 0x12;
constexpr uint8_t CNP = 0x81;
} // namespace RoceOpcode

/**
 * \param opcode an RC BTH opcode
 * \return true if a RETH follows the BTH: the first (or only) packet of an RDMA WRITE, which
 *         names the target buffer, and an RDMA READ request (IBA vol. 1 ch. 9)
 */
constexpr bool
RoceOpcodeHasReth(uint8_t opcode)
{
    return opcode == RoceOpcode::RDMA_WRITE_FIRST || opcode == RoceOpcode::RDMA_WRITE_ONLY ||
           opcode == RoceOpcode::RDMA_WRITE_ONLY_WITH_IMMEDIATE ||
           opcode == RoceOpcode::RDMA_READ_REQUEST;
}

/**
 * \param opcode an RC BTH opcode
 * \return true if an AETH follows the BTH: ACKs and the READ responses that carry an ACK
 *         (first, last, only; a middle response carries none), IBA vol. 1 ch. 9
 */
constexpr bool
RoceOpcodeHasAeth(uint8_t opcode)
{
    return opcode == RoceOpcode::ACKNOWLEDGE || opcode == RoceOpcode::ATOMIC_ACKNOWLEDGE ||
           opcode == RoceOpcode::RDMA_READ_RESPONSE_FIRST ||
           opcode == RoceOpcode::RDMA_READ_RESPONSE_LAST ||
           opcode == RoceOpcode::RDMA_READ_RESPONSE_ONLY;
}

/**
 * \brief InfiniBand Base Transport Header as carried by RoCEv2 (after UDP port 4791).
 *
 * Follows IBA vol. 1 section 9.2 (BTH) with the FECN/BECN bits of the congestion-control
 * annex, which RoCEv2 (annex A17) uses for CNPs. 12 bytes, big-endian:
 *
 * \verbatim
   byte 0      OpCode
   byte 1      bit 7 SE (solicited event), bit 6 M (MigReq), bits 5-4 PadCnt, bits 3-0 TVer (0)
   bytes 2-3   P_Key (default 0xFFFF, the full-membership default partition)
   byte 4      bit 7 FECN, bit 6 BECN, bits 5-0 reserved (0)
   bytes 5-7   DestQP (24 bits)
   byte 8      bit 7 A (AckReq), bits 6-0 reserved (0)
   bytes 9-11  PSN (24 bits)
   \endverbatim
 *
 * QP numbers and PSNs are 24-bit on the wire; the setters mask, so callers may let a
 * 32-bit counter run and the header wraps it modulo 2^24.
 */
class BthHeader : public Header
{
  public:
    static constexpr uint32_t kSize = 12;           //!< serialized size in bytes
    static constexpr uint32_t kMask24 = 0x00FFFFFF; //!< mask of the 24-bit QP and PSN fields
    static constexpr uint16_t kDefaultPartitionKey = 0xFFFF; //!< default P_Key

    /**
     * \brief Get the type ID.
     * \return the object TypeId
     */
    static TypeId GetTypeId();

    /// All fields zero except the P_Key, which is kDefaultPartitionKey.
    BthHeader();

    /// \param opcode the BTH opcode (see RoceOpcode)
    void SetOpcode(uint8_t opcode);
    /// \return the BTH opcode
    uint8_t GetOpcode() const;

    /// \param se true to ask the responder to raise a solicited completion event
    void SetSolicitedEvent(bool se);
    /// \return the solicited-event bit
    bool GetSolicitedEvent() const;

    /// \param migReq the path-migration state bit
    void SetMigReq(bool migReq);
    /// \return the path-migration state bit
    bool GetMigReq() const;

    /// \param padCount payload pad bytes (0..3) that align the payload to 4 bytes
    void SetPadCount(uint8_t padCount);
    /// \return the payload pad count
    uint8_t GetPadCount() const;

    /// \param pkey the partition key
    void SetPartitionKey(uint16_t pkey);
    /// \return the partition key
    uint16_t GetPartitionKey() const;

    /// \param fecn forward explicit congestion notification (RoCEv2 leaves it to IP ECN)
    void SetFecn(bool fecn);
    /// \return the FECN bit
    bool GetFecn() const;

    /// \param becn backward explicit congestion notification (set in CNPs)
    void SetBecn(bool becn);
    /// \return the BECN bit
    bool GetBecn() const;

    /// \param qp the destination queue pair number; bits above 24 are dropped
    void SetDestQp(uint32_t qp);
    /// \return the 24-bit destination queue pair number
    uint32_t GetDestQp() const;

    /// \param ackReq true to ask the responder for an acknowledgement of this packet
    void SetAckRequest(bool ackReq);
    /// \return the AckReq bit
    bool GetAckRequest() const;

    /// \param psn the packet sequence number; bits above 24 are dropped (wraps modulo 2^24)
    void SetPsn(uint32_t psn);
    /// \return the 24-bit packet sequence number
    uint32_t GetPsn() const;

    TypeId GetInstanceTypeId() const override;
    void Print(std::ostream& os) const override;
    uint32_t GetSerializedSize() const override;
    void Serialize(Buffer::Iterator start) const override;
    uint32_t Deserialize(Buffer::Iterator start) override;

  private:
    uint8_t m_opcode;   //!< OpCode
    bool m_solicited;   //!< SE
    bool m_migReq;      //!< M
    uint8_t m_padCount; //!< PadCnt, 2 bits
    uint16_t m_pkey;    //!< P_Key
    bool m_fecn;        //!< FECN
    bool m_becn;        //!< BECN
    uint32_t m_destQp;  //!< DestQP, 24 bits
    bool m_ackReq;      //!< A
    uint32_t m_psn;     //!< PSN, 24 bits
};

} // namespace ns3

#endif // FABRIC_BTH_HEADER_H
