// libFuzzer target: the HPCC/ConWeave topology.txt and flow.txt readers. The input is split at
// the first "%%" line: topology before it, flows after it.

#include "config/config-error.h"
#include "config/hpcc-import.h"

#include <cstdint>
#include <fstream>
#include <string>
#include <unistd.h>

extern "C" int
LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    std::string text(reinterpret_cast<const char*>(data), size);
    size_t split = text.find("\n%%\n");
    std::string topo = split == std::string::npos ? text : text.substr(0, split + 1);
    std::string flows = split == std::string::npos ? "" : text.substr(split + 4);
    static const std::string base = "/tmp/fabric-fuzz-hpcc-" + std::to_string(getpid());
    std::ofstream(base + "-topology.txt", std::ios::trunc) << topo;
    std::ofstream(base + "-flow.txt", std::ios::trunc) << flows;
    try
    {
        ns3::HpccTopology t = ns3::ReadHpccTopology(base + "-topology.txt");
        if (split != std::string::npos)
        {
            ns3::ReadHpccFlows(base + "-flow.txt", t);
        }
    }
    catch (const ns3::ConfigError&)
    {
    }
    return 0;
}
