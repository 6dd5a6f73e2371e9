// Transport-channel groups (UbNic Sharing = groups, GroupBinding): one Jetty bound to one
// channel of its target's group, or to all of them with each request taking the next channel —
// worked out by hand on an idle path where each channel may have one packet in flight.

#include "../fabric-sim-util.h"
#include "../test-files.h"
#include "config/scenario-config.h"
#include "run/scenario-runner.h"

#include <filesystem>
#include <fstream>

namespace ns3
{
namespace test
{
namespace
{

namespace fs = std::filesystem;

// h0 -> sw0 -> h1, 400 Gb/s, 1 µs cables, no wire overhead. A 4 KiB request is one frame of
// 4096 + 66 B (UB headers): S = 4162 B x 20 ps/B = 83 240 ps; its execution ACK is 66 + 10 + 32
// = 108 B, 2 160 ps. On the idle path a request finishes T = S + 2D + S + 2·T_ack + 2D after its
// frame starts: 166 480 + 4 320 + 4 000 000 = 4 170 800 ps.
constexpr int64_t kS = 4162 * 20;
constexpr int64_t kT = 2 * kS + 2 * 108 * 20 + 4 * 1000000;

std::string
Scenario(const std::string& binding)
{
    return "name: groups\nseed: 1\nstop_time: 1ms\ntransport: ub\ncc: none\n"
           "topology: {generator: star, hosts: 2, rate: 400Gbps, delay: 1us}\n"
           "link: {wire_overhead: 0B}\nhost: {mtu: 4096B}\n"
           "ub: {sharing: groups, groups: 4, group_binding: " +
           binding +
           ", window: 4KiB, spray: ecmp}\n"
           "switch:\n  pfc: {enabled: false}\n  ecn: {enabled: false}\n"
           "workload:\n  type: flows\n  flows:\n"
           "    - {src: h0, dst: h1, bytes: 4KiB}\n    - {src: h0, dst: h1, bytes: 4KiB}\n"
           "    - {src: h0, dst: h1, bytes: 4KiB}\n    - {src: h0, dst: h1, bytes: 4KiB}\n";
}

class UbChannelGroups : public SimTest
{
  protected:
    /// Runs the scenario with \p binding; returns the last finish_ns and the channels h0 opened.
    std::pair<int64_t, uint64_t> Run(const std::string& binding)
    {
        std::string dir = m_tmp.Path() + "/" + binding;
        fs::create_directories(dir);
        std::ofstream(dir + ".yaml") << Scenario(binding);
        RunOutcome o = ScenarioRunner::Run(LoadScenario(dir + ".yaml", {}, FABRIC_SOURCE_DIR), dir);
        Simulator::Destroy();
        EXPECT_EQ(o.exitCode, 0) << o.message;
        EXPECT_TRUE(o.summary["conservation_ok"].get<bool>());
        Csv flows = ReadCsv(dir + "/flows.csv");
        int64_t last = 0;
        for (size_t i = 0; i < flows.rows.size(); ++i)
        {
            last = std::max<int64_t>(last, static_cast<int64_t>(flows.U(i, "finish_ns")));
        }
        return {last, o.summary["ub"]["sender_channels"].get<uint64_t>()};
    }

    TempDir m_tmp{"fabric-ub-groups"};
};

// Bound to one channel (Jetty 0 mod 4): the four requests share its one-packet window, so each
// waits for the previous one's ACK: the last finishes at 4·T.
TEST_F(UbChannelGroups, JettyBindingSerializesOnOneChannel)
{
    auto [last, channels] = Run("jetty");
    EXPECT_EQ(channels, 1u);
    EXPECT_EQ(last, 4 * kT / 1000);
}

// Bound to the whole group: request k takes channel k, each with its own window, so the four
// frames leave back to back (the port, not the 6.2 ns launch interval, spaces them by S) and the
// last finishes at 3·S + T.
TEST_F(UbChannelGroups, RequestBindingSpreadsRequestsOverTheGroup)
{
    auto [last, channels] = Run("request");
    EXPECT_EQ(channels, 4u);
    EXPECT_EQ(last, (3 * kS + kT) / 1000);
}

} // namespace
} // namespace test
} // namespace ns3
