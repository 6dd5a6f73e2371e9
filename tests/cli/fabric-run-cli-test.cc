// fabric-run as a user meets it: --help and --print-attributes, one test per kind of bad input
// (tests/data/bad/scenario-*.yaml and bad command lines), and --set overriding a shipped example.
//
// Bad input must end with exit status 2 (not a crash, not a signal) and exactly one line that
// names the file, the line and the key, so that the message alone tells the user what to fix.
// The expected line numbers are the lines of the fixtures where the mistake was put.

#include "../test-files.h"

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <sys/wait.h>
#include <vector>

namespace
{

using ns3::test::Contains;
using ns3::test::ReadFile;
using ns3::test::TempDir;

namespace fs = std::filesystem;

const std::string kSourceDir = FABRIC_SOURCE_DIR;
const std::string kFabricRun = std::string(FABRIC_BUILD_DIR) + "/fabric-run";

/// How fabric-run ended and what it printed (stdout and stderr interleaved).
struct RunResult
{
    bool exited = false; ///< false: killed by a signal (a crash, for bad input)
    int status = -1;
    int signal = 0;
    std::string output;
};

std::string
ShellQuote(const std::string& s)
{
    std::string q = "'";
    for (char c : s)
    {
        q += c == '\'' ? std::string("'\\''") : std::string(1, c);
    }
    return q + "'";
}

/// Runs build/fabric-run with \p args from the repository root (so file names in messages are
/// the relative paths given here). `exec` makes the shell become fabric-run, so a crash shows
/// as a signal in the wait status instead of the shell's 128+N exit status.
RunResult
RunFabric(const std::vector<std::string>& args, const std::string& logFile)
{
    std::string cmd = "cd " + ShellQuote(kSourceDir) + " && exec " + ShellQuote(kFabricRun);
    for (const std::string& a : args)
    {
        cmd += " " + ShellQuote(a);
    }
    cmd += " >" + ShellQuote(logFile) + " 2>&1";
    int st = std::system(cmd.c_str());
    RunResult r;
    r.output = ReadFile(logFile);
    if (st != -1 && WIFEXITED(st))
    {
        r.exited = true;
        r.status = WEXITSTATUS(st);
    }
    else if (st != -1 && WIFSIGNALED(st))
    {
        r.signal = WTERMSIG(st);
    }
    return r;
}

class FabricRunTest : public ::testing::Test
{
  protected:
    void SetUp() override
    {
        if (!fs::exists(kFabricRun))
        {
            GTEST_FAIL() << kFabricRun << " is missing: build the fabric-run target first";
        }
    }

    RunResult Run(const std::vector<std::string>& args)
    {
        return RunFabric(args, m_tmp.Path() + "/log-" + std::to_string(m_runs++) + ".txt");
    }

    /**
     * Runs a bad input and checks the contract: exit status 2, one line of output starting
     * "fabric-run: error: " and containing \p where (the "FILE:LINE: KEY: " part) and
     * \p fragment (the value or reason), and no summary.json left behind.
     */
    void ExpectBadInput(std::vector<std::string> args,
                        const std::string& where,
                        const std::string& fragment)
    {
        std::string out = m_tmp.Path() + "/out";
        args.insert(args.end(), {"--out", out, "--quiet"});
        RunResult r = Run(args);
        ASSERT_TRUE(r.exited) << "fabric-run was killed by signal " << r.signal << "; output:\n"
                              << r.output;
        EXPECT_EQ(r.status, 2) << r.output;
        EXPECT_EQ(r.output.rfind("fabric-run: error: ", 0), 0u) << r.output;
        // One line: exactly one newline, at the very end.
        EXPECT_EQ(std::count(r.output.begin(), r.output.end(), '\n'), 1) << r.output;
        EXPECT_EQ(r.output.empty() ? '\0' : r.output.back(), '\n');
        EXPECT_TRUE(Contains(r.output, where));
        EXPECT_TRUE(Contains(r.output, fragment));
        // A rejected run leaves no results directory behind.
        EXPECT_FALSE(fs::exists(out)) << out;
    }

