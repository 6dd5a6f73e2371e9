// Several ports of one NIC behind a shared PCIe slot (docs/models.md#shared-interface;
// "Datacenter networks", chapter 7, §7.2.3 and §7.2.4): CollectiveEngine::PortsPerNic divides an
// inter-server transfer over the ports of the control server's NIC, each part bound to its port
// (data and ACKs). The times are derived by hand from the links of the control server:
//   GPU link and slot 32 GB/s, NIC ports 25 GB/s; cables 10 ns (GPU), 5 ns (slot), 150 ns (port).
// One port: the port (25 GB/s) is the bottleneck and serializes every frame. Two or three ports:
// each port gets every second (third) frame, so the 32 GB/s links — the slot on both servers and
// the GPU links — are the bottleneck: three ports are no faster. ns-3 serializes in whole ps,
// rounded up, frame by frame (Tx); the expected times are exact.

#include "../fabric-sim-util.h"
#include "build/nic-port-binder.h"
#include "config/topology-generators.h"
#include "host/host-transport.h"
#include "run/collective-setup.h"

#include "ns3/object-factory.h"
#include "ns3/uinteger.h"

#include <gtest/gtest.h>

namespace ns3
{
namespace
{

constexpr uint64_t kGbps = 1000000000ULL;
constexpr uint64_t kSlot = 256 * kGbps;    // 32 GB/s: GPU peer links and the NIC's slot
constexpr uint64_t kPort = 200 * kGbps;    // 25 GB/s per NIC port
constexpr int64_t kDg = 10000;             // ps: GPU <-> PCIe switch cable (nvlink_delay)
constexpr int64_t kDs = 5000;              // ps: slot cable (pcie_delay)
constexpr int64_t kDp = 150000;            // ps: NIC port <-> rail leaf (nic_delay)
constexpr uint64_t kData = 4096 + 58 + 24; // a full data frame on the wire
constexpr uint64_t kFirst = kData + 16;    // the first frame of a WRITE carries a RETH
constexpr uint64_t kAck = 62 + 24;
constexpr int64_t kLaunch = 830000; // ps: LaunchCost default

/// Serialization in ps, rounded up as the devices round it.
int64_t
Tx(uint64_t bytes, uint64_t bps)
{
    return static_cast<int64_t>((bytes * 8 * 1000000000000ULL + bps - 1) / bps);
}

/// The last ACK's way back from gpu1_0 to gpu0_0: six hops with nothing queued on them.
int64_t
AckBack()
{
    return 2 * (Tx(kAck, kSlot) + kDg) + 2 * (Tx(kAck, kSlot) + kDs) + 2 * (Tx(kAck, kPort) + kDp);
}

/// When the first frame has reached the NIC (GPU link, then the slot, each storing it whole).
int64_t
FirstAtNic()
{
    return kLaunch + Tx(kFirst, kSlot) + kDg + Tx(kFirst, kSlot) + kDs;
}

/// One port: from the first frame on, the port (25 GB/s, fed at 32 GB/s) is never idle, nor is
/// the leaf's link to the far NIC (the same rate, busy from the first frame's arrival); the last
/// frame then crosses the far slot and GPU link, and its ACK returns.
int64_t
OnePort(uint64_t frames)
{
    int64_t t = FirstAtNic() + Tx(kFirst, kPort) + kDp; // the first frame at the leaf
    t += Tx(kFirst, kPort) + (frames - 1) * Tx(kData, kPort) + kDp;
    t += Tx(kData, kSlot) + kDs + Tx(kData, kSlot) + kDg;
    return t + AckBack();
}

/// k >= 2 ports: k flows of n/k frames (k RETH frames). The sending NIC serves its flows
/// round-robin a frame at a time, but part 0 is under way one frame before part 1: its first two
/// frames go back to back, the second waits behind the first on port 0 and on the leaf link.
/// From then on every 32 GB/s link is the bottleneck: the far slot sends that second frame and
/// the first of part 1 without a gap, and the far GPU link is busy from that frame of part 1 to
/// the last frame.
int64_t
SlotBound(uint64_t frames, uint64_t k)
{
    int64_t t = FirstAtNic() + 2 * Tx(kFirst, kPort) + Tx(kData, kPort) + 2 * kDp;
    t += Tx(kData, kSlot) + Tx(kFirst, kSlot) + kDs;
    t += (k - 1) * Tx(kFirst, kSlot) + (frames - k - 1) * Tx(kData, kSlot) + kDg;
    return t + AckBack();
}

class CollectiveNicPorts : public test::SimTest
{
  protected:
    /// One transfer of \p bytes from gpu0_0 to gpu1_0 of the control rail cluster (its NIC has
    /// \p nicPorts ports), divided over \p portsPerNic ports; returns its completion time (ps)
    /// and the frame bytes of the collective's class each NIC port of server 0 sent toward its
    /// leaf (\p portTx: the data frames alone, the ACKs go the other way).
    int64_t Transfer(uint64_t bytes,
                     uint32_t nicPorts,
                     uint32_t portsPerNic,
                     std::vector<uint64_t>* portTx = nullptr)
    {
        Set("ns3::RdmaNic::Mtu", "4096");
        Set("ns3::FabricHost::Mtu", "4096");
        RailParams p;
        p.servers = 2;
        p.serverType = "control";
        p.controlNicPorts = nicPorts;
        TopologySpec spec = MakeRail(p);
        FabricNetwork net = FabricNetwork::Build(spec, 0, 0);
        std::vector<Ptr<HostTransport>> nics = test::InstallNics(net, "ns3::RdmaNic");
        CollectiveJob job;
        job.ranks = 2;
        job.gpusPerServer = 1;
        job.serverOfRank = {0, 1};
        job.localOfRank = {0, 0};
        job.messageBytes = bytes;
        CollectivePlan plan(job);
        CollectiveTransfer t;
        t.src = 0;
        t.dst = 1;
        t.byteEnd = bytes;
        t.op = CollectiveOp::COPY;
        plan.Add(t);
        Ptr<CollectiveEngine> engine = CreateObject<CollectiveEngine>();
        engine->SetAttribute("PortsPerNic", UintegerValue(portsPerNic));
        engine->Configure(net.GetFlowTable(), nics, {0, 4}, 1); // gpu0_0, gpu1_0
        engine->SetPortBinder(Create<NicPortBinder>(net)->AsCallback());
        engine->SetPlan(plan);
        engine->SetCheckValues(false);
        engine->Start();
        Simulator::Stop(MilliSeconds(10));
        Simulator::Run();
        EXPECT_TRUE(engine->IsComplete());
        if (portTx)
        {
            uint32_t nic = *spec.Find("srv0-nic");
            for (uint32_t r = 0; r < nicPorts; ++r)
            {
                uint32_t leaf = *spec.Find("g0-rail" + std::to_string(r));
                uint64_t sent = 0;
                for (uint32_t port = 0; port < net.GetNPorts(nic); ++port)
                {
                    if (net.PeerOf(nic, port).node == leaf)
                    {
                        sent = net.GetDevice(nic, port)->GetTxBytes(3);
                    }
                }
                portTx->push_back(sent);
            }
        }
        int64_t end = engine->CompletionTime().GetPicoSeconds();
        Simulator::Destroy();
        return end;
    }
};

constexpr uint64_t kBytes = 1536 * 1024; // 384 frames: 2 x 192, 3 x 128
constexpr uint64_t kFrames = kBytes / 4096;

/// Stored bytes of one part of \p frames full frames (one RETH).
constexpr uint64_t
PartBytes(uint64_t frames)
{
    return frames * (4096 + 58) + 16;
}

TEST_F(CollectiveNicPorts, OnePortIsBoundByThePort)
{
    std::vector<uint64_t> tx;
    EXPECT_EQ(Transfer(kBytes, 2, 1, &tx), OnePort(kFrames));
    EXPECT_EQ(tx, (std::vector<uint64_t>{PartBytes(384), 0}));
}

TEST_F(CollectiveNicPorts, TwoPortsAreBoundByTheSharedSlotNotTheirSum)
{
    std::vector<uint64_t> tx;
    int64_t two = Transfer(kBytes, 2, 2, &tx);
    EXPECT_EQ(two, SlotBound(kFrames, 2));
    EXPECT_EQ(tx, (std::vector<uint64_t>{PartBytes(192), PartBytes(192)}));
    // The slot's 32 GB/s, not the ports' 2 x 25 GB/s: M/32 GB/s is a lower bound, M/50 GB/s is
    // far from reached.
    EXPECT_GT(two, Tx(kBytes, kSlot));
    EXPECT_LT(two, OnePort(kFrames));
}

TEST_F(CollectiveNicPorts, AThirdPortOnTheSameSlotAddsNothing)
{
    std::vector<uint64_t> tx;
    int64_t three = Transfer(kBytes, 3, 3, &tx);
    EXPECT_EQ(three, SlotBound(kFrames, 3));
    EXPECT_EQ(tx, (std::vector<uint64_t>{PartBytes(128), PartBytes(128), PartBytes(128)}));
    // One more RETH frame than with two ports: 16 B at 32 GB/s, nothing gained.
    EXPECT_EQ(three - Transfer(kBytes, 2, 2), Tx(kFirst, kSlot) - Tx(kData, kSlot));
}

TEST_F(CollectiveNicPorts, ByDefaultTheNicHashesEachTransferToOnePort)
{
    std::vector<uint64_t> tx;
    EXPECT_EQ(Transfer(kBytes, 2, 0, &tx), OnePort(kFrames));
    EXPECT_EQ(tx[0] + tx[1], PartBytes(384));
    EXPECT_TRUE(tx[0] == 0 || tx[1] == 0);
}

TEST(CollectiveNicPortsPlan, SplitsOnlyInterServerTransfersIntoBoundParts)
{
    CollectiveJob job;
    job.ranks = 3;
    job.gpusPerServer = 2;
    job.serverOfRank = {0, 0, 1};
    job.localOfRank = {0, 1, 0};
    job.messageBytes = 1000;
    CollectivePlan plan(job);
    CollectiveTransfer local;
    local.src = 0;
    local.dst = 1;
    local.byteEnd = 1000;
    uint32_t a = plan.Add(local);
    CollectiveTransfer remote = local;
    remote.src = 1;
    remote.dst = 2;
    remote.byteBegin = 100;
    remote.byteEnd = 1000;
    remote.deps = {a};
    uint32_t b = plan.Add(remote);
    plan.SplitOverNicPorts(2);
    const auto& t = plan.Transfers();
    ASSERT_EQ(t.size(), 4u);
    EXPECT_FALSE(t[a].join);
    EXPECT_EQ(t[a].nicPort, -1);
    EXPECT_TRUE(t[b].join);
    EXPECT_EQ(t[b].deps, (std::vector<uint32_t>{2, 3}));
    EXPECT_EQ(t[2].byteBegin, 100u);
    EXPECT_EQ(t[2].byteEnd, 550u);
    EXPECT_EQ(t[3].byteBegin, 550u);
    EXPECT_EQ(t[3].byteEnd, 1000u);
    EXPECT_EQ(t[2].nicPort, 0);
    EXPECT_EQ(t[3].nicPort, 1);
    EXPECT_EQ(t[2].deps, (std::vector<uint32_t>{a}));
    EXPECT_EQ(t[3].src, 1u);
    EXPECT_EQ(t[3].dst, 2u);

    CollectivePlan one(job);
    one.Add(local);
    one.Add(remote);
    one.SplitOverNicPorts(1);
    ASSERT_EQ(one.Transfers().size(), 2u);
    EXPECT_EQ(one.Transfers()[0].nicPort, -1);
    EXPECT_EQ(one.Transfers()[1].nicPort, 0);
    EXPECT_FALSE(one.Transfers()[1].join);
}

} // namespace
} // namespace ns3

