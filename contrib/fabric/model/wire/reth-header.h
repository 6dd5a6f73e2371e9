#ifndef FABRIC_RETH_HEADER_H
#define FABRIC_RETH_HEADER_H

#include "ns3/header.h"

#include <cstdint>

namespace ns3
{

/**
 * \brief InfiniBand RDMA Extended Transport Header: names the remote buffer of an RDMA WRITE
 * (first or only packet) or RDMA READ request (see RoceOpcodeHasReth()).
 *
 * Follows IBA vol. 1 section 9.3.3 (RETH). 16 bytes, big-endian:
 *
 * \verbatim
   bytes 0-7    VA, virtual address of the remote buffer
   bytes 8-11   R_Key, remote key authorizing the access
   bytes 12-15  DMALen, length of the whole transfer in bytes (not of this packet)
   \endverbatim
 */
class RethHeader : public Header
{
  public:
    static constexpr uint32_t kSize = 16; //!< serialized size in bytes

    /**
     * \brief Get the type ID.
     * \return the object TypeId
     */
    static TypeId GetTypeId();

    /// All fields zero.
    RethHeader();

    /// \param va the remote virtual address
    void SetVirtualAddress(uint64_t va);
    /// \return the remote virtual address
    uint64_t GetVirtualAddress() const;

    /// \param rkey the remote key
    void SetRemoteKey(uint32_t rkey);
    /// \return the remote key
    uint32_t GetRemoteKey() const;

    /// \param length the DMA length of the whole message in bytes
    void SetDmaLength(uint32_t length);
    /// \return the DMA length in bytes
    uint32_t GetDmaLength() const;

    TypeId GetInstanceTypeId() const override;
    void Print(std::ostream& os) const override;
    uint32_t GetSerializedSize() const override;
    void Serialize(Buffer::Iterator start) const override;
    uint32_t Deserialize(Buffer::Iterator start) override;

  private:
    uint64_t m_virtualAddress; //!< VA
    uint32_t m_remoteKey;      //!< R_Key
    uint32_t m_dmaLength;      //!< DMALen
};

} // namespace ns3

#endif // FABRIC_RETH_HEADER_H