    /// A fixture tests/data/bad/<name> rejected with "<file>:<line>: <key>: ...".
    void ExpectBadScenario(const std::string& name,
                           int line,
                           const std::string& key,
                           const std::string& fragment)
    {
        std::string file = "tests/data/bad/" + name;
        ASSERT_TRUE(fs::exists(kSourceDir + "/" + file)) << file;
        ExpectBadInput({file}, file + ":" + std::to_string(line) + ": " + key + ": ", fragment);
    }

    TempDir m_tmp{"fabric-cli"};
    int m_runs = 0;
};

// --- help and attributes ------------------------------------------------------------------

TEST_F(FabricRunTest, HelpListsScenarioKeysAndExitsZero)
{
    RunResult r = Run({"--help"});
    ASSERT_TRUE(r.exited);
    EXPECT_EQ(r.status, 0);
    for (const char* key : {"switch.pfc.headroom",
                            "switch.buffer",
                            "switch.pfc.xoff",
                            "switch.ecn.pmax",
                            "workload.senders",
                            "workload.bytes_per_sender",
                            "trace.pcap_nodes",
                            "--set",
                            "--attr"})
    {
        EXPECT_TRUE(Contains(r.output, key));
    }
}

TEST_F(FabricRunTest, PrintAttributesListsModelAttributes)
{
    RunResult r = Run({"--print-attributes"});
    ASSERT_TRUE(r.exited);
    EXPECT_EQ(r.status, 0);
    // Each line reads "--attr NAME=DEFAULT", which is what a user pastes back on the command line.
    for (const char* name : {"ns3::SharedBufferMmu::BufferSize",
                             "ns3::FabricNetDevice::DataRate",
                             "ns3::FabricSwitch::EcnKmin",
                             "ns3::SharedBufferMmu::Headroom",
                             "ns3::FabricHost::Mtu"})
    {
        EXPECT_TRUE(Contains(r.output, std::string("--attr ") + name + "="));
    }
}

// --- bad scenario files -------------------------------------------------------------------

TEST_F(FabricRunTest, BadFlowWithoutBytes)
{
    // The second flow's mapping starts on line 13; the missing key is reported at the mapping.
    ExpectBadScenario("scenario-flow-missing-bytes.yaml", 13, "workload.flows[1].bytes", "missing");
}

TEST_F(FabricRunTest, BadBufferUnit)
{
    ExpectBadScenario("scenario-bad-unit-buffer.yaml", 8, "switch.buffer", "4MiBB");
}

TEST_F(FabricRunTest, BadCreditFlowControl)
{
    // 1 KiB of credit is 4 cells of 256 B; the largest frame (4154 B) needs 17.
    ExpectBadScenario("scenario-cbfc-credits-below-frame.yaml",
                      11,
                      "switch.cbfc.credits",
                      "17 cells");
    ExpectBadScenario("scenario-cbfc-without-cbfc.yaml", 7, "switch.cbfc", "flow_control: cbfc");
    // 17 ports × 64 KiB = 1 114 112 B > 1 MiB.
    ExpectBadScenario("scenario-cbfc-reserve.yaml", 6, "switch.buffer", "1114112 B");
    ExpectBadScenario("scenario-cbfc-negative-sync.yaml", 7, "switch.cbfc.sync_interval", "-1us");
    ExpectBadInput({"examples/cbfc-incast.yaml", "--set", "switch.flow_control=credits"},
                   "switch.flow_control",
                   "pfc or cbfc");
}

TEST_F(FabricRunTest, BadRateUnit)
{
    // "400Gbs" is on line 7 of the inline topology mapping.
    ExpectBadScenario("scenario-bad-unit-rate.yaml", 7, "topology.rate", "400Gbs");
}

TEST_F(FabricRunTest, BadNegativeRate)
{
    ExpectBadScenario("scenario-negative-rate.yaml", 13, "workload.rate", "-100Gbps");
}

TEST_F(FabricRunTest, BadFlowFromHostNotInTopology)
{
    ExpectBadScenario("scenario-flow-unknown-host.yaml", 15, "workload.flows[1].src", "h99");
}

TEST_F(FabricRunTest, BadFlowFromUnknownNode)
{
    ExpectBadScenario("scenario-flow-unknown-node.yaml", 12, "workload.flows[0].src", "nosuchnode");
}

TEST_F(FabricRunTest, BadPriorityNine)
{
    ExpectBadScenario("scenario-priority-9.yaml", 13, "workload.priority", "9");
}

TEST_F(FabricRunTest, BadMisspelledTopLevelKey)
{
    // 'swich:' on line 7. The file has no 'switch:' at all, which is legal (every switch key
    // has a default), so the only thing wrong is the unknown key.
    ExpectBadScenario("scenario-unknown-key.yaml", 7, "swich", "unknown key");
}

TEST_F(FabricRunTest, BadMisspelledNestedKey)
{
    ExpectBadScenario("scenario-unknown-nested-key.yaml", 11, "switch.pfc.xofff", "unknown key");
}

TEST_F(FabricRunTest, BadMisspelledKeySuggestsTheNearestValidOne)
{
    // 'xofff' is one edit from 'xoff'; 'swich' from 'switch'.
    ExpectBadScenario("scenario-unknown-nested-key.yaml",
                      11,
                      "switch.pfc.xofff",
                      "did you mean 'switch.pfc.xoff'?");
    ExpectBadScenario("scenario-unknown-key.yaml", 7, "swich", "did you mean 'switch'?");
}

TEST_F(FabricRunTest, BadIntegerTooLargeForItsField)
{
    // Beyond 64 bits (std::stoull would throw), and beyond the 32 bits of ns-3's seed.
    ExpectBadScenario("scenario-receiver-too-large.yaml",
                      12,
                      "workload.receiver",
                      "99999999999999999999");
    ExpectBadScenario("scenario-flow-src-too-large.yaml",
                      11,
                      "workload.flows[1].src",
                      "18446744073709551616");
    ExpectBadScenario("scenario-seed-too-large.yaml", 3, "seed", "0..4294967295");
    // 8 GiB into a uint32_t attribute: the attribute's own range, at the line of the key.
    ExpectBadScenario("scenario-attribute-out-of-range.yaml",
                      9,
                      "switch.dwrr_quantum",
                      "'8GiB' is out of range: must be 64..4294967295");
    ExpectBadInput({"examples/incast.yaml", "--set", "seed=4294967296"},
                   "--set seed: ",
                   "0..4294967295");
}

TEST_F(FabricRunTest, BadRateTooLargeOrRoundingToZero)
{
    // A DataRate attribute (SHARP's aggregation rate) read by the scenario's rate parser: beyond
    // 64 bits per second, or below half a bit per second (a rate of 0, which a frame's
    // transmission time divides by), is bad input, not a division by zero in the run.
    ExpectBadInput({"examples/sharp-scaling.yaml", "--set", "collective.sharp.rate=1e30Gbps"},
                   "--set collective.sharp.rate: ",
                   "1e30Gbps");
    ExpectBadInput(
        {"examples/sharp-scaling.yaml", "--set", "collective.sharp.rate=99999999999999999999Gbps"},
        "--set collective.sharp.rate: ",
        "99999999999999999999Gbps");
    ExpectBadInput({"examples/sharp-scaling.yaml", "--set", "collective.sharp.rate=0.1bps"},
                   "--set collective.sharp.rate: ",
                   "0.1bps");
}

TEST_F(FabricRunTest, BadMoreSendersThanHosts)
{
    // 8 senders on a 4-host star: at most 3 hosts besides the receiver.
    ExpectBadScenario("scenario-too-many-senders.yaml", 11, "workload.senders", "4 hosts");
}

TEST_F(FabricRunTest, BadXonAboveXoff)
{
    ExpectBadScenario("scenario-xon-above-xoff.yaml", 12, "switch.pfc.xon", "XOFF");
}

TEST_F(FabricRunTest, BadKmaxBelowKmin)
{
    ExpectBadScenario("scenario-kmax-below-kmin.yaml", 12, "switch.ecn.kmax", "Kmin");
}

TEST_F(FabricRunTest, BadPmaxAboveOne)
{
    ExpectBadScenario("scenario-pmax-above-one.yaml", 12, "switch.ecn.pmax", "0..1");
}

TEST_F(FabricRunTest, BadUnknownWorkloadType)
{
    ExpectBadScenario("scenario-unknown-workload.yaml", 10, "workload.type", "alltoall");
}

TEST_F(FabricRunTest, BadYamlSyntax)
{
    // "buffer: 1MiB: 2" on line 8; a syntax error has no key, so the line is followed by the
    // parser's message.
    std::string file = "tests/data/bad/scenario-syntax-error.yaml";
    ExpectBadInput({file}, file + ":8: ", "YAML syntax error");
}

TEST_F(FabricRunTest, BadHeadroomDoesNotFitBuffer)
{
    // Auto headroom at 400 Gb/s over 30 m is 27654 B per port (see
    // scenario-config-test.cc); 4 ports x 27654 B = 110616 B > the 32 KiB buffer of line 11.
    ExpectBadScenario("scenario-headroom-too-big.yaml", 11, "switch.buffer", "110616");
}

TEST_F(FabricRunTest, BadTopologyFileNotFound)
{
    ExpectBadScenario("scenario-topology-not-found.yaml", 4, "topology", "no/such/topology.yaml");
}

TEST_F(FabricRunTest, BadUnknownAttributeInFile)
{
    // The attributes: mapping of the file names an attribute no type has (line 14).
    std::string file = "tests/data/bad/scenario-unknown-attribute.yaml";
    ExpectBadInput({file}, file + ":14: ", "ns3::FabricSwitch::NoSuchAttribute");
}

TEST_F(FabricRunTest, BadScenarioFileMissing)
{
    // No file, so no line and no key: the message names the file and the reason.
    std::string file = "tests/data/bad/no-such-scenario.yaml";
    ExpectBadInput({file}, file + ": ", "cannot open");
}

// --- bad command lines --------------------------------------------------------------------

TEST_F(FabricRunTest, BadSetWithoutValue)
{
    ExpectBadInput({"examples/incast.yaml", "--set", "foo"}, "--set: foo: ", "key=value");
}

TEST_F(FabricRunTest, BadSetIntoScalar)
{
    // seed is a number; it cannot hold a key.
    ExpectBadInput({"examples/incast.yaml", "--set", "seed.x=1"},
                   "--set: seed.x: ",
                   "not a mapping");
}

TEST_F(FabricRunTest, BadSetValueIsNotBlamedOnTheFile)
{
    // The bad value comes from the command line, so the message must not point at a line of
    // the scenario file (line 1 of incast.yaml is a comment).
    RunResult r = Run({"examples/incast.yaml",
                       "--set",
                       "switch.buffer=4MiBB",
                       "--quiet",
                       "--out",
                       m_tmp.Path() + "/out"});
    ASSERT_TRUE(r.exited) << r.output;
    EXPECT_EQ(r.status, 2) << r.output;
    EXPECT_TRUE(Contains(r.output, "switch.buffer"));
    EXPECT_TRUE(Contains(r.output, "4MiBB"));
    EXPECT_FALSE(Contains(r.output, "examples/incast.yaml:1:")) << "blames line 1 of the file";
}

TEST_F(FabricRunTest, BadSetUnknownKeyNamesTheWholeKey)
{
    // --set creates no.such: the message names what was typed, not just 'no'.
    ExpectBadInput({"examples/incast.yaml", "--set", "no.such.key=1"},
                   "--set no.such.key: ",
                   "unknown key");
    // A misspelled last component: the nearest key of that section.
    ExpectBadInput({"examples/incast.yaml", "--set", "switch.pfc.xof=1"},
                   "--set switch.pfc.xof: ",
                   "did you mean 'switch.pfc.xoff'?");
    // A misspelled section: the nearest key of the whole table.
    ExpectBadInput({"examples/incast.yaml", "--set", "swtch.pfc.xoff=1"},
                   "--set swtch.pfc.xoff: ",
                   "did you mean 'switch.pfc.xoff'?");
}

TEST_F(FabricRunTest, BadUnknownAttrName)
{
    ExpectBadInput({"examples/incast.yaml", "--attr", "ns3::FabricSwitch::NoSuchAttribute=1"},
                   "ns3::FabricSwitch::NoSuchAttribute: ",
                   "cannot set");
}

TEST_F(FabricRunTest, BadAttrValue)
{
    // A known attribute with a value its checker cannot parse is bad input too, not a crash.
    ExpectBadInput({"examples/incast.yaml", "--attr", "ns3::FabricSwitch::EcnPmax=abc"},
                   "ns3::FabricSwitch::EcnPmax",
                   "abc");
    // Switch stages named by TypeId: one that does not exist, and one that is no stage.
    ExpectBadInput({"examples/incast.yaml", "--attr", "ns3::FabricSwitch::EgressStages=ns3::Nope"},
                   "ns3::FabricSwitch::EgressStages",
                   "ns3::Nope");
    ExpectBadInput(
        {"examples/incast.yaml", "--attr", "ns3::FabricSwitch::EgressStages=ns3::FabricHost"},
        "ns3::FabricSwitch::EgressStages",
        "ns3::EgressStage");
    ExpectBadInput({"examples/incast.yaml", "--attr", "ns3::FabricSwitch::LoadBalancer=ns3::Nope"},
                   "ns3::FabricSwitch::LoadBalancer",
                   "ns3::Nope");
}

// --- --set on a shipped example -----------------------------------------------------------

TEST_F(FabricRunTest, SetOverridesIncastWorkload)
{
    std::string out = m_tmp.Path() + "/incast";
    RunResult r = Run({"examples/incast.yaml",
                       "--set",
                       "workload.senders=4",
                       "--set",
                       "workload.bytes_per_sender=64KiB",
                       "--out",
                       out,
                       "--quiet"});
    ASSERT_TRUE(r.exited) << r.output;
    ASSERT_EQ(r.status, 0) << r.output;

    // flows.csv: one header and one row per sender, each 64 KiB = 65536 B, all delivered
    // (PFC is on in the example, so nothing may be lost).
    std::istringstream flows(ReadFile(out + "/flows.csv"));
    std::string header;
    std::getline(flows, header);
    ASSERT_EQ(header.rfind("flow_id,src,dst,priority,bytes,", 0), 0u) << header;
    int rows = 0;
    for (std::string line; std::getline(flows, line);)
    {
        std::vector<std::string> cells;
        std::stringstream ls(line);
        for (std::string c; std::getline(ls, c, ',');)
        {
            cells.push_back(c);
        }
        ASSERT_GE(cells.size(), 10u) << line;
        EXPECT_EQ(cells[2], "h0") << line;    // receiver: 0
        EXPECT_EQ(cells[4], "65536") << line; // bytes
        EXPECT_EQ(cells[9], "65536") << line; // delivered_bytes
        ++rows;
    }
    EXPECT_EQ(rows, 4);

    // hosts: auto sized the star to 4 senders + 1 receiver: links.csv has 5 host ports.
    std::istringstream links(ReadFile(out + "/links.csv"));
    int hostPorts = 0;
    for (std::string line; std::getline(links, line);)
    {
        hostPorts += line.rfind("h", 0) == 0 ? 1 : 0;
    }
    EXPECT_EQ(hostPorts, 5);

    nlohmann::json s = nlohmann::json::parse(ReadFile(out + "/summary.json"));
    EXPECT_EQ(s["parameters"]["workload"]["senders"], "4");
    EXPECT_EQ(s["parameters"]["workload"]["bytes_per_sender"], "64KiB");
    EXPECT_EQ(s["parameters"]["switch"]["buffer"], "1MiB"); // untouched keys stay
    EXPECT_EQ(s["flows_total"], 4);
    EXPECT_EQ(s["counters"]["sent_bytes"], 4 * 65536);
    EXPECT_EQ(s["counters"]["delivered_bytes"], 4 * 65536);
}

// --- event scheduler -------------------------------------------------------------------------

TEST_F(FabricRunTest, EverySchedulerGivesTheSameRun)
{
    // Every event set pops events in (time, insertion) order, so the traces are identical byte
    // for byte; a tiny wheel (8 buckets of 1 ps) sends almost every event through its overflow
    // heap and wraps around constantly, which must not change anything either.
    const std::vector<std::vector<std::string>> variants = {
        {"--set", "simulator.scheduler=heap"},
        {"--set", "simulator.scheduler=map"},
        {},
        {"--set", "simulator.bucket_width=1ps", "--set", "simulator.buckets=8"},
    };
    std::vector<std::string> outs;
    for (const auto& extra : variants)
    {
        std::string out = m_tmp.Path() + "/sched-" + std::to_string(outs.size());
        std::vector<std::string> args = {"examples/incast.yaml",
                                         "--set",
                                         "workload.bytes_per_sender=256KiB"};
        args.insert(args.end(), extra.begin(), extra.end());
        args.insert(args.end(), {"--out", out, "--quiet"});
        RunResult r = Run(args);
        ASSERT_EQ(r.status, 0) << r.output;
        outs.push_back(out);
    }
    nlohmann::json ref = nlohmann::json::parse(ReadFile(outs[0] + "/summary.json"));
    ASSERT_GT(ref["events"].get<uint64_t>(), 5000u);
    for (size_t i = 1; i < outs.size(); ++i)
    {
        for (const char* trace : {"flows.csv", "queues.csv", "pfc.csv", "links.csv", "cc.csv"})
        {
            EXPECT_EQ(ReadFile(outs[i] + "/" + trace), ReadFile(outs[0] + "/" + trace))
                << trace << " of variant " << i;
        }
        nlohmann::json s = nlohmann::json::parse(ReadFile(outs[i] + "/summary.json"));
        EXPECT_EQ(s["events"], ref["events"]) << "variant " << i;
        EXPECT_EQ(s["counters"], ref["counters"]) << "variant " << i;
    }
}

TEST_F(FabricRunTest, BadSchedulerName)
{
    ExpectBadInput({"examples/incast.yaml", "--set", "simulator.scheduler=splay"},
                   "simulator.scheduler",
                   "expected wheel, heap, map or calendar");
}

TEST_F(FabricRunTest, BadWheelBuckets)
{
    ExpectBadInput({"examples/incast.yaml", "--set", "simulator.buckets=1000"},
                   "simulator.buckets",
                   "power of two");
    ExpectBadInput({"examples/incast.yaml", "--set", "simulator.bucket_width=0ns"},
                   "simulator.bucket_width",
                   "must be positive");
}

// --- distributed runs (single process; mpirun runs are in tests/tools) ---------------------

TEST_F(FabricRunTest, PartitionedRunOnOneProcessMatchesThePlainRunAndEndsTwoDrainsLater)
{
    std::string plain = m_tmp.Path() + "/plain";
    std::string parted = m_tmp.Path() + "/parted";
    RunResult a = Run({"examples/distributed-clos.yaml", "--out", plain, "--quiet"});
    RunResult b =
        Run({"examples/distributed-clos.yaml", "--partition", "auto", "--out", parted, "--quiet"});
    ASSERT_EQ(a.status, 0) << a.output;
    ASSERT_EQ(b.status, 0) << b.output;
    // The same simulation: per-flow results identical.
    EXPECT_EQ(ReadFile(plain + "/flows.csv"), ReadFile(parted + "/flows.csv"));
    EXPECT_FALSE(fs::exists(parted + "/rank-0")) << "the rank directory is merged and removed";
    nlohmann::json sa = nlohmann::json::parse(ReadFile(plain + "/summary.json"));
    nlohmann::json sb = nlohmann::json::parse(ReadFile(parted + "/summary.json"));
    // The plain run stops at the last completion; a partitioned one two drains later (rank 0
    // hears of the last completion within one, every rank hears when to stop within the
    // other); a drain is the longest cable of topologies/clos16-cables.yaml (519 636 ps) + 1 ps.
    EXPECT_EQ(sb["distributed"]["drain_ps"], 519637);
    EXPECT_EQ(sa["sim_time_ns"], sa["last_finish_ns"]);
    EXPECT_EQ(sb["last_finish_ns"], sa["last_finish_ns"]);
    int64_t lastPs = sa["last_finish_ns"].get<int64_t>() * 1000;
    int64_t endNs = sb["sim_time_ns"];
    EXPECT_GE(endNs, (lastPs + 2 * 519637) / 1000);
    EXPECT_LE(endNs, (lastPs + 999 + 2 * 519637) / 1000);
    EXPECT_EQ(sb["distributed"]["ranks"], 1);
    EXPECT_EQ(sb["counters"], sa["counters"]);
}

TEST_F(FabricRunTest, BadPartitionRawTransport)
{
    ExpectBadInput({"examples/distributed-clos.yaml",
                    "--partition",
                    "auto",
                    "--set",
                    "transport=raw",
                    "--set",
                    "cc=none"},
                   "transport",
                   "needs a transport");
}

TEST_F(FabricRunTest, BadPartitionFileMissing)
{
    ExpectBadInput({"examples/distributed-clos.yaml", "--partition", "no-such-partition.txt"},
                   "no-such-partition.txt",
                   "partition");
}

TEST_F(FabricRunTest, BadMpiSync)
{
    ExpectBadInput(
        {"examples/distributed-clos.yaml", "--partition", "auto", "--mpi-sync", "optimistic"},
        "--mpi-sync",
        "granted-time or null-message");
}

} // namespace

