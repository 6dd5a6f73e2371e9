#ifndef FABRIC_RANK_EXCHANGE_H
#define FABRIC_RANK_EXCHANGE_H

#include "ns3/callback.h"
#include "ns3/net-device.h"
#include "ns3/nstime.h"
#include "ns3/packet.h"

#include <cstdint>
#include <string>

namespace ns3
{

/**
 * \brief The MPI side of a distributed run, behind plain functions so that the rest of the
 * module builds against an ns-3 without its mpi module (Debian's package). Everything here is
 * ns-3's own distributed engine: DistributedSimulatorImpl (granted time window) or
 * NullMessageSimulatorImpl, MpiInterface::SendPacket and MpiReceiver, in a plugin that Enable
 * loads (helper/distributed/rank-exchange-backend.h); before Enable, a process is a run of one
 * rank.
 */
namespace RankExchange
{

/// Whether this build has the MPI plugin (ns-3's mpi module: ./fabric build --ns3=source).
bool Available();
/// Why Available() is false, for an error message: no MPI in this build, or its plugin gone
/// ("" when it is true).
std::string WhyUnavailable();
/// Whether the process was started by an MPI launcher (mpirun sets OMPI_COMM_WORLD_SIZE, PMI_SIZE).
bool LaunchedByMpi();
/// Selects the distributed simulator (\p sync: "granted-time" or "null-message") and initializes
/// MPI. Call before anything touches the simulator.
void Enable(int* argc, char*** argv, const std::string& sync);
bool Enabled();
uint32_t Rank();
uint32_t Size();
/// Sends \p packet to the rank owning node \p node, to arrive at \p rxTime on its device
/// with interface index \p device.
void SendPacket(Ptr<Packet> packet, Time rxTime, uint32_t node, uint32_t device);
/// Makes \p device accept packets from other ranks, handing them to \p receive.
void AttachReceiver(Ptr<NetDevice> device, Callback<void, Ptr<Packet>> receive);
/// Blocks until every rank has called it.
void Barrier();
/// Wall seconds this rank has spent blocked in the engine's synchronization collectives
/// (measured through the MPI profiling interface), and how many there were.
double SyncWaitSeconds();
uint64_t SyncCount();
/// Ends MPI (after Simulator::Destroy).
void Disable();

} // namespace RankExchange

} // namespace ns3

#endif
