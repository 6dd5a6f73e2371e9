#ifndef FABRIC_UB_HEADER_H
#define FABRIC_UB_HEADER_H

#include "ethernet-ipv4-udp.h"
#include "icrc-trailer.h"

#include "ns3/header.h"
#include "ns3/mac48-address.h"

#include <cstdint>
#include <vector>

namespace ns3
{

/**
 * \file
 * Unified Bus transport frames as ns3-fabric puts them on the wire.
 *
 * A UB frame is Ethernet + IPv4 + UDP with destination port 4792 (the port the public ns-3 UB
 * simulator uses for the IP form of UB; RoCEv2 keeps 4791), the 20-byte UB transport header
 * below, then (ACK frames) the 10-byte ACK extension and a selective-ACK bitmap, the payload,
 * and a 4-byte ICRC. The UDP source port carries the packet's entropy value: switches hash it
 * (and only it) to pick among equal-cost next hops, so a sender sprays a flow by varying it.
 *
 * UB transport header (20 bytes, big-endian). The fields follow the UB base specification's
 * transport and network headers (RTPH: opcode, PSN, TP channel number, message sequence; NTH:
 * the 16-bit congestion-control information CCI); their packing into 20 bytes is ours:
 *   byte 0      opcode: 0x01 DATA (write/send), 0x02 ACK, 0x03 READ request, 0x04 response
 *               (READ data, load data, store completion, atomic result), 0x05 LOAD request,
 *               0x06 STORE request (the line's data follows), 0x07 ATOMIC request (16 bytes
 *               of operands follow)
 *   byte 1      flags: bit 7 last packet of its message, bit 6 ACK requested,
 *               bits 5-4 ordering (0 none/NO, 1 after named predecessors, 2 strict/SO,
 *               3 relaxed/RO), bit 0 resend
 *   bytes 2-3   CCI, layout of the specification for mode 000 (C-AQM):
 *               Mode:3 | Loc:1 | reserved:1 | En:1 | C:1 | I:1 | Hint:8
 *   bytes 4-7   message: the request (flow) the packet belongs to
 *   bytes 8-11  PSN of the transport channel (32 bits here; the specification has 24)
 *   bytes 12-15 transport channel number (the sender's channel; ACKs carry it back)
 *   bytes 16-19 DATA, response: packet index within the message (where its bytes go);
 *               READ request: 0; LOAD/STORE/ATOMIC request: the operation's index in its flow;
 *               ACK: entropy of the packet that triggered the ACK (16) | bit 0: that packet
 *               arrived congestion-marked (IP ECN CE or CCI C) (16)
 *
 * ACK extension (10 bytes + bitmap), after the transport header of an ACK; the PSN field of the
 * transport header is the cumulative ACK: every PSN below it has arrived.
 *   bytes 0-3   executed message + 1 (0: none): a request the responder has executed, which
 *               completes it at the requester
 *   byte 4      C: packets that arrived congestion-marked since the last ACK (saturating)
 *   byte 5      bit 0: I, some increase request arrived approved since the last ACK
 *   bytes 6-7   Hint: the sum of approved increase hints since the last ACK (saturating)
 *   bytes 8-9   bitmap size in bits (a multiple of 8)
 *   bitmap      bit i (byte i/8, most significant bit first) = PSN cumulative + 1 + i arrived
 * The C/I/Hint echo is the specification's CETPH for C-AQM (Ack_Seq is our cumulative PSN).
 */

constexpr uint16_t kUbUdpPort = 4792;
constexpr uint32_t kUbTransportHeaderBytes = 20;
constexpr uint32_t kUbAckExtensionBytes = 10;
/// Ethernet + IPv4 + UDP + UB transport header + ICRC: what a UB DATA frame adds to its payload.
constexpr uint32_t kUbFrameOverhead = kEthernetIpv4UdpBytes + kUbTransportHeaderBytes + kIcrcBytes;

namespace UbOpcode
{
constexpr uint8_t DATA = 0x01;
constexpr uint8_t ACK = 0x02;
constexpr uint8_t READ = 0x03;     ///< a READ request: header only
constexpr uint8_t RESPONSE = 0x04; ///< READ/load data, store completion, atomic result
constexpr uint8_t LOAD = 0x05;     ///< one cache-line load: header only
constexpr uint8_t STORE = 0x06;    ///< one cache-line store: the line follows
constexpr uint8_t ATOMIC = 0x07;   ///< one 8-byte atomic: 16 bytes of operands follow

/// Whether frames with \p opcode carry packets of a transport channel (PSN, SACK, resends).
inline bool
UbCarriesPsn(uint8_t opcode)
{
    return opcode != ACK;
}
} // namespace UbOpcode

/// Bytes of operands an ATOMIC request carries (compare and swap values; fetch-add the first).
constexpr uint32_t kUbAtomicOperandBytes = 16;
/// Bytes an atomic operation returns (the old value).
constexpr uint32_t kUbAtomicResultBytes = 8;

/// Ordering requirement of a request (the specification's NO / RO / SO execution orders).
enum class UbOrder : uint8_t
{
    NONE = 0,   ///< NO: executes as soon as all its packets are there
    AFTER = 1,  ///< waits for the requests it names
    STRICT = 2, ///< SO: waits for every earlier request of its Jetty to the same target
    RELAXED = 3 ///< RO: waits for every earlier SO request of its Jetty to the same target
};

/// The 16-bit congestion-control information field (C-AQM mode).
struct UbCci
{
    bool lastHop = false;   ///< Loc: the marking switch was the last hop
    bool enabled = false;   ///< En: switches run C-AQM on this packet
    bool congested = false; ///< C: a switch on the path saw congestion
    bool increase = false;  ///< I: the window increase request is (still) granted
    uint8_t hint = 0;       ///< requested increase, in hint units

