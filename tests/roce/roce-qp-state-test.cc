// RoCE queue-pair state: O(window) per QP, whatever the message length (64-bit packet indices,
// 24-bit PSNs read back near a reference, rings of the packets in flight), and congestion-control
// state that lives with the QP, so consecutive messages on one QP (OrderedMessages) continue
// at the rate the previous one left.

#include "../fabric-sim-util.h"
#include "record/conservation.h"
#include "roce/rdma-nic.h"

#include "ns3/callback.h"

#include <vector>

namespace ns3
{
namespace test
{
namespace
{

constexpr uint32_t kMtu = 4096;
constexpr int64_t kHalf = int64_t(1) << 23; // half the 24-bit PSN space

/// A message of \p bytes from host \p src to host \p dst, posted at \p start on src's NIC.
uint32_t
Post(FabricNetwork& net,
     const std::vector<Ptr<RdmaNic>>& nics,
     uint32_t src,
     uint32_t dst,
     uint64_t bytes,
     Time start,
     uint16_t entropy)
{
    FlowRecord r;
    r.src = src;
    r.dst = dst;
    r.bytes = bytes;
    r.start = start;
    r.priority = 3;
    r.entropy = entropy;
    uint32_t id = net.GetFlowTable()->Add(r);
    nics[src]->StartFlowAt(id);
    return id;
}

// 24-bit serial-number arithmetic (RFC 1982 with SERIAL_BITS = 24): the PSN of index i is
// (start + i) mod 2^24, and a PSN read near reference r names r + d with d the difference of
// the two PSNs taken in [-2^23, 2^23). Indices beyond 2^24 (a message of more than 2^24
// packets) are read exactly, where (psn - start) mod 2^24 would alias them onto 0, 1, ...
TEST(RocePsn, IndicesBeyondThePsnSpaceAreReadNearTheReference)
{
    const uint32_t start = RdmaNic::InitialPsn(15);
    ASSERT_EQ(start, 0xFFFFFFu - 15);
    EXPECT_EQ(RdmaNic::PsnOf(start, 15), 0xFFFFFFu);
    EXPECT_EQ(RdmaNic::PsnOf(start, 16), 0u); // the wrap inside the first 2^24 packets
    EXPECT_EQ(RdmaNic::PsnOf(start, (uint64_t(1) << 24) + 16), 0u);
    EXPECT_EQ(RdmaNic::PsnOf(start, 3 * (uint64_t(1) << 24) + 20), 4u);
    const int64_t refs[] = {0,
                            16,
                            (int64_t(1) << 24) - 1,
                            int64_t(1) << 24,
                            (int64_t(1) << 24) + 3,
                            3 * (int64_t(1) << 24) + 7,
                            (int64_t(1) << 40) + 12345};
    const int64_t deltas[] = {-kHalf, -kHalf + 1, -1000, -1, 0, 1, 1000, kHalf - 1};
    for (int64_t r : refs)
    {
        for (int64_t d : deltas)
        {
            int64_t i = r + d;
            if (i < 0)
            {
                continue;
            }
            uint32_t psn = RdmaNic::PsnOf(start, static_cast<uint64_t>(i));
            EXPECT_EQ(RdmaNic::IndexNear(psn, start, static_cast<uint64_t>(r)), i)
                << "reference " << r << " delta " << d;
        }
    }
    // Before the message's first packet: negative, never a packet of the message.
    EXPECT_EQ(RdmaNic::IndexNear(start - 1, start, 0), -1);
    EXPECT_EQ(RdmaNic::IndexNear(RdmaNic::PsnOf(start, 0), start, 5), 0);
    // 2^23 ahead is the same PSN as 2^23 behind: read as behind (the duplicate half).
    EXPECT_EQ(RdmaNic::IndexNear(RdmaNic::PsnOf(start, (uint64_t(1) << 24) + kHalf),
                                 start,
                                 uint64_t(1) << 24),
              int64_t(1) << 23);
}

class RoceQpState : public SimTest
{
  protected:
    struct Run
    {
        FlowRecord flow;
        uint64_t senderBytes;   ///< SenderStateBytes at the end
        uint64_t receiverBytes; ///< ReceiverStateBytes at the end
        bool conserved;
    };

