// The MPI side of a distributed run (RankExchange): ns-3's own distributed engine
// (DistributedSimulatorImpl or NullMessageSimulatorImpl), MpiInterface::SendPacket and
// MpiReceiver. Built as a plugin, libfabric-mpi.so, which RankExchange::Enable loads: a run in
// one process never loads MPI (helper/distributed/rank-exchange-backend.h).

#include "distributed/rank-exchange-backend.h"

#include "ns3/global-value.h"
#include "ns3/mpi-interface.h"
#include "ns3/mpi-receiver.h"
#include "ns3/string.h"

#include <chrono>
#include <mpi.h>

namespace ns3
{
namespace
{

double g_syncWaitSeconds = 0;
uint64_t g_syncCount = 0;

/// Times one blocking collective of the engine.
class SyncTimer
{
  public:
    SyncTimer()
        : m_start(std::chrono::steady_clock::now())
    {
    }

    ~SyncTimer()
    {
        g_syncWaitSeconds +=
            std::chrono::duration<double>(std::chrono::steady_clock::now() - m_start).count();
        ++g_syncCount;
    }

  private:
    std::chrono::steady_clock::time_point m_start;
};

void
Enable(int* argc, char*** argv, const std::string& sync)
{
    GlobalValue::Bind("SimulatorImplementationType",
                      StringValue(sync == "null-message" ? "ns3::NullMessageSimulatorImpl"
                                                         : "ns3::DistributedSimulatorImpl"));
    MpiInterface::Enable(argc, argv);
}

bool
Enabled()
{
    return MpiInterface::IsEnabled();
}

uint32_t
Rank()
{
    return MpiInterface::GetSystemId();
}

uint32_t
Size()
{
    return MpiInterface::GetSize();
}

void
SendPacket(Ptr<Packet> packet, Time rxTime, uint32_t node, uint32_t device)
{
    MpiInterface::SendPacket(packet, rxTime, node, device);
}

void
AttachReceiver(Ptr<NetDevice> device, Callback<void, Ptr<Packet>> receive)
{
    Ptr<MpiReceiver> receiver = CreateObject<MpiReceiver>();
    receiver->SetReceiveCallback(receive);
    device->AggregateObject(receiver);
}

void
Barrier()
{
    MPI_Barrier(MpiInterface::GetCommunicator());
}

void
Disable()
{
    MpiInterface::Disable();
}

double
SyncWaitSeconds()
{
    return g_syncWaitSeconds;
}

uint64_t
SyncCount()
{
    return g_syncCount;
}

const RankExchangeBackend kBackend = {Enable,
                                      Enabled,
                                      Rank,
                                      Size,
                                      SendPacket,
                                      AttachReceiver,
                                      Barrier,
                                      Disable,
                                      SyncWaitSeconds,
                                      SyncCount};

} // namespace
} // namespace ns3

extern "C"
{
    /// The plugin's one entry point (kRankExchangeBackendSymbol).
    const ns3::RankExchangeBackend* FabricRankExchangeBackend()
    {
        return &ns3::kBackend;
    }

    // MPI profiling interface: the engine's blocking collectives (the granted-time window's
    // all-gather of next event times, the null-message engine's waits and reductions) resolve
    // here first (the plugin precedes libmpi in the scope it is loaded with), so the time a rank
    // spends waiting for the others is measured, not estimated.
    int MPI_Allgather(const void* sendbuf,
                      int sendcount,
                      MPI_Datatype sendtype,
                      void* recvbuf,
                      int recvcount,
                      MPI_Datatype recvtype,
                      MPI_Comm comm)
    {
        ns3::SyncTimer timer;
        return PMPI_Allgather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm);
    }

    int MPI_Allreduce(const void* sendbuf,
                      void* recvbuf,
                      int count,
                      MPI_Datatype datatype,
                      MPI_Op op,
                      MPI_Comm comm)
    {
        ns3::SyncTimer timer;
        return PMPI_Allreduce(sendbuf, recvbuf, count, datatype, op, comm);
    }

    int MPI_Waitall(int count, MPI_Request requests[], MPI_Status statuses[])
    {
        ns3::SyncTimer timer;
        return PMPI_Waitall(count, requests, statuses);
    }
}
