#ifndef FABRIC_TESTS_SIM_UTIL_H
#define FABRIC_TESTS_SIM_UTIL_H

// Small in-process simulations for the physics tests: build a fabric from a TopologySpec with
// attribute defaults set for this test only, add raw flows, run, and inspect the model objects.

#include "build/fabric-builder.h"
#include "config/topology-generators.h"
#include "host/host-transport.h"
#include "link/frame-codec.h"

#include "ns3/config.h"
#include "ns3/object-factory.h"
#include "ns3/rng-seed-manager.h"
#include "ns3/simulator.h"
#include "ns3/string.h"

#include <gtest/gtest.h>
#include <string>
#include <utility>
#include <vector>

namespace ns3
{
namespace test
{

/// Resets ns-3 global defaults and the simulator around each test.
class SimTest : public ::testing::Test
{
  protected:
    void SetUp() override
    {
        Config::Reset();
        RngSeedManager::SetSeed(1);
        RngSeedManager::SetRun(1);
    }

    void TearDown() override
    {
        Simulator::Destroy();
        Config::Reset();
    }

    static void Set(const std::string& name, const std::string& value)
    {
        Config::SetDefault(name, StringValue(value));
    }
};

/// Adds a raw line-rate flow of \p bytes from host \p src to host \p dst starting at \p start.
inline uint32_t
AddFlow(FabricNetwork& net,
        uint32_t src,
        uint32_t dst,
        uint64_t bytes,
        Time start = Time(0),
        uint8_t priority = 3,
        uint16_t entropy = 0)
{
    FlowRecord rec;
    rec.src = src;
    rec.dst = dst;
    rec.bytes = bytes;
    rec.start = start;
    rec.priority = priority;
    rec.entropy = entropy ? entropy : static_cast<uint16_t>(49152 + src * 7 + dst);
    uint32_t id = net.GetFlowTable()->Add(rec);
    net.GetHost(src)->StartFlowAt(id);
    return id;
}

/// A NIC of \p type (e.g. ns3::RdmaNic) installed on every host of \p net, in host order.
inline std::vector<Ptr<HostTransport>>
InstallNics(FabricNetwork& net, const std::string& type)
{
    std::vector<Ptr<HostTransport>> nics;
    ObjectFactory factory(type);
    for (uint32_t h = 0; h < net.GetNHosts(); ++h)
    {
        nics.push_back(factory.Create<HostTransport>());
        nics.back()->Install(net.GetHost(h));
    }
    return nics;
}

/// Serialization time of a frame of \p bytes plus \p overhead on a link of \p rate.
inline double
FrameSeconds(uint64_t bytes, uint32_t overhead, DataRate rate)
{
    return (bytes + overhead) * 8.0 / static_cast<double>(rate.GetBitRate());
}

} // namespace test
} // namespace ns3

#endif
