// topology: a topology file, an inline topology or generator, or the HPCC simulators' format.

#include "config/config-sections.h"

namespace ns3
{

namespace
{

void
ReadTopologyKey(YamlFields& root, const ScenarioKey& key, ScenarioBuild& b)
{
    const std::string& file = b.cfg.file;
    YAML::Node node = root.Node(key.Name());
    if (node.IsMap() && node["hpcc"])
    {
        // topology: {hpcc: topology.txt} — the HPCC / ConWeave simulators' format; each link's
        // error rate becomes its cable loss rate.
        YamlFields t(node, file, key.path);
        HpccTopology topo = ReadHpccTopology(ResolvePath(file, b.sourceRoot, t.String("hpcc")),
                                             HpccCountsFromGlobal());
        t.RejectUnknownKeys();
        for (size_t i = 0; i < topo.spec.links.size(); ++i)
        {
            topo.spec.links[i].lossRate = topo.linkErrorRate[i];
        }
        b.hpcc = topo;
        b.cfg.topology = topo.spec;
        return;
    }
    if (node.IsScalar())
    {
        // topology: path/to/file.yaml — relative to the scenario file, then to the source tree.
        std::string path = node.Scalar();
        std::string found = ResolvePath(file, b.sourceRoot, path);
        if (found.empty())
        {
            throw ConfigError(file,
                              YamlLine(node),
                              key.path,
                              "topology file '" + path + "' not found");
        }
        b.cfg.topology = ReadTopologyFile(found, b.linkDefaults);
        return;
    }
    YAML::Node hosts = node.IsMap() ? node["hosts"] : YAML::Node();
    if (hosts && hosts.IsScalar() && hosts.Scalar() == "auto")
    {
        // "hosts: auto" sizes a star for the incast: the receiver plus every sender. Written
        // into the document (not a clone, which would lose every line number for messages).
        YamlFields work = root.Child("workload");
        node["hosts"] = static_cast<uint32_t>(ValueOf(work, "senders").count + 1);
    }
    b.cfg.topology = ReadTopology(node, file, key.path, b.linkDefaults);
}

} // namespace

ScenarioKeys
TopologyKeys()
{
    return {
        ScenarioKey("topology",
                    KeyKind::Mapping,
                    "a topology file (relative to the scenario, then to the source tree) or an "
                    "inline one: nodes and links, or generator: star|clos2|fat-tree3|rail with "
                    "its parameters (topologies/README.md); a star with hosts: auto has "
                    "workload.senders + 1 hosts")
            .Reader(ReadTopologyKey),
        ScenarioKey("topology.hpcc",
                    KeyKind::Text,
                    "a topology.txt of the HPCC / ConWeave simulators instead (each link's error "
                    "rate becomes its loss rate; topologies/README.md)")
            .Unit("file"),
    };
}

} // namespace ns3
