// UbNic's CcWindow trace source: every change of a channel's congestion window, in order. On a
// C-AQM incast the windows move (the switch refuses increases and marks), each change starts
// from the window the previous one left, and the first starts from C-AQM's initial window of
// 10 MTU (model/ub/caqm.h); with NSCC from its maximum window (model/ub/nscc.h).

#include "ub-test-util.h"

#include <map>

namespace ns3
{
namespace test
{
namespace
{

constexpr uint32_t kMtu = 4096;

struct WindowChange
{
    uint64_t before;
    uint64_t after;
};

class UbCcTrace : public SimTest
{
  protected:
    /// A 4:1 incast of 2 MiB per sender; every sender's window changes must chain from
    /// \p initialWindow.
    void CheckChains(uint64_t initialWindow);
};

TEST_F(UbCcTrace, WindowChangesChainFromTheInitialWindow)
{
    Set("ns3::UbNic::CongestionControl", "ns3::CaqmCongestionControl");
    Set("ns3::FabricSwitch::Caqm", "true");
    Set("ns3::CaqmSwitch::Mtu", std::to_string(kMtu) + "B");
    Set("ns3::FabricSwitch::EcnEnabled", "false");
    CheckChains(10u * kMtu);
}

TEST_F(UbCcTrace, NsccWindowChangesChainFromItsMaximumWindow)
{
    // NSCC (model/ub/nscc.h) starts at 1.5 x NetworkRtt x line rate = 1.5 x 10 us x 50 GB/s,
    // reading ECN marks from the switch (queue above 40 KiB).
    Set("ns3::UbNic::CongestionControl", "ns3::NsccCongestionControl");
    Set("ns3::FabricSwitch::EcnEnabled", "true");
    Set("ns3::FabricSwitch::EcnKmin", "40KiB");
    Set("ns3::FabricSwitch::EcnKmax", "40KiB");
    CheckChains(750000);
}

void
UbCcTrace::CheckChains(uint64_t initialWindow)
{
    Set("ns3::UbNic::Mtu", std::to_string(kMtu));
    FabricNetwork net =
        FabricNetwork::Build(MakeStar(5, DataRate("400Gbps"), NanoSeconds(150)), 0, 0);
    std::vector<Ptr<UbNic>> nics = InstallUb(net);
    std::map<std::pair<uint32_t, uint32_t>, std::vector<WindowChange>> changes; // (host, channel)
    for (uint32_t s = 1; s <= 4; ++s)
    {
        PostUb(net, nics, {s, 0, 2 << 20});
        nics[s]->TraceConnectWithoutContext("CcWindow",
                                            MakeBoundCallback(
                                                +[](std::vector<WindowChange>* out,
                                                    uint32_t,
                                                    uint32_t dst,
                                                    uint64_t before,
                                                    uint64_t after) {
                                                    EXPECT_EQ(dst, 0u);
                                                    out->push_back({before, after});
                                                },
                                                &changes[{s, 0}]));
    }
    Simulator::Stop(MilliSeconds(2));
    Simulator::Run();
    ASSERT_EQ(changes.size(), 4u);
    for (const auto& [key, list] : changes)
    {
        ASSERT_FALSE(list.empty()) << "host " << key.first << ": the window never changed";
        EXPECT_EQ(list.front().before, initialWindow) << "host " << key.first;
        for (size_t i = 0; i < list.size(); ++i)
        {
            EXPECT_NE(list[i].before, list[i].after) << "host " << key.first << " change " << i;
            if (i > 0)
            {
                EXPECT_EQ(list[i].before, list[i - 1].after)
                    << "host " << key.first << " change " << i;
            }
        }
    }
}

} // namespace
} // namespace test
} // namespace ns3
