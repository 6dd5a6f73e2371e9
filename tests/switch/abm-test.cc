// ABM (Addanki et al., SIGCOMM 2022) in SharedBufferMmu: every threshold from its formula's
// inputs by hand, alpha_p x free x (1 / n_p) x mu, as inet-tub/ns3-datacenter
// simulator/ns-3.39/src/point-to-point/model/switch-mmu.cc computes it (ActiveBufferManagement
// :451-510, setCongested :369-393, GetNofP :395-408, updateDequeueRates :419-449); the dynamic
// threshold on lossy egress queues (DynamicMmuPolicy::LossyAlpha, switch-mmu.cc:355-366); and
// the burst that ABM's per-priority count of congested queues lets a switch absorb where DT
// drops it.

#include "../fabric-sim-util.h"
#include "link/fabric-net-device.h"
#include "link/fabric-port-owner.h"
#include "switch/fabric-switch.h"
#include "switch/mmu-policy.h"
#include "switch/shared-buffer-mmu.h"

#include "ns3/boolean.h"
#include "ns3/double.h"
#include "ns3/queue-size.h"
#include "ns3/simulator.h"
#include "ns3/string.h"
#include "ns3/uinteger.h"

#include <map>
#include <tuple>

namespace ns3
{
namespace test
{
namespace
{

constexpr uint32_t kPorts = 6;
constexpr uint8_t kLossy = 1;    // a lossy priority
constexpr uint8_t kLossyB = 2;   // another lossy priority
constexpr uint8_t kLossless = 3; // the lossless priority when PFC is on
constexpr uint64_t kCi = 20480;  // CongestionIndicator: switch-mmu.cc:130, 20 x 1024

/// An MMU of a 1 000 000 B shared pool (no PFC: no headroom reserve) on six 10 Gb/s ports,
/// with \p policy ("abm" or "dynamic") and alpha 0.5 for every priority.
Ptr<SharedBufferMmu>
MakeMmu(const std::string& policy, bool pfc = false)
{
    Ptr<SharedBufferMmu> m = CreateObject<SharedBufferMmu>();
    m->SetAttribute("BufferSize", QueueSizeValue(QueueSize("1000000B")));
    m->SetAttribute("PfcEnabled", BooleanValue(pfc));
    m->SetAttribute("LosslessPriorities", UintegerValue(1 << kLossless));
    m->SetAttribute("Headroom", QueueSizeValue(QueueSize("2000B")));
    m->SetAttribute("XonOffset", QueueSizeValue(QueueSize("2000B")));
    if (policy == "abm")
    {
        m->SetAttribute("Policy", TypeIdValue(AbmMmuPolicy::GetTypeId()));
    }
    else
    {
        Config::SetDefault("ns3::DynamicMmuPolicy::LossyAlpha", StringValue("0.5"));
        m->SetAttribute("Policy", TypeIdValue(DynamicMmuPolicy::GetTypeId()));
        m->SetAttribute("Alpha", DoubleValue(0.5));
    }
    std::vector<std::pair<DataRate, Time>> cables(kPorts, {DataRate("10Gbps"), NanoSeconds(10)});
    m->SetPortCables(cables);
    m->Configure(kPorts);
    return m;
}

Ptr<AbmMmuPolicy>
Abm(const Ptr<SharedBufferMmu>& m)
{
    return DynamicCast<AbmMmuPolicy>(m->GetPolicy());
}

/// A lossy frame from ingress port 0 to egress queue (\p out, \p prio).
SharedBufferMmu::Verdict
Send(const Ptr<SharedBufferMmu>& m, uint32_t out, uint8_t prio, uint32_t bytes)
{
    bool xoff = false;
    return m->Admit(0, prio, bytes, &xoff, out);
}

/// \p bytes of (ingress 0, \p prio) leave by \p out.
void
Leave(const Ptr<SharedBufferMmu>& m, uint32_t out, uint8_t prio, uint32_t bytes, bool sent = true)
{
    std::vector<std::pair<uint32_t, uint8_t>> resume;
    m->Release(0, prio, bytes, &resume, out, sent);
}

class AbmTest : public SimTest
{
};

TEST_F(AbmTest, ThresholdIsTheFormulaTruncated)
{
    // alpha x remaining x (1.0 / n) x mu in double, cast to uint64_t (switch-mmu.cc:473, 502).
    EXPECT_EQ(AbmMmuPolicy::Threshold(0.5, 1000000, 1, 1), 500000u);
    EXPECT_EQ(AbmMmuPolicy::Threshold(0.5, 967232, 1.5, 1), 322410u);     // 322410.67
    EXPECT_EQ(AbmMmuPolicy::Threshold(0.5, 969280, 1, 0.32768), 158806u); // 158806.8352
    EXPECT_EQ(AbmMmuPolicy::Threshold(0.5, 0, 3, 1), 0u);
}

TEST_F(AbmTest, LoneQueueDropsAtHalfTheFreePool)
{
    // One queue, n_p = 1, mu = 1: the k-th frame (1000 B, k from 0) is admitted while
    // 1000 k + 1000 <= 0.5 (1 000 000 - 1000 k), i.e. k <= 332: 333 frames, the 334th dropped.
    Ptr<SharedBufferMmu> m = MakeMmu("abm");
    int admitted = 0;
    while (Send(m, 1, kLossy, 1000) == SharedBufferMmu::ADMIT)
    {
        ++admitted;
    }
    EXPECT_EQ(admitted, 333);
    EXPECT_EQ(m->GetEgressBytes(1, kLossy), 333000u);
    EXPECT_EQ(m->GetThresholdDropFrames(), 1u);
    EXPECT_EQ(m->GetThresholdDropBytes(), 1000u);
    MmuQueueThreshold t;
    ASSERT_TRUE(m->GetQueueThreshold(1, kLossy, &t));
    EXPECT_FALSE(t.ingress);
    EXPECT_EQ(t.bytes, 333000u);
    EXPECT_EQ(t.threshold, 333500u); // 0.5 x 667 000
    EXPECT_DOUBLE_EQ(t.congested, 1);
    EXPECT_DOUBLE_EQ(t.drainRate, 1);
}

TEST_F(AbmTest, CongestedQueuesAreSaturationWeightedAsLastSeenOnArrival)
{
    Ptr<SharedBufferMmu> m = MakeMmu("abm");
    // Queue A (port 1): 21 frames of 1024 B; its 21st arrival saw 20 x 1024 = 20480 B = the
    // congestion indicator: saturation 1. Queue B (port 2): 11 frames; its last arrival saw
    // 10240 B: saturation 0.5.
    for (int i = 0; i < 21; ++i)
    {
        ASSERT_EQ(Send(m, 1, kLossy, 1024), SharedBufferMmu::ADMIT);
    }
    for (int i = 0; i < 11; ++i)
    {
        ASSERT_EQ(Send(m, 2, kLossy, 1024), SharedBufferMmu::ADMIT);
    }
    Ptr<AbmMmuPolicy> abm = Abm(m);
    EXPECT_DOUBLE_EQ(abm->CongestedQueues(false, kLossy), 1.5);
    EXPECT_DOUBLE_EQ(abm->CongestedQueues(false, kLossyB), 1); // at least 1
    // An empty queue C (port 3) of the same priority: free = 1 000 000 - 21 504 - 11 264.
    MmuQueueThreshold t;
    ASSERT_TRUE(m->GetQueueThreshold(3, kLossy, &t));
    EXPECT_EQ(t.bytes, 0u);
    EXPECT_DOUBLE_EQ(t.congested, 1.5);
    EXPECT_EQ(t.threshold, 322410u); // 0.5 x 967 232 / 1.5
    // B drains without an arrival: the reference refreshes a queue's saturation only when a
    // frame arrives at it (setCongested from ActiveBufferManagement), so n_p stays 1.5 ...
    Leave(m, 2, kLossy, 11 * 1024);
    EXPECT_DOUBLE_EQ(abm->CongestedQueues(false, kLossy), 1.5);
    // ... until the next arrival at B sees it empty: n_p = 1 (A alone).
    ASSERT_EQ(Send(m, 2, kLossy, 1024), SharedBufferMmu::ADMIT);
    EXPECT_DOUBLE_EQ(abm->CongestedQueues(false, kLossy), 1);
    // C's threshold with n_p = 1: 0.5 x (1 000 000 - 21 504 - 1 024).
    ASSERT_TRUE(m->GetQueueThreshold(3, kLossy, &t));
    EXPECT_EQ(t.threshold, 488736u);
}

TEST_F(AbmTest, DrainRateMeasuredEveryUpdateInterval)
{
    Ptr<SharedBufferMmu> m = MakeMmu("abm");
    Ptr<AbmMmuPolicy> abm = Abm(m);
    // t = 0: the first threshold starts the updates (one now, then every 25 us). Queue A
    // (port 1) takes 40 frames of 1024 B = 40 960 B; queue B (port 2) 10 frames = 10 240 B.
    for (int i = 0; i < 40; ++i)
    {
        ASSERT_EQ(Send(m, 1, kLossy, 1024), SharedBufferMmu::ADMIT);
    }
    for (int i = 0; i < 10; ++i)
    {
        ASSERT_EQ(Send(m, 2, kLossy, 1024), SharedBufferMmu::ADMIT);
    }
    // t = 10 us: A sends 10 frames, B 5, C (port 3) nothing of its own.
    Simulator::Schedule(MicroSeconds(10), [m]() {
        Leave(m, 1, kLossy, 10 * 1024);
        Leave(m, 2, kLossy, 5 * 1024);
    });
    std::vector<double> muA;
    std::vector<double> muB;
    std::vector<uint64_t> thresholdA;
    auto probe = [&]() {
        muA.push_back(abm->DrainRate(false, 1, kLossy));
        muB.push_back(abm->DrainRate(false, 2, kLossy));
        MmuQueueThreshold t;
        m->GetQueueThreshold(1, kLossy, &t);
        thresholdA.push_back(t.threshold);
    };
    Simulator::Schedule(MicroSeconds(25) - NanoSeconds(1), probe);
    Simulator::Schedule(MicroSeconds(25) + NanoSeconds(1), probe);
    Simulator::Schedule(MicroSeconds(50) + NanoSeconds(1), probe);
    Simulator::Stop(MicroSeconds(60));
    Simulator::Run();
    ASSERT_EQ(muA.size(), 3u);
    // Before the 25 us update: mu = 1.
    EXPECT_DOUBLE_EQ(muA[0], 1);
    // At 25 us: A holds 30 720 B > 20 480 and sent 10 240 B > 2 048 in 25 us:
    // mu = (1e9 x 10240 x 8 / 25000) / 1e10 = 0.32768.
    EXPECT_DOUBLE_EQ(muA[1], (1e9 * 10240 * 8.0 / 25000) / 1e10);
    EXPECT_DOUBLE_EQ(muA[1], 0.32768);
    // B holds 5 120 B <= the congestion indicator: mu = 1 although it sent.
    EXPECT_DOUBLE_EQ(muB[1], 1);
    // A's threshold: 0.5 x (1 000 000 - 30 720 - 5 120) x (1 / 1.25) x mu. n_p: A's 40th arrival
    // saw 39 936 B (1), B's 10th saw 9 216 B (0.45): 1.45.
    EXPECT_DOUBLE_EQ(abm->CongestedQueues(false, kLossy), 1 + 9216.0 / kCi);
    EXPECT_EQ(thresholdA[1],
              static_cast<uint64_t>(0.5 * 964160.0 * (1.0 / (1 + 9216.0 / kCi)) * 0.32768));
    EXPECT_EQ(thresholdA[1], 108943u); // 0.5 x 964160 / 1.45 x 0.32768 = 108 943.43
    // At 50 us: A sent nothing in (25, 50] us: mu = 1 again.
    EXPECT_DOUBLE_EQ(muA[2], 1);
    EXPECT_EQ(thresholdA[2], 332468u); // 0.5 x 964160 / 1.45 = 332 468.97
}

TEST_F(AbmTest, LosslessXoffAtTheIngressAbmThreshold)
{
    // PFC on priority 3: 6 ports x 2000 B headroom reserved, pool 988 000. Ingress port 1 first
    // holds 21 frames of 1000 B (its saturation, seen after each frame as the reference's
    // UpdateIngressAdmission does: 1). Then port 0 fills: after its k-th frame
    // n_p = 1 + min(1000 k, 20480) / 20480 (2 from k = 21 on), free = 988 000 - 21 000 - 1000 k,
    // XOFF once 1000 k >= 0.5 free / n_p: k = 194 (193 000 < 193 500; 194 000 >= 193 250).
    // DT (alpha 0.5) pauses at k = 323 (1000 k >= 0.5 (967 000 - 1000 k)).
    for (const std::string policy : {"abm", "dynamic"})
    {
        Ptr<SharedBufferMmu> m = MakeMmu(policy, true);
        ASSERT_EQ(m->GetSharedPoolSize(), 988000u);
        bool xoff = false;
        for (int i = 0; i < 21; ++i)
        {
            ASSERT_EQ(m->Admit(1, kLossless, 1000, &xoff, 5), SharedBufferMmu::ADMIT);
            ASSERT_FALSE(xoff);
        }
        int k = 0;
        do
        {
            ASSERT_EQ(m->Admit(0, kLossless, 1000, &xoff, 5), SharedBufferMmu::ADMIT);
            ++k;
        } while (!xoff && k < 1000);
        EXPECT_EQ(k, policy == "abm" ? 194 : 323) << policy;
        EXPECT_TRUE(m->IsPaused(0, kLossless));
        // Lossless frames never count in the egress queues.
        EXPECT_EQ(m->GetEgressBytes(5, kLossless), 0u);
    }
}

TEST_F(AbmTest, LosslessXonWhenSharedIsXonOffsetBelowTheAbmThreshold)
{
    Ptr<SharedBufferMmu> m = MakeMmu("abm", true);
    bool xoff = false;
    // Lone ingress: XOFF after k frames with 1000 k >= 0.5 (988 000 - 1000 k): k = 330.
    int k = 0;
    do
    {
        m->Admit(0, kLossless, 1000, &xoff, 5);
        ++k;
    } while (!xoff);
    ASSERT_EQ(k, 330);
    // Releases: XON once shared + 2000 <= 0.5 (988 000 - shared) (n_p = 1, mu = 1):
    // shared <= 328 000, reached after 2 departures (329 000 + 2000 > 329 500).
    std::vector<std::pair<uint32_t, uint8_t>> resume;
    for (int i = 1; i <= 2; ++i)
    {
        resume.clear();
        m->Release(0, kLossless, 1000, &resume, 5, true);
        EXPECT_EQ(resume.empty(), i < 2) << "departure " << i;
    }
    EXPECT_FALSE(m->IsPaused(0, kLossless));
}

TEST_F(AbmTest, DynamicLossyAlphaBoundsEgressQueues)
{
    // DT on lossy egress queues: a lone queue, the same 333 frames as ABM's lone queue; two
    // queues each take 0.5 of the free pool, not a share of it.
    Ptr<SharedBufferMmu> m = MakeMmu("dynamic");
    int admitted = 0;
    while (Send(m, 1, kLossy, 1000) == SharedBufferMmu::ADMIT)
    {
        ++admitted;
    }
    EXPECT_EQ(admitted, 333);
    MmuQueueThreshold t;
    ASSERT_TRUE(m->GetQueueThreshold(2, kLossy, &t));
    EXPECT_EQ(t.threshold, 333500u);
    // Without LossyAlpha (the default) lossy frames stay tail-dropped at a full pool only.
    Config::SetDefault("ns3::DynamicMmuPolicy::LossyAlpha", StringValue(""));
    Ptr<SharedBufferMmu> plain = CreateObject<SharedBufferMmu>();
    plain->SetAttribute("BufferSize", QueueSizeValue(QueueSize("1000000B")));
    plain->SetAttribute("PfcEnabled", BooleanValue(false));
    plain->SetAttribute("DynamicThreshold", BooleanValue(true));
    plain->Configure(kPorts);
    EXPECT_FALSE(plain->LimitsLossyEgress());
    admitted = 0;
    while (Send(plain, 1, kLossy, 1000) == SharedBufferMmu::ADMIT)
    {
        ++admitted;
    }
    EXPECT_EQ(admitted, 1000);
    EXPECT_FALSE(plain->GetQueueThreshold(1, kLossy, &t));
}

/// Four congested lossy queues of priority 1 (ports 1-4) fill round-robin, a frame of 1000 B
/// each in turn, until each has had a frame dropped; then a burst of 200 frames arrives for
/// priority 2 at port 5. Returns {bytes the four hold, burst frames admitted}.
std::pair<uint64_t, int>
CongestThenBurst(const std::string& policy)
{
    Ptr<SharedBufferMmu> m = MakeMmu(policy);
    std::vector<bool> full(5, false);
    int fullCount = 0;
    while (fullCount < 4)
    {
        for (uint32_t port = 1; port <= 4; ++port)
        {
            if (!full[port] && Send(m, port, kLossy, 1000) != SharedBufferMmu::ADMIT)
            {
                full[port] = true;
                ++fullCount;
            }
        }
    }
    uint64_t held = 0;
    for (uint32_t port = 1; port <= 4; ++port)
    {
        held += m->GetEgressBytes(port, kLossy);
    }
    int burst = 0;
    for (int i = 0; i < 200; ++i)
    {
        burst += Send(m, 5, kLossyB, 1000) == SharedBufferMmu::ADMIT ? 1 : 0;
    }
    return {held, burst};
}

TEST_F(AbmTest, BurstDtDropsIsAbsorbedByAbm)
{
    // The ABM paper's isolation and burst tolerance: the congested queues of a priority share
    // alpha_p x free among themselves (1 / n_p), so however many there are they hold at most
    // alpha / (1 + alpha) of the buffer, and a burst of another priority finds the rest; under
    // DT each takes alpha x free and N of them leave B / (1 + N alpha).
    //
    // DT: each congested queue stops at q with q + 1000 > 0.5 (1e6 - total): in round-robin
    // steps of 1000 B the four stop at 167 000, 167 000, 167 000, 166 000 (about
    // alpha B / (1 + 4 alpha) = 166 667 each): 667 000 held, 333 000 free. The burst queue
    // (n = 1, mu = 1 under either policy) admits its X-th frame while
    // X x 1000 + 1000 <= 0.5 (333 000 - X x 1000): X <= 110.33, 111 frames; 89 dropped.
    auto [dtHeld, dtBurst] = CongestThenBurst("dynamic");
    EXPECT_EQ(dtHeld, 667000u);
    EXPECT_EQ(dtBurst, 111);
    // ABM: n_p = 4 once the four are past 20 480 B, each stops at about
    // alpha B / (4 (1 + alpha)) = 83 333: 83 000 each (84 000 > 0.5 x 668 000 / 4 = 83 500),
    // 332 000 held, 668 000 free: the burst admits X while X x 1000 + 1000 <=
    // 0.5 (668 000 - X x 1000): X <= 222, all 200 frames.
    auto [abmHeld, abmBurst] = CongestThenBurst("abm");
    EXPECT_EQ(abmHeld, 332000u);
    EXPECT_EQ(abmBurst, 200);
}

/// A lossy frame from ingress port 0 to egress queue (\p out, \p prio), unscheduled.
SharedBufferMmu::Verdict
SendUnscheduled(const Ptr<SharedBufferMmu>& m, uint32_t out, uint8_t prio, uint32_t bytes)
{
    bool xoff = false;
    return m->Admit(0, prio, bytes, &xoff, out, true);
}

TEST_F(AbmTest, UnscheduledFrameIsAdmittedWhereAScheduledOneIsDropped)
{
    // inet-tub/ns3-datacenter switch-mmu.cc:494-500: an unscheduled packet's threshold takes
    // alphaHigh (1024, switch-mmu.cc:145) in place of the queue's alpha. The lone queue of
    // LoneQueueDropsAtHalfTheFreePool holds 333 frames of 1000 B (n_p = 1, mu = 1, free
    // 667 000): a scheduled frame would need 334 000 <= 0.5 x 667 000 = 333 500 and is dropped;
    // an unscheduled one has 1024 x 667 000 = 683 008 000 and is admitted.
    Ptr<SharedBufferMmu> m = MakeMmu("abm");
    ASSERT_DOUBLE_EQ(Abm(m)->GetUnscheduledAlpha(), 1024);
    for (int k = 0; k < 333; ++k)
    {
        ASSERT_EQ(Send(m, 1, kLossy, 1000), SharedBufferMmu::ADMIT) << k;
    }
    EXPECT_EQ(Send(m, 1, kLossy, 1000), SharedBufferMmu::DROP_THRESHOLD);
    EXPECT_EQ(SendUnscheduled(m, 1, kLossy, 1000), SharedBufferMmu::ADMIT);
    // Scheduled frames stay bounded by 0.5 x free (334 000 + 1000 > 0.5 x 666 000); each
    // unscheduled one is admitted while queue + 1000 <= 1024 x free, i.e. until the pool is
    // spent: with q = 1000 j held, 1000 j + 1000 <= 1024 (1 000 000 - 1000 j) for every
    // j <= 999, so the unscheduled frames fill the pool (1000 frames in all, 666 more) and the
    // next one finds free = 0: threshold 0, dropped there.
    EXPECT_EQ(Send(m, 1, kLossy, 1000), SharedBufferMmu::DROP_THRESHOLD);
    int unscheduled = 1;
    while (SendUnscheduled(m, 1, kLossy, 1000) == SharedBufferMmu::ADMIT)
    {
        ++unscheduled;
    }
    EXPECT_EQ(unscheduled, 667);
    EXPECT_EQ(m->GetEgressBytes(1, kLossy), 1000000u);
    EXPECT_EQ(m->GetThresholdDropFrames(), 3u);

    // UnscheduledAlpha = Alpha: the unscheduled frame meets the scheduled one's threshold.
    Config::SetDefault("ns3::AbmMmuPolicy::UnscheduledAlpha", DoubleValue(0.5));
    Ptr<SharedBufferMmu> same = MakeMmu("abm");
    for (int k = 0; k < 333; ++k)
    {
        ASSERT_EQ(SendUnscheduled(same, 1, kLossy, 1000), SharedBufferMmu::ADMIT) << k;
    }
    EXPECT_EQ(SendUnscheduled(same, 1, kLossy, 1000), SharedBufferMmu::DROP_THRESHOLD);
}

TEST_F(AbmTest, UnscheduledLosslessFramesPauseOnlyAtAFullPool)
{
    // The lossless ingress threshold takes alphaHigh too (switch-mmu.cc:466-471). The lone
    // ingress of LosslessXonWhenSharedIsXonOffsetBelowTheAbmThreshold pauses after k = 330
    // scheduled frames (1000 k >= 0.5 (988 000 - 1000 k)); unscheduled ones pause once
    // 1000 k >= 1024 (988 000 - 1000 k), k >= 1 011 712 000 / 1 025 000 = 987.04: k = 988,
    // the frame that spends the 988 000 B pool.
    for (bool unscheduled : {false, true})
    {
        Ptr<SharedBufferMmu> m = MakeMmu("abm", true);
        bool xoff = false;
        int k = 0;
        do
        {
            ASSERT_EQ(m->Admit(0, kLossless, 1000, &xoff, 5, unscheduled), SharedBufferMmu::ADMIT);
            ++k;
        } while (!xoff && k < 2000);
        EXPECT_EQ(k, unscheduled ? 988 : 330);
        if (unscheduled)
        {
            // XON is checked with alpha_p, as CheckShouldResume passes unsched 0
            // (switch-mmu.cc:1014-1025): once shared + 2000 <= 0.5 (988 000 - shared),
            // shared <= 328 000: after 660 departures, not the first.
            std::vector<std::pair<uint32_t, uint8_t>> resume;
            int departures = 0;
            while (resume.empty() && departures < 988)
            {
                m->Release(0, kLossless, 1000, &resume, 5, true);
                ++departures;
            }
            EXPECT_EQ(departures, 660);
        }
    }
}

/// Records, in order, whether each data frame a host sends is marked unscheduled.
class UnscheduledRecorder : public FabricPortOwner
{
  public:
    void FrameReceived(FabricNetDevice* port, WireFrame& frame) override
    {
        if (frame.flowId != kNoFlow)
        {
            marks.push_back(frame.unscheduled);
            payload += frame.payloadBytes;
        }
    }

