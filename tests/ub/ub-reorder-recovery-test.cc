// The receiver's reorder buffer on the two-path case (docs/models.md#multipath), and selective
// resend of one lost packet: fast (ReorderWindow) versus timeout (Rto), on hand-derived timelines.
//
// All links here run at 400 Gb/s with WireOverhead 0, so a frame of B stored bytes takes
// T(B) = B * 8 / 400e9 s (B * 20 ps); a UB DATA frame of 4096 B payload is 4096 + 66 = 4162 B,
// T = 83.24 ns. Switches are store-and-forward without processing delay.

#include "ub-test-util.h"
#include "ub/ub-header-view.h"
#include "ub/ub-load-balancer.h"

#include <algorithm>

namespace ns3
{
namespace test
{
namespace
{

constexpr uint32_t kMtu = 4096;
const DataRate kRate("400Gbps");

/// Records the receiver's ReorderBuffer trace.
struct ReorderLog
{
    struct Row
    {
        Time t;
        uint32_t flow;
        uint32_t packets;
        uint64_t bytes;
    };

    std::vector<Row> rows;

    void Add(uint32_t flow, uint32_t packets, uint64_t bytes)
    {
        rows.push_back({Simulator::Now(), flow, packets, bytes});
    }

    /// First time the held data went back to zero after something was held.
    Time FirstRelease() const
    {
        bool held = false;
        for (const Row& r : rows)
        {
            held = held || r.packets > 0;
            if (held && r.packets == 0)
            {
                return r.t;
            }
        }
        return Time(-1);
    }
};

FrameInfo
UbTo(uint32_t dstHost, uint16_t entropy)
{
    FrameInfo f;
    f.etherType = 0x0800;
    f.protocol = 17;
    f.dstIp = HostIpv4(dstHost).Get();
    f.srcPort = entropy;
    f.dstPort = kUbUdpPort;
    f.transport = kUbTransport;
    f.entropyOnlyHash = true;
    return f;
}

// --- Two paths -------------------------------------------------------------------------------

class UbTwoPath : public SimTest
{
  protected:
    struct Result
    {
        uint32_t peakPackets;
        uint64_t peakBytes;
        FlowRecord flow;
        uint64_t resent;
    };

    /// h0 - swA = {m1 (d1), m2 (d2)} = swB - h1: the swA-m links carry the path delays, every
    /// other link has delay 0. 8 x 4 KiB sprayed over 2 entropies chosen so that packets
    /// alternate paths, even packets on the d1 path.
    Result Run(Time d1, Time d2, const std::string& reorderBuffer = "0B", uint64_t bytes = 8 * kMtu)
    {
        Set("ns3::UbNic::ReorderBufferSize", reorderBuffer);
        Set("ns3::FabricNetDevice::WireOverhead", "0");
        Set("ns3::UbNic::Mtu", std::to_string(kMtu));
        Set("ns3::UbNic::CongestionControl", "ns3::UbFixedWindow"); // unlimited window
        Set("ns3::UbNic::RtoMode", "fixed");                        // the timelines use Rto
        Set("ns3::UbNic::LoadBalancer", "ns3::UbObliviousSpray");
        Set("ns3::UbObliviousSpray::Entropies", "2");
        Set("ns3::FabricSwitch::EcnEnabled", "false");
        TopologySpec spec;
        spec.source = "test:two-path";
        for (const char* h : {"h0", "h1"})
        {
            spec.nodes.push_back({h, false, "host", -1});
        }
        for (const char* s : {"swA", "m1", "m2", "swB"})
        {
            spec.nodes.push_back({s, true, "switch", -1});
        }
        auto link = [&spec](uint32_t a, uint32_t b, Time d) {
            TopologyLink l;
            l.a = a;
            l.b = b;
            l.rate = kRate;
            l.delay = d;
            spec.links.push_back(l);
        };
        link(0, 2, Time(0)); // h0 - swA
        link(1, 5, Time(0)); // h1 - swB
        link(2, 3, d1);      // swA - m1
        link(2, 4, d2);      // swA - m2
        link(3, 5, Time(0)); // m1 - swB
        link(4, 5, Time(0)); // m2 - swB
        FabricNetwork net = FabricNetwork::Build(spec, 0, 0);
        std::vector<Ptr<UbNic>> nics = InstallUb(net);

        // The entropy pair: base to m1, base + 1 to m2 at swA.
        Ptr<FabricSwitch> swA = net.GetSwitch(2);
        auto viaM1 = [&](uint16_t e) {
            return net.PeerOf(2, swA->SelectEgressPort(UbTo(1, e))).node == 3;
        };
        uint16_t base = 0;
        for (uint32_t b = 49152; b < 65535 && !base; ++b)
        {
            if (viaM1(b) && !viaM1(b + 1))
            {
                base = static_cast<uint16_t>(b);
            }
        }
        EXPECT_NE(base, 0) << "no entropy pair splits at swA";
        ReorderLog log;
        nics[1]->TraceConnectWithoutContext("ReorderBuffer", MakeCallback(&ReorderLog::Add, &log));
        uint32_t id = PostUb(net, nics, {0, 1, bytes, Time(0), 0, UbOrder::NONE, {}, base});
        Simulator::Run();
        Result r{nics[1]->GetPeakReorderPackets(),
                 nics[1]->GetPeakReorderBytes(),
                 net.GetFlowTable()->Get(id),
                 nics[0]->GetResentPackets()};
        EXPECT_TRUE(CheckConservation(net).Ok());
        return r;
    }

