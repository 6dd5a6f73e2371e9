#include "distributed/rank-exchange.h"

#include "distributed/rank-exchange-backend.h"

#include "ns3/abort.h"

#include <cstdlib>
#include <dlfcn.h>
#include <filesystem>

namespace ns3
{

namespace
{

/// The MPI plugin's entry points once Enable loaded it; null in a run of one process.
const RankExchangeBackend* g_backend = nullptr;

/// Where this build put the MPI plugin (FABRIC_MPI_PLUGIN, set by contrib/fabric/CMakeLists.txt
/// when ns-3 has its mpi module); empty without one.
std::string
PluginPath()
{
#ifdef FABRIC_MPI_PLUGIN
    return FABRIC_MPI_PLUGIN;
#else
    return "";
#endif
}

} // namespace

bool
RankExchange::Available()
{
    const std::string path = PluginPath();
    std::error_code ec;
    return !path.empty() && std::filesystem::exists(path, ec);
}

std::string
RankExchange::WhyUnavailable()
{
    if (PluginPath().empty())
    {
        return "this fabric-run was built against an ns-3 without MPI: build it with "
               "./fabric build --ns3=source";
    }
    if (!Available())
    {
        return "its MPI plugin " + PluginPath() +
               " is missing: build it with ./fabric build --ns3=source";
    }
    return "";
}

bool
RankExchange::LaunchedByMpi()
{
    return std::getenv("OMPI_COMM_WORLD_SIZE") || std::getenv("PMI_SIZE") ||
           std::getenv("PMIX_RANK");
}

void
RankExchange::Enable(int* argc, char*** argv, const std::string& sync)
{
    NS_ABORT_MSG_IF(!Available(), WhyUnavailable());
    if (!g_backend)
    {
        // RTLD_GLOBAL: Open MPI loads its own components later, and they look for libmpi's and
        // open-pal's symbols in the global scope.
        void* plugin = dlopen(PluginPath().c_str(), RTLD_NOW | RTLD_GLOBAL);
        NS_ABORT_MSG_IF(!plugin, "cannot load the MPI plugin: " << dlerror());
        auto getter =
            reinterpret_cast<RankExchangeBackendGetter>(dlsym(plugin, kRankExchangeBackendSymbol));
        NS_ABORT_MSG_IF(!getter, PluginPath() << " has no " << kRankExchangeBackendSymbol);
        g_backend = getter();
    }
    g_backend->enable(argc, argv, sync);
}

bool
RankExchange::Enabled()
{
    return g_backend && g_backend->enabled();
}

uint32_t
RankExchange::Rank()
{
    return Enabled() ? g_backend->rank() : 0;
}

uint32_t
RankExchange::Size()
{
    return Enabled() ? g_backend->size() : 1;
}

void
RankExchange::SendPacket(Ptr<Packet> packet, Time rxTime, uint32_t node, uint32_t device)
{
    NS_ABORT_MSG_IF(!g_backend, "RankExchange::SendPacket without MPI");
    g_backend->sendPacket(packet, rxTime, node, device);
}

void
RankExchange::AttachReceiver(Ptr<NetDevice> device, Callback<void, Ptr<Packet>> receive)
{
    if (g_backend)
    {
        g_backend->attachReceiver(device, receive);
    }
}

void
RankExchange::Barrier()
{
    if (Enabled())
    {
        g_backend->barrier();
    }
}

double
RankExchange::SyncWaitSeconds()
{
    return g_backend ? g_backend->syncWaitSeconds() : 0.0;
}

uint64_t
RankExchange::SyncCount()
{
    return g_backend ? g_backend->syncCount() : 0;
}

void
RankExchange::Disable()
{
    if (Enabled())
    {
        g_backend->disable();
    }
}

} // namespace ns3
