// RoCE RC loss recovery against the timeline of one lost packet.
//
// Two hosts on one switch, 400 Gb/s, 150 ns cables, 4096 B payload: a data frame (4154 B + 24 B
// wire overhead) takes T_f = 83.56 ns, an ACK/NAK (62 B + 24 B) T_a = 1.72 ns. Packet k's first
// transmission is lost. Packet k+1 reaches the receiver at (k+2)·T_f + 2d + T_f... generally
// packet i arrives at t_i = (i+2)·T_f + 2d (store and forward at the switch, idle ports); the
// NAK it triggers reaches the sender 2·(T_a + d) later. Every packet started before then has
// been sent once already.

#include "../fabric-sim-util.h"
#include "record/conservation.h"
#include "roce/rdma-nic.h"
#include "wire/roce-frame-header.h"

#include <cmath>

namespace ns3
{
namespace test
{
namespace
{

constexpr uint32_t kMtu = 4096;
const DataRate kRate("400Gbps");
const double kD = 150e-9;

class RoceRecovery : public SimTest
{
  protected:
    struct Result
    {
        FlowRecord flow;
        bool conserved;
    };

    Result Run(const std::string& recovery,
               uint32_t packets,
               std::vector<uint32_t> lost,
               uint32_t flowsBefore = 0,
               RdmaVerb verb = RdmaVerb::WRITE)
    {
        Set("ns3::RdmaNic::Recovery", recovery);
        Set("ns3::RdmaNic::Mtu", std::to_string(kMtu));
        Set("ns3::RdmaNic::RtoMode", "fixed"); // the timelines use RtoLow
        Set("ns3::FabricSwitch::EcnEnabled", "false");
        FabricNetwork net = FabricNetwork::Build(MakeStar(3, kRate, NanoSeconds(150)), 0, 0);
        std::vector<Ptr<RdmaNic>> nics;
        for (uint32_t h = 0; h < 3; ++h)
        {
            nics.push_back(CreateObject<RdmaNic>());
            nics.back()->Install(net.GetHost(h));
        }
        // Earlier single-packet flows between other hosts only shift the QP number (and so the
        // initial PSN) of the flow under test.
        for (uint32_t i = 0; i < flowsBefore; ++i)
        {
            FlowRecord r;
            r.src = 2;
            r.dst = 0;
            r.bytes = 64;
            r.start = MicroSeconds(100);
            nics[2]->StartFlowAt(net.GetFlowTable()->Add(r));
        }
        FlowRecord rec;
        rec.src = 1;
        rec.dst = 0;
        rec.bytes = uint64_t(packets) * kMtu;
        rec.priority = 3;
        rec.entropy = 50000;
        rec.verb = verb;
        // A READ is posted by the reader (src) and its data arrives there: h0 reads from h1.
        if (verb == RdmaVerb::READ)
        {
            std::swap(rec.src, rec.dst);
        }
        uint32_t id = net.GetFlowTable()->Add(rec);
        nics[rec.src]->StartFlowAt(id);
        for (uint32_t k : lost)
        {
            nics[0]->LoseFirstTransmission(id, k);
        }
        Simulator::Run();
        return Result{net.GetFlowTable()->Get(id), CheckConservation(net).Ok()};
    }