    uint16_t Encode() const;
    static UbCci Decode(uint16_t field);
};

/// Ethernet + IPv4 + UDP + UB transport header, written in one Serialize call.
class UbFrameHeader : public Header
{
  public:
    static constexpr uint32_t kSize = 42 + kUbTransportHeaderBytes;
    /// Byte offset of the CCI field within the frame (switches rewrite it).
    static constexpr uint32_t kCciOffset = 42 + 2;

    static TypeId GetTypeId();
    TypeId GetInstanceTypeId() const override;
    uint32_t GetSerializedSize() const override;
    void Serialize(Buffer::Iterator start) const override;
    uint32_t Deserialize(Buffer::Iterator start) override;
    void Print(std::ostream& os) const override;
    /// Decodes the kSize bytes at \p b (what Deserialize does once it has read them): lets a
    /// receiver decode a copy of the frame's first bytes without removing the header.
    void Decode(const uint8_t* b);

    Mac48Address srcMac;
    Mac48Address dstMac;
    uint32_t srcIp = 0;
    uint32_t dstIp = 0;
    uint8_t tos = 0;           ///< DSCP << 2 | ECN
    uint16_t entropy = 0;      ///< UDP source port
    uint16_t payloadBytes = 0; ///< bytes after the transport header (extension, payload, ICRC)
    uint8_t opcode = 0;
    uint8_t flags = 0;
    uint16_t cci = 0;
    uint32_t message = 0;
    uint32_t psn = 0;
    uint32_t channel = 0;
    uint32_t word = 0; ///< DATA: packet index; ACK: echoed entropy << 16 | congested

    static constexpr uint8_t kFlagLast = 0x80;
    static constexpr uint8_t kFlagAckRequest = 0x40;
    static constexpr uint8_t kFlagResend = 0x01;
    /// ACK: the DATA packet whose PSN `message` holds arrived trimmed (packet trimming cut its
    /// payload): resend it now.
    static constexpr uint8_t kFlagTrimmedNack = 0x02;
    /// DATA: sent on an unreliable transport channel (the UB service mode UNO, unreliable no
    /// order): the receiver writes it on arrival and sends no ACK; the sender never resends.
    static constexpr uint8_t kFlagUnreliable = 0x08;

    UbOrder GetOrder() const
    {
        return static_cast<UbOrder>((flags >> 4) & 0x3);
    }

    void SetOrder(UbOrder order)
    {
        flags = static_cast<uint8_t>((flags & ~0x30) | (uint8_t(order) << 4));
    }
};

/// The ACK extension: execution notice, C-AQM echo and selective-ACK bitmap.
class UbAckHeader : public Header
{
  public:
    static constexpr uint32_t kNoMessage = 0xFFFFFFFFu;

    static TypeId GetTypeId();
    TypeId GetInstanceTypeId() const override;
    uint32_t GetSerializedSize() const override;
    void Serialize(Buffer::Iterator start) const override;
    uint32_t Deserialize(Buffer::Iterator start) override;
    void Print(std::ostream& os) const override;
    /// Decodes the extension from the \p available bytes at \p b, as Deserialize does;
    /// returns the bytes it takes, or 0 when \p available is too short for them.
    uint32_t Decode(const uint8_t* b, uint32_t available);

    uint32_t executedMessage = kNoMessage;
    uint8_t congestedCount = 0;
    bool increase = false;
    uint16_t hintSum = 0;
    std::vector<uint8_t> bitmap; ///< size = bitmap bits / 8
};

/**
 * \brief Selective-ACK state of a receiver channel in the form the ACK carries it.
 *
 * \p cumulative is the first PSN not yet received; bit i of the bitmap says PSN
 * cumulative + 1 + i arrived. PSN arithmetic is modulo 2^32.
 */
struct SackBitmap
{
    /// Builds the bitmap of \p bits bits (multiple of 8) from "has PSN arrived" answers.
    template <typename Received>
    static std::vector<uint8_t> Encode(uint32_t cumulative, uint32_t bits, Received received)
    {
        std::vector<uint8_t> out(bits / 8, 0);
        for (uint32_t i = 0; i < bits; ++i)
        {
            if (received(cumulative + 1 + i))
            {
                out[i / 8] |= static_cast<uint8_t>(0x80 >> (i % 8));
            }
        }
        return out;
    }

    /// Whether the bitmap reports \p psn as received (PSNs below \p cumulative always are).
    static bool Reports(uint32_t cumulative, const std::vector<uint8_t>& bitmap, uint32_t psn);
    /// The holes: PSNs from \p cumulative up to the highest PSN the bitmap reports that are
    /// not reported (what a selective sender resends once it deems them lost). PSNs after the
    /// highest reported one may still be in flight and are not holes. Empty when the bitmap
    /// reports nothing.
    static std::vector<uint32_t> Holes(uint32_t cumulative, const std::vector<uint8_t>& bitmap);
};

} // namespace ns3

#endif
