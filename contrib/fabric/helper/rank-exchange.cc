#include "rank-exchange.h"

#include "ns3/abort.h"

#include <chrono>
#include <cstdlib>

#ifdef FABRIC_HAVE_MPI
#include "ns3/global-value.h"
#include "ns3/mpi-interface.h"
#include "ns3/mpi-receiver.h"
#include "ns3/string.h"

#include <mpi.h>
#endif

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
} // namespace

bool
RankExchange::LaunchedByMpi()
{
    return std::getenv("OMPI_COMM_WORLD_SIZE") || std::getenv("PMI_SIZE") ||
           std::getenv("PMIX_RANK");
}

double
RankExchange::SyncWaitSeconds()
{
    return g_syncWaitSeconds;
}

uint64_t
RankExchange::SyncCount()
{
    return g_syncCount;
}

#ifdef FABRIC_HAVE_MPI

bool
RankExchange::Available()
{
    return true;
}

void
RankExchange::Enable(int* argc, char*** argv, const std::string& sync)
{
    GlobalValue::Bind("SimulatorImplementationType",
                      StringValue(sync == "null-message" ? "ns3::NullMessageSimulatorImpl"
                                                         : "ns3::DistributedSimulatorImpl"));
    MpiInterface::Enable(argc, argv);
}

bool
RankExchange::Enabled()
{
    return MpiInterface::IsEnabled();
}

uint32_t
RankExchange::Rank()
{
    return Enabled() ? MpiInterface::GetSystemId() : 0;
}

uint32_t
RankExchange::Size()
{
    return Enabled() ? MpiInterface::GetSize() : 1;
}

void
RankExchange::SendPacket(Ptr<Packet> packet, Time rxTime, uint32_t node, uint32_t device)
{
    MpiInterface::SendPacket(packet, rxTime, node, device);
}

void
RankExchange::AttachReceiver(Ptr<NetDevice> device, Callback<void, Ptr<Packet>> receive)
{
    Ptr<MpiReceiver> receiver = CreateObject<MpiReceiver>();
    receiver->SetReceiveCallback(receive);
    device->AggregateObject(receiver);
}

void
RankExchange::Barrier()
{
    if (Enabled())
    {
        MPI_Barrier(MpiInterface::GetCommunicator());
    }
}

void
RankExchange::Disable()
{
    if (Enabled())
    {
        MpiInterface::Disable();
    }
}

} // namespace ns3

// MPI profiling interface: the engine's blocking collectives (the granted-time window's
// all-gather of next event times, the null-message engine's waits and reductions) resolve here
// first, so the time a rank spends waiting for the others is measured, not estimated.
extern "C"
{
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

namespace ns3
{

#else // no mpi module in this ns-3

bool
RankExchange::Available()
{
    return false;
}

void
RankExchange::Enable(int*, char***, const std::string&)
{
    NS_ABORT_MSG("this build has no MPI: build with ./fabric build --ns3=source");
}

bool
RankExchange::Enabled()
{
    return false;
}

uint32_t
RankExchange::Rank()
{
    return 0;
}

uint32_t
RankExchange::Size()
{
    return 1;
}

void
RankExchange::SendPacket(Ptr<Packet>, Time, uint32_t, uint32_t)
{
    NS_ABORT_MSG("RankExchange::SendPacket without MPI");
}

void
RankExchange::AttachReceiver(Ptr<NetDevice>, Callback<void, Ptr<Packet>>)
{
}

void
RankExchange::Barrier()
{
}

void
RankExchange::Disable()
{
}

#endif

} // namespace ns3