    /// Packets the sender has started when the NAK triggered by packet k+1 arrives.
    static uint32_t SentWhenNakArrives(uint32_t k)
    {
        double tf = FrameSeconds(kMtu + kRoceFrameOverhead, 24, kRate);
        double ta = FrameSeconds(kRoceFrameOverhead + 4, 24, kRate);
        double arrival = (k + 1 + 2) * tf + 2 * kD; // packet k+1 fully at the receiver
        double nakAtSender = arrival + 2 * (ta + kD);
        return static_cast<uint32_t>(std::ceil(nakAtSender / tf));
    }
};

TEST_F(RoceRecovery, GoBackNResendsFromTheGapToWhatWasSent)
{
    const uint32_t packets = 64;
    const uint32_t k = 5;
    Result r = Run("gbn", packets, {k});
    uint32_t sent = SentWhenNakArrives(k); // 16 for k = 5
    ASSERT_EQ(sent, 16u);
    EXPECT_TRUE(r.flow.finished);
    EXPECT_EQ(r.flow.deliveredBytes, uint64_t(packets) * kMtu);
    EXPECT_EQ(r.flow.retransmittedBytes, uint64_t(sent - k) * kMtu);
    // The receiver threw away everything after the gap that arrived before the resend.
    EXPECT_EQ(r.flow.discardedBytes, uint64_t(sent - k - 1) * kMtu);
    EXPECT_EQ(r.flow.droppedBytes, kMtu);
    EXPECT_TRUE(r.conserved);
}

TEST_F(RoceRecovery, SelectiveRepeatResendsOnlyTheLostPacket)
{
    const uint32_t packets = 64;
    Result r = Run("sr", packets, {5});
    EXPECT_TRUE(r.flow.finished);
    EXPECT_EQ(r.flow.deliveredBytes, uint64_t(packets) * kMtu);
    EXPECT_EQ(r.flow.retransmittedBytes, kMtu);
    EXPECT_EQ(r.flow.discardedBytes, 0u);
    EXPECT_TRUE(r.conserved);
}

TEST_F(RoceRecovery, SelectiveRepeatResendsExactlyTheLostSet)
{
    Result r = Run("sr", 64, {3, 4, 9, 20});
    EXPECT_EQ(r.flow.retransmittedBytes, 4u * kMtu);
    EXPECT_EQ(r.flow.deliveredBytes, 64u * kMtu);
    EXPECT_TRUE(r.conserved);
}

TEST_F(RoceRecovery, SelectiveRepeatFinishesSoonerThanGoBackN)
{
    Result gbn = Run("gbn", 64, {5});
    TearDown();
    SetUp();
    Result sr = Run("sr", 64, {5});
    // Go-back-N sends (16 - 5) extra frames, selective repeat one: the difference is 10 frame
    // times at line rate.
    double tf = FrameSeconds(kMtu + kRoceFrameOverhead, 24, kRate);
    double diff = (gbn.flow.finish - sr.flow.finish).GetSeconds();
    EXPECT_NEAR(diff, 10 * tf, 2 * tf);
}

TEST_F(RoceRecovery, LastPacketLossIsRecoveredByTimeout)
{
    // No later packet can reveal the gap: only the retransmission timeout (RtoLow, since one
    // packet is outstanding) recovers it.
    Result r = Run("gbn", 8, {7});
    EXPECT_TRUE(r.flow.finished);
    EXPECT_EQ(r.flow.retransmittedBytes, kMtu);
    EXPECT_GT(r.flow.finish, MicroSeconds(100));
    EXPECT_LT(r.flow.finish, MicroSeconds(105));
}

TEST_F(RoceRecovery, PsnWrapsAroundMidMessage)
{
    // QP 15 starts at PSN 0xFFFFFF - 15: a 64-packet message crosses 2^24; lose the packets on
    // both sides of the wrap.
    uint32_t start = RdmaNic::InitialPsn(15);
    ASSERT_EQ(start, 0xFFFFFFu - 15);
    for (const char* recovery : {"gbn", "sr"})
    {
        Result r = Run(recovery, 64, {15, 16}, 15);
        EXPECT_TRUE(r.flow.finished) << recovery;
        EXPECT_EQ(r.flow.deliveredBytes, 64u * kMtu) << recovery;
        EXPECT_TRUE(r.conserved) << recovery;
        if (std::string(recovery) == "sr")
        {
            EXPECT_EQ(r.flow.retransmittedBytes, 2u * kMtu);
        }
        TearDown();
        SetUp();
    }
}

TEST_F(RoceRecovery, ReadCompletesAtTheRequesterAfterOneRequestAndTheResponses)
{
    // h0 reads 16 packets from h1: the request (BTH + RETH: 74 B + 24 B) crosses two links,
    // then the responses stream back at line rate; the last one completes the READ.
    Result r = Run("gbn", 16, {}, 0, RdmaVerb::READ);
    double tf = FrameSeconds(kMtu + kRoceFrameOverhead + 4, 24, kRate); // + AETH on some; bound
    double treq = FrameSeconds(kRoceFrameOverhead + 16, 24, kRate);
    double expected = 2 * (treq + kD) + 16 * tf + tf + 2 * kD;
    EXPECT_TRUE(r.flow.finished);
    EXPECT_EQ(r.flow.deliveredBytes, 16u * kMtu);
    EXPECT_EQ(r.flow.retransmittedBytes, 0u);
    EXPECT_NEAR(r.flow.finish.GetSeconds(), expected, tf);
    EXPECT_TRUE(r.conserved);
}

TEST_F(RoceRecovery, ReadGapIsRecoveredByReRequestFromTheMissingPsn)
{
    Result r = Run("gbn", 64, {5}, 0, RdmaVerb::READ);
    EXPECT_TRUE(r.flow.finished);
    EXPECT_EQ(r.flow.deliveredBytes, 64u * kMtu);
    EXPECT_EQ(r.flow.droppedBytes, kMtu);
    // Go-back-N from packet 5: everything the responder sent before the re-request arrived
    // is sent again; those after the gap were discarded by the requester.
    EXPECT_GT(r.flow.retransmittedBytes, 0u);
    EXPECT_EQ(r.flow.retransmittedBytes, r.flow.discardedBytes + kMtu);
    EXPECT_TRUE(r.conserved);
}

} // namespace
} // namespace test
} // namespace ns3