    /// One message h1 -> h0 over a 400 Gb/s star (150 ns cables) of \p bytes, as QP \p qp (the
    /// flows before it are single packets h2 -> h0 at 100 us), its packets \p lost once at the
    /// receiver; run until \p stop (0: to the end).
    Run RunMessage(const std::string& recovery,
                   uint64_t bytes,
                   uint32_t qp,
                   std::vector<uint32_t> lost,
                   Time stop)
    {
        Set("ns3::RdmaNic::Recovery", recovery);
        Set("ns3::RdmaNic::Mtu", std::to_string(kMtu));
        Set("ns3::FabricSwitch::EcnEnabled", "false");
        FabricNetwork net =
            FabricNetwork::Build(MakeStar(3, DataRate("400Gbps"), NanoSeconds(150)), 0, 0);
        std::vector<Ptr<RdmaNic>> nics;
        for (uint32_t h = 0; h < 3; ++h)
        {
            nics.push_back(CreateObject<RdmaNic>());
            nics.back()->Install(net.GetHost(h));
        }
        for (uint32_t i = 0; i < qp; ++i)
        {
            Post(net, nics, 2, 0, 64, MicroSeconds(100), 40000);
        }
        uint32_t id = Post(net, nics, 1, 0, bytes, Time(0), 50000);
        EXPECT_EQ(id, qp);
        for (uint32_t k : lost)
        {
            nics[0]->LoseFirstTransmission(id, k);
        }
        if (!stop.IsZero())
        {
            Simulator::Stop(stop);
        }
        Simulator::Run();
        return Run{net.GetFlowTable()->Get(id),
                   nics[1]->SenderStateBytes(id),
                   nics[0]->ReceiverStateBytes(id),
                   stop.IsZero() ? CheckConservation(net).Ok() : true};
    }

    void Restart()
    {
        TearDown();
        SetUp();
    }
};

TEST_F(RoceQpState, MessageAcrossThePsnWrapWithLossesOnBothSides)
{
    // QP 15 starts at PSN 2^24 - 16: packets 15 and 16 are the last PSN before the wrap and
    // PSN 0; 100 is far enough behind them that the receiver holds more packets out of order
    // than the first ring (16 slots) has, so the rings grow across the wrap. Selective repeat
    // resends exactly the three; go-back-N recovers too. Both free their rings at the end.
    for (const char* recovery : {"sr", "gbn"})
    {
        Run r = RunMessage(recovery, 256ull * kMtu, 15, {15, 16, 100}, Time(0));
        EXPECT_TRUE(r.flow.finished) << recovery;
        EXPECT_EQ(r.flow.deliveredBytes, 256ull * kMtu) << recovery;
        EXPECT_EQ(r.flow.droppedBytes, 3ull * kMtu) << recovery;
        if (std::string(recovery) == "sr")
        {
            EXPECT_EQ(r.flow.retransmittedBytes, 3ull * kMtu);
            EXPECT_EQ(r.flow.discardedBytes, 0u);
        }
        EXPECT_EQ(r.senderBytes, 0u) << recovery;
        EXPECT_EQ(r.receiverBytes, 0u) << recovery;
        EXPECT_TRUE(r.conserved) << recovery;
        Restart();
    }
}

TEST_F(RoceQpState, PerQpStateOfA1TBMessageIsThatOfA1GBMessage)
{
    // Both messages run at line rate for the first 20 us (neither can end by then: 1 GB takes
    // 20 ms), so they have the same packets in flight and must hold the same state. Packets in
    // flight are bounded by the round trip, about 1.3 us = 16 frame times here: the rings
    // (a power of two) hold at most 64 slots, 9 B each (timestamp, selective-repeat bit), plus
    // the resend list. Sized to the message, the 1 TB sender would hold 2.4e8 x 8 B.
    const uint64_t gb = 1000ull * 1000 * 1000;
    for (const char* recovery : {"sr", "gbn"})
    {
        Run small = RunMessage(recovery, gb, 0, {40}, MicroSeconds(20));
        Restart();
        Run huge = RunMessage(recovery, 1000 * gb, 0, {40}, MicroSeconds(20));
        Restart();
        EXPECT_FALSE(small.flow.finished);
        EXPECT_EQ(huge.flow.sentBytes, small.flow.sentBytes) << recovery;
        EXPECT_GT(small.senderBytes, 0u) << recovery;
        EXPECT_EQ(huge.senderBytes, small.senderBytes) << recovery;
        EXPECT_EQ(huge.receiverBytes, small.receiverBytes) << recovery;
        EXPECT_LE(huge.senderBytes, 64u * 9 + 64u * 8) << recovery;
        EXPECT_LE(huge.receiverBytes, 64u) << recovery;
    }
}

TEST_F(RoceQpState, MessageOfMoreThan2To32PacketsIsNotTruncated)
{
    // (2^32 + 4) packets: a 32-bit packet count reads 4, and the message would end after four
    // packets. It must still be sending after 20 us (about 240 packets at line rate).
    const uint64_t packets = (uint64_t(1) << 32) + 4;
    Run r = RunMessage("gbn", packets * kMtu, 0, {}, MicroSeconds(20));
    EXPECT_FALSE(r.flow.finished);
    EXPECT_GT(r.flow.sentBytes, 200ull * kMtu);
    EXPECT_EQ(r.flow.retransmittedBytes, 0u);
}

/// Two messages h1 -> h0 on one QP (OrderedMessages) while h2 -> h0 keeps the h0 port
/// congested (DCQCN, ECN marking from 20 KB): the rate each QP sends at, as traced.
class RoceQpCongestionState : public SimTest
{
  protected:
    struct RateChange
    {
        Time at;
        uint32_t flow;
        DataRate from;
        DataRate to;
    };

