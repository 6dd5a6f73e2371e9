#ifndef FABRIC_RANK_EXCHANGE_BACKEND_H
#define FABRIC_RANK_EXCHANGE_BACKEND_H

#include "ns3/callback.h"
#include "ns3/net-device.h"
#include "ns3/nstime.h"
#include "ns3/packet.h"

#include <cstdint>
#include <string>

namespace ns3
{

/**
 * \brief The MPI side of RankExchange, as the plugin that holds it hands it over.
 *
 * MPI, ns-3's mpi module and the libraries Open MPI brings (open-pal, open-rte, hwloc, libevent)
 * cost a single-process run 1.6 ms of loading and relocation (bench/PROFILE.md, round 7). They
 * are linked into a plugin (libfabric-mpi.so, contrib/fabric/mpi/rank-exchange-mpi.cc) that
 * RankExchange::Enable loads, so only a distributed run loads them. The plugin exports
 * kRankExchangeBackendSymbol, a RankExchangeBackendGetter.
 */
struct RankExchangeBackend
{
    void (*enable)(int* argc, char*** argv, const std::string& sync);
    bool (*enabled)();
    uint32_t (*rank)();
    uint32_t (*size)();
    void (*sendPacket)(Ptr<Packet> packet, Time rxTime, uint32_t node, uint32_t device);
    void (*attachReceiver)(Ptr<NetDevice> device, Callback<void, Ptr<Packet>> receive);
    void (*barrier)();
    void (*disable)();
    double (*syncWaitSeconds)();
    uint64_t (*syncCount)();
};

using RankExchangeBackendGetter = const RankExchangeBackend* (*)();

constexpr const char* kRankExchangeBackendSymbol = "FabricRankExchangeBackend";

} // namespace ns3

#endif
