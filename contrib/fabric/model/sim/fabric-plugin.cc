#include "sim/fabric-plugin.h"

#include "ns3/abort.h"

#include <algorithm>
#include <memory>
#include <tuple>

namespace ns3
{

FabricPlugin::FabricPlugin(PluginKind kind,
                           std::string name,
                           TypeId (*typeId)(),
                           std::string summary)
    : m_kind(kind),
      m_name(std::move(name)),
      m_typeId(typeId),
      m_summary(std::move(summary))
{
}

FabricPlugin&
FabricPlugin::Transport(std::string transport)
{
    m_transport = std::move(transport);
    return *this;
}

FabricPlugin&
FabricPlugin::Section(std::string section)
{
    m_section = std::move(section);
    return *this;
}

FabricPlugin&
FabricPlugin::SwitchStage(std::string stage)
{
    m_switchStage = std::move(stage);
    return *this;
}

FabricPlugin&
FabricPlugin::EchoesEcn()
{
    m_echoesEcn = true;
    return *this;
}

FabricPlugin&
FabricPlugin::MtuAttribute(std::string attribute)
{
    m_mtuAttribute = std::move(attribute);
    return *this;
}

FabricPlugin&
FabricPlugin::PerPacket(std::string unlessPositive)
{
    m_perPacket = true;
    m_perPacketUnless = std::move(unlessPositive);
    return *this;
}

TypeId
FabricPlugin::GetTypeId() const
{
    return m_typeId();
}

std::string
FabricPlugin::GetTypeName() const
{
    return m_typeId().GetName();
}

namespace
{
/// Held by pointer so that the records' addresses stay fixed as more register. Built on first
/// use: registrations run from static initializers in any order.
std::vector<std::unique_ptr<FabricPlugin>>&
Plugins()
{
    static std::vector<std::unique_ptr<FabricPlugin>> plugins;
    return plugins;
}

bool
Matches(const FabricPlugin& p, PluginKind kind, const std::string& transport)
{
    return p.GetKind() == kind && (transport.empty() || p.GetTransport() == transport);
}
} // namespace

const FabricPlugin&
PluginRegistry::Register(FabricPlugin plugin)
{
    for (const auto& p : Plugins())
    {
        NS_ABORT_MSG_IF(p->GetKind() == plugin.GetKind() && p->GetName() == plugin.GetName() &&
                            p->GetTransport() == plugin.GetTransport(),
                        "two fabric plug-ins are named '" << plugin.GetName() << "'");
    }
    Plugins().push_back(std::make_unique<FabricPlugin>(std::move(plugin)));
    return *Plugins().back();
}

std::vector<const FabricPlugin*>
PluginRegistry::Of(PluginKind kind, const std::string& transport)
{
    std::vector<const FabricPlugin*> found;
    for (const auto& p : Plugins())
    {
        if (Matches(*p, kind, transport))
        {
            found.push_back(p.get());
        }
    }
    std::sort(found.begin(), found.end(), [](const FabricPlugin* a, const FabricPlugin* b) {
        return std::tie(a->GetName(), a->GetTransport()) <
               std::tie(b->GetName(), b->GetTransport());
    });
    return found;
}

const FabricPlugin*
PluginRegistry::Find(PluginKind kind, const std::string& name, const std::string& transport)
{
    for (const auto& p : Plugins())
    {
        if (Matches(*p, kind, transport) && p->GetName() == name)
        {
            return p.get();
        }
    }
    return nullptr;
}

const FabricPlugin*
PluginRegistry::FindType(PluginKind kind, const std::string& typeName, const std::string& transport)
{
    for (const auto& p : Plugins())
    {
        if (Matches(*p, kind, transport) && p->GetTypeName() == typeName)
        {
            return p.get();
        }
    }
    return nullptr;
}

std::string
PluginRegistry::Names(PluginKind kind, const std::string& transport)
{
    std::vector<const FabricPlugin*> plugins = Of(kind, transport);
    std::string names;
    for (size_t i = 0; i < plugins.size(); ++i)
    {
        if (i > 0)
        {
            names += i + 1 == plugins.size() ? " or " : ", ";
        }
        names += plugins[i]->GetName();
    }
    return names;
}

} // namespace ns3
