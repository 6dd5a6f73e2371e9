#ifndef FABRIC_TESTS_WIRE_TEST_UTIL_H
#define FABRIC_TESTS_WIRE_TEST_UTIL_H

#include "ns3/header.h"
#include "ns3/packet.h"

#include <cstdint>
#include <gtest/gtest.h>
#include <vector>

namespace ns3
{
namespace wiretest
{

using Bytes = std::vector<uint8_t>;

/// The bytes a packet would put on the wire.
inline Bytes
PacketBytes(Ptr<const Packet> packet)
{
    Bytes bytes(packet->GetSize());
    packet->CopyData(bytes.data(), bytes.size());
    return bytes;
}

/// The bytes one header serializes to.
inline Bytes
HeaderBytes(const Header& header)
{
    Ptr<Packet> packet = Create<Packet>();
    packet->AddHeader(header);
    return PacketBytes(packet);
}

/// A packet holding exactly the given bytes, ready for RemoveHeader.
inline Ptr<Packet>
PacketFromBytes(const Bytes& bytes)
{
    return Create<Packet>(bytes.data(), bytes.size());
}

/**
 * Serialize a header, deserialize it into a fresh object and check that Deserialize
 * consumed exactly GetSerializedSize() bytes. Returns the copy for field comparisons.
 */
template <typename H>
H
RoundTrip(const H& header)
{
    Ptr<Packet> packet = Create<Packet>();
    packet->AddHeader(header);
    EXPECT_EQ(packet->GetSize(), header.GetSerializedSize());
    H copy;
    uint32_t read = packet->RemoveHeader(copy);
    EXPECT_EQ(read, header.GetSerializedSize());
    EXPECT_EQ(packet->GetSize(), 0u);
    return copy;
}

} // namespace wiretest
} // namespace ns3

#endif // FABRIC_TESTS_WIRE_TEST_UTIL_H