    /// Arrival time at h1 of packet j (ps): it leaves h0 at (j+1)T, each of swA, m, swB adds
    /// one serialization (no queueing: alternate packets use different swA ports, each port
    /// gets one packet per 2T; at swB the two paths' packets do not overlap in time when
    /// |d2 - d1| > 8T or d2 == d1), plus the path delay.
    static int64_t Arrival(uint32_t j, int64_t T, int64_t d1, int64_t d2)
    {
        return (j + 4) * T + (j % 2 == 0 ? d1 : d2);
    }

    /// Peak of a per-request in-order reorder buffer fed in arrival order (packets, bytes),
    /// for a request of \p bytes (the last packet may be short; its frame is then shorter, but
    /// on these paths that never changes the arrival order).
    static std::pair<uint32_t, uint64_t> HandPeak(uint32_t n,
                                                  int64_t T,
                                                  int64_t d1,
                                                  int64_t d2,
                                                  uint64_t bytes = 0)
    {
        if (bytes == 0)
        {
            bytes = uint64_t(n) * kMtu;
        }
        auto size = [&](uint32_t j) {
            return std::min<uint64_t>(kMtu, bytes - uint64_t(j) * kMtu);
        };
        uint64_t heldBytes = 0, peakBytes = 0;
        std::vector<uint32_t> order(n);
        for (uint32_t j = 0; j < n; ++j)
        {
            order[j] = j;
        }
        std::stable_sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) {
            return Arrival(a, T, d1, d2) < Arrival(b, T, d1, d2);
        });
        std::vector<bool> got(n, false);
        uint32_t next = 0, held = 0, peak = 0;
        for (uint32_t j : order)
        {
            got[j] = true;
            if (j == next)
            {
                while (next < n && got[next])
                {
                    if (next != j)
                    {
                        --held;
                        heldBytes -= size(next);
                    }
                    ++next;
                }
            }
            else
            {
                peak = std::max(peak, ++held);
                heldBytes += size(j);
                peakBytes = std::max(peakBytes, heldBytes);
            }
        }
        return {peak, peakBytes};
    }
};

TEST_F(UbTwoPath, ReorderPeakMatchesTheHandDerivation)
{
    // d1 = 1 us, d2 = 9 us: packets 0,2,4,6 arrive at 4T+d1 .. 10T+d1 (~1.3-1.8 us), packets
    // 1,3,5,7 at 5T+d2 .. 11T+d2 (~9.4-9.9 us). Packet 0 is in order; 2, 4, 6 wait: 3 packets,
    // 12288 B. Then 1 frees 2, 3 frees 4, 5 frees 6, 7 is in order.
    const int64_t T = SerPs(kMtu + kUbFrameOverhead, kRate);
    ASSERT_EQ(T, 83240);
    const int64_t d1 = 1000000, d2 = 9000000;
    auto [packets, bytes] = HandPeak(8, T, d1, d2);
    ASSERT_EQ(packets, 3u);
    ASSERT_EQ(bytes, 3u * 4096);
    Result r = Run(PicoSeconds(d1), PicoSeconds(d2));
    ASSERT_TRUE(r.flow.finished);
    EXPECT_EQ(r.flow.deliveredBytes, 8u * kMtu);
    EXPECT_EQ(r.peakPackets, packets);
    EXPECT_EQ(r.peakBytes, bytes);
    // The timeline itself: first arrival is packet 0 on the short path, last packet 7 on the
    // long one.
    EXPECT_EQ(r.flow.firstRx, PicoSeconds(Arrival(0, T, d1, d2)));
    EXPECT_EQ(r.flow.lastRx, PicoSeconds(Arrival(7, T, d1, d2)));
    EXPECT_EQ(r.resent, 0u);
}

TEST_F(UbTwoPath, ShortLastPacketIsHeldWithItsOwnSize)
{
    // 6 full packets + one of 1000 B: arrivals 0, 2, 4, 6 (short), 1, 3, 5; held 2, 4 and the
    // short 6: 3 packets, 2 * 4096 + 1000 = 9192 B.
    const int64_t T = SerPs(kMtu + kUbFrameOverhead, kRate);
    const uint64_t bytes = 6 * kMtu + 1000;
    auto [packets, peakBytes] = HandPeak(7, T, 1000000, 9000000, bytes);
    ASSERT_EQ(packets, 3u);
    ASSERT_EQ(peakBytes, 2u * 4096 + 1000);
    Result r = Run(MicroSeconds(1), MicroSeconds(9), "0B", bytes);
    ASSERT_TRUE(r.flow.finished);
    EXPECT_EQ(r.flow.deliveredBytes, bytes);
    EXPECT_EQ(r.peakPackets, packets);
    EXPECT_EQ(r.peakBytes, peakBytes);
}

TEST_F(UbTwoPath, EqualDelaysNeedNoReorderBuffer)
{
    // Both paths 1 us: packets arrive in send order, (j+4)T + 1 us; nothing is held.
    const int64_t T = SerPs(kMtu + kUbFrameOverhead, kRate);
    Result r = Run(MicroSeconds(1), MicroSeconds(1));
    ASSERT_TRUE(r.flow.finished);
    EXPECT_EQ(r.peakPackets, HandPeak(8, T, 1000000, 1000000).first);
    EXPECT_EQ(r.peakPackets, 0u);
    EXPECT_EQ(r.peakBytes, 0u);
    EXPECT_EQ(r.flow.lastRx, PicoSeconds(Arrival(7, T, 1000000, 1000000)));
    EXPECT_EQ(r.resent, 0u);
}

TEST_F(UbTwoPath, SpuriousResendsAreDuplicateSafe)
{
    // ReorderWindow 100 ns < the 8 us skew: the ACKs of the short path's packets make the
    // sender deem the long path's packets lost and resend them. Every original still arrives,
    // so each resend yields exactly one duplicate, which the receiver discards; the request
    // is delivered exactly once.
    Set("ns3::UbNic::ReorderWindow", "100ns");
    Result r = Run(MicroSeconds(1), MicroSeconds(9));
    ASSERT_TRUE(r.flow.finished);
    EXPECT_GT(r.resent, 0u);
    EXPECT_EQ(r.flow.deliveredBytes, 8u * kMtu);
    EXPECT_EQ(r.flow.retransmittedBytes, r.resent * kMtu);
    EXPECT_EQ(r.flow.discardedBytes, r.flow.retransmittedBytes);
    EXPECT_EQ(r.flow.droppedBytes, 0u);
}

TEST_F(UbTwoPath, FullReorderBufferDiscardsAndTheTimeoutResends)
{
    // Same 1 us / 9 us case with room for 2 packets (8192 B): arrivals 0, 2, 4, 6, 1, 3, 5, 7.
    // 0 in order; 2 and 4 held (8192 B); 6 finds no room and is discarded; 1 frees 2, 3 frees
    // 4, 5 is in order, 7 is held (6 missing). No packet was sent ReorderWindow (10 us) after
    // 6, so the RTO resends it: the RTO armed at packet 0 (due Rto = 100 us) re-arms for
    // 6T + Rto, when packet 6 leaves again as the channel's 9th packet, entropy index 8 mod 2
    // = 0 (the 1 us path): it arrives at 6T + Rto + 4T + d1.
    const int64_t T = SerPs(kMtu + kUbFrameOverhead, kRate);
    Result r = Run(MicroSeconds(1), MicroSeconds(9), "8192B");
    ASSERT_TRUE(r.flow.finished);
    EXPECT_EQ(r.peakPackets, 2u);
    EXPECT_EQ(r.peakBytes, 8192u);
    EXPECT_EQ(r.flow.discardedBytes, kMtu);
    EXPECT_EQ(r.flow.retransmittedBytes, kMtu);
    EXPECT_EQ(r.resent, 1u);
    EXPECT_EQ(r.flow.deliveredBytes, 8u * kMtu);
    EXPECT_EQ(r.flow.lastRx, PicoSeconds(6 * T + 100000000 + 4 * T + 1000000));
}

// --- Selective resend: ReorderWindow versus Rto ------------------------------------------------

class UbResend : public SimTest
{
  protected:
    static constexpr uint32_t kPackets = 256;
    static constexpr uint32_t kLost = 5;
    static constexpr int64_t kD = 150000; // ps, 30 m
    static constexpr uint32_t kSackBits = 256;

