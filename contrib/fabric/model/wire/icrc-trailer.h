#ifndef FABRIC_ICRC_TRAILER_H
#define FABRIC_ICRC_TRAILER_H

#include "ns3/ptr.h"
#include "ns3/trailer.h"

#include <cstdint>

namespace ns3
{

class Packet;

/// Bytes of the ICRC that ends every RoCEv2 and Unified Bus frame.
constexpr uint32_t kIcrcBytes = 4;

/**
 * \brief The 4-byte Invariant CRC that ends every RoCEv2 packet (after the payload, before the
 * Ethernet FCS).
 *
 * Follows IBA vol. 1 section 7.8.1 (ICRC) as adapted by the RoCEv2 annex (A17):
 *
 * \verbatim
   bytes 0-3  ICRC: CRC-32 (the Ethernet polynomial), sent least-significant byte first
   \endverbatim
 *
 * The value is stored as the CRC-32 number itself and serialized least-significant byte first,
 * the byte order of the Ethernet FCS. Wireshark prints the four bytes as a big-endian number,
 * so it shows the stored value byte-swapped.
 *
 * The default value is 0: nothing in the model checks the ICRC, and computing it costs a copy
 * of and a pass over every payload byte. ComputeIcrc() is there for pcaps meant to be checked
 * by external tools, and for tests; it is deliberately not called per packet.
 */
class IcrcTrailer : public Trailer
{
  public:
    static constexpr uint32_t kSize = kIcrcBytes; //!< serialized size in bytes

    /**
     * \brief Get the type ID.
     * \return the object TypeId
     */
    static TypeId GetTypeId();

    /// An ICRC of 0.
    IcrcTrailer();

    /**
     * \param icrc the CRC-32 value, as returned by ComputeIcrc()
     */
    explicit IcrcTrailer(uint32_t icrc);

    /// \param icrc the CRC-32 value, as returned by ComputeIcrc()
    void SetIcrc(uint32_t icrc);
    /// \return the CRC-32 value
    uint32_t GetIcrc() const;

    /**
     * \brief Compute the RoCEv2 ICRC of an IPv4 datagram.
     *
     * The CRC covers 8 bytes of 0xFF standing in for InfiniBand's LRH, then the datagram from
     * the IPv4 header through the end of the payload, with the fields routers may change
     * replaced by ones: IPv4 TOS (DSCP/ECN), TTL and header checksum, UDP checksum, and BTH
     * byte 4 (FECN, BECN, reserved).
     *
     * \param datagram the bytes from the IPv4 header through the end of the IB payload (ICRC
     *        excluded); the IPv4 total length and UDP length inside must count the 4 ICRC bytes,
     *        as they do on the wire
     * \param length the number of bytes at datagram
     * \return the CRC-32 value to store with SetIcrc()
     */
    static uint32_t ComputeIcrc(const uint8_t* datagram, uint32_t length);

    /**
     * \brief Compute the RoCEv2 ICRC of an IPv4 datagram held in a packet.
     *
     * Build the packet with a placeholder IcrcTrailer so the IPv4 and UDP lengths come out
     * right, compute, then replace the trailer (RemoveTrailer / SetIcrc / AddTrailer does not
     * disturb the headers already serialized).
     *
     * \param datagram the packet from the IPv4 header through the (placeholder) ICRC trailer;
     *        its last 4 bytes are not covered
     * \return the CRC-32 value to store with SetIcrc()
     */
    static uint32_t ComputeIcrc(Ptr<const Packet> datagram);

    TypeId GetInstanceTypeId() const override;
    void Print(std::ostream& os) const override;
    uint32_t GetSerializedSize() const override;
    void Serialize(Buffer::Iterator end) const override;
    uint32_t Deserialize(Buffer::Iterator end) override;

  private:
    uint32_t m_icrc; //!< the CRC-32 value
};

/**
 * \brief A frame's payload of \p payloadBytes followed by an ICRC of 0, as one zero-filled
 * packet: the same bytes as Create<Packet>(payloadBytes) with an IcrcTrailer() appended, but no
 * real bytes at all. Appending a trailer to a packet whose bytes are all virtual reallocates its
 * buffer (and adding the headers then reallocates it again); the ICRC of 0 is just four more
 * zeros, so it stays virtual. The simulator carries no application bytes, so payloads are zeros.
 */
Ptr<Packet> ZeroPayloadWithIcrc(uint32_t payloadBytes);

} // namespace ns3

#endif // FABRIC_ICRC_TRAILER_H
