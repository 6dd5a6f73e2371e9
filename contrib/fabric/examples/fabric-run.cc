// fabric-run: runs one ns3-fabric scenario file and writes its traces.
//
//   fabric-run SCENARIO.yaml [--set key=value ...] [--attr ns3::Type::Attr=value ...]
//              [--out DIR] [--seed N] [--quiet]
//   fabric-run --help | --print-attributes[=all]
//   fabric-run --hash [FILE]     (the switches' ECMP hash for queries; ecmp-hash-queries.h)
//
// Exit status: 0 ok, 1 conservation violated, 2 bad input, 3 PFC deadlock detected.

#include "config/attribute-values.h"
#include "config/config-error.h"
#include "config/scenario-config.h"
#include "config/units.h"
#include "distributed/rank-exchange.h"
#include "distributed/topology-partition.h"
#include "ecmp-hash-queries.h"
#include "run/scenario-runner.h"

#include "ns3/core-module.h"

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

using namespace ns3;

namespace
{

const char* kUsage =
    R"(usage: fabric-run SCENARIO.yaml [options]
       fabric-run --hpcc-config config.txt [--hpcc-simulator NAME] [options]
       fabric-run --hash [FILE]


Runs one scenario and writes queues.csv, pfc.csv, flows.csv, links.csv, rates.csv and
summary.json (and pcaps if trace.pcap is set) into the output directory.

options:
  --set KEY=VALUE      override a scenario key (dots for nesting), e.g. --set switch.buffer=4MiB
  --attr NAME=VALUE    set any ns-3 attribute default, e.g. --attr ns3::FabricSwitch::EcnPmax=0.1
  --out DIR            output directory (default results/<scenario>/<seed>-<time>)
  --seed N             random seed (same as --set seed=N)
  --quiet              no summary table
  --hpcc-config FILE   run an HPCC-family simulator's config.txt instead of a scenario: every key
                       applied with the reference's meaning or refused by name; the keys that
                       are not simply applied are listed (and kept in the output directory's
                       hpcc-config.txt) (docs/hpcc-config.md)
  --hpcc-simulator S   who wrote that config: hpcc (default), conweave or ns3-datacenter
  --strict-import      refuse HPCC topology.txt / flow.txt records beyond the count on line 1
                       (by default they are ignored with a warning, as HPCC ignores them)
  --partition METHOD   distributed run under mpirun (auto | pods | FILE of 'node rank' lines);
                       on one process: the same results a K-rank run merges (docs/distributed.md)
  --mpi-sync KIND      granted-time (default: DistributedSimulatorImpl) or null-message
  --print-attributes   list the fabric's ns-3 attributes with defaults (=all: every ns-3 type)
  --hash [FILE]        instead of a run: the switches' ECMP hash for queries read from FILE or
                       standard input (--hash --help describes them)
  --help               this text and every scenario key

exit status: 0 ok, 1 conservation violated, 2 bad input, 3 PFC deadlock
)";

void
PrintAttributes(bool all)
{
    for (uint16_t i = 0; i < TypeId::GetRegisteredN(); ++i)
    {
        TypeId tid = TypeId::GetRegistered(i);
        if (!all && tid.GetGroupName() != "Fabric")
        {
            continue;
        }
        if (tid.GetAttributeN() == 0)
        {
            continue;
        }
        std::cout << tid.GetName() << "\n";
        for (std::size_t a = 0; a < tid.GetAttributeN(); ++a)
        {
            TypeId::AttributeInformation info = tid.GetAttribute(a);
            std::cout << "  --attr " << tid.GetName() << "::" << info.name << "="
                      << info.originalInitialValue->SerializeToString(info.checker) << "\n      "
                      << info.help << "\n";
        }
    }
}

std::string
SourceRoot(const char* argv0)
{
    // The binary lives in <root>/build; scenario files may name topologies relative to <root>.
    std::filesystem::path p = std::filesystem::absolute(argv0).parent_path().parent_path();
    return p.string();
}

