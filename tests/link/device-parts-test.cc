// The parts a FabricNetDevice is made of, each on its own: the egress queues and their
// scheduler, the PFC state, the faults, and the cable that holds frames between the two ports.
// Every expected number is derived from the rule the part implements.

#include "../fabric-sim-util.h"
#include "link/fabric-channel.h"
#include "link/fabric-net-device.h"
#include "link/pfc-port.h"
#include "link/port-faults.h"
#include "link/port-queues.h"
#include "wire/roce-frame-header.h"

#include "ns3/node.h"
#include "ns3/traced-callback.h"

#include <map>
#include <vector>

namespace ns3
{
namespace test
{
namespace
{

QueuedFrame
Frame(uint8_t priority, uint32_t bytes)
{
    QueuedFrame q;
    q.priority = priority;
    q.bytes = bytes;
    return q;
}

/// Bytes each priority sends when the scheduler picks \p picks frames in a row, every queue
/// refilled so that it stays backlogged, eligibility given by \p eligible.
template <typename Eligible>
std::map<uint8_t, uint64_t>
Serve(PortQueues& q, const std::map<uint8_t, uint32_t>& frameBytes, int picks, Eligible eligible)
{
    std::map<uint8_t, uint64_t> sent;
    for (int i = 0; i < picks; ++i)
    {
        int p = q.Select(eligible);
        if (p < 0)
        {
            break;
        }
        QueuedFrame f = q.TakeHead(static_cast<uint8_t>(p));
        sent[f.priority] += f.bytes;
        q.Push(Frame(f.priority, frameBytes.at(f.priority)));
    }
    return sent;
}

TEST(PortQueues, PushAndTakeKeepByteCountsAndTheNonEmptyMask)
{
    PortQueues q;
    EXPECT_EQ(q.Push(Frame(3, 1000)), 1000u);
    EXPECT_EQ(q.Push(Frame(3, 500)), 1500u);
    EXPECT_EQ(q.Push(Frame(5, 64)), 64u);
    EXPECT_EQ(q.NonEmptyMask(), (1u << 3) | (1u << 5));
    EXPECT_EQ(q.TotalBytes(), 1564u);
    EXPECT_EQ(q.TakeHead(3).bytes, 1000u); // FIFO within a priority
    EXPECT_EQ(q.Bytes(3), 500u);
    EXPECT_EQ(q.TakeHead(3).bytes, 500u);
    EXPECT_EQ(q.NonEmptyMask(), 1u << 5);
    EXPECT_EQ(q.Bytes(3), 0u);
}

TEST(PortQueues, StrictPriorityServesTheHighestEligibleQueue)
{
    PortQueues q;
    for (uint8_t p : {1, 4, 6})
    {
        q.Push(Frame(p, 100));
    }
    std::vector<uint8_t> asked;
    auto all = [&asked](uint8_t p) {
        asked.push_back(p);
        return true;
    };
    EXPECT_EQ(q.Select(all), 6);
    EXPECT_EQ(asked, std::vector<uint8_t>{6}); // only what is needed is asked
    asked.clear();
    auto not6 = [&asked](uint8_t p) {
        asked.push_back(p);
        return p != 6;
    };
    EXPECT_EQ(q.Select(not6), 4);
    EXPECT_EQ(asked, (std::vector<uint8_t>{6, 4})); // empty queues are never asked
    EXPECT_EQ(q.Select([](uint8_t) { return false; }), -1);
}

// DWRR (Shreedhar and Varghese, SIGCOMM 1995): every backlogged queue gets the same quantum per
// round, so over R rounds each sends R x quantum bytes give or take one frame, whatever its
// frame size. Quantum 3000 B; priority 1 sends 1500 B frames (2 per round), priority 2 500 B
// frames (6 per round): 8 picks per round, 3000 B each per round.
TEST(PortQueues, DwrrGivesEveryBackloggedQueueItsQuantumPerRoundWhateverTheFrameSize)
{
    PortQueues q;
    q.SetDwrr(true);
    q.SetDwrrQuantum(3000);
    std::map<uint8_t, uint32_t> sizes{{1, 1500}, {2, 500}};
    for (auto [p, bytes] : sizes)
    {
        q.Push(Frame(p, bytes));
    }
    constexpr int kRounds = 50;
    auto sent = Serve(q, sizes, 8 * kRounds, [](uint8_t) { return true; });
    EXPECT_EQ(sent[1], uint64_t(kRounds) * 3000);
    EXPECT_EQ(sent[2], uint64_t(kRounds) * 3000);
}

// A quantum smaller than the frame: the deficit carries over, so a 1500 B frame goes every
// third turn with a 500 B quantum, and priority 2 (500 B frames) sends one per turn: the byte
// shares stay equal (1500 B every three rounds each).
TEST(PortQueues, DwrrDeficitCarriesOverWhenTheQuantumIsBelowTheFrame)
{
    PortQueues q;
    q.SetDwrr(true);
    q.SetDwrrQuantum(500);
    std::map<uint8_t, uint32_t> sizes{{1, 1500}, {2, 500}};
    for (auto [p, bytes] : sizes)
    {
        q.Push(Frame(p, bytes));
    }
    // Three rounds: priority 2 sends 3 frames, priority 1 one frame: 4 picks.
    auto sent = Serve(q, sizes, 4 * 30, [](uint8_t) { return true; });
    EXPECT_EQ(sent[1], 30u * 1500);
    EXPECT_EQ(sent[2], 30u * 1500);
}

/// The priorities the scheduler picks in \p n calls, taking each picked head (no refill).
template <typename Eligible>
std::vector<int>
Picks(PortQueues& q, int n, Eligible eligible)
{
    std::vector<int> picked;
    for (int i = 0; i < n; ++i)
    {
        int p = q.Select(eligible);
        picked.push_back(p);
        if (p >= 0)
        {
            q.TakeHead(static_cast<uint8_t>(p));
        }
    }
    return picked;
}

const auto kAll = [](uint8_t) { return true; };

// A paused queue is skipped but keeps its deficit. Quantum 1000 B, priority 1 holds one 1500 B
// frame, priority 2 many 100 B frames. In its first turn priority 1 cannot send (1000 B <
// 1500 B) and keeps 1000 B; priority 2 sends 10 frames a turn. Paused for a turn, priority 1
// keeps the 1000 B, so its first turn after the pause (1000 + 1000 B) sends at once; had the
// pause cost the deficit it would need one more turn.
TEST(PortQueues, DwrrPausedQueueKeepsItsDeficit)
{
    PortQueues q;
    q.SetDwrr(true);
    q.SetDwrrQuantum(1000);
    q.Push(Frame(1, 1500));
    for (int i = 0; i < 30; ++i)
    {
        q.Push(Frame(2, 100));
    }
    EXPECT_EQ(Picks(q, 10, kAll), std::vector<int>(10, 2));
    EXPECT_EQ(Picks(q, 10, [](uint8_t p) { return p != 1; }), std::vector<int>(10, 2));
    EXPECT_EQ(Picks(q, 1, kAll), std::vector<int>{1});
}

// A queue the scheduler finds empty forfeits its deficit. Quantum 1000 B; priority 2 sends its
// only 100 B frame (900 B left), priority 3 many 100 B frames. The next visit finds priority 2
// empty: its 900 B are gone, so when it has 20 frames again it sends 10 (1000 B) in its next
// turn, not 19.
TEST(PortQueues, DwrrQueueFoundEmptyForfeitsItsDeficit)
{
    PortQueues q;
    q.SetDwrr(true);
    q.SetDwrrQuantum(1000);
    q.Push(Frame(2, 100));
    for (int i = 0; i < 30; ++i)
    {
        q.Push(Frame(3, 100));
    }
    EXPECT_EQ(Picks(q, 2, kAll), (std::vector<int>{2, 3}));
    for (int i = 0; i < 20; ++i)
    {
        q.Push(Frame(2, 100));
    }
    std::vector<int> expected(9, 3); // the rest of priority 3's turn
    expected.insert(expected.end(), 10, 2);
    expected.push_back(3);
    EXPECT_EQ(Picks(q, 20, kAll), expected);
    EXPECT_EQ(Picks(q, 1, [](uint8_t) { return false; }), std::vector<int>{-1});
}

class PfcPortTest : public SimTest
{
};

void
Heard(std::vector<std::pair<uint8_t, uint16_t>>* heard, uint8_t priority, uint16_t quanta)
{
    heard->emplace_back(priority, quanta);
}

// IEEE 802.1Qbb: a pause lasts quanta x 512 bit times at the port's rate. At 100 Gb/s one
// quantum is 512 / 1e11 s = 5.12 ns; 1000 quanta are 5.12 us.
TEST_F(PfcPortTest, PauseLastsQuantaTimes512BitTimesAndARefreshKeepsItsStart)
{
    PfcPort pfc;
    TracedCallback<uint8_t, uint16_t> trace;
    std::vector<std::pair<uint8_t, uint16_t>> heard;
    trace.ConnectWithoutContext(MakeBoundCallback(&Heard, &heard));
    Time quantum = BitsAtRate(512, DataRate("100Gbps"), true);
    ASSERT_EQ(quantum, PicoSeconds(5120));
    Mac48Address mac = Mac48Address::Allocate();
    Time t0 = MicroSeconds(1);
    EXPECT_EQ(pfc.Receive(pfc.BuildPause(mac, 3, 1000), t0, quantum, trace), PfcPort::PAUSED);
    EXPECT_EQ(pfc.GetPausedUntil(3), t0 + NanoSeconds(5120));
    EXPECT_FALSE(pfc.MaySend(3, t0 + NanoSeconds(5119)));
    EXPECT_TRUE(pfc.MaySend(3, t0 + NanoSeconds(5120)));
    EXPECT_TRUE(pfc.MaySend(2, t0));
    EXPECT_EQ(pfc.GetPausedSince(3), t0);
    // A refresh 2 us later: the pause runs from then, its start stays.
    Time t1 = t0 + MicroSeconds(2);
    pfc.Receive(pfc.BuildPause(mac, 3, 1000), t1, quantum, trace);
    EXPECT_EQ(pfc.GetPausedUntil(3), t1 + NanoSeconds(5120));
    EXPECT_EQ(pfc.GetPausedSince(3), t0);
    EXPECT_EQ(pfc.GetLastPauseReceived(3), t1);
    // The earliest end among the waiting priorities (3 and 5, 5 not paused).
    EXPECT_EQ(pfc.EarliestResume((1u << 3) | (1u << 5), t1), t1 + NanoSeconds(5120));
    EXPECT_EQ(pfc.EarliestResume(1u << 5, t1), Time::Max());
    // Zero quanta resumes at once.
    EXPECT_EQ(pfc.Receive(pfc.BuildPause(mac, 3, 0), t1, quantum, trace), PfcPort::RESUMED);
    EXPECT_TRUE(pfc.MaySend(3, t1));
    EXPECT_EQ(pfc.GetFramesSent(), 3u);
    EXPECT_EQ(heard, (std::vector<std::pair<uint8_t, uint16_t>>{{3, 1000}, {3, 1000}, {3, 0}}));
}

TEST_F(PfcPortTest, AnIgnoredPriorityIsNeverPausedButThePauseIsStillSeen)
{
    PfcPort pfc;
    TracedCallback<uint8_t, uint16_t> trace;
    Mac48Address mac = Mac48Address::Allocate();
    Time quantum = NanoSeconds(5);
    pfc.Receive(pfc.BuildPause(mac, 4, 100), Time(0), quantum, trace);
    EXPECT_FALSE(pfc.MaySend(4, NanoSeconds(1)));
    pfc.SetPauseIgnored(4, true); // the watchdog ends the pause in force
    EXPECT_TRUE(pfc.MaySend(4, NanoSeconds(1)));
    pfc.Receive(pfc.BuildPause(mac, 4, 100), NanoSeconds(10), quantum, trace);
    EXPECT_TRUE(pfc.MaySend(4, NanoSeconds(11)));
    EXPECT_EQ(pfc.GetLastPauseReceived(4), NanoSeconds(10));
    pfc.SetPauseIgnored(4, false);
    pfc.Receive(pfc.BuildPause(mac, 4, 100), NanoSeconds(20), quantum, trace);
    EXPECT_EQ(pfc.GetPausedUntil(4), NanoSeconds(20 + 500));
}

TEST_F(PfcPortTest, AStormDropsDataOfItsPrioritiesOnly)
{
    PfcPort pfc;
    pfc.AddStorm(3);
    RoceFrameSpec spec;
    spec.payloadBytes = 100;
    spec.priority = 3; // DSCP 24: priority 24 / 8 = 3
    EXPECT_TRUE(pfc.StormDrops(BuildRoceFrame(spec)));
    spec.priority = 5;
    EXPECT_FALSE(pfc.StormDrops(BuildRoceFrame(spec)));
    EXPECT_FALSE(pfc.StormDrops(pfc.BuildPause(Mac48Address::Allocate(), 3, 1))); // not IPv4
    pfc.StopStorm();
    spec.priority = 3;
    EXPECT_FALSE(pfc.StormDrops(BuildRoceFrame(spec)));
}

class PortFaultsTest : public SimTest
{
};

TEST_F(PortFaultsTest, LossRateOneLosesEveryDataFrameAndNoPfcFrame)
{
    PortFaults faults;
    faults.SetStream(7);
    RoceFrameSpec spec;
    spec.payloadBytes = 100;
    FrameRef data(BuildRoceFrame(spec));
    PfcPort pfc;
    FrameRef pause(pfc.BuildPause(Mac48Address::Allocate(), 3, 1));
    EXPECT_FALSE(faults.LostOnArrival(data)); // rate 0: nothing lost
    faults.SetLossRate(1.0);
    for (int i = 0; i < 10; ++i)
    {
        EXPECT_TRUE(faults.LostOnArrival(data));
        EXPECT_FALSE(faults.LostOnArrival(pause));
    }
    EXPECT_EQ(faults.GetLostFrames(), 10u);
}

TEST_F(PortFaultsTest, LinkStateAndDroppedPriorities)
{
    PortFaults faults;
    EXPECT_TRUE(faults.IsLinkUp());
    EXPECT_FALSE(faults.SetLinkUp(true)); // no change
    EXPECT_TRUE(faults.SetLinkUp(false));
    EXPECT_FALSE(faults.IsLinkUp());
    faults.SetDropping(2, true);
    faults.SetDropping(6, true);
    EXPECT_TRUE(faults.IsDropping(2));
    EXPECT_TRUE(faults.IsDropping(6));
    EXPECT_FALSE(faults.IsDropping(3));
    faults.SetDropping(2, false);
    EXPECT_FALSE(faults.IsDropping(2));
    EXPECT_TRUE(faults.IsDropping(6));
}

/// Records when data reaches a port.
struct Arrivals : public FabricPortOwner
{
    std::vector<Time> at;

