// DCTCP on the UB window (model/ub/ub-dctcp.h): alpha and the cut on a synthetic ACK sequence,
// the expected values computed from the DCTCP paper's equations (1) and (2).

#include "ub-test-util.h"
#include "ub/ub-dctcp.h"

namespace ns3
{
namespace test
{
namespace
{

constexpr double kMtu = 4096;
constexpr uint64_t F = 4096 + kUbFrameOverhead; // 4162 B: one full frame

UbAckFeedback
Ack(bool ecn)
{
    UbAckFeedback fb;
    fb.rtt = MicroSeconds(5);
    fb.ecnEcho = ecn;
    fb.ackedBytes = F;
    return fb;
}

TEST(UbDctcp, AlphaFollowsTheMarkedFractionAndTheWindowIsCutOncePerWindow)
{
    Ptr<UbDctcp> cc = CreateObject<UbDctcp>();
    cc->Start(DataRate("400Gbps"), 4096);
    double w = 10 * kMtu; // IW = 10 MTU = 40960 B, also the first observation window
    EXPECT_EQ(cc->GetWindow(), uint64_t(w));
    EXPECT_DOUBLE_EQ(cc->GetAlpha(), 1.0);
    // Slow start: + the acknowledged bytes.
    cc->OnAck(Ack(false));
    cc->OnAck(Ack(false));
    w += 2 * F;
    EXPECT_EQ(cc->GetWindow(), uint64_t(w));
    // First mark: cut at once by alpha / 2 = 1/2 (eq. 2); slow start ends.
    cc->OnAck(Ack(true));
    w *= 1 - 1.0 / 2;
    double windowAtCut = w;
    EXPECT_EQ(cc->GetWindow(), uint64_t(w));
    EXPECT_FALSE(cc->InSlowStart());
    // Five more marks: less than the window at the cut (5 * 4162 < 24642) acknowledged since,
    // so no second cut in the same window.
    for (int i = 0; i < 5; ++i)
    {
        cc->OnAck(Ack(true));
        EXPECT_EQ(cc->GetWindow(), uint64_t(w));
    }
    ASSERT_LT(5.0 * F, windowAtCut);
    // Two unmarked ACKs: congestion avoidance, + MTU * B / W each. The second completes the
    // first observation window (10 ACKs = 41620 B >= 40960 B): 6 of 10 were marked, so
    // alpha = (1 - 1/16) * 1 + 1/16 * 0.6 (eq. 1).
    w += kMtu * F / w;
    cc->OnAck(Ack(false));
    EXPECT_NEAR(double(cc->GetWindow()), w, 1.0);
    w += kMtu * F / w;
    cc->OnAck(Ack(false));
    EXPECT_NEAR(double(cc->GetWindow()), w, 1.0);
    double alpha = 15.0 / 16 + 0.6 / 16;
    EXPECT_DOUBLE_EQ(cc->GetAlpha(), alpha);
    // A mark now (8 * 4162 >= 24642 acknowledged since the cut): W *= 1 - alpha / 2.
    cc->OnAck(Ack(true));
    w *= 1 - alpha / 2;
    EXPECT_NEAR(double(cc->GetWindow()), w, 1.0);
}

TEST(UbDctcp, AWindowWithoutMarksDecaysAlphaByOneMinusG)
{
    Ptr<UbDctcp> cc = CreateObject<UbDctcp>();
    cc->SetAttribute("InitialWindow", QueueSizeValue(QueueSize("8324B"))); // 2 frames
    cc->Start(DataRate("400Gbps"), 4096);
    // Every observation window (the window when it began) ends with alpha *= 15/16.
    cc->OnAck(Ack(false));
    cc->OnAck(Ack(false)); // 8324 B: the first window ends
    EXPECT_DOUBLE_EQ(cc->GetAlpha(), 15.0 / 16);
}

} // namespace
} // namespace test
} // namespace ns3
