// fabric-run ends its process without freeing the run's objects (RunTeardown::ProcessExit) and
// without static destructors (std::_Exit). Nothing it writes may depend on that teardown: every
// file must be written and closed before the run returns. Each scenario here runs once in a
// fabric-run process and once in this process with the full teardown, and every file the two
// write must be the same, byte for byte (summary.json without its wall-clock figures): pcaps
// (written through ns-3's PcapFileWrapper), CSV traces and the job timeline files.

#include "../test-files.h"
#include "config/scenario-config.h"
#include "run/scenario-runner.h"

#include <filesystem>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <set>
#include <string>

namespace ns3
{
namespace test
{
namespace
{

namespace fs = std::filesystem;

const std::string kSourceDir = FABRIC_SOURCE_DIR;

std::set<std::string>
FilesUnder(const std::string& dir)
{
    std::set<std::string> names;
    for (const auto& entry : fs::recursive_directory_iterator(dir))
    {
        if (entry.is_regular_file())
        {
            names.insert(fs::relative(entry.path(), dir).string());
        }
    }
    return names;
}

/// summary.json without the figures that measure the machine rather than the simulation.
nlohmann::json
SimulatedSummary(const std::string& path)
{
    nlohmann::json summary = nlohmann::json::parse(ReadFile(path));
    for (const char* key :
         {"wall_s", "build_s", "events_per_s", "packet_hops_per_s", "peak_rss_kb", "sim_over_wall"})
    {
        summary.erase(key);
    }
    return summary;
}

void
ExpectSameOutputs(const std::string& scenario)
{
    TempDir dir("fabric-exit");
    const std::string viaProcess = dir.Path() + "/process";
    const std::string inProcess = dir.Path() + "/in-process";
    const std::string command = "cd " + ShellQuote(kSourceDir) + " && exec " +
                                ShellQuote(std::string(FABRIC_BUILD_DIR) + "/fabric-run") + " " +
                                ShellQuote(kSourceDir + "/" + scenario) + " --out " +
                                ShellQuote(viaProcess) + " --quiet >" +
                                ShellQuote(dir.Path() + "/log") + " 2>&1";
    ASSERT_EQ(std::system(command.c_str()), 0) << ReadFile(dir.Path() + "/log");

    fs::create_directories(inProcess);
    ScenarioConfig cfg = LoadScenario(kSourceDir + "/" + scenario, {}, kSourceDir);
    RunOutcome outcome = ScenarioRunner::Run(cfg, inProcess, nullptr, RunTeardown::Full);
    ASSERT_EQ(outcome.exitCode, EXIT_OK) << outcome.message;

    const std::set<std::string> files = FilesUnder(viaProcess);
    ASSERT_EQ(files, FilesUnder(inProcess));
    size_t pcaps = 0;
    for (const std::string& name : files)
    {
        if (name == "summary.json")
        {
            EXPECT_EQ(SimulatedSummary(viaProcess + "/" + name),
                      SimulatedSummary(inProcess + "/" + name));
            continue;
        }
        pcaps += name.size() > 5 && name.compare(name.size() - 5, 5, ".pcap") == 0;
        const std::string written = ReadFile(viaProcess + "/" + name);
        EXPECT_FALSE(written.empty()) << name;
        EXPECT_TRUE(written == ReadFile(inProcess + "/" + name)) << name << " differs";
    }
    if (scenario.find("pcap") != std::string::npos)
    {
        EXPECT_EQ(pcaps, 3u) << "one capture per port of sw0";
    }
}

TEST(FabricRunExit, PcapsAndTracesAreCompleteWithoutTeardown)
{
    ExpectSameOutputs("tests/data/scenarios/pcap-tiny.yaml");
}

TEST(FabricRunExit, JobTimelinesAreCompleteWithoutTeardown)
{
    ExpectSameOutputs("tests/data/scenarios/job-star4.yaml");
}

} // namespace
} // namespace test
} // namespace ns3