namespace ns3
{
namespace
{

// A healthy rank spreading over its own NIC and a neighbour's (FuseLink-style relay, §7.2.4):
// the share through its own NIC goes whole and direct; the relayed share moves in chunks whose
// hops are chained, so one chunk's NIC hop can overlap the next chunk's NVLink hop.
TEST(CollectiveNicRelayPlan, OwnNicShareIsDirectAndRelayedShareIsPipelined)
{
    CollectiveJob job;
    job.ranks = 4;
    job.gpusPerServer = 2;
    job.serverOfRank = {0, 0, 1, 1};
    job.localOfRank = {0, 1, 0, 1};
    job.messageBytes = 1200;
    CollectivePlan plan(job);
    CollectiveTransfer t;
    t.src = 0;
    t.dst = 2;
    t.byteEnd = 1200;
    t.op = CollectiveOp::COPY;
    plan.Add(t);
    NicFailure relay;
    relay.rank = 0;
    relay.helpers = {0, 1}; // its own NIC, then rank 1's
    relay.shares = {0.5, 0.5};
    relay.chunks = 3;
    plan.ApplyNicFailures({relay});
    const auto& x = plan.Transfers();
    // The original joins: one direct piece and 3 chunks x 2 hops.
    ASSERT_EQ(x.size(), 1u + 1u + 6u);
    EXPECT_TRUE(x[0].join);
    EXPECT_EQ(x[0].deps, (std::vector<uint32_t>{1, 3, 5, 7}));
    // Direct: bytes [0, 600) from 0 to 2 in one WRITE, applying the data.
    EXPECT_EQ(x[1].src, 0u);
    EXPECT_EQ(x[1].dst, 2u);
    EXPECT_EQ(x[1].byteBegin, 0u);
    EXPECT_EQ(x[1].byteEnd, 600u);
    EXPECT_EQ(x[1].op, CollectiveOp::COPY);
    // Relayed chunk c: [600 + 200c, 800 + 200c), NVLink hop 0 -> 1 (STASH), NIC hop 1 -> 2.
    for (uint32_t c = 0; c < 3; ++c)
    {
        const CollectiveTransfer& nv = x[2 + 2 * c];
        const CollectiveTransfer& nic = x[3 + 2 * c];
        EXPECT_EQ(nv.src, 0u);
        EXPECT_EQ(nv.dst, 1u);
        EXPECT_EQ(nv.op, CollectiveOp::STASH);
        EXPECT_EQ(nic.src, 1u);
        EXPECT_EQ(nic.dst, 2u);
        EXPECT_EQ(nic.op, CollectiveOp::COPY);
        EXPECT_EQ(nic.stashFrom, static_cast<int32_t>(nv.id));
        EXPECT_EQ(nv.byteBegin, 600u + 200u * c);
        EXPECT_EQ(nv.byteEnd, 800u + 200u * c);
        if (c == 0)
        {
            EXPECT_TRUE(nv.deps.empty());
            EXPECT_EQ(nic.deps, (std::vector<uint32_t>{nv.id}));
        }
        else
        {
            // Each hop after the same hop of the previous chunk.
            EXPECT_EQ(nv.deps, (std::vector<uint32_t>{nv.id - 2}));
            EXPECT_EQ(nic.deps, (std::vector<uint32_t>{nv.id, nic.id - 2}));
        }
    }
}

// Both ends spread (the receiver's NICs set B_D): piece j goes sender helper j -> receiver
// helper j; a piece whose helpers are both ends themselves is direct.
TEST(CollectiveNicRelayPlan, ReceiverHelpersCarryTheSendersPieces)
{
    CollectiveJob job;
    job.ranks = 4;
    job.gpusPerServer = 2;
    job.serverOfRank = {0, 0, 1, 1};
    job.localOfRank = {0, 1, 0, 1};
    job.messageBytes = 1000;
    CollectivePlan plan(job);
    CollectiveTransfer t;
    t.src = 0;
    t.dst = 2;
    t.byteEnd = 1000;
    plan.Add(t);
    NicFailure send{0, {0, 1}, {0.5, 0.5}, 1};
    NicFailure recv{2, {2, 3}, {0.5, 0.5}, 1};
    plan.ApplyNicFailures({send, recv});
    const auto& x = plan.Transfers();
    ASSERT_EQ(x.size(), 1u + 1u + 3u);
    EXPECT_EQ(std::make_pair(x[1].src, x[1].dst), std::make_pair(0u, 2u)); // direct
    EXPECT_EQ(std::make_pair(x[2].src, x[2].dst), std::make_pair(0u, 1u)); // NVLink
    EXPECT_EQ(std::make_pair(x[3].src, x[3].dst), std::make_pair(1u, 3u)); // rail 1
    EXPECT_EQ(std::make_pair(x[4].src, x[4].dst), std::make_pair(3u, 2u)); // NVLink
    EXPECT_EQ(x[4].op, CollectiveOp::REDUCE);
    EXPECT_EQ(x[3].op, CollectiveOp::STASH);
}

} // namespace
} // namespace ns3
