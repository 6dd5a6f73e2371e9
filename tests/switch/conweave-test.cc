// ConWeave (model/switch/conweave-load-balancer.h) against its timers.
//
// Two leaves, two spines (two paths between the leaves), 400 Gb/s everywhere, 150 ns cables;
// RoCE with go-back-N, 4096-byte packets, no congestion control: host 0 sends back to back, a
// data frame is 4154 + 24 bytes on the wire, T_f = 83.56 ns, so frame k is fully at its leaf at
// t_k = (k + 1) T_f + 150 ns. The base RTT between the leaves is 2 x (150 + 150) ns = 600 ns
// (twice the cables' delay, as conweave-ns3 scratch/network-load-balance.cc:1572 sets it). The
// flow's first frame (k = 0, t_0 = 233.56 ns) is the RTT_REQUEST of epoch 1; its reply is due by
// t_0 + 600 ns + ReplyTimeoutExtra (4 us) = 4833.56 ns. To congest the flow's path, the leaf at
// the far end pauses the spine of that path (PFC, priority 3) before frame 0 reaches it.

#include "../fabric-sim-util.h"
#include "record/conservation.h"
#include "roce/rdma-nic.h"
#include "switch/conweave-load-balancer.h"
#include "switch/fabric-switch.h"

#include <algorithm>
#include <map>

namespace ns3
{
namespace test
{
namespace
{

constexpr double kFrameNs = 83.56;  // (4154 + 24) B at 400 Gb/s
constexpr double kCableNs = 150.0;  // every cable
constexpr double kBaseRttNs = 600;  // 2 x two fabric cables
constexpr double kQuantumNs = 1.28; // a pause quantum: 512 bits at 400 Gb/s

/// Frame k of host 0's flow is fully at its leaf at this time (ns).
double
AtLeaf(uint32_t k)
{
    return (k + 1) * kFrameNs + kCableNs;
}

class ConWeave : public SimTest
{
  protected:
    struct Run
    {
        FabricNetwork net;
        std::vector<Ptr<HostTransport>> nics;
        Ptr<ConWeaveLoadBalancer> src; ///< leaf of host 0
        Ptr<ConWeaveLoadBalancer> dst; ///< leaf of host 2
        uint32_t flow = 0;
        uint64_t path = 0; ///< the flow's first path

        struct Reroute
        {
            double ns;
            uint64_t from;
            uint64_t to;
            uint8_t reason;
        };

        std::vector<Reroute> reroutes;

        struct Flush
        {
            double ns;
            uint32_t frames;
            bool byTail;
        };

        std::vector<Flush> flushes;
        std::vector<std::pair<double, uint64_t>> notifies; ///< (ns, path) at the source leaf
    };

    void SetUp() override
    {
        SimTest::SetUp();
        Set("ns3::FabricSwitch::LoadBalancer", "ns3::ConWeaveLoadBalancer");
        Set("ns3::RdmaNic::Recovery", "gbn");
        Set("ns3::RdmaNic::Mtu", "4096");
        Set("ns3::FabricSwitch::EcnEnabled", "false");
    }

