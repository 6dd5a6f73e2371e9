// Credit-based flow control (docs/models.md#cbfc) on a star, against numbers derived by hand.
//
// Link: 400 Gb/s (50 B/ns), 30 m of cable (d = 150 ns), 4096 B payload → F = 4154 B frames, 24 B
// of preamble, FCS and gap: T_f = 4178·8/400e9 = 83.56 ns exactly; a credit frame is 60 B like a
// PFC frame: T_c = 84·8/400e9 = 1.68 ns. Credits in cells of 256 B: a frame needs
// ceil(4154 / 256) = 17 credits.

#include "../fabric-sim-util.h"
#include "wire/credit-update-header.h"
#include "wire/roce-frame-header.h"

#include "ns3/ethernet-header.h"

#include <map>

namespace ns3
{
namespace test
{
namespace
{

const DataRate kRate("400Gbps");
const Time kDelay = NanoSeconds(150);
constexpr uint32_t kPayload = 4096;
constexpr uint32_t kFrame = kPayload + kRoceFrameOverhead; // 4154
constexpr uint32_t kCell = 256;
constexpr uint32_t kCellsPerFrame = (kFrame + kCell - 1) / kCell; // 17
const Time kTf = PicoSeconds(83560);                              // (4154 + 24)·8 / 400e9
const Time kTc = PicoSeconds(1680);                               // (60 + 24)·8 / 400e9

/// A credit frame's header, or nullopt for any other frame.
std::optional<CreditUpdateHeader>
CreditOf(Ptr<const Packet> frame)
{
    Ptr<Packet> copy = frame->Copy();
    EthernetHeader eth(false);
    if (copy->RemoveHeader(eth) == 0 || eth.GetLengthType() != CreditUpdateHeader::kEtherType)
    {
        return std::nullopt;
    }
    CreditUpdateHeader credit;
    copy->RemoveHeader(credit);
    return credit;
}

/// Cells of a data frame of the credited priority 3, 0 for anything else.
uint32_t
DataCells(Ptr<const Packet> frame)
{
    FrameInfo info;
    if (!ParseFrame(frame, &info) || !info.IsIpv4() || info.priority != 3)
    {
        return 0;
    }
    return (info.frameBytes + kCell - 1) / kCell;
}

class Cbfc : public SimTest
{
  protected:
    void Configure(uint32_t creditCells, Time returnInterval, Time syncInterval)
    {
        Set("ns3::FabricNetDevice::FlowControl", "cbfc");
        Set("ns3::FabricNetDevice::CreditCell", std::to_string(kCell) + "B");
        Set("ns3::FabricNetDevice::CreditBuffer", std::to_string(creditCells * kCell) + "B");
        Set("ns3::FabricNetDevice::CreditLanes", "8");
        Set("ns3::FabricNetDevice::CreditReturnInterval",
            std::to_string(returnInterval.GetPicoSeconds()) + "ps");
        Set("ns3::FabricNetDevice::CreditSyncInterval",
            std::to_string(syncInterval.GetPicoSeconds()) + "ps");
        Set("ns3::SharedBufferMmu::BufferSize", "16MiB");
        Set("ns3::FabricSwitch::EcnEnabled", "false");
        Set("ns3::FabricHost::Mtu", std::to_string(kPayload));
    }

    static uint64_t PfcFramesSent(const FabricNetwork& net)
    {
        uint64_t n = 0;
        net.ForEachLocalPort([&](uint32_t, uint32_t, const Ptr<FabricNetDevice>& dev) {
            n += dev->GetPfcFramesSent();
        });
        return n;
    }
};

/**
 * An independent credit ledger of one sending port, kept from what crosses its wire (Sniffer):
 * it spends a frame's cells when the frame starts and fails the test when the port holds fewer;
 * the peer's UPDATEs add, its SYNCs set the cumulative returns.
 */
struct Ledger
{
    Mac48Address self;
    uint64_t advertised = 0;
    uint64_t sent = 0;
    uint64_t returned = 0;
    uint64_t frames = 0;
    uint64_t violations = 0;

