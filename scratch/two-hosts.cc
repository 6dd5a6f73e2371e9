// The smallest fabric built with the library's C++ API: two hosts on one switch
// (h0 -> sw0 -> h1), one raw flow at line rate, its completion time printed next to the
// store-and-forward estimate of docs/models.md#frame-timing.
//
//   cmake --build build --target two-hosts
//   build/two-hosts                                  # 1 MiB over 400 Gb/s links, 30 m cables
//   build/two-hosts --bytes=65536 --rate=100Gbps --cable=10ns
//
// Exit status 0 when the flow finished at the estimated time, 1 otherwise.

#include "build/fabric-builder.h"
#include "config/topology-generators.h"
#include "link/frame-codec.h"
#include "wire/roce-frame-header.h"

#include "ns3/command-line.h"
#include "ns3/config.h"
#include "ns3/data-rate.h"
#include "ns3/nstime.h"
#include "ns3/simulator.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <cinttypes>
#include <cstdio>

using namespace ns3;

namespace
{

/// Time a frame of \p storedBytes occupies a port of \p rate: its bytes plus the per-frame wire
/// overhead (preamble, FCS, inter-frame gap), rounded up to whole picoseconds as the device does.
Time
FrameTime(uint64_t storedBytes, uint32_t wireOverhead, DataRate rate)
{
    uint64_t bits = (storedBytes + wireOverhead) * 8;
    uint64_t bps = rate.GetBitRate();
    return PicoSeconds((bits * 1000000000000ULL + bps - 1) / bps);
}

/// When the last frame of \p bytes has reached h1: frames leave h0 back to back, the switch
/// forwards each once it has fully arrived (store and forward) and sends them in order.
Time
StoreAndForwardEstimate(uint64_t bytes,
                        uint32_t mtu,
                        uint32_t wireOverhead,
                        DataRate rate,
                        Time cable)
{
    Time hostFree(0);   // h0's port is free again
    Time switchFree(0); // sw0's port toward h1 is free again
    Time lastArrival(0);
    for (uint64_t sent = 0; sent < bytes; sent += mtu)
    {
        uint64_t payload = std::min<uint64_t>(mtu, bytes - sent);
        Time tx = FrameTime(payload + kRoceFrameOverhead, wireOverhead, rate);
        hostFree += tx;
        Time atSwitch = hostFree + cable;
        switchFree = std::max(atSwitch, switchFree) + tx;
        lastArrival = switchFree + cable;
    }
    return lastArrival;
}

} // namespace

int
main(int argc, char* argv[])
{
    uint64_t bytes = 1 << 20;
    DataRate rate("400Gbps");
    Time cable = NanoSeconds(150); // 30 m at 5 ns/m
    uint32_t mtu = 4096;
    uint32_t wireOverhead = 24;

    CommandLine cmd(__FILE__);
    cmd.AddValue("bytes", "Bytes the flow sends", bytes);
    cmd.AddValue("rate", "Rate of both links", rate);
    cmd.AddValue("cable", "One-way delay of each cable", cable);
    cmd.AddValue("mtu", "Payload bytes per frame", mtu);
    cmd.Parse(argc, argv);

    // Model parameters are ns-3 attribute defaults, read when the fabric is built.
    Config::SetDefault("ns3::FabricHost::Mtu", UintegerValue(mtu));
    Config::SetDefault("ns3::FabricNetDevice::WireOverhead", UintegerValue(wireOverhead));

    // Host 0 and host 1 on switch "sw0"; each link has the given rate and delay.
    FabricNetwork net = FabricNetwork::Build(MakeStar(2, rate, cable),
                                             /*hashSalt=*/0,
                                             /*stream=*/0);

    // A raw flow: no transport, frames at line rate, done when h1 has every byte.
    FlowRecord flow;
    flow.src = 0;
    flow.dst = 1;
    flow.bytes = bytes;
    flow.start = Time(0);
    flow.priority = 3;
    flow.entropy = 49152; // UDP source port; what ECMP would hash (one path here)
    uint32_t id = net.GetFlowTable()->Add(flow);
    net.GetHost(0)->StartFlowAt(id);

    Simulator::Run();
    const FlowRecord& done = net.GetFlowTable()->Get(id);
    Time estimate = StoreAndForwardEstimate(bytes, mtu, wireOverhead, rate, cable);
    Simulator::Destroy();

    std::printf("two-hosts: h0 -> sw0 -> h1, %g Gb/s links, %g ns cables, %" PRIu64
                " B in frames of %u B payload\n",
                rate.GetBitRate() / 1e9,
                cable.GetPicoSeconds() / 1000.0,
                bytes,
                mtu);
    if (!done.finished)
    {
        std::printf("flow did not finish (%" PRIu64 " of %" PRIu64 " B delivered)\n",
                    done.deliveredBytes,
                    bytes);
        return 1;
    }
    std::printf("flow completed after %.3f ns (store-and-forward estimate %.3f ns)\n",
                done.finish.GetPicoSeconds() / 1000.0,
                estimate.GetPicoSeconds() / 1000.0);
    return done.finish == estimate ? 0 : 1;
}