void
PrintSummary(const RunOutcome& o)
{
    const auto& s = o.summary;
    const auto& c = s["counters"];
    auto line = [](const std::string& k, const std::string& v) {
        std::printf("  %-26s %s\n", k.c_str(), v.c_str());
    };
    std::printf("scenario %s (seed %s)\n",
                s["scenario"].get<std::string>().c_str(),
                s["seed"].dump().c_str());
    line("flows finished", s["flows_finished"].dump() + " / " + s["flows_total"].dump());
    line("bytes sent", FormatBytes(c["sent_bytes"]));
    line("bytes delivered", FormatBytes(c["delivered_bytes"]));
    line("bytes dropped", FormatBytes(c["dropped_bytes"]));
    line("bytes in flight at end", FormatBytes(c["in_flight_bytes"]));
    line("headroom violations", FormatBytes(c["headroom_violation_bytes"]));
    line("conservation", s["conservation_ok"].get<bool>() ? "ok" : "VIOLATED");
    uint64_t resent = c.value("retransmitted_packets", uint64_t(0));
    if (resent > 0)
    {
        // RoCE: packets sent again after NAKs (loss, or reordering under go-back-N) or timeouts.
        line("retransmitted",
             std::to_string(resent) + " packets, " + FormatBytes(c["retransmitted_bytes"]) + "; " +
                 c["naks_sent"].dump() + " NAKs sent");
    }
    uint64_t spurious = c.value("spurious_retransmitted_bytes", uint64_t(0));
    if (spurious > 0)
    {
        // Resent bytes the receivers already had: the retransmission timeout fired while the
        // originals were queued (docs/models.md#retransmission-timeout).
        line("WARNING spurious resends",
             FormatBytes(spurious) + " in " + c["spurious_retransmission_flows"].dump() +
                 " flows (receivers already had them; flows.csv spurious_bytes)");
    }
    if (!s["bottleneck"].is_null())
    {
        line("max queue",
             FormatBytes(s["bottleneck"]["bytes"]) + " at " +
                 s["bottleneck"]["node"].get<std::string>() + " port " +
                 s["bottleneck"]["port"].dump());
    }
    char buf[128];
    std::snprintf(buf, sizeof buf, "%.3f us", s["last_finish_ns"].get<double>() / 1e3);
    line("last flow finished at", buf);
    std::snprintf(buf,
                  sizeof buf,
                  "%.3f s, %.2f M events/s, %.2f M packet-hops/s",
                  s["wall_s"].get<double>(),
                  s["events_per_s"].get<double>() / 1e6,
                  s["packet_hops_per_s"].get<double>() / 1e6);
    line("wall time", buf);
    if (s.contains("distributed"))
    {
        const auto& d = s["distributed"];
        std::snprintf(buf,
                      sizeof buf,
                      "%s ranks, %s cut links, lookahead %s ns",
                      d["ranks"].dump().c_str(),
                      d["cut_links"].dump().c_str(),
                      d["lookahead_ns"].dump().c_str());
        line("distributed", buf);
    }
}

/// fabric-run --hash [FILE]: \p args are the arguments after --hash.
int
AnswerHashQueries(const std::vector<std::string>& args)
{
    if (args.size() == 1 && (args[0] == "--help" || args[0] == "-h"))
    {
        std::cout << kEcmpHashUsage;
        return EXIT_OK;
    }
    if (args.size() > 1 || (args.size() == 1 && args[0].rfind("--", 0) == 0))
    {
        throw ConfigError("command line", 0, "--hash", "takes one query FILE at most (or stdin)");
    }
    // Nothing else reads or writes here: buffered streams, and no flush of the answers before
    // every line read (cin is tied to cout), for batches of millions of queries.
    std::ios::sync_with_stdio(false);
    std::cin.tie(nullptr);
    if (args.empty() || args[0] == "-")
    {
        AnswerEcmpHashQueries(std::cin, "stdin", std::cout);
    }
    else
    {
        std::ifstream file(args[0]);
        if (!file)
        {
            throw ConfigError(args[0], 0, "", "cannot open");
        }
        AnswerEcmpHashQueries(file, args[0], std::cout);
    }
    std::cout.flush();
    return EXIT_OK;
}

} // namespace

/// Where errors go: stderr, except on the ranks other than 0 of an mpirun (every rank meets the
/// same bad input; one message is enough).
std::ostream&
ErrorStream()
{
    static std::ostringstream discard;
    const char* rank = std::getenv("OMPI_COMM_WORLD_RANK");
    if (rank && std::string(rank) != "0")
    {
        discard.str("");
        return discard;
    }
    return std::cerr;
}

