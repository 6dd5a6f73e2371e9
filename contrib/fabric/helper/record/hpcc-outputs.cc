#include "record/hpcc-outputs.h"

#include <filesystem>

namespace ns3
{

namespace
{
/// \p file under \p dir, its directory created.
std::string
PathUnder(const std::string& dir, const std::string& file)
{
    std::filesystem::path path = std::filesystem::path(dir) / file;
    if (path.has_parent_path())
    {
        std::filesystem::create_directories(path.parent_path());
    }
    return path.string();
}
} // namespace

HpccOutputs::HpccOutputs(const FabricNetwork* net,
                         const TraceConfig::Hpcc& config,
                         const std::string& dir)
{
    if (!config.fct.empty())
    {
        m_fct = std::make_unique<HpccFctWriter>(net, config, PathUnder(dir, config.fct));
    }
    if (!config.pfc.empty())
    {
        m_pfc = std::make_unique<HpccPfcWriter>(net, config, PathUnder(dir, config.pfc));
    }
    if (!config.qlen.empty())
    {
        m_qlen = std::make_unique<HpccQlenMonitor>(net, config, PathUnder(dir, config.qlen));
    }
}

void
HpccOutputs::Start()
{
    if (m_fct)
    {
        m_fct->Start();
    }
    if (m_qlen)
    {
        m_qlen->Start();
    }
}

void
HpccOutputs::PfcReceived(uint32_t node, uint32_t port, uint16_t quanta)
{
    if (m_pfc)
    {
        m_pfc->Received(node, port, quanta);
    }
}

void
HpccOutputs::Finish()
{
    if (m_fct)
    {
        m_fct->Finish();
    }
    if (m_pfc)
    {
        m_pfc->Finish();
    }
    if (m_qlen)
    {
        m_qlen->Finish();
    }
}

} // namespace ns3