    std::vector<bool> marks;
    uint64_t payload = 0;
};

TEST_F(AbmTest, RoceNicMarksTheFlowsFirstBaseBdpUnscheduled)
{
    // rdma-hw.cc:567-583: packet is unscheduled when sentBytes <= bdp, sentBytes being the
    // message's bytes before it (counted before the packet) and bdp = line rate x the QP's base
    // RTT / 8. At 100 Gb/s and BaseRtt 10 us, bdp = 125 000 B. A 150 000 B WRITE:
    //  - Mtu 1000: packet i starts at 1000 i <= 125 000 for i <= 125: packets 0-125 (126, the
    //    one starting exactly at the BDP included) unscheduled, 126-149 (24) not;
    //  - Mtu 1024: 1024 i <= 125 000 for i <= 122 (122.07): 123 unscheduled of 147
    //    (ceil(150 000 / 1024)), 24 not.
    // The switch port facing the sender records the frames instead of forwarding them, so the
    // sender hears no ACK and sends each packet once (all 150 000 B by 20 us, before any RTO).
    for (auto [mtu, marked, total] : {std::tuple<int, size_t, size_t>{1000, 126, 150},
                                      std::tuple<int, size_t, size_t>{1024, 123, 147}})
    {
        SetUp();
        Set("ns3::RdmaNic::Mtu", std::to_string(mtu));
        Set("ns3::RdmaNic::BaseRtt", "10us");
        Set("ns3::RdmaNic::Window", "1000000B"); // selective repeat: no window before 150 kB
        Set("ns3::FabricSwitch::EcnEnabled", "false");
        FabricNetwork net =
            FabricNetwork::Build(MakeStar(2, DataRate("100Gbps"), NanoSeconds(150)), 0, 0);
        std::vector<Ptr<HostTransport>> nics = InstallNics(net, "ns3::RdmaNic");
        PortRef sw = net.PeerOf(net.NodeOfHost(1), 0);
        UnscheduledRecorder recorder;
        Ptr<FabricSwitch> fs = net.GetSwitch(sw.node);
        ASSERT_TRUE(fs);
        fs->GetPort(sw.port)->SetOwner(&recorder);
        FlowRecord r;
        r.src = 1;
        r.dst = 0;
        r.bytes = 150000;
        r.priority = 3;
        r.verb = RdmaVerb::WRITE;
        r.entropy = 49153;
        nics[1]->StartFlowAt(net.GetFlowTable()->Add(r));
        Simulator::Stop(MicroSeconds(20));
        Simulator::Run();
        ASSERT_EQ(recorder.marks.size(), total) << "Mtu " << mtu;
        EXPECT_EQ(recorder.payload, 150000u);
        for (size_t i = 0; i < total; ++i)
        {
            EXPECT_EQ(recorder.marks[i], i < marked) << "Mtu " << mtu << ", packet " << i;
        }
        TearDown();
    }
}

TEST_F(AbmTest, StaticAndDynamicDefaultsCountNoEgressQueue)
{
    // switch.mmu static or dynamic without a lossy alpha: no per-queue egress accounting, no
    // threshold drops (their behaviour before ABM).
    for (bool dynamic : {false, true})
    {
        Ptr<SharedBufferMmu> m = CreateObject<SharedBufferMmu>();
        m->SetAttribute("BufferSize", QueueSizeValue(QueueSize("100000B")));
        m->SetAttribute("PfcEnabled", BooleanValue(false));
        m->SetAttribute("DynamicThreshold", BooleanValue(dynamic));
        m->Configure(4);
        bool xoff = false;
        int admitted = 0;
        while (m->Admit(0, 1, 1000, &xoff, 1) == SharedBufferMmu::ADMIT)
        {
            ++admitted;
        }
        EXPECT_EQ(admitted, 100);
        EXPECT_EQ(m->GetThresholdDropFrames(), 0u);
        EXPECT_EQ(m->GetEgressBytes(1, 1), 0u);
    }
}

TEST_F(AbmTest, BadAlphaListIsRefused)
{
    EXPECT_THROW(ParsePriorityAlphas("0.5,x", "a", 0), std::invalid_argument);
    EXPECT_THROW(ParsePriorityAlphas("-1", "a", 0), std::invalid_argument);
    EXPECT_THROW(ParsePriorityAlphas("1,1,1,1,1,1,1,1,1", "a", 0), std::invalid_argument);
    std::array<double, 8> a = ParsePriorityAlphas("1,0.5", "a", 0);
    EXPECT_DOUBLE_EQ(a[0], 1);
    EXPECT_DOUBLE_EQ(a[1], 0.5);
    EXPECT_DOUBLE_EQ(a[7], 0.5);
}

// In a switch: two senders at 400 Gb/s into one receiver whose NIC keeps its switch port paused
// (nothing drains, so mu = 1 and n_p = 1), no PFC, priority 3 lossy. 4096 B payloads make
// 4154 B frames; the pool is the whole 1 MiB buffer. The k-th frame (from 0) is admitted while
// 4154 k + 4154 <= 0.5 (1 048 576 - 4154 k): k <= (524 288 - 4154) / 6231 = 83.5, so 84
// frames (348 936 B) are queued and every later frame is dropped at the threshold (reason 8),
// by ABM and by DT with lossy alpha 0.5 alike; the static policy instead fills the pool,
// floor(1 048 576 / 4154) = 252 frames, and drops with reason 0 (buffer full), as before.
class AbmSwitchTest : public SimTest
{
  protected:
    struct Outcome
    {
        uint64_t queued = 0;
        uint64_t egressCounted = 0;
        std::map<uint8_t, uint64_t> dropsByReason;
        uint64_t thresholdDrops = 0;
    };

