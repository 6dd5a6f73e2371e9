// libFuzzer target: a topology file (explicit nodes/links or a generator).

#include "config/config-error.h"
#include "config/topology-reader.h"

#include <cstdint>
#include <fstream>
#include <string>
#include <unistd.h>

extern "C" int
LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    static const std::string path =
        "/tmp/fabric-fuzz-topology-" + std::to_string(getpid()) + ".yaml";
    {
        std::ofstream out(path, std::ios::binary | std::ios::trunc);
        out.write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
    }
    try
    {
        ns3::ReadTopologyFile(path);
    }
    catch (const ns3::ConfigError&)
    {
    }
    return 0;
}