    struct Result
    {
        FlowRecord flow;
        Time release; ///< when the resent packet reached h1 and freed the reorder buffer
        uint32_t peakPackets;
        uint64_t resent;
        bool conserved;
    };

    Result Run(Time reorderWindow, Time rto)
    {
        Set("ns3::FabricNetDevice::WireOverhead", "0");
        Set("ns3::UbNic::Mtu", std::to_string(kMtu));
        Set("ns3::UbNic::CongestionControl", "ns3::UbFixedWindow");
        Set("ns3::UbNic::RtoMode", "fixed"); // the timelines use Rto
        Set("ns3::UbNic::SackBits", std::to_string(kSackBits));
        Set("ns3::UbNic::ReorderWindow", std::to_string(reorderWindow.GetPicoSeconds()) + "ps");
        Set("ns3::UbNic::Rto", std::to_string(rto.GetPicoSeconds()) + "ps");
        Set("ns3::FabricSwitch::EcnEnabled", "false");
        FabricNetwork net = FabricNetwork::Build(MakeStar(2, kRate, PicoSeconds(kD)), 0, 0);
        std::vector<Ptr<UbNic>> nics = InstallUb(net);
        ReorderLog log;
        nics[1]->TraceConnectWithoutContext("ReorderBuffer", MakeCallback(&ReorderLog::Add, &log));
        uint32_t id = PostUb(net, nics, {0, 1, uint64_t(kPackets) * kMtu});
        nics[1]->LoseFirstTransmission(id, kLost);
        Simulator::Run();
        return Result{net.GetFlowTable()->Get(id),
                      log.FirstRelease(),
                      nics[1]->GetPeakReorderPackets(),
                      nics[0]->GetResentPackets(),
                      CheckConservation(net).Ok()};
    }