    /// Host 0 sends \p bytes to host 2 (the other leaf) from t = 0. With \p pauseQuanta, at
    /// 240 ns (frame 0 has left host 0's leaf, the flow's path is known) host 2's leaf pauses
    /// priority 3 of the spine on that path for that many quanta.
    static void Start(Run& r, uint64_t bytes, uint16_t pauseQuanta, bool ecnCapable = false)
    {
        Clos2Params p;
        p.k = 4;
        p.leaves = 2;
        p.spines = 2;
        r.net = FabricNetwork::Build(MakeClos2(p), 0, 0);
        r.nics = InstallNics(r.net, "ns3::RdmaNic");
        uint32_t leaf0 = r.net.PeerOf(r.net.NodeOfHost(0), 0).node;
        uint32_t leaf1 = r.net.PeerOf(r.net.NodeOfHost(2), 0).node;
        r.src = DynamicCast<ConWeaveLoadBalancer>(r.net.GetSwitch(leaf0)->GetLoadBalancer());
        r.dst = DynamicCast<ConWeaveLoadBalancer>(r.net.GetSwitch(leaf1)->GetLoadBalancer());
        ASSERT_TRUE(r.src && r.dst);
        FlowRecord rec;
        rec.src = 0;
        rec.dst = 2;
        rec.bytes = bytes;
        rec.priority = 3;
        rec.entropy = 50000;
        rec.ecnCapable = ecnCapable;
        r.flow = r.net.GetFlowTable()->Add(rec);
        r.nics[0]->StartFlowAt(r.flow);
        r.src->TraceConnectWithoutContext(
            "Reroute",
            MakeCallback(+[](Run* r, uint32_t, uint64_t from, uint64_t to, uint8_t reason) {
                r->reroutes.push_back({Simulator::Now().GetPicoSeconds() / 1e3, from, to, reason});
            }).Bind(&r));
        r.dst->TraceConnectWithoutContext(
            "Flush",
            MakeCallback(+[](Run* r, uint32_t, uint32_t, uint32_t frames, bool byTail) {
                r->flushes.push_back({Simulator::Now().GetPicoSeconds() / 1e3, frames, byTail});
            }).Bind(&r));
        r.src->TraceConnectWithoutContext(
            "Control",
            MakeCallback(+[](Run* r, uint8_t type, uint32_t, uint32_t, uint64_t path) {
                if (type == ConWeaveLoadBalancer::NOTIFY)
                {
                    r->notifies.emplace_back(Simulator::Now().GetPicoSeconds() / 1e3, path);
                }
            }).Bind(&r));
        Simulator::Schedule(NanoSeconds(240), [&r, leaf0, pauseQuanta] {
            r.path = r.src->GetFlowPath(r.flow, 0);
            if (pauseQuanta == 0 || r.path == 0)
            {
                return;
            }
            PortRef spine = r.net.PeerOf(leaf0, ConWeaveLoadBalancer::PortOfHop(r.path, 0));
            PortRef far = r.net.PeerOf(spine.node, ConWeaveLoadBalancer::PortOfHop(r.path, 1));
            r.net.GetDevice(far.node, far.port)->SendPause(3, pauseQuanta);
        });
    }
};

TEST_F(ConWeave, PathsAndBaseRttFollowTheFabric)
{
    Run r;
    Start(r, 4096, 0);
    // Two paths from leaf 0 to leaf 1, one per spine, each naming two out-ports.
    const std::vector<uint64_t>& paths = r.src->GetPaths(2);
    ASSERT_EQ(paths.size(), 2u);
    EXPECT_NE(paths[0], paths[1]);
    for (uint64_t p : paths)
    {
        EXPECT_EQ(ConWeaveLoadBalancer::PathText(p).find('-') != std::string::npos, true);
    }
    EXPECT_EQ(r.src->GetBaseRtt(2), NanoSeconds(kBaseRttNs));
    EXPECT_TRUE(r.src->GetPaths(1).empty()); // host 1 is on leaf 0: no fabric path
}

TEST_F(ConWeave, ThreeTierPathsNameFourHops)
{
    // A k = 4 fat tree: from an edge switch to one in another pod, 2 aggregation switches x 2
    // cores = 4 paths of 4 switch-to-switch cables (edge, agg, core, agg out-ports); base RTT
    // 2 x 4 x 150 ns = 1200 ns (conweave-ns3 network-load-balance.cc:1640, one_hop_delay x 8).
    FabricNetwork net =
        FabricNetwork::Build(MakeFatTree3(4, DataRate("400Gbps"), NanoSeconds(150)), 0, 0);
    std::vector<Ptr<HostTransport>> nics = InstallNics(net, "ns3::RdmaNic");
    uint32_t edge = net.PeerOf(net.NodeOfHost(0), 0).node;
    auto lb = DynamicCast<ConWeaveLoadBalancer>(net.GetSwitch(edge)->GetLoadBalancer());
    ASSERT_TRUE(lb);
    uint32_t far = net.GetNHosts() - 1; // in the last pod
    const std::vector<uint64_t>& paths = lb->GetPaths(far);
    ASSERT_EQ(paths.size(), 4u);
    for (uint64_t p : paths)
    {
        std::string text = ConWeaveLoadBalancer::PathText(p);
        EXPECT_EQ(std::count(text.begin(), text.end(), '-'), 3) << text;
    }
    EXPECT_EQ(lb->GetBaseRtt(far), NanoSeconds(1200));
    // Within the pod: 2 paths of 2 cables (edge, agg), base RTT 600 ns.
    EXPECT_EQ(lb->GetPaths(2).size(), 2u);
    EXPECT_EQ(lb->GetBaseRtt(2), NanoSeconds(600));
    // A flow across the core follows its path hop by hop and arrives whole, in order.
    FlowRecord rec;
    rec.src = 0;
    rec.dst = far;
    rec.bytes = 1 << 20;
    rec.priority = 3;
    uint32_t id = net.GetFlowTable()->Add(rec);
    nics[0]->StartFlowAt(id);
    Simulator::Run();
    const FlowRecord& f = net.GetFlowTable()->Get(id);
    EXPECT_TRUE(f.finished);
    EXPECT_EQ(f.retransmittedBytes, 0u);
    EXPECT_EQ(lb->GetReroutes(), 0u);
    EXPECT_TRUE(CheckConservation(net).Ok());
}

TEST_F(ConWeave, NoCongestionNoRerouteAndNoHolding)
{
    // One flow alone: every RTT_REPLY comes back well within 600 ns + 4 us (the round trip
    // is two data-frame serializations, two control-frame ones and four cables, ~0.77 us), so
    // ConWeave never reroutes and nothing waits in a reorder queue.
    Run r;
    Start(r, 2 << 20, 0);
    Simulator::Run();
    const FlowRecord& f = r.net.GetFlowTable()->Get(r.flow);
    EXPECT_TRUE(f.finished);
    EXPECT_EQ(r.src->GetReroutes(), 0u);
    EXPECT_TRUE(r.reroutes.empty());
    EXPECT_EQ(r.dst->GetHeldFrames(), 0u);
    EXPECT_EQ(r.dst->GetMaxQueuesInUse(), 0u);
    EXPECT_TRUE(r.flushes.empty());
    EXPECT_EQ(r.dst->GetControlSent(ConWeaveLoadBalancer::CLEAR), 0u);
    // Every epoch asked for a reply and got it in time; the flow of 512 frames over ~43 us
    // runs many epochs, one RTT each.
    uint64_t replies = r.dst->GetControlSent(ConWeaveLoadBalancer::RTT_REPLY);
    EXPECT_GT(replies, 10u);
    EXPECT_EQ(r.src->GetControlReceived(ConWeaveLoadBalancer::RTT_REPLY), replies);
    EXPECT_EQ(f.retransmittedBytes, 0u);
    EXPECT_TRUE(CheckConservation(r.net).Ok());
}

TEST_F(ConWeave, CongestedPathIsLeftAfterBaseRttPlusExtraAndDeliveryStaysInOrder)
{
    // The spine of the flow's path is paused for 7813 quanta (10 us): the RTT_REQUEST of epoch
    // 1 is stuck there, no reply comes, and the first frame to reach leaf 0 after the deadline
    // 4833.56 ns is k = 56 (t_56 = 57 T_f + 150 = 4912.92 ns): the TAIL of the old path, the
    // later frames on the other path. They reach leaf 1 first and wait there until the TAIL
    // does (the pause ends at ~10.4 us), so host 2 sees every frame in order: go-back-N resends
    // nothing. 57 frames (237 KB) wait at the spine, under its 256 KiB XOFF: no pause reaches
    // leaf 0, which keeps its line rate until then. (When the pause ends, the spine's backlog
    // and the new path meet at host 2's port at twice its rate; PFC from leaf 1 then delays
    // later epochs' RTT_REQUESTs past their deadline too: more reroutes, also put in order.)
    Run r;
    Start(r, 2 << 20, 7813);
    Simulator::Run();
    ASSERT_NE(r.path, 0u);
    ASSERT_GE(r.reroutes.size(), 1u);
    EXPECT_NEAR(r.reroutes[0].ns, AtLeaf(56), 1e-3);
    EXPECT_GT(r.reroutes[0].ns, kCableNs + kFrameNs + kBaseRttNs + 4000);
    EXPECT_EQ(r.reroutes[0].reason, ConWeaveLoadBalancer::REROUTE_REPLY_TIMEOUT);
    EXPECT_EQ(r.reroutes[0].from, r.path);
    // Of two paths drawn with replacement the first is taken (no NOTIFY paused any): the other
    // path with probability 1/2; the draw of this seed takes it.
    ASSERT_NE(r.reroutes[0].to, r.path) << "the draw kept the flow on its path";
    const FlowRecord& f = r.net.GetFlowTable()->Get(r.flow);
    EXPECT_TRUE(f.finished);
    EXPECT_EQ(f.retransmittedBytes, 0u);
    EXPECT_EQ(f.discardedBytes, 0u);
    EXPECT_EQ(f.droppedBytes, 0u);
    for (const auto& rr : r.reroutes)
    {
        EXPECT_EQ(rr.reason, ConWeaveLoadBalancer::REROUTE_REPLY_TIMEOUT); // never idle 300 us
    }
    // The first reorder queue holds the frames that overtook the TAIL, released by the TAIL
    // after the pause; every queue is released by its TAIL, none by its timer.
    ASSERT_GE(r.flushes.size(), 1u);
    EXPECT_GT(r.flushes[0].ns, 10000.0);
    EXPECT_GT(r.flushes[0].frames, 0u);
    uint64_t released = 0;
    for (const auto& fl : r.flushes)
    {
        EXPECT_TRUE(fl.byTail);
        released += fl.frames;
    }
    EXPECT_EQ(r.dst->GetFlushesByTail(), r.flushes.size());
    EXPECT_EQ(r.dst->GetFlushesByTimeout(), 0u);
    EXPECT_EQ(r.dst->GetHeldFrames(), released);
    // Every reroute sent a TAIL, which leaf 1 answered with a CLEAR.
    EXPECT_EQ(r.dst->GetControlSent(ConWeaveLoadBalancer::CLEAR), r.reroutes.size());
    EXPECT_EQ(r.src->GetControlReceived(ConWeaveLoadBalancer::CLEAR), r.reroutes.size());
    EXPECT_TRUE(CheckConservation(r.net).Ok());
}

TEST_F(ConWeave, LateTailReleasesTheQueueByTimeoutAtTheDerivedTime)
{
    // As above, but the spine stays paused for 65535 quanta (83.9 us): the TAIL is late. The
    // first frame on the new path, k = 57, leaves leaf 0 at t_57 = 4996.48 ns and crosses two
    // idle cables: at leaf 1 at t_57 + 2 (T_f + 150) = 5463.60 ns. Leaf 1 has seen no phase-0
    // frame of epoch 1 (they all wait at the spine), so it waits DefaultVoqWaitingTime (here
    // 20 us) + ExtraVoqFlushTime (16 us) (conweave-routing.cc:797-811): the queue is released
    // by its timer at 41463.60 ns. Until then frames k = 57, 58, ... arrive one per T_f (no PFC
    // slows them): (41463.60 - 5463.60) / 83.56 = 430.8,
    // so k = 57 .. 487, 431 frames of 4154 bytes, wait at most (held outside the buffer, as the
    // reference holds them: HoldInBuffer false).
    Set("ns3::ConWeaveLoadBalancer::DefaultVoqWaitingTime", "20us");
    Set("ns3::ConWeaveLoadBalancer::HoldInBuffer", "false");
    Run r;
    Start(r, 2 << 20, 65535);
    Simulator::Run();
    ASSERT_GE(r.reroutes.size(), 1u);
    EXPECT_NEAR(r.reroutes[0].ns, AtLeaf(56), 1e-3);
    ASSERT_NE(r.reroutes[0].to, r.path) << "the draw kept the flow on its path";
    ASSERT_GE(r.flushes.size(), 1u);
    double firstHeld = AtLeaf(57) + 2 * (kFrameNs + kCableNs);
    EXPECT_NEAR(firstHeld, 5463.60, 1e-6);
    EXPECT_NEAR(r.flushes[0].ns, firstHeld + 20000 + 16000, 1e-3);
    EXPECT_FALSE(r.flushes[0].byTail);
    EXPECT_EQ(r.flushes[0].frames, 431u);
    EXPECT_EQ(r.dst->GetMaxQueueFrames(), 431u);
    EXPECT_EQ(r.dst->GetMaxQueueBytes(), 431u * 4154u);
    EXPECT_GE(r.dst->GetFlushesByTimeout(), 1u);
    // Released ahead of frames 1..56, the frames arrive out of order: go-back-N resends.
    const FlowRecord& f = r.net.GetFlowTable()->Get(r.flow);
    EXPECT_TRUE(f.finished);
    EXPECT_GT(f.retransmittedBytes, 0u);
    EXPECT_TRUE(CheckConservation(r.net).Ok());
}

TEST_F(ConWeave, HeldFramesChargedToTheBufferStayWithinXoffPlusHeadroom)
{
    // The same late TAIL with HoldInBuffer (the default): the held frames stay charged to leaf 1's
    // buffer at the port they came in by, so PFC stops the new path once that ingress holds its
    // XOFF threshold (256 KiB); what is on the way still lands, in the port's headroom (32 KiB).
    // The timer is the same: 41463.60 ns.
    Set("ns3::ConWeaveLoadBalancer::DefaultVoqWaitingTime", "20us");
    Set("ns3::ConWeaveLoadBalancer::HoldInBuffer", "true");
    Run r;
    Start(r, 2 << 20, 65535);
    Simulator::Run();
    ASSERT_GE(r.reroutes.size(), 1u);
    ASSERT_NE(r.reroutes[0].to, r.path) << "the draw kept the flow on its path";
    ASSERT_GE(r.flushes.size(), 1u);
    EXPECT_NEAR(r.flushes[0].ns, 5463.60 + 20000 + 16000, 1e-3);
    EXPECT_GT(r.dst->GetMaxQueueFrames(), 0u);
    EXPECT_LE(r.dst->GetMaxQueueBytes(), uint64_t(256 + 32) * 1024);
    EXPECT_LT(r.dst->GetMaxQueueFrames(), 431u);
    EXPECT_TRUE(r.net.GetFlowTable()->Get(r.flow).finished);
    EXPECT_TRUE(CheckConservation(r.net).Ok());
}

/// Hosts 0 and 1 (leaf 0) send 2 MiB each to hosts 2 and 3 (leaf 1) from t = 0; at 240 ns
/// leaf 1 pauses both spines toward it for 7813 quanta (10 us). Both flows' RTT_REQUESTs are
/// stuck, both are rerouted, and when the pause ends each spine drains a flow's frames from
/// before its TAIL and the other flow's frames from after its own: both destination-side
/// reorder queues fill at once. Returns the largest number of reorder queues leaf 1 used at
/// once and how often an out-of-order frame found none free; \p moved: whether both flows
/// moved to the other path (then both needed a queue).
std::pair<uint32_t, uint64_t>
TwoFlowsReordered(bool* moved)
{
    // Each reroute takes the other path with probability 1/2: run 2's draws move both flows
    // (run 1's keep one on its path).
    RngSeedManager::SetRun(2);
    Clos2Params p;
    p.k = 4;
    p.leaves = 2;
    p.spines = 2;
    FabricNetwork net = FabricNetwork::Build(MakeClos2(p), 0, 0);
    std::vector<Ptr<HostTransport>> nics = InstallNics(net, "ns3::RdmaNic");
    uint32_t leaf0 = net.PeerOf(net.NodeOfHost(0), 0).node;
    uint32_t leaf1 = net.PeerOf(net.NodeOfHost(2), 0).node;
    auto src = DynamicCast<ConWeaveLoadBalancer>(net.GetSwitch(leaf0)->GetLoadBalancer());
    auto dst = DynamicCast<ConWeaveLoadBalancer>(net.GetSwitch(leaf1)->GetLoadBalancer());
    std::vector<std::pair<uint64_t, uint64_t>> reroutes;
    src->TraceConnectWithoutContext("Reroute",
                                    MakeCallback(+[](std::vector<std::pair<uint64_t, uint64_t>>* v,
                                                     uint32_t,
                                                     uint64_t from,
                                                     uint64_t to,
                                                     uint8_t) {
                                        v->emplace_back(from, to);
                                    }).Bind(&reroutes));
    std::vector<uint32_t> flows;
    for (uint32_t h : {0u, 1u})
    {
        FlowRecord rec;
        rec.src = h;
        rec.dst = h + 2;
        rec.bytes = 2 << 20;
        rec.priority = 3;
        rec.entropy = static_cast<uint16_t>(50000 + h);
        flows.push_back(net.GetFlowTable()->Add(rec));
        nics[h]->StartFlowAt(flows.back());
    }
    Simulator::Schedule(NanoSeconds(240), [&net, leaf1] {
        for (uint32_t port = 0; port < net.GetNPorts(leaf1); ++port)
        {
            if (net.Spec().nodes[net.PeerOf(leaf1, port).node].isSwitch)
            {
                net.GetDevice(leaf1, port)->SendPause(3, 7813);
            }
        }
    });
    Simulator::Run();
    EXPECT_TRUE(net.GetFlowTable()->Get(flows[0]).finished);
    EXPECT_TRUE(net.GetFlowTable()->Get(flows[1]).finished);
    EXPECT_TRUE(CheckConservation(net).Ok());
    *moved = reroutes.size() >= 2 && reroutes[0].first != reroutes[0].second &&
             reroutes[1].first != reroutes[1].second;
    return {dst->GetMaxQueuesInUse(), dst->GetQueueUnavailable()};
}

TEST_F(ConWeave, MaxReorderQueuesBoundsTheQueuesInUse)
{
    // Unbounded (the reference), both flows hold frames at once: two queues. With one queue,
    // never more than one, and the other flow's overtaking frames go on unordered.
    bool moved = false;
    auto [unbounded, unavailable] = TwoFlowsReordered(&moved);
    ASSERT_TRUE(moved) << "the draw kept a flow on its path";
    EXPECT_EQ(unbounded, 2u);
    EXPECT_EQ(unavailable, 0u);
    TearDown();
    SetUp();
    Set("ns3::ConWeaveLoadBalancer::MaxReorderQueues", "1");
    auto [bounded, refused] = TwoFlowsReordered(&moved);
    ASSERT_TRUE(moved);
    EXPECT_EQ(bounded, 1u);
    EXPECT_GT(refused, 0u);
}

TEST_F(ConWeave, NotifyPausesAPathForPathPauseTime)
{
    // ECN on at every switch from the first queued byte (Kmin 1 B, Kmax 2 B, Pmax 1): the
    // frames queued behind the spine's pause are marked, and each that reaches leaf 1 sends a
    // NOTIFY naming its path. At leaf 0 a path is then out of the draw until PathPauseTime
    // (16 us) after the last NOTIFY for it: checked at 1 ns before and at exactly that time.
    Set("ns3::FabricSwitch::EcnEnabled", "true");
    Set("ns3::FabricSwitch::EcnKmin", "1B");
    Set("ns3::FabricSwitch::EcnKmax", "2B");
    Set("ns3::FabricSwitch::EcnPmax", "1");
    Run r;
    Start(r, 2 << 20, 7813, true);
    std::vector<std::tuple<double, uint64_t, bool>> checks; // (ns, path, paused then)
    r.src->TraceConnectWithoutContext(
        "Control",
        MakeCallback(+[](Run* r,
                         std::vector<std::tuple<double, uint64_t, bool>>* checks,
                         uint8_t type,
                         uint32_t,
                         uint32_t,
                         uint64_t path) {
            if (type != ConWeaveLoadBalancer::NOTIFY)
            {
                return;
            }
            for (Time at : {MicroSeconds(16) - NanoSeconds(1), MicroSeconds(16)})
            {
                Simulator::Schedule(at, [r, checks, path] {
                    checks->emplace_back(Simulator::Now().GetPicoSeconds() / 1e3,
                                         path,
                                         r->src->IsPathPaused(path));
                });
            }
        }).Bind(&r, &checks));
    Simulator::Run();
    ASSERT_FALSE(r.notifies.empty());
    EXPECT_EQ(checks.size(), 2 * r.notifies.size());
    EXPECT_EQ(r.src->GetControlReceived(ConWeaveLoadBalancer::NOTIFY), r.notifies.size());
    for (const auto& [ns, path, paused] : checks)
    {
        // Paused iff a NOTIFY for the path came within the last 16 us.
        bool expected = false;
        for (const auto& [n, p] : r.notifies)
        {
            expected = expected || (p == path && n <= ns + 1e-6 && ns < n + 16000 - 1e-6);
        }
        EXPECT_EQ(paused, expected)
            << "path " << ConWeaveLoadBalancer::PathText(path) << " at " << ns << " ns";
    }
    // No reroute chose a paused path.
    for (const auto& rr : r.reroutes)
    {
        for (const auto& [n, p] : r.notifies)
        {
            EXPECT_FALSE(p == rr.to && n <= rr.ns && rr.ns < n + 16000)
                << "reroute at " << rr.ns << " ns onto a path paused at " << n << " ns";
        }
    }
    EXPECT_TRUE(r.net.GetFlowTable()->Get(r.flow).finished);
}

} // namespace
} // namespace test
} // namespace ns3