    void Seen(Ptr<const Packet> frame)
    {
        if (auto credit = CreditOf(frame))
        {
            Ptr<Packet> copy = frame->Copy();
            EthernetHeader eth(false);
            copy->RemoveHeader(eth);
            if (eth.GetSource() == self || !credit->HasLane(3))
            {
                return; // our own credit frames go the other way
            }
            if (credit->GetKind() == CreditUpdateHeader::UPDATE)
            {
                returned += credit->GetCount(3);
            }
            else if (credit->GetKind() == CreditUpdateHeader::SYNC)
            {
                returned = credit->GetCount(3);
            }
            return;
        }
        uint32_t cells = DataCells(frame);
        if (cells == 0)
        {
            return;
        }
        // Every data frame this port's Sniffer sees leaves it (raw flows send no reverse data).
        ++frames;
        violations += sent + cells > returned + advertised ? 1 : 0;
        sent += cells;
    }
};

TEST_F(Cbfc, NoFrameLeavesWithoutCreditAndCreditsAreConserved)
{
    // 4:1 incast, 3 frames of credit per lane: the senders stall on credit all the time.
    const uint32_t senders = 4;
    const uint32_t cells = 3 * kCellsPerFrame;
    Configure(cells, Time(0), Seconds(1)); // no SYNC within the run: every credit is an UPDATE
    FabricNetwork net = FabricNetwork::Build(MakeStar(senders + 1, kRate, kDelay), 0, 0);
    for (uint32_t s = 1; s <= senders; ++s)
    {
        AddFlow(net, s, 0, 64 * kPayload);
    }
    Ptr<FabricSwitch> sw = net.GetSwitch(net.Spec().Find("sw0").value());
    // The sending ends: every sender's NIC, and the switch port toward the receiver.
    std::vector<std::pair<Ptr<FabricNetDevice>, Ptr<FabricNetDevice>>> links; // sender, receiver
    for (uint32_t s = 1; s <= senders; ++s)
    {
        Ptr<FabricNetDevice> nic = net.GetHost(s)->GetPort(0);
        links.emplace_back(nic, nic->GetPeer());
    }
    Ptr<FabricNetDevice> toReceiver = net.GetHost(0)->GetPort(0)->GetPeer();
    links.emplace_back(toReceiver, net.GetHost(0)->GetPort(0));
    std::vector<Ledger> ledgers(links.size());
    for (size_t i = 0; i < links.size(); ++i)
    {
        ledgers[i].self = links[i].first->GetMacAddress();
        ledgers[i].advertised = cells;
        links[i].first->TraceConnectWithoutContext("Sniffer",
                                                   MakeCallback(&Ledger::Seen, &ledgers[i]));
    }
    // Conservation, every 10 ns: advertised = available at the sender + cells on the cable +
    // cells held in the receiver's buffer + freed cells not yet returned + cells in UPDATEs on
    // the way back.
    uint64_t samples = 0;
    uint64_t broken = 0;
    std::function<void()> check = [&]() {
        for (const auto& [tx, rx] : links)
        {
            uint64_t onWire = 0;
            for (const WireFrame& w : tx->GetOnWire())
            {
                onWire += DataCells(w.frame.Get());
            }
            uint64_t returning = 0;
            for (const WireFrame& w : rx->GetOnWire())
            {
                auto credit = CreditOf(w.frame.Get());
                returning += credit && credit->HasLane(3) ? credit->GetCount(3) : 0;
            }
            uint64_t sum = tx->GetCredits()->Available(3) + onWire + rx->GetCredits()->GetHeld(3) +
                           rx->GetCredits()->GetPending(3) + returning;
            broken += sum != cells ? 1 : 0;
            ++samples;
        }
        if (Simulator::Now() < MicroSeconds(200))
        {
            Simulator::Schedule(NanoSeconds(10), check);
        }
    };
    Simulator::Schedule(Time(0), check);
    Simulator::Stop(MicroSeconds(200));
    Simulator::Run();

    EXPECT_GT(samples, 10000u);
    EXPECT_EQ(broken, 0u) << "credits not conserved at some sample";
    uint64_t stalls = 0;
    for (size_t i = 0; i < links.size(); ++i)
    {
        EXPECT_EQ(ledgers[i].violations, 0u) << "link " << i << " sent beyond its credits";
        EXPECT_GT(ledgers[i].frames, 0u);
        stalls += links[i].first->GetCreditStalls();
    }
    EXPECT_GT(stalls, 0u) << "three frames of credit must stall a 4:1 incast";
    EXPECT_EQ(ledgers.back().frames, senders * 64u);
    for (const FlowRecord& f : net.GetFlowTable()->All())
    {
        EXPECT_TRUE(f.finished);
        EXPECT_EQ(f.deliveredBytes, 64u * kPayload);
    }
    EXPECT_EQ(sw->GetDroppedBytes(), 0u);
    EXPECT_EQ(PfcFramesSent(net), 0u);
}

TEST_F(Cbfc, SixteenToOneIncastIsLosslessAtLineRate)
{
    // 16 senders × K = 32 frames into h0, 64 KiB of credit per lane (256 cells: 15 frames). The
    // receiver's link is the bottleneck: busy from the first frame's arrival at the switch,
    // T_f + d, for 16·K frame times, then the last frame crosses the cable:
    //   finish = T_f + d + 16·K·T_f + d = 83.56 + 150 + 512·83.56 + 150 ns = 43 165.28 ns.
    // The credit frames cost the bottleneck nothing: the credits of switch → h0 ride h0 → switch,
    // those of each sender's link switch → sender, both otherwise idle; and credits never run out
    // on switch → h0: h0 frees at once, so a frame's credit is back after
    // RTT = T_f + d + T_c + d = 385.24 ns < 15 frames · T_f = 1253.4 ns.
    // Credit frames: one UPDATE per frame the switch forwards (to its sender) and one per frame
    // h0 receives (to the switch), none merged (one credit freed per frame time per port):
    // 2 · 16 · K = 1024 frames of 60 B.
    const uint32_t senders = 16;
    const uint32_t k = 32;
    Configure(256, Time(0), Seconds(1));
    FabricNetwork net = FabricNetwork::Build(MakeStar(senders + 1, kRate, kDelay), 0, 0);
    for (uint32_t s = 1; s <= senders; ++s)
    {
        AddFlow(net, s, 0, k * kPayload);
    }
    Simulator::Stop(MilliSeconds(1));
    Simulator::Run();

    Time last(0);
    for (const FlowRecord& f : net.GetFlowTable()->All())
    {
        EXPECT_TRUE(f.finished);
        EXPECT_EQ(f.deliveredBytes, k * kPayload);
        last = std::max(last, f.lastRx);
    }
    EXPECT_EQ(last, kTf + kDelay + kTf * (senders * k) + kDelay);
    Ptr<FabricSwitch> sw = net.GetSwitch(net.Spec().Find("sw0").value());
    EXPECT_EQ(sw->GetDroppedBytes(), 0u);
    EXPECT_EQ(sw->GetHeadroomViolationBytes(), 0u);
    EXPECT_EQ(PfcFramesSent(net), 0u);
    uint64_t creditFrames = 0;
    uint64_t creditBytes = 0;
    net.ForEachLocalPort([&](uint32_t, uint32_t, const Ptr<FabricNetDevice>& dev) {
        creditFrames += dev->GetCreditFramesSent();
        creditBytes += dev->GetCreditBytesSent();
    });
    EXPECT_EQ(creditFrames, 2u * senders * k);
    EXPECT_EQ(creditBytes, 2u * senders * k * kMinFrameBytes);
}

TEST_F(Cbfc, CreditsBelowTheBandwidthDelayProductThrottleToCreditsPerRtt)
{
    // One flow h1 → h0, 2 frames of credit (34 cells = 8704 B) where the bandwidth-delay product
    // is RTT / T_f = 385.24 / 83.56 = 4.6 frames. A frame's credit returns RTT after the frame
    // started: T_f + d to the switch, which forwards it at once and frees it (port idle, credits
    // there too), T_c + d for the UPDATE back. Frame i starts at
    //   s_i = floor(i / 2)·RTT + (i mod 2)·T_f,
    // a throughput of 2·F / RTT = 8308 B / 385.24 ns = 21.57 GB/s instead of 50 GB/s. The switch
    // → h0 hop runs the same loop in step (its credit for frame i comes back as frame i
    // arrives), so the last of K = 64 frames reaches h0 at s_63 + 2·(T_f + d):
    //   31·385.24 + 83.56 + 2·(83.56 + 150) = 12 493.12 ns.
    Configure(2 * kCellsPerFrame, Time(0), Seconds(1));
    FabricNetwork net = FabricNetwork::Build(MakeStar(2, kRate, kDelay), 0, 0);
    const uint32_t k = 64;
    AddFlow(net, 1, 0, k * kPayload);
    Simulator::Stop(MilliSeconds(1));
    Simulator::Run();

    const Time rtt = kTf + kDelay + kTc + kDelay;
    EXPECT_EQ(rtt, PicoSeconds(385240));
    const FlowRecord& f = net.GetFlowTable()->Get(0);
    EXPECT_TRUE(f.finished);
    EXPECT_EQ(f.lastRx, rtt * ((k - 1) / 2) + kTf * ((k - 1) % 2) + (kTf + kDelay) * 2);
    // A quarter of the credit less (one frame) and the loop is one frame per RTT: slower still.
    EXPECT_GT(net.GetHost(1)->GetPort(0)->GetCreditStalls(), 0u);
}

TEST_F(Cbfc, LostCreditFramesAreRecoveredBySync)
{
    // 5 % of the frames every port receives are lost on the cable, credit frames included. Raw
    // flows end when every byte is delivered or dropped; without recovery the lost UPDATEs leak
    // credits until a sender holds fewer than a frame's worth and stops for good.
    auto run = [&](Time sync) {
        Configure(4 * kCellsPerFrame, Time(0), sync);
        Set("ns3::FabricNetDevice::LossRate", "0.05");
        FabricNetwork net = FabricNetwork::Build(MakeStar(3, kRate, kDelay), 0, 0);
        AddFlow(net, 1, 0, 256 * kPayload);
        AddFlow(net, 2, 0, 256 * kPayload);
        Simulator::Stop(MilliSeconds(5));
        Simulator::Run();
        bool allDone = true;
        for (const FlowRecord& f : net.GetFlowTable()->All())
        {
            allDone = allDone && f.finished && f.deliveredBytes + f.droppedBytes == f.bytes;
        }
        // Once everything is over, every sender holds all the credits again.
        bool restored = true;
        net.ForEachLocalPort([&](uint32_t, uint32_t, const Ptr<FabricNetDevice>& dev) {
            restored = restored && dev->GetCredits()->Available(3) == 4u * kCellsPerFrame;
        });
        Simulator::Destroy();
        Config::Reset();
        return std::make_pair(allDone, restored);
    };
    auto recovered = run(MicroSeconds(2));
    EXPECT_TRUE(recovered.first) << "with SYNCs every flow ends";
    EXPECT_TRUE(recovered.second) << "and no credit is lost for good";
    auto leaking = run(Time(0));
    EXPECT_FALSE(leaking.first) << "without them the loss of credit frames stalls a sender";
    EXPECT_FALSE(leaking.second);
}

TEST_F(Cbfc, SharedModePoolsTheCreditsOfAllLanes)
{
    // Two flows h1 → h0 on credited lanes 3 and 4, 2 frames (34 cells) of credit. Exclusive:
    // each lane has its own 34 cells, so at the busiest 2 + 2 frames (68 cells) are out; shared:
    // both lanes draw from one 34-cell pool, never more than 2 frames out. Sampled every 10 ns
    // from the sender's cumulative counts.
    auto maxOut = [&](bool shared) {
        Configure(2 * kCellsPerFrame, Time(0), Seconds(1));
        Set("ns3::FabricNetDevice::CreditLanes", "24");
        Set("ns3::SharedBufferMmu::LosslessPriorities", "24");
        Set("ns3::FabricNetDevice::CreditShared", shared ? "true" : "false");
        FabricNetwork net = FabricNetwork::Build(MakeStar(2, kRate, kDelay), 0, 0);
        AddFlow(net, 1, 0, 32 * kPayload, Time(0), 3);
        AddFlow(net, 1, 0, 32 * kPayload, Time(0), 4);
        const CreditFlowControl* c = net.GetHost(1)->GetPort(0)->GetCredits();
        uint64_t most = 0;
        std::function<void()> sample = [&]() {
            uint64_t out = 0;
            for (uint8_t vl : {3, 4})
            {
                out += c->GetSent(vl) - c->GetReturned(vl);
            }
            most = std::max(most, out);
            Simulator::Schedule(NanoSeconds(10), sample);
        };
        Simulator::Schedule(Time(0), sample);
        Simulator::Stop(MicroSeconds(50));
        Simulator::Run();
        for (const FlowRecord& f : net.GetFlowTable()->All())
        {
            EXPECT_TRUE(f.finished);
            EXPECT_EQ(f.deliveredBytes, 32u * kPayload);
        }
        Simulator::Destroy();
        Config::Reset();
        return most;
    };
    EXPECT_EQ(maxOut(false), 4u * kCellsPerFrame);
    EXPECT_EQ(maxOut(true), 2u * kCellsPerFrame);
}

} // namespace
} // namespace test
} // namespace ns3