    Outcome RunBlocked(const std::string& policy)
    {
        Set("ns3::SharedBufferMmu::BufferSize", "1048576B");
        Set("ns3::SharedBufferMmu::PfcEnabled", "false");
        Set("ns3::FabricSwitch::EcnEnabled", "false");
        Set("ns3::FabricHost::Mtu", "4096");
        Set("ns3::AbmMmuPolicy::Alpha", "0.5");
        if (policy == "abm")
        {
            Set("ns3::SharedBufferMmu::Policy", "ns3::AbmMmuPolicy");
        }
        else if (policy == "dt")
        {
            Set("ns3::SharedBufferMmu::Policy", "ns3::DynamicMmuPolicy");
            Set("ns3::DynamicMmuPolicy::LossyAlpha", "0.5");
        }
        FabricNetwork net =
            FabricNetwork::Build(MakeStar(3, DataRate("400Gbps"), NanoSeconds(150)), 0, 0);
        AddFlow(net, 1, 0, 4 << 20);
        AddFlow(net, 2, 0, 4 << 20);
        Ptr<FabricNetDevice> rx = net.GetHost(0)->GetPort(0);
        for (Time t(0); t < MicroSeconds(20); t += MicroSeconds(10))
        {
            Simulator::Schedule(t, &FabricNetDevice::SendPause, rx, 3, uint16_t(0xFFFF));
        }
        Ptr<FabricSwitch> sw = net.GetSwitch(net.Spec().Find("sw0").value());
        Outcome o;
        sw->TraceConnectWithoutContext(
            "Drop",
            MakeCallback(+[](Outcome* out, uint32_t, uint32_t, uint8_t reason) {
                ++out->dropsByReason[reason];
            }).Bind(&o));
        Simulator::Stop(MicroSeconds(20));
        Simulator::Run();
        uint32_t port = 0; // the switch port toward h0: its first
        o.queued = sw->GetPort(port)->GetQueueBytes(3);
        o.egressCounted = sw->GetMmu()->GetEgressBytes(port, 3);
        o.thresholdDrops = sw->GetMmu()->GetThresholdDropFrames();
        Simulator::Destroy();
        return o;
    }
};

TEST_F(AbmSwitchTest, LossyQueueStopsAtItsThresholdAndDropsWithReason8)
{
    for (const std::string policy : {"abm", "dt"})
    {
        SetUp();
        Outcome o = RunBlocked(policy);
        EXPECT_EQ(o.queued, 84u * 4154) << policy;
        EXPECT_EQ(o.egressCounted, 84u * 4154) << policy;
        ASSERT_EQ(o.dropsByReason.size(), 1u) << policy;
        EXPECT_GT(o.dropsByReason[FabricSwitch::DROP_BUFFER_THRESHOLD], 100u) << policy;
        EXPECT_EQ(o.thresholdDrops, o.dropsByReason[FabricSwitch::DROP_BUFFER_THRESHOLD]);
        TearDown();
    }
    SetUp();
    Outcome plain = RunBlocked("static");
    EXPECT_EQ(plain.queued, 252u * 4154);
    EXPECT_EQ(plain.egressCounted, 0u);
    ASSERT_EQ(plain.dropsByReason.size(), 1u);
    EXPECT_GT(plain.dropsByReason[FabricSwitch::DROP_BUFFER_FULL], 100u);
}

TEST_F(AbmSwitchTest, EveryAdmittedByteIsReleasedWhenTheFlowsEnd)
{
    // 2:1 at line rate, 256 KiB each: the queue peaks near 64 frames, below the 84 a lone
    // queue may hold, so nothing is dropped; once both flows are delivered every egress and
    // ingress counter is back at zero and mu was measured below 1 by no queue that drained at
    // line rate.
    Set("ns3::SharedBufferMmu::BufferSize", "1048576B");
    Set("ns3::SharedBufferMmu::PfcEnabled", "false");
    Set("ns3::SharedBufferMmu::Policy", "ns3::AbmMmuPolicy");
    Set("ns3::FabricSwitch::EcnEnabled", "false");
    Set("ns3::FabricHost::Mtu", "4096");
    FabricNetwork net =
        FabricNetwork::Build(MakeStar(3, DataRate("400Gbps"), NanoSeconds(150)), 0, 0);
    AddFlow(net, 1, 0, 256 << 10);
    AddFlow(net, 2, 0, 256 << 10);
    Simulator::Stop(MicroSeconds(100));
    Simulator::Run();
    Ptr<FabricSwitch> sw = net.GetSwitch(net.Spec().Find("sw0").value());
    for (const FlowRecord& f : net.GetFlowTable()->All())
    {
        EXPECT_TRUE(f.finished);
    }
    EXPECT_EQ(sw->GetDroppedFrames(), 0u);
    EXPECT_EQ(sw->GetMmu()->GetSharedUsed(), 0u);
    for (uint32_t p = 0; p < sw->GetNPorts(); ++p)
    {
        EXPECT_EQ(sw->GetMmu()->GetEgressBytes(p, 3), 0u) << "port " << p;
    }
}

} // namespace
} // namespace test
} // namespace ns3
