// PFC at a single port: a pause stops a priority for quanta x 512 bit times at the port's rate,
// the frame already in transmission finishes, a zero-quanta frame resumes at once, and other
// priorities keep flowing. Two devices on one cable, frames enqueued by hand.

#include "../fabric-sim-util.h"
#include "link/fabric-channel.h"
#include "link/fabric-net-device.h"
#include "wire/roce-frame-header.h"

#include "ns3/node.h"

namespace ns3
{
namespace test
{
namespace
{

/// Two ports on one cable; b's owner records what arrives.
struct Pair : public FabricPortOwner
{
    Ptr<FabricNetDevice> a;
    Ptr<FabricNetDevice> b;
    std::vector<std::pair<Time, uint8_t>> arrivals; ///< at b: time, priority

    void FrameReceived(FabricNetDevice*, WireFrame& frame) override
    {
        arrivals.emplace_back(Simulator::Now(), frame.info.priority);
    }
};

constexpr uint32_t kFrame = 1000;
constexpr double kDelay = 100e-9;

Ptr<Packet>
DataFrame(uint8_t priority)
{
    RoceFrameSpec spec;
    spec.priority = priority;
    spec.payloadBytes = kFrame - kRoceFrameOverhead;
    return BuildRoceFrame(spec);
}

void
Enqueue(Ptr<FabricNetDevice> dev, uint8_t priority, int count)
{
    for (int i = 0; i < count; ++i)
    {
        QueuedFrame q;
        q.frame = DataFrame(priority);
        q.bytes = q.frame->GetSize();
        q.priority = priority;
        dev->Enqueue(std::move(q));
    }
}

void
MakePair(Pair* p)
{
    Ptr<Node> na = CreateObject<Node>();
    Ptr<Node> nb = CreateObject<Node>();
    Ptr<FabricChannel> ch = CreateObject<FabricChannel>();
    ch->SetAttribute("Delay", TimeValue(Seconds(kDelay)));
    p->a = CreateObject<FabricNetDevice>();
    p->b = CreateObject<FabricNetDevice>();
    for (auto [node, dev] : {std::make_pair(na, p->a), std::make_pair(nb, p->b)})
    {
        dev->SetAttribute("DataRate", DataRateValue(DataRate("100Gbps")));
        dev->SetAddress(Mac48Address::Allocate());
        node->AddDevice(dev);
        dev->Attach(ch);
    }
    p->b->SetOwner(p);
}

class PfcPauseTiming : public SimTest
{
};

TEST_F(PfcPauseTiming, PauseLastsQuantaTimes512BitTimesAndFrameInFlightFinishes)
{
    Pair p;
    MakePair(&p);
    const DataRate rate("100Gbps");
    const double tf = FrameSeconds(kFrame, 24, rate); // 1024*8/100e9 = 81.92 ns
    const double tPause = FrameSeconds(kMinFrameBytes, 24, rate);
    const uint16_t quanta = 1000; // 1000 * 512 bits / 100 Gb/s = 5.12 us
    const double pauseFor = quanta * 512.0 / 100e9;
    Simulator::Schedule(Seconds(0), &Enqueue, p.a, 3, 40);
    // b pauses a at 1 us (b sends nothing else, so the pause leaves at once).
    const double sendAt = 1e-6;
    Simulator::Schedule(Seconds(sendAt), &FabricNetDevice::SendPause, p.b, 3, quanta);
    Simulator::Run();

    ASSERT_EQ(p.arrivals.size(), 40u);
    const double pauseArrives = sendAt + tPause + kDelay;
    // Frames whose transmission started before the pause arrived are delivered unhindered:
    // frame i starts at i * tf.
    int started = static_cast<int>(std::ceil(pauseArrives / tf));
    double lastBefore = (started - 1) * tf + tf + kDelay;
    EXPECT_NEAR(p.arrivals[started - 1].first.GetSeconds(), lastBefore, 1e-12);
    // The next frame starts exactly when the pause expires.
    double resume = pauseArrives + pauseFor;
    EXPECT_NEAR(p.arrivals[started].first.GetSeconds(), resume + tf + kDelay, 1e-12);
    EXPECT_GT(p.arrivals[started].first.GetSeconds() - p.arrivals[started - 1].first.GetSeconds(),
              pauseFor - tf);
}

TEST_F(PfcPauseTiming, ZeroQuantaResumesImmediately)
{
    Pair p;
    MakePair(&p);
    const DataRate rate("100Gbps");
    const double tf = FrameSeconds(kFrame, 24, rate);
    const double tPause = FrameSeconds(kMinFrameBytes, 24, rate);
    Simulator::Schedule(Seconds(0), &Enqueue, p.a, 3, 20);
    Simulator::Schedule(Seconds(0.5e-6), &FabricNetDevice::SendPause, p.b, 3, uint16_t(0xFFFF));
    Simulator::Schedule(Seconds(2e-6), &FabricNetDevice::SendPause, p.b, 3, uint16_t(0));
    Simulator::Run();
    ASSERT_EQ(p.arrivals.size(), 20u);
    double pauseArrives = 0.5e-6 + tPause + kDelay;
    int started = static_cast<int>(std::ceil(pauseArrives / tf));
    double resumeArrives = 2e-6 + tPause + kDelay;
    EXPECT_NEAR(p.arrivals[started].first.GetSeconds(), resumeArrives + tf + kDelay, 1e-12);
}

TEST_F(PfcPauseTiming, PausedPriorityDoesNotBlockOthers)
{
    Pair p;
    MakePair(&p);
    Simulator::Schedule(Seconds(0), &Enqueue, p.a, 3, 10);
    Simulator::Schedule(Seconds(0), &FabricNetDevice::SendPause, p.b, 3, uint16_t(0xFFFF));
    Simulator::Schedule(Seconds(0.5e-6), &Enqueue, p.a, 1, 10);
    Simulator::Stop(Seconds(50e-6));
    Simulator::Run();
    int prio1 = 0;
    int prio3 = 0;
    for (const auto& [t, prio] : p.arrivals)
    {
        (prio == 1 ? prio1 : prio3)++;
    }
    EXPECT_EQ(prio1, 10);
    // Only the frames started before the pause arrived (at 0.1017 us: frame 0 and 1 started at
    // 0 and 81.92 ns) got through priority 3.
    EXPECT_EQ(prio3, 2);
}

TEST_F(PfcPauseTiming, StrictPriorityServesHighestFirst)
{
    Pair p;
    MakePair(&p);
    // Block the port with a pause on nothing; enqueue low then high before the first frame
    // completes: after the first (low) frame, every high frame goes before the remaining low.
    Simulator::Schedule(Seconds(0), &Enqueue, p.a, 0, 5);
    Simulator::Schedule(Seconds(1e-9), &Enqueue, p.a, 6, 5);
    Simulator::Run();
    ASSERT_EQ(p.arrivals.size(), 10u);
    EXPECT_EQ(p.arrivals[0].second, 0);
    for (int i = 1; i <= 5; ++i)
    {
        EXPECT_EQ(p.arrivals[i].second, 6) << "frame " << i;
    }
}

TEST_F(PfcPauseTiming, DwrrSharesBandwidthEquallyBetweenBackloggedPriorities)
{
    Set("ns3::FabricNetDevice::Scheduler", "dwrr");
    Set("ns3::FabricNetDevice::DwrrQuantum", "2000");
    Pair p;
    MakePair(&p);
    Simulator::Schedule(Seconds(0), &Enqueue, p.a, 0, 40);
    Simulator::Schedule(Seconds(0), &Enqueue, p.a, 6, 40);
    Simulator::Run();
    ASSERT_EQ(p.arrivals.size(), 80u);
    // With equal quanta (2 frames per round each), the first 40 frames split 20/20 within one
    // round's worth.
    int high = 0;
    for (int i = 0; i < 40; ++i)
    {
        high += p.arrivals[i].second == 6 ? 1 : 0;
    }
    EXPECT_NEAR(high, 20, 2);
}

} // namespace
} // namespace test
} // namespace ns3
