#ifndef FABRIC_CNP_PADDING_HEADER_H
#define FABRIC_CNP_PADDING_HEADER_H

#include "ns3/header.h"

#include <cstdint>

namespace ns3
{

/**
 * \brief The 16 reserved bytes that follow the BTH of a RoCEv2 Congestion Notification Packet.
 *
 * Follows the RoCEv2 annex (IBA vol. 1 annex A17): a CNP is Ethernet / IPv4 / UDP 4791 /
 * BTH (opcode 0x81, BECN set, DestQP = the QP to slow down) / 16 reserved bytes / ICRC.
 *
 * \verbatim
   bytes 0-15  reserved, transmitted as zero and ignored on receipt
   \endverbatim
 *
 * The padding carries no information; it exists so a CNP has the size real NICs send and
 * so it occupies the same wire time and buffer space in the simulation.
 */
class CnpPaddingHeader : public Header
{
  public:
    static constexpr uint32_t kSize = 16; //!< serialized size in bytes

    /**
     * \brief Get the type ID.
     * \return the object TypeId
     */
    static TypeId GetTypeId();

    CnpPaddingHeader() = default;

    TypeId GetInstanceTypeId() const override;
    void Print(std::ostream& os) const override;
    uint32_t GetSerializedSize() const override;
    void Serialize(Buffer::Iterator start) const override;
    uint32_t Deserialize(Buffer::Iterator start) override;
};

} // namespace ns3

#endif // FABRIC_CNP_PADDING_HEADER_H
