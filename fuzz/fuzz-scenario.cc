// libFuzzer target: a scenario file, as fabric-run reads it. Any input must end in a loaded
// scenario or a ConfigError — never a crash, an abort, a sanitizer report or a hang.

#include "config/config-error.h"
#include "config/scenario-config.h"

#include <cstdint>
#include <cstdio>
#include <fstream>
#include <string>
#include <unistd.h>

extern "C" int
LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    static const std::string path =
        "/tmp/fabric-fuzz-scenario-" + std::to_string(getpid()) + ".yaml";
    {
        std::ofstream out(path, std::ios::binary | std::ios::trunc);
        out.write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
    }
    try
    {
        ns3::LoadScenario(path, {}, FABRIC_SOURCE_DIR);
    }
    catch (const ns3::ConfigError&)
    {
    }
    return 0;
}