    void ExpectOnlyTheLostPacketResent(const Result& r)
    {
        ASSERT_TRUE(r.flow.finished);
        EXPECT_EQ(r.resent, 1u);
        EXPECT_EQ(r.flow.retransmittedBytes, kMtu);
        EXPECT_EQ(r.flow.droppedBytes, kMtu); // the scripted loss
        EXPECT_EQ(r.flow.deliveredBytes, uint64_t(kPackets) * kMtu);
        EXPECT_EQ(r.flow.discardedBytes, 0u);
        EXPECT_EQ(r.flow.sentBytes, uint64_t(kPackets + 1) * kMtu);
        EXPECT_TRUE(r.conserved);
    }
};

TEST_F(UbResend, ReorderWindowResendsOnlyTheLostPacketLongBeforeRto)
{
    // Packet j starts at jT (window unlimited, back to back) and reaches h1 at (j+2)T + 2d; its
    // ACK (62 + 10 + 256/8 + 4 = 108 B, Ta) is back at h0 at a_j = (j+2)T + 2Ta + 4d.
    // Packet k is deemed lost by the first ACK of a packet sent >= ReorderWindow after it:
    // j* = k + ceil(RW / T). The port is then sending packet m = floor(a_j* / T); the resend
    // takes the next slot, m + 1, and so reaches h1 at (m + 3)T + 2d (queued behind packet m
    // at the switch). Packets k+1 .. m were held meanwhile: peak m - k.
    const int64_t T = SerPs(kMtu + kUbFrameOverhead, kRate);
    const int64_t Ta = SerPs(62 + 10 + kSackBits / 8 + kIcrcBytes, kRate);
    ASSERT_EQ(Ta, 2160);
    const int64_t RW = 10000000; // 10 us
    const int64_t jStar = kLost + (RW + T - 1) / T;
    const int64_t aJ = (jStar + 2) * T + 2 * Ta + 4 * kD;
    const int64_t m = aJ / T;
    ASSERT_NE(aJ % T, 0) << "ACK lands on a slot boundary: the derivation would be ambiguous";
    ASSERT_LT(m + 1, int64_t(kPackets)) << "the resend must overtake new data";
    const int64_t release = (m + 3) * T + 2 * kD;
    Result r = Run(PicoSeconds(RW), MicroSeconds(100));
    ExpectOnlyTheLostPacketResent(r);
    EXPECT_EQ(r.release, PicoSeconds(release));
    EXPECT_EQ(r.peakPackets, uint32_t(m - kLost));
    // Well before the timeout would have fired (k T + Rto).
    EXPECT_LT(r.release, MicroSeconds(100));
}

TEST_F(UbResend, WithoutReorderWindowTheTimeoutResendsAtFirstSendPlusRto)
{
    // ReorderWindow 0: only the RTO resends. Packet k was sent at kT; the RTO armed at packet 0
    // (due Rto) finds k not yet Rto old and re-arms for kT + Rto, when k is resent on the idle
    // port (all 256 packets left by 256 T = 21.3 us): it reaches h1 at kT + Rto + 2T + 2d.
    // Every later packet was held: peak = 256 - 1 - k.
    const int64_t T = SerPs(kMtu + kUbFrameOverhead, kRate);
    const int64_t rto = 100000000; // 100 us
    Result r = Run(Time(0), PicoSeconds(rto));
    ExpectOnlyTheLostPacketResent(r);
    EXPECT_EQ(r.release, PicoSeconds(kLost * T + rto + 2 * T + 2 * kD));
    EXPECT_EQ(r.peakPackets, kPackets - 1 - kLost);
}

TEST_F(UbResend, TimeoutPathIsSlowerByRtoMinusTheFastPath)
{
    // Same loss, both ways: the completion time differs by the difference of the release
    // times derived above (the rest of the flow is identical once the resend is in, within a
    // packet time since in the fast case the resend displaced one new packet).
    const int64_t T = SerPs(kMtu + kUbFrameOverhead, kRate);
    Result fast = Run(MicroSeconds(10), MicroSeconds(100));
    TearDown();
    SetUp();
    Result slow = Run(Time(0), MicroSeconds(100));
    ASSERT_TRUE(fast.flow.finished && slow.flow.finished);
    // Fast: the flow ends with its last new packet, (256 + 1) slots, one of them the resend.
    // Slow: it ends with the resend, long after the data.
    int64_t fastEnd = fast.flow.finish.GetPicoSeconds();
    int64_t slowEnd = slow.flow.finish.GetPicoSeconds();
    int64_t slowRelease = slow.release.GetPicoSeconds();
    int64_t fastLastData = (int64_t(kPackets) + 2) * T + 2 * kD; // slot 256 reaches h1
    EXPECT_NEAR(double(fast.flow.lastRx.GetPicoSeconds()), double(fastLastData), double(T));
    EXPECT_NEAR(double(slowEnd - fastEnd), double(slowRelease - fastLastData), double(T));
}

} // namespace
} // namespace test
} // namespace ns3
