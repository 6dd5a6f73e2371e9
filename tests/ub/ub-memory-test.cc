// UbNic memory transactions (docs/models.md#ub-memory): a READ's completion time and its
// selective recovery of a lost response, load/store bandwidth against min(B, N·m/T), and the
// ordering of operations under none (NO), relaxed (RO) and strict (SO). Every expected number
// is derived from the frame sizes of model/wire/ub-header.h, the link rate and the cables.

#include "ub-test-util.h"

namespace ns3
{
namespace test
{
namespace
{

constexpr uint32_t kMtu = 4096;
const DataRate kRate("400Gbps");
constexpr int64_t kCablePs = 150000; // 150 ns per cable, two cables per path (host-switch-host)

class UbMemory : public SimTest
{
  protected:
    void SetUp() override
    {
        SimTest::SetUp();
        Set("ns3::FabricNetDevice::WireOverhead", "0");
        Set("ns3::UbNic::Mtu", std::to_string(kMtu));
        Set("ns3::UbNic::CongestionControl", "ns3::UbFixedWindow");
        Set("ns3::UbNic::RtoMode", "fixed"); // the timelines use Rto
        Set("ns3::FabricSwitch::EcnEnabled", "false");
    }

    /// Frame times: a header-only request, an ACK (256-bit SACK bitmap), a frame of \p payload.
    static int64_t Request()
    {
        return SerPs(kUbFrameOverhead, kRate);
    }

    static int64_t Ack()
    {
        return SerPs(62 + 10 + 256 / 8 + 4, kRate);
    }

