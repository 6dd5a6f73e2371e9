#ifndef FABRIC_PLUGIN_H
#define FABRIC_PLUGIN_H

#include "ns3/type-id.h"

#include <cstdint>
#include <string>
#include <vector>

namespace ns3
{

/**
 * \ingroup fabric
 * \brief The scenario key that selects a plug-in.
 */
enum class PluginKind : uint8_t
{
    CongestionControl, ///< `cc:`, per transport (roce, ub)
    LoadBalancer,      ///< `switch.lb:`
    EgressStage,       ///< `switch.stages:`, and the stages a congestion control needs
    MmuPolicy,         ///< `switch.mmu:`: how the shared buffer sets its thresholds
    NicSpray,          ///< `ub.spray:`: how a UB NIC picks the entropy (path) of each packet
};

/**
 * \ingroup fabric
 * \brief What a plug-in (a congestion control, a load balancer, an egress stage, a buffer
 * policy) states about itself, once, beside its TypeId: its scenario name, its key section and
 * its flags.
 *
 * The scenario layer builds the choices of its keys, their error messages, `--help`, the
 * sections of per-attribute keys and the switches' stages from these records
 * (helper/config/plugin-keys.h), so that a new plug-in is its class file and its test. A record
 * is registered at load time with FABRIC_PLUGIN in the class's .cc file, next to
 * NS_OBJECT_ENSURE_REGISTERED:
 *
 * \code
 *   FABRIC_PLUGIN(FabricPlugin(PluginKind::CongestionControl, "hpcc",
 *                              &HpccCongestionControl::GetTypeId, "HPCC sender")
 *                     .Transport("roce").Section("hpcc").SwitchStage("int-stamp"));
 * \endcode
 */
class FabricPlugin
{
  public:
    /// \p name: the scenario name (`cc: hpcc`); \p typeId: the class's GetTypeId (read lazily,
    /// after every TypeId is registered); \p summary: one line for `--help` and the section.
    FabricPlugin(PluginKind kind, std::string name, TypeId (*typeId)(), std::string summary);

    /// A congestion control: the transport whose NICs run it ("roce" or "ub").
    FabricPlugin& Transport(std::string transport);
    /// The scenario section with one key per attribute of the TypeId (`hpcc.eta`).
    FabricPlugin& Section(std::string section);
    /// A congestion control: every switch runs the egress stage registered as \p stage (INT
    /// stamping for HPCC, C-AQM for UB's C-AQM).
    FabricPlugin& SwitchStage(std::string stage);
    /// A congestion control: receivers echo the ECN marks of data on their ACKs.
    FabricPlugin& EchoesEcn();
    /// The attribute of the TypeId that takes the hosts' MTU (the algorithm's packet size).
    FabricPlugin& MtuAttribute(std::string attribute);
    /// A load balancer that sends one flow's packets on different paths (they arrive out of
    /// order); with \p unlessPositive, only while that Time attribute is zero (a flowlet gap).
    FabricPlugin& PerPacket(std::string unlessPositive = "");

    PluginKind GetKind() const
    {
        return m_kind;
    }

    const std::string& GetName() const
    {
        return m_name;
    }

    /// The TypeId's name ("ns3::HpccCongestionControl").
    std::string GetTypeName() const;
    TypeId GetTypeId() const;

    const std::string& GetSummary() const
    {
        return m_summary;
    }

    const std::string& GetTransport() const
    {
        return m_transport;
    }

    const std::string& GetSection() const
    {
        return m_section;
    }

    const std::string& GetSwitchStage() const
    {
        return m_switchStage;
    }

    bool GetEchoesEcn() const
    {
        return m_echoesEcn;
    }

    const std::string& GetMtuAttribute() const
    {
        return m_mtuAttribute;
    }

    bool IsPerPacket() const
    {
        return m_perPacket;
    }

    const std::string& GetPerPacketUnlessPositive() const
    {
        return m_perPacketUnless;
    }

  private:
    PluginKind m_kind;
    std::string m_name;
    TypeId (*m_typeId)();
    std::string m_summary;
    std::string m_transport;
    std::string m_section;
    std::string m_switchStage;
    bool m_echoesEcn = false;
    std::string m_mtuAttribute;
    bool m_perPacket = false;
    std::string m_perPacketUnless;
};

/**
 * \ingroup fabric
 * \brief Every FabricPlugin of the process, in name order per kind.
 */
class PluginRegistry
{
  public:
    /// Adds \p plugin; aborts on a second plug-in of the same kind, transport and name (two
    /// classes claiming one scenario name is a programming error, found at load time).
    static const FabricPlugin& Register(FabricPlugin plugin);
    /// The plug-ins of \p kind (of \p transport, when given), sorted by name.
    static std::vector<const FabricPlugin*> Of(PluginKind kind, const std::string& transport = "");
    /// The plug-in of \p kind called \p name (of \p transport, when given); null if none.
    static const FabricPlugin* Find(PluginKind kind,
                                    const std::string& name,
                                    const std::string& transport = "");
    /// The plug-in of \p kind whose TypeId is \p typeName; null if none.
    static const FabricPlugin* FindType(PluginKind kind,
                                        const std::string& typeName,
                                        const std::string& transport = "");
    /// The names of Of(kind, transport): "a, b or c".
    static std::string Names(PluginKind kind, const std::string& transport = "");
};

} // namespace ns3

#define FABRIC_PLUGIN_CONCAT2(a, b) a##b
#define FABRIC_PLUGIN_CONCAT(a, b) FABRIC_PLUGIN_CONCAT2(a, b)
/// Registers a FabricPlugin when the library loads (in the plug-in's .cc file).
#define FABRIC_PLUGIN(plugin)                                                                      \
    namespace                                                                                      \
    {                                                                                              \
    const ns3::FabricPlugin& FABRIC_PLUGIN_CONCAT(g_fabricPlugin, __LINE__) =                      \
        ns3::PluginRegistry::Register(plugin);                                                     \
    }

#endif
