// host: what every host puts in a frame.

#include "config/config-sections.h"

namespace ns3
{

namespace
{

void
ReadMtu(YamlFields& host, const ScenarioKey& key, ScenarioBuild& b)
{
    b.cfg.payloadMtu = static_cast<uint32_t>(SetFromKey(host, key, b.cfg.attributes).count);
}

} // namespace

ScenarioKeys
HostKeys()
{
    return {
        ScenarioKey("host", KeyKind::Mapping, "hosts").Reader(ReadSection),
        ScenarioKey("host.mtu",
                    KeyKind::Bytes,
                    "payload bytes per frame (RoCE path MTU: 1024, 2048 or 4096)")
            .Attribute("ns3::FabricHost::Mtu")
            .Check(Within(64, 9000, "payload MTU must be 64..9000 bytes"))
            .Reader(ReadMtu),
    };
}

} // namespace ns3