    static int64_t Frame(uint32_t payload)
    {
        return SerPs(payload + kUbFrameOverhead, kRate);
    }
};

// --- READ ------------------------------------------------------------------------------------

TEST_F(UbMemory, LoneReadCompletesAfterRequestOneWayPlusResponses)
{
    // h0 reads 4 x 4096 B from h1 over the idle star (store and forward, 150 ns cables).
    // Request: 66 B frame, two hops: 2 (Tr + d). The responder acknowledges it (one ACK frame,
    // Ta, leaves first), then sends the 4 response frames back to back: the last one is off
    // its NIC after Ta + 4 T and off the switch T + d later, at the requester d after that.
    // READ completion = 2 (Tr + d) + Ta + 4 T + T + 2 d.
    FabricNetwork net = FabricNetwork::Build(MakeStar(2, kRate, PicoSeconds(kCablePs)), 0, 0);
    std::vector<Ptr<UbNic>> nics = InstallUb(net);
    UbRequest r{0, 1, 4 * kMtu};
    r.verb = RdmaVerb::READ;
    uint32_t id = PostUb(net, nics, r);
    Simulator::Run();
    const FlowRecord& f = net.GetFlowTable()->Get(id);
    const int64_t T = Frame(kMtu);
    ASSERT_EQ(T, 83240); // (4096 + 66) B * 8 / 400 Gb/s
    ASSERT_TRUE(f.finished);
    EXPECT_EQ(f.launch, Time(0));
    EXPECT_EQ(f.finish.GetPicoSeconds(),
              2 * (Request() + kCablePs) + Ack() + 4 * T + T + 2 * kCablePs);
    // The data went h1 -> h0: delivered at the requester, sent by the responder, once.
    EXPECT_EQ(f.deliveredBytes, 4u * kMtu);
    EXPECT_EQ(f.sentBytes, 4u * kMtu);
    EXPECT_EQ(f.retransmittedBytes, 0u);
    EXPECT_EQ(f.firstRx.GetPicoSeconds(),
              2 * (Request() + kCablePs) + Ack() + T + T + 2 * kCablePs);
    EXPECT_TRUE(CheckConservation(net).Ok());
    EXPECT_EQ(nics[0]->AuditTransportState(*net.GetFlowTable()), "");
    EXPECT_EQ(nics[1]->AuditTransportState(*net.GetFlowTable()), "");
}

TEST_F(UbMemory, LostResponseIsResentAloneByTheResponder)
{
    // 16 response packets; packet 3 is lost once on its way to the requester. The requester's
    // ACKs of packets 4.. report the hole (SACK); once one sent ReorderWindow (200 ns, 2.4
    // packet times) after packet 3 is acknowledged, the responder resends packet 3 and only
    // it. The requester never repeats its request.
    Set("ns3::UbNic::ReorderWindow", "200ns");
    FabricNetwork net = FabricNetwork::Build(MakeStar(2, kRate, PicoSeconds(kCablePs)), 0, 0);
    std::vector<Ptr<UbNic>> nics = InstallUb(net);
    UbRequest r{0, 1, 16 * kMtu};
    r.verb = RdmaVerb::READ;
    uint32_t id = PostUb(net, nics, r);
    nics[0]->LoseFirstTransmission(id, 3);
    Simulator::Run();
    const FlowRecord& f = net.GetFlowTable()->Get(id);
    ASSERT_TRUE(f.finished);
    EXPECT_EQ(nics[1]->GetResentPackets(), 1u); // the responder: packet 3 once
    EXPECT_EQ(nics[0]->GetResentPackets(), 0u); // the requester: its request once
    EXPECT_EQ(f.retransmittedBytes, kMtu);
    EXPECT_EQ(f.droppedBytes, kMtu);
    EXPECT_EQ(f.discardedBytes, 0u);
    EXPECT_EQ(f.deliveredBytes, 16u * kMtu);
    EXPECT_EQ(f.sentBytes, 17u * kMtu);
    // Recovered well before the 100 us retransmission timeout.
    EXPECT_LT(f.finish, MicroSeconds(5));
    EXPECT_TRUE(CheckConservation(net).Ok());
}

// --- Load / store bandwidth: min(B, N m / T) ---------------------------------------------------

class UbLoadStore : public UbMemory
{
  protected:
    /// Seconds h0 takes to load (or store) \p ops lines of 64 B from h1 with \p outstanding
    /// operations in flight and the responder's memory taking \p latency per access.
    double Run(RdmaVerb verb, uint32_t ops, uint32_t outstanding, Time latency)
    {
        Set("ns3::UbNic::MaxOutstandingOps", std::to_string(outstanding));
        Set("ns3::UbNic::MemoryLatency", std::to_string(latency.GetPicoSeconds()) + "ps");
        FabricNetwork net = FabricNetwork::Build(MakeStar(2, kRate, PicoSeconds(kCablePs)), 0, 0);
        std::vector<Ptr<UbNic>> nics = InstallUb(net);
        UbRequest r{0, 1, uint64_t(ops) * 64};
        r.verb = verb;
        uint32_t id = PostUb(net, nics, r);
        Simulator::Run();
        const FlowRecord& f = net.GetFlowTable()->Get(id);
        EXPECT_TRUE(f.finished);
        EXPECT_EQ(f.deliveredBytes, uint64_t(ops) * 64);
        EXPECT_TRUE(CheckConservation(net).Ok());
        return (f.finish - f.launch).GetSeconds();
    }