    void FrameReceived(FabricNetDevice*, WireFrame&) override
    {
        at.push_back(Simulator::Now());
    }
};

class CableTest : public SimTest
{
};

// A frame of b bytes leaves a 100 Gb/s port in (b + 24) x 8 / 1e11 s (24 B of preamble, SFD,
// FCS and inter-frame gap) and its last bit arrives 500 ns later. Three 1000 B frames back to
// back: frame k (from 0) starts at k x 81.92 ns and arrives at (k + 1) x 81.92 ns + 500 ns.
// From the start of its serialization until then the channel holds it (the sender's view of
// the cable is the channel's), and it is gone once the receiver has it.
TEST_F(CableTest, AFrameStaysOnTheCableForSerializationPlusPropagation)
{
    Ptr<FabricChannel> ch = CreateObject<FabricChannel>();
    ch->SetAttribute("Delay", TimeValue(NanoSeconds(500)));
    Ptr<FabricNetDevice> a = CreateObject<FabricNetDevice>();
    Ptr<FabricNetDevice> b = CreateObject<FabricNetDevice>();
    for (const auto& dev : {a, b})
    {
        dev->SetAttribute("DataRate", DataRateValue(DataRate("100Gbps")));
        dev->SetAddress(Mac48Address::Allocate());
        CreateObject<Node>()->AddDevice(dev);
        dev->Attach(ch);
    }
    Arrivals rx;
    b->SetOwner(&rx);
    RoceFrameSpec spec;
    spec.priority = 3;
    spec.payloadBytes = 1000 - kRoceFrameOverhead;
    for (int i = 0; i < 3; ++i)
    {
        QueuedFrame q;
        q.frame = BuildRoceFrame(spec);
        q.bytes = q.frame->GetSize();
        ASSERT_EQ(q.bytes, 1000u);
        q.priority = 3;
        a->Enqueue(std::move(q));
    }
    Time tx = PicoSeconds(81920); // (1000 + 24) x 8 bits at 100 Gb/s
    ASSERT_EQ(a->FrameTxTime(1000), tx);
    std::vector<size_t> onWire;
    for (Time t : {tx / 2, tx + NanoSeconds(1), 3 * tx + NanoSeconds(1), tx + NanoSeconds(501)})
    {
        Simulator::Schedule(t, [&onWire, a, ch]() {
            ASSERT_EQ(&a->GetOnWire(), &ch->GetOnWire(PeekPointer(a)));
            onWire.push_back(a->GetOnWire().size());
        });
    }
    Simulator::Run();
    // At tx/2 frame 0 is being serialized, after tx frame 1 too, after 3 tx all three; at
    // tx + 501 ns frame 0 has arrived (tx + 500 ns).
    EXPECT_EQ(onWire, (std::vector<size_t>{1, 2, 3, 2}));
    ASSERT_EQ(rx.at.size(), 3u);
    for (int k = 0; k < 3; ++k)
    {
        EXPECT_EQ(rx.at[k], (k + 1) * tx + NanoSeconds(500)) << "frame " << k;
    }
    EXPECT_TRUE(a->GetOnWire().empty());
    EXPECT_TRUE(b->GetOnWire().empty()); // nothing was sent the other way
}

} // namespace
} // namespace test
} // namespace ns3