    static void Record(std::vector<RateChange>* log, uint32_t flow, DataRate from, DataRate to)
    {
        log->push_back({Simulator::Now(), flow, from, to});
    }
};

TEST_F(RoceQpCongestionState, SecondMessageOnTheQpStartsAtTheRateTheFirstLeft)
{
    Set("ns3::RdmaNic::OrderedMessages", "true");
    Set("ns3::RdmaNic::CongestionControl", "ns3::DcqcnCongestionControl");
    Set("ns3::FabricSwitch::EcnKmin", "20000B");
    Set("ns3::FabricSwitch::EcnKmax", "80000B");
    const DataRate line("100Gbps");
    FabricNetwork net = FabricNetwork::Build(MakeStar(3, line, NanoSeconds(150)), 0, 0);
    std::vector<Ptr<RdmaNic>> nics;
    for (uint32_t h = 0; h < 3; ++h)
    {
        nics.push_back(CreateObject<RdmaNic>());
        nics.back()->Install(net.GetHost(h));
    }
    std::vector<RateChange> log;
    nics[1]->TraceConnectWithoutContext("CcRate", MakeBoundCallback(&Record, &log));
    uint32_t a = Post(net, nics, 1, 0, 2000000, Time(0), 50000);
    uint32_t b = Post(net, nics, 1, 0, 2000000, Time(0), 50001);
    Post(net, nics, 2, 0, 8000000, Time(0), 50002); // the competing sender
    Simulator::Stop(MilliSeconds(3));
    Simulator::Run();
    const FlowRecord& fa = net.GetFlowTable()->Get(a);
    const FlowRecord& fb = net.GetFlowTable()->Get(b);
    ASSERT_TRUE(fa.finished && fb.finished);
    ASSERT_GT(fa.cnpsReceived, 0u) << "the bottleneck must have cut the first message";
    // The QP's rate when the first message's last packet left: its last traced change.
    DataRate endOfA = line;
    for (const RateChange& c : log)
    {
        if (c.flow == a)
        {
            endOfA = c.to;
        }
    }
    // The second message launches as the first one's last packet leaves (same instant): the
    // rate it starts pacing at is the "from" of its first traced change.
    const RateChange* firstOfB = nullptr;
    for (const RateChange& c : log)
    {
        if (c.flow == b)
        {
            firstOfB = &c;
            break;
        }
    }
    ASSERT_NE(firstOfB, nullptr);
    EXPECT_LT(endOfA.GetBitRate(), line.GetBitRate() * 9 / 10) << "DCQCN cut the QP's rate";
    EXPECT_EQ(firstOfB->from, endOfA)
        << "the second message restarted at " << firstOfB->from << " instead of " << endOfA;
    // One congestion control, that of the QP, for both messages (cc.csv shows it for each).
    EXPECT_EQ(PeekPointer(fa.cc), PeekPointer(fb.cc));
}

} // namespace
} // namespace test
} // namespace ns3