/// What an hpcc_config import did with the config.txt keys it did not simply apply: on standard
/// error (unless quiet) and in OUT/hpcc-config.txt, so no key's fate goes unsaid.
void
WriteImportNotes(const ScenarioConfig& cfg, const std::string& outDir, bool quiet)
{
    if (cfg.importNotes.empty())
    {
        return;
    }
    std::ofstream file(outDir + "/hpcc-config.txt");
    for (const std::string& note : cfg.importNotes)
    {
        file << note << "\n";
        if (!quiet)
        {
            ErrorStream() << "fabric-run: note: " << note << "\n";
        }
    }
}

#ifdef FABRIC_MALLOC_JEMALLOC
// jemalloc reads its options from this symbol when the process starts (bench/PROFILE.md, round
// 7): its memory in 2 MiB transparent huge pages where the kernel allows them on request (its
// "madvise" mode, Debian's default). The incast-32 twin then starts with ~500 page faults
// instead of ~1 400, and runs of millions of packets miss the TLB less. MALLOC_CONF in the
// environment still overrides it.
extern "C"
{
    // Declared here, not only defined: GCC warns about an initialised extern otherwise.
    extern const char* malloc_conf;
    const char* malloc_conf = "thp:always,metadata_thp:always";
}
#endif

int
RunMain(int argc, char** argv)
{
    std::vector<std::string> args(argv + 1, argv + argc);
    std::string scenario;
    std::string outDir;
    std::vector<std::string> overrides;
    std::vector<std::string> attrs;
    std::string partition;
    std::string sync = "granted-time";
    bool quiet = false;
    std::string hpccConfig;
    std::string hpccSimulator = "hpcc";
    try
    {
        if (!args.empty() && args[0] == "--hash")
        {
            return AnswerHashQueries({args.begin() + 1, args.end()});
        }
        for (size_t i = 0; i < args.size(); ++i)
        {
            const std::string& a = args[i];
            auto value = [&](const std::string& flag) -> std::string {
                if (a.size() > flag.size() && a[flag.size()] == '=')
                {
                    return a.substr(flag.size() + 1);
                }
                if (i + 1 >= args.size())
                {
                    throw ConfigError("command line", 0, flag, "needs a value");
                }
                return args[++i];
            };
            auto is = [&](const std::string& flag) {
                return a == flag || a.rfind(flag + "=", 0) == 0;
            };
            if (a == "--help" || a == "-h")
            {
                std::cout << kUsage << "\n" << ScenarioKeysHelp();
                return 0;
            }
            else if (a == "--print-attributes" || a == "--print-attributes=all")
            {
                PrintAttributes(a != "--print-attributes");
                return 0;
            }
            else if (is("--set"))
            {
                overrides.push_back(value("--set"));
            }
            else if (is("--attr"))
            {
                attrs.push_back(value("--attr"));
            }
            else if (is("--out"))
            {
                outDir = value("--out");
            }
            else if (is("--seed"))
            {
                overrides.push_back("seed=" + value("--seed"));
            }
            else if (is("--hpcc-config"))
            {
                hpccConfig = value("--hpcc-config");
            }
            else if (is("--hpcc-simulator"))
            {
                hpccSimulator = value("--hpcc-simulator");
            }
            else if (a == "--strict-import")
            {
                GlobalValue::Bind("FabricStrictImport", BooleanValue(true));
            }
            else if (a == "--quiet")
            {
                quiet = true;
            }
            else if (is("--partition"))
            {
                partition = value("--partition");
            }
            else if (is("--mpi-sync"))
            {
                sync = value("--mpi-sync");
                if (sync != "granted-time" && sync != "null-message")
                {
                    throw ConfigError("command line",
                                      0,
                                      "--mpi-sync",
                                      "'" + sync + "': expected granted-time or null-message");
                }
            }
            else if (a.rfind("--", 0) == 0)
            {
                throw ConfigError("command line", 0, a, "unknown option (see --help)");
            }
            else if (scenario.empty())
            {
                scenario = a;
            }
            else
            {
                throw ConfigError("command line", 0, a, "only one scenario file per run");
            }
        }
        if (!hpccConfig.empty() && !scenario.empty())
        {
            throw ConfigError("command line",
                              0,
                              "--hpcc-config",
                              "a scenario file or --hpcc-config, not both (a scenario can hold "
                              "hpcc_config: {file: ...})");
        }
        if (!hpccConfig.empty())
        {
            scenario = hpccConfig;
        }
        if (scenario.empty())
        {
            std::cerr << kUsage;
            return EXIT_CONFIG_ERROR;
        }
        // Under mpirun every rank runs this program; each simulates one part of the fabric.
        std::unique_ptr<PartitionPlan> plan;
        if (RankExchange::LaunchedByMpi() && partition.empty())
        {
            const char* n = std::getenv("OMPI_COMM_WORLD_SIZE");
            if (n && std::string(n) != "1")
            {
                throw ConfigError("command line",
                                  0,
                                  "--partition",
                                  "started by mpirun with " + std::string(n) +
                                      " ranks: say how to cut the fabric (--partition "
                                      "auto|pods|FILE)");
            }
        }
        if (!partition.empty())
        {
            plan = std::make_unique<PartitionPlan>();
            plan->method = partition;
            plan->sync = sync;
            if (RankExchange::LaunchedByMpi())
            {
                if (!RankExchange::Available())
                {
                    throw ConfigError("command line",
                                      0,
                                      "--partition",
                                      RankExchange::WhyUnavailable());
                }
                RankExchange::Enable(&argc, &argv, sync);
                plan->rank = RankExchange::Rank();
                plan->size = RankExchange::Size();
            }
        }
        ScenarioConfig cfg =
            hpccConfig.empty()
                ? LoadScenario(scenario, overrides, SourceRoot(argv[0]))
                : LoadHpccConfigScenario(hpccConfig, hpccSimulator, overrides, SourceRoot(argv[0]));
        if (plan)
        {
            plan->partition = PartitionTopology(cfg.topology, plan->size, partition);
        }
        quiet = quiet || (plan && plan->rank != 0);
        for (const std::string& warning : cfg.warnings)
        {
            ErrorStream() << "fabric-run: warning: " << warning << "\n"; // even with --quiet
        }
        for (const std::string& a : attrs)
        {
            size_t eq = a.find('=');
            if (eq == std::string::npos)
            {
                throw ConfigError("--attr", 0, a, "expected ns3::Type::Attribute=value");
            }
            std::string normalized;
            std::string error;
            if (!NormalizeAttributeValue(a.substr(0, eq), a.substr(eq + 1), &normalized, &error))
            {
                throw ConfigError("--attr", 0, a.substr(0, eq), error);
            }
            cfg.attributes.emplace_back(a.substr(0, eq), normalized);
        }
        if (outDir.empty())
        {
            outDir = "results/" + cfg.name + "/seed" + std::to_string(cfg.seed);
        }
        bool created = !std::filesystem::exists(outDir);
        std::filesystem::create_directories(outDir);
        WriteImportNotes(cfg, outDir, quiet);
        RunOutcome outcome;
        try
        {
            outcome = ScenarioRunner::Run(cfg, outDir, plan.get(), RunTeardown::ProcessExit);
        }
        catch (const ConfigError&)
        {
            if (created && (!plan || plan->rank == 0))
            {
                std::filesystem::remove_all(outDir); // bad input leaves no partial results
            }
            throw;
        }
        if (!quiet)
        {
            PrintSummary(outcome);
            std::printf("  %-26s %s\n", "results", outDir.c_str());
        }
        if (outcome.exitCode != EXIT_OK)
        {
            std::cerr << "fabric-run: " << outcome.message << "\n";
        }
        return outcome.exitCode;
    }
    catch (const ConfigError& e)
    {
        // A value that came from --set has no line in the file: name the option instead.
        for (const std::string& o : overrides)
        {
            std::string key = o.substr(0, o.find('='));
            if (e.Line() == 0 && e.File() == scenario && e.Key().rfind(key, 0) == 0)
            {
                ErrorStream() << "fabric-run: error: --set " << e.Key() << ": " << e.Message()
                              << "\n";
                return EXIT_CONFIG_ERROR;
            }
        }
        ErrorStream() << "fabric-run: error: " << e.what() << "\n";
        return EXIT_CONFIG_ERROR;
    }
    catch (const std::filesystem::filesystem_error& e)
    {
        ErrorStream() << "fabric-run: error: " << e.what() << "\n";
        return EXIT_CONFIG_ERROR;
    }
}

int
main(int argc, char** argv)
{
    int status = RunMain(argc, argv);
    RankExchange::Disable(); // MPI_Finalize on every rank, whatever happened
    // The run left its objects to the process's end (RunTeardown::ProcessExit) and closed
    // every file it wrote: end without running static destructors, which would find ns-3's
    // simulator still holding them.
    std::fflush(nullptr);
    std::_Exit(status);
}
