#ifndef FABRIC_INT_HEADER_H
#define FABRIC_INT_HEADER_H

#include "ns3/data-rate.h"
#include "ns3/header.h"
#include "ns3/nstime.h"

#include <cstdint>

namespace ns3
{

class Packet;

/**
 * \file
 * In-band network telemetry (INT) as HPCC carries it: every switch egress port a data packet
 * leaves by appends 8 bytes describing that port (Li et al., "HPCC: High Precision Congestion
 * Control", SIGCOMM 2019, §4.1 and Figure 5: queue length, transmitted bytes, timestamp and
 * link bandwidth per hop, at most 5 hops). The receiver copies the stack into its ACK.
 *
 * Wire layout (docs/models.md#int-wire-layout), 44 bytes, big-endian, reserved in full by the
 * sender so that the frame's size never changes on its way:
 *
 * \verbatim
   byte 0      version (4 bits, 1) | reserved (4 bits, 0)
   byte 1      hop slots reserved (kIntMaxHops)
   byte 2      hop count: hops that stamped the packet (may exceed the slots: only the first
               kIntMaxHops are recorded, and a receiver then knows the path is longer)
   byte 3      reserved (0)
   bytes 4-43  kIntMaxHops records of 8 bytes, hop 0 first (the sender's first switch):
               bits 63-60  link rate code (IntRateCode)
               bits 59-36  egress timestamp, ns modulo 2^24
               bits 35-16  bytes the port has transmitted, in 128-byte units modulo 2^20
               bits 15-0   the port's queue length, in 256-byte units (saturates at 0xFFFF)
   \endverbatim
 *
 * In a RoCEv2 frame the stack follows the BTH's extension headers (RETH, AETH) and precedes the
 * payload; the BTH byte 4 bit 0x20, reserved in RoCEv2, says it is there (RoceHasInt,
 * wire/roce-header-view.h).
 */

constexpr uint32_t kIntMaxHops = 5;
constexpr uint32_t kIntShimBytes = 4;
constexpr uint32_t kIntHopBytes = 8;
constexpr uint32_t kIntHeaderBytes = kIntShimBytes + kIntMaxHops * kIntHopBytes;
constexpr uint8_t kIntVersion = 1;

/// Units and widths of the hop record fields.
constexpr uint32_t kIntTimeBits = 24;
constexpr uint32_t kIntBytesBits = 20;
constexpr uint32_t kIntQlenBits = 16;
constexpr uint64_t kIntBytesUnit = 128;
constexpr uint64_t kIntQlenUnit = 256;

/// The link rates a hop record can name (4-bit code; 0 is none of them).
DataRate IntRateOfCode(uint8_t code);
/// The code of \p rate, 0 when the table lacks it.
uint8_t IntRateCode(DataRate rate);

/// One hop record, as raw fields on the wire.
struct IntHop
{
    uint8_t rateCode = 0;
    uint32_t time = 0;  ///< ns modulo 2^24
    uint32_t bytes = 0; ///< transmitted bytes / 128, modulo 2^20
    uint16_t qlen = 0;  ///< queue bytes / 256, saturated

    /// Encodes the port's state at the stamping instant.
    static IntHop Stamp(DataRate rate, Time now, uint64_t txBytes, uint64_t queueBytes);
    /// The same with the rate's code already looked up (IntRateCode): what a switch, which
    /// knows its ports' rates, calls per packet.
    static IntHop Stamp(uint8_t rateCode, Time now, uint64_t txBytes, uint64_t queueBytes);

    DataRate GetLineRate() const
    {
        return IntRateOfCode(rateCode);
    }

    /// Queue length in bytes (to 256 B).
    uint64_t GetQueueBytes() const
    {
        return uint64_t(qlen) * kIntQlenUnit;
    }

    /// Nanoseconds from \p earlier's stamp to this one (modulo 2^24 ns: 16.7 ms).
    uint64_t NanosSince(const IntHop& earlier) const;
    /// Bytes the port sent from \p earlier's stamp to this one (modulo 2^20 units: 128 MiB).
    uint64_t BytesSince(const IntHop& earlier) const;

    uint64_t Encode() const;
    static IntHop Decode(uint64_t word);
};

/// The telemetry a packet collected: hop count and the recorded hops.
struct IntStack
{
    uint8_t hopCount = 0; ///< switches that stamped it (records: min(hopCount, kIntMaxHops))
    IntHop hops[kIntMaxHops];

    uint32_t RecordedHops() const
    {
        return hopCount < kIntMaxHops ? hopCount : kIntMaxHops;
    }

    /// Whether every hop is recorded (a path longer than kIntMaxHops is not).
    bool Complete() const
    {
        return hopCount <= kIntMaxHops;
    }

    /// Writes the kIntHeaderBytes of the layout above at \p out.
    void Write(uint8_t* out) const;
    /// Reads them from \p in; false when the version or slot count is not this layout's.
    bool Read(const uint8_t* in);
};

/// Appends one hop record to the stack written at \p stack (kIntHeaderBytes long): writes the
/// record when a slot is free and counts the hop either way (saturating at 255).
void PushIntHop(uint8_t* stack, const IntHop& hop);

/// The INT stack as an ns-3 header, for the NIC that reserves it or echoes it.
class IntHeader : public Header
{
  public:
    IntHeader() = default;
    explicit IntHeader(const IntStack& stack);

    static TypeId GetTypeId();
    TypeId GetInstanceTypeId() const override;
    uint32_t GetSerializedSize() const override;
    void Serialize(Buffer::Iterator start) const override;
    uint32_t Deserialize(Buffer::Iterator start) override;
    void Print(std::ostream& os) const override;

    const IntStack& GetStack() const
    {
        return m_stack;
    }

  private:
    IntStack m_stack;
};

} // namespace ns3

#endif