    /// Round trip of one operation on the idle star: request out (two hops), memory access,
    /// response back (two hops); the request's ACK leaves the responder before the access
    /// ends (latency > Ta).
    static double RoundTrip(uint32_t requestPayload, uint32_t responsePayload, Time latency)
    {
        int64_t ps = 2 * (Frame(requestPayload) + kCablePs) + latency.GetPicoSeconds() +
                     2 * (Frame(responsePayload) + kCablePs);
        return ps * 1e-12;
    }
};

TEST_F(UbLoadStore, FewOutstandingLoadsAreLatencyBound)
{
    // N = 4 loads of m = 64 B outstanding, memory 2 us: T = 2 (1.32 + 150) + 2000 +
    // 2 (2.6 + 150) ns = 2607.84 ns, N m / T = 98.2 MB/s, far below the link: 400 loads take
    // 100 round trips. Loads in a round trip queue behind each other by a few frame times
    // (< 1 % of T).
    const Time latency = MicroSeconds(2);
    const double T = RoundTrip(0, 64, latency);
    ASSERT_NEAR(T, 2607.84e-9, 1e-15);
    double seconds = Run(RdmaVerb::LOAD, 400, 4, latency);
    double bandwidth = 400 * 64 / seconds;
    EXPECT_NEAR(bandwidth, 4 * 64 / T, 0.01 * 4 * 64 / T);
}

TEST_F(UbLoadStore, ManyOutstandingLoadsAreLinkBound)
{
    // N = 1024 outstanding: N m / T = 25 GB/s exceeds what the responder's link carries. Per
    // load the responder sends the request's ACK (108 B) and the response (64 + 66 B): 238 B
    // of its 50 GB/s link per 64 B loaded, B = 50 GB/s * 64 / 238 = 13.45 GB/s. 20000 loads
    // keep that link busy for 20000 * 238 B / 50 GB/s = 95.2 us; filling and draining the
    // pipe adds less than one round trip T (2.6 us).
    const Time latency = MicroSeconds(2);
    const double T = RoundTrip(0, 64, latency);
    const double B = 50e9 * 64 / 238;
    ASSERT_LT(B, 1024 * 64 / T);
    double seconds = Run(RdmaVerb::LOAD, 20000, 1024, latency);
    EXPECT_GE(seconds, 20000 * 64 / B);
    EXPECT_LE(seconds, 20000 * 64 / B + T);
}

TEST_F(UbLoadStore, StoresFollowTheSameBoundsWithTheLineOutbound)
{
    // A store sends the line out (64 + 66 B) and gets a header-only response (66 B). Latency
    // bound: N = 4, T = 2 (2.6 + 150) + 2000 + 2 (1.32 + 150) ns; link bound: the requester's
    // link carries the store (130 B) and the response's ACK (108 B) per line: 238 B again.
    const Time latency = MicroSeconds(2);
    const double T = RoundTrip(64, 0, latency);
    double slow = Run(RdmaVerb::STORE, 400, 4, latency);
    EXPECT_NEAR(400 * 64 / slow, 4 * 64 / T, 0.01 * 4 * 64 / T);
    Simulator::Destroy();
    const double B = 50e9 * 64 / 238;
    double fast = Run(RdmaVerb::STORE, 20000, 1024, latency);
    EXPECT_GE(fast, 20000 * 64 / B);
    EXPECT_LE(fast, 20000 * 64 / B + T);
}

TEST_F(UbLoadStore, AtomicsReturnEightBytesEach)
{
    // 10 atomics, one at a time, memory 1 us: each carries 16 B of operands out and 8 B back,
    // T = 2 (T(16) + d) + 1 us + 2 (T(8) + d); 10 of them take 10 T (to the picosecond: one
    // outstanding operation never queues behind another; the request's ACK is gone before
    // the access ends).
    Set("ns3::UbNic::MaxOutstandingOps", "1");
    Set("ns3::UbNic::MemoryLatency", "1us");
    FabricNetwork net = FabricNetwork::Build(MakeStar(2, kRate, PicoSeconds(kCablePs)), 0, 0);
    std::vector<Ptr<UbNic>> nics = InstallUb(net);
    UbRequest r{0, 1, 80};
    r.verb = RdmaVerb::ATOMIC;
    uint32_t id = PostUb(net, nics, r);
    Simulator::Run();
    const FlowRecord& f = net.GetFlowTable()->Get(id);
    ASSERT_TRUE(f.finished);
    const int64_t T = 2 * (Frame(16) + kCablePs) + 1000000 + 2 * (Frame(8) + kCablePs);
    EXPECT_EQ((f.finish - f.launch).GetPicoSeconds(), 10 * T);
    EXPECT_EQ(f.deliveredBytes, 80u);
    EXPECT_EQ(f.sentBytes, 80u); // the results; operands are not flow data
    EXPECT_TRUE(CheckConservation(net).Ok());
}

// --- Ordering of operations: NO / RO / SO ------------------------------------------------------

class UbOpOrdering : public UbMemory
{
  protected:
    /// 8 loads of one flow, all outstanding; the request of load 2 is lost once and resent
    /// by the requester's retransmission timeout (100 us: no later request is sent
    /// ReorderWindow after it). Returns the bytes loaded by t = 50 us and the finish time.
    std::pair<uint64_t, Time> Run(UbOrder order)
    {
        Simulator::Destroy(); // each run starts at t = 0
        FabricNetwork net = FabricNetwork::Build(MakeStar(2, kRate, PicoSeconds(kCablePs)), 0, 0);
        std::vector<Ptr<UbNic>> nics = InstallUb(net);
        UbRequest r{0, 1, 8 * 64};
        r.verb = RdmaVerb::LOAD;
        r.order = order;
        uint32_t id = PostUb(net, nics, r);
        nics[1]->LoseFirstTransmission(id, 2);
        uint64_t at50 = 0;
        Ptr<FlowTable> table = net.GetFlowTable();
        Simulator::Schedule(MicroSeconds(50),
                            [&at50, table, id]() { at50 = table->Get(id).deliveredBytes; });
        Simulator::Run();
        const FlowRecord& f = table->Get(id);
        EXPECT_TRUE(f.finished);
        EXPECT_EQ(f.deliveredBytes, 8u * 64);
        EXPECT_EQ(nics[0]->GetResentPackets(), 1u);
        return {at50, f.finish};
    }
};

TEST_F(UbOpOrdering, AStalledLoadHoldsBackLaterOnesOnlyUnderStrict)
{
    // By 50 us every load whose request arrived has been answered (~0.6 us each), except
    // what ordering holds back: NO and RO: 7 loads (all but 2); SO: loads 0 and 1 only (3..7
    // wait for 2). All finish once load 2's resend is answered, after 100 us.
    auto [none, noneFinish] = Run(UbOrder::NONE);
    auto [relaxed, relaxedFinish] = Run(UbOrder::RELAXED);
    auto [strict, strictFinish] = Run(UbOrder::STRICT);
    EXPECT_EQ(none, 7u * 64);
    EXPECT_EQ(relaxed, 7u * 64);
    EXPECT_EQ(strict, 2u * 64);
    for (Time t : {noneFinish, relaxedFinish, strictFinish})
    {
        EXPECT_GT(t, MicroSeconds(100));
        EXPECT_LT(t, MicroSeconds(101));
    }
}

TEST_F(UbOpOrdering, RelaxedWaitsOnlyForEarlierStrictRequests)
{
    // Jetty 0 posts to h1: A, a 64-packet write whose packet 2 is lost once (resent after the
    // 10 us ReorderWindow); then B (none), C (relaxed), D (strict), all 1 packet. C waits
    // for earlier strict requests only (none here): it executes with B, long before A. D
    // waits for A, B and C. A relaxed E posted after D waits for D, hence for A.
    FabricNetwork net = FabricNetwork::Build(MakeStar(2, kRate, PicoSeconds(kCablePs)), 0, 0);
    std::vector<Ptr<UbNic>> nics = InstallUb(net);
    uint32_t a = PostUb(net, nics, {0, 1, 64 * kMtu});
    uint32_t b = PostUb(net, nics, {0, 1, kMtu, Time(0), 0, UbOrder::NONE});
    uint32_t c = PostUb(net, nics, {0, 1, kMtu, Time(0), 0, UbOrder::RELAXED});
    uint32_t d = PostUb(net, nics, {0, 1, kMtu, Time(0), 0, UbOrder::STRICT});
    uint32_t e = PostUb(net, nics, {0, 1, kMtu, Time(0), 0, UbOrder::RELAXED});
    nics[1]->LoseFirstTransmission(a, 2);
    Simulator::Run();
    Ptr<FlowTable> ft = net.GetFlowTable();
    for (uint32_t id : {a, b, c, d, e})
    {
        ASSERT_TRUE(ft->Get(id).finished) << id;
    }
    EXPECT_GT(ft->Get(a).executed, MicroSeconds(10));
    EXPECT_LT(ft->Get(b).executed, MicroSeconds(2));
    EXPECT_LT(ft->Get(c).executed, MicroSeconds(2));
    EXPECT_GE(ft->Get(d).executed, ft->Get(a).executed);
    EXPECT_GE(ft->Get(e).executed, ft->Get(d).executed);
    EXPECT_TRUE(CheckConservation(net).Ok());
}

} // namespace
} // namespace test
} // namespace ns3