namespace
{

TEST_F(FabricRunTest, PerPacketBalancerOverGoBackNRunsWarnsAndCountsResends)
{
    // DRILL over go-back-N RoCE (ConWeave's run.py --lb drill --irn 0): the run goes ahead with
    // one warning at switch.lb, the reordering shows as NAKs and resent packets, and every
    // byte is still accounted for. The same fabric with per-flow ECMP resends nothing: with
    // PFC nothing is lost, so every resend behind DRILL is reordering's.
    const std::string file = "tests/data/scenarios/drill-go-back-n.yaml";
    auto runOne = [&](const std::string& lb, nlohmann::json* summary) {
        std::string out = m_tmp.Path() + "/" + lb;
        std::vector<std::string> args{file, "--out", out, "--quiet"};
        if (lb != "drill") // the file's own: the warning names its line
        {
            args.insert(args.end(), {"--set", "switch.lb=" + lb});
        }
        RunResult r = Run(args);
        EXPECT_TRUE(r.exited && r.status == 0) << r.output;
        *summary = nlohmann::json::parse(ReadFile(out + "/summary.json"));
        return r.output;
    };
    nlohmann::json drill;
    std::string said = runOne("drill", &drill);
    EXPECT_EQ(said.rfind("fabric-run: warning: " + file +
                             ":9: switch.lb: 'drill' chooses a path per packet",
                         0),
              0u)
        << said;
    EXPECT_EQ(std::count(said.begin(), said.end(), '\n'), 1) << said; // --quiet: the warning only
    const nlohmann::json& c = drill["counters"];
    EXPECT_TRUE(drill["conservation_ok"].get<bool>());
    EXPECT_EQ(drill["flows_finished"], drill["flows_total"]);
    EXPECT_EQ(c["dropped_bytes"], 0);
    EXPECT_EQ(drill["warnings"].size(), 1u);
    uint64_t resent = c["retransmitted_packets"];
    EXPECT_GT(resent, 0u);
    EXPECT_GT(c["naks_sent"].get<uint64_t>(), 0u);
    // Every flow is 64 KiB = 16 full 4096 B packets: each resend carries 4096 B of payload.
    EXPECT_EQ(c["retransmitted_bytes"].get<uint64_t>(), resent * 4096);
    // Go-back-N receivers threw the out-of-order arrivals away.
    EXPECT_GT(c["discarded_bytes"].get<uint64_t>(), 0u);
    // Each packet goes out once as new, and again per resend; every flow finished, so the new
    // ones are the delivered bytes: 56 flows (8 hosts, all to all) x 64 KiB.
    EXPECT_EQ(c["delivered_bytes"].get<uint64_t>(), 56u * 65536);
    EXPECT_EQ(c["sent_bytes"].get<uint64_t>(),
              c["delivered_bytes"].get<uint64_t>() + c["retransmitted_bytes"].get<uint64_t>());

    nlohmann::json ecmp;
    said = runOne("ecmp", &ecmp);
    EXPECT_EQ(said, "");
    EXPECT_EQ(ecmp["counters"]["retransmitted_packets"], 0);
    EXPECT_EQ(ecmp["counters"]["naks_sent"], 0);
    EXPECT_EQ(ecmp["counters"]["retransmitted_bytes"], 0);
    EXPECT_FALSE(ecmp.contains("warnings"));
}

} // namespace
