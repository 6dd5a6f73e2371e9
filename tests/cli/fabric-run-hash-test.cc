// fabric-run --hash: the switches' ECMP hash for batches of queries (ecmp-hash-queries.h).
//
// Expected values are derived without the code under test: from MurmurHash3's published
// finalizers (FabricFlowHash and FlowEntropy are built from fmix32 and fmix64), from
// arithmetic on the documented salt and address formulas, and from the uplinks a simulated
// leaf really used. Bad input must end with exit status 2 and one line naming the line and
// the field.

#include "../test-files.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>
#include <sstream>
#include <string>
#include <sys/wait.h>
#include <vector>

namespace
{

using ns3::test::Contains;
using ns3::test::ReadCsv;
using ns3::test::ReadFile;
using ns3::test::ShellQuote;
using ns3::test::TempDir;

const std::string kSourceDir = FABRIC_SOURCE_DIR;
const std::string kFabricRun = std::string(FABRIC_BUILD_DIR) + "/fabric-run";

/// How fabric-run ended and what it printed on stdout and stderr.
struct HashRun
{
    bool exited = false;
    int status = -1;
    std::string out;
    std::string err;
};

class FabricRunHashTest : public ::testing::Test
{
  protected:
    void SetUp() override
    {
        if (!std::filesystem::exists(kFabricRun))
        {
            GTEST_FAIL() << kFabricRun << " is missing: build the fabric-run target first";
        }
    }

    /// `fabric-run ARGS < QUERIES` from the repository root.
    HashRun Run(const std::vector<std::string>& args, const std::string& queries)
    {
        const std::string in = m_tmp.Path() + "/queries.txt";
        std::ofstream(in) << queries;
        std::string cmd = "cd " + ShellQuote(kSourceDir) + " && exec " + ShellQuote(kFabricRun);
        for (const std::string& a : args)
        {
            cmd += " " + ShellQuote(a);
        }
        cmd += " <" + ShellQuote(in) + " >" + ShellQuote(m_tmp.Path() + "/out.txt") + " 2>" +
               ShellQuote(m_tmp.Path() + "/err.txt");
        int st = std::system(cmd.c_str());
        HashRun r;
        r.exited = st != -1 && WIFEXITED(st);
        r.status = r.exited ? WEXITSTATUS(st) : -1;
        r.out = ReadFile(m_tmp.Path() + "/out.txt");
        r.err = ReadFile(m_tmp.Path() + "/err.txt");
        return r;
    }

    /// The answer lines to \p queries, split into fields; fails the test unless exit 0.
    std::vector<std::vector<std::string>> Answers(const std::string& queries)
    {
        HashRun r = Run({"--hash"}, queries);
        EXPECT_TRUE(r.exited);
        EXPECT_EQ(r.status, 0) << r.err;
        EXPECT_EQ(r.err, "");
        std::vector<std::vector<std::string>> lines;
        std::istringstream in(r.out);
        for (std::string line; std::getline(in, line);)
        {
            std::istringstream fields(line);
            lines.emplace_back();
            for (std::string f; fields >> f;)
            {
                lines.back().push_back(f);
            }
        }
        return lines;
    }

    /// Bad input: exit 2, nothing but one line on stderr naming "stdin:LINE: FIELD: ".
    void ExpectRejected(const std::string& queries,
                        int line,
                        const std::string& field,
                        const std::string& fragment)
    {
        HashRun r = Run({"--hash"}, queries);
        ASSERT_TRUE(r.exited) << "killed by a signal";
        EXPECT_EQ(r.status, 2) << r.err;
        EXPECT_EQ(r.err.rfind("fabric-run: error: ", 0), 0u) << r.err;
        EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
        EXPECT_TRUE(Contains(r.err, "stdin:" + std::to_string(line) + ": " + field + ": "));
        EXPECT_TRUE(Contains(r.err, fragment));
    }

    TempDir m_tmp{"fabric-hash"};
};

TEST_F(FabricRunHashTest, MurmurHash3ReferenceValues)
{
    // FabricFlowHash starts from fmix32(salt ^ 0x9e3779b9): the salt 0x9e3779b9 makes that
    // fmix32(0) = 0, and zero addresses and ports keep it 0 until the one field set to 1, so
    // the hash is fmix32(1) = 0x514e28b7 = 1364076727 (MurmurHash3's reference finalizer
    // value). A UB frame mixes in its entropy alone: entropy 1 gives the same value.
    auto a = Answers("0x9e3779b9 0.0.0.0 0.0.0.0 1 0 0 ub group=16\n"
                     "2654435769 0.0.0.0 0.0.0.0 0 0 1 group=1000\n"
                     "2654435769 0.0.0.0 0.0.0.0 0 0 1\n");
    ASSERT_EQ(a.size(), 3u);
    EXPECT_EQ(a[0],
              (std::vector<std::string>{"1364076727",
                                        "7",
                                        "2654435769",
                                        "0.0.0.0",
                                        "0.0.0.0",
                                        "1",
                                        "0",
                                        "0",
                                        "ub"}));
    EXPECT_EQ(a[1][0], "1364076727");
    EXPECT_EQ(a[1][1], "727"); // 1364076727 mod 1000
    EXPECT_EQ(a[2][1], "-");   // no group, no index
}

TEST_F(FabricRunHashTest, ValuesOfTheReplacedPythonImplementation)
{
    // Computed by the validation's former Python implementation of the hash, written from
    // FabricFlowHash's description, whose uplink predictions the validation case
    // ecmp-collisions matched against simulated links.csv before --hash replaced it.
    auto a = Answers("7 10.0.0.4 10.0.0.41 50000 4791 17\n"
                     "12345 10.0.0.1 10.0.4.0 49152 4791 17\n"
                     "0 10.0.0.2 10.0.0.3 65535 4791 17\n"
                     "77 10.0.0.1 10.0.0.41 49152 4792 17 ub\n"
                     "0x5eed 10.0.0.4 10.0.0.10 50000 4792 17 ub\n");
    ASSERT_EQ(a.size(), 5u);
    EXPECT_EQ(a[0][0], "3676943774");
    EXPECT_EQ(a[1][0], "516158361");
    EXPECT_EQ(a[2][0], "3404055736");
    EXPECT_EQ(a[3][0], "1618703434");
    EXPECT_EQ(a[4][0], "2785084066");
}

TEST_F(FabricRunHashTest, SymbolicInputsResolveAsTheBuilderAndRunnerAssignThem)
{
    // switch:1:2 = 1 * 2654435761 + 2 * 40503 + 1 = 2654516768; host:I = 10.0.0.1 + I;
    // flow:0:1: fmix64(1) = 0xb456bcfc34c2cb2c, mod 16384 = 2860, port 49152 + 2860 = 52012;
    // flow:0:1:3 = the third entropy above it, 52015. A UB frame ignores the addresses.
    auto a = Answers("switch:1:2 host:0 host:8 flow:0:1 4791 17 group=16\n"
                     "2654516768 10.0.0.1 10.0.0.9 52012 4791 17 group=16\n"
                     "switch:0:5 host:3 host:300 flow:0:1:3 4792 17 ub\n"
                     "202516 0.0.0.0 0.0.0.0 52015 4792 17 ub\n");
    ASSERT_EQ(a.size(), 4u);
    EXPECT_EQ(
        std::vector<std::string>(a[0].begin() + 2, a[0].end()),
        (std::vector<std::string>{"2654516768", "10.0.0.1", "10.0.0.9", "52012", "4791", "17"}));
    EXPECT_EQ(a[0][0], a[1][0]);
    EXPECT_EQ(a[0][1], a[1][1]);
    EXPECT_EQ(a[2][2], "202516"); // 0 * 2654435761 + 5 * 40503 + 1
    EXPECT_EQ(a[2][3], "10.0.0.4");
    EXPECT_EQ(a[2][4], "10.0.1.45"); // 10.0.0.1 + 300 = 10.0.0.1 + 256 + 44
    EXPECT_EQ(a[2][5], "52015");
    EXPECT_EQ(a[2][0], a[3][0]);
}

TEST_F(FabricRunHashTest, PredictsTheUplinksASimulatedLeafUses)
{
    // examples/validation/ecmp-collisions.yaml: 8 flows h_i -> h_{8+i} of one 64 B frame each
    // leave leaf0 over 16 uplinks (uplink s faces spine s), switch.hash_salt 1, seed 1. clos2
    // lists the 16 hosts first, so leaf0 is node 16.
    const std::string out = m_tmp.Path() + "/run";
    HashRun run = Run({"examples/validation/ecmp-collisions.yaml", "--out", out, "--quiet"}, "");
    ASSERT_EQ(run.status, 0) << run.err;
    std::string queries;
    for (int i = 0; i < 8; ++i)
    {
        queries += "switch:1:16 host:" + std::to_string(i) + " host:" + std::to_string(8 + i) +
                   " flow:" + std::to_string(i) + ":1 4791 17 group=16\n";
    }
    std::vector<uint64_t> predicted(16, 0);
    for (const auto& answer : Answers(queries))
    {
        predicted.at(std::stoul(answer.at(1)))++;
    }
    ns3::test::Csv links = ReadCsv(out + "/links.csv");
    std::vector<uint64_t> simulated(16, 0);
    int uplinks = 0;
    for (size_t r = 0; r < links.rows.size(); ++r)
    {
        const std::string& peer = links.rows[r].at("peer");
        if (links.rows[r].at("node") == "leaf0" && peer.rfind("spine", 0) == 0)
        {
            simulated.at(std::stoul(peer.substr(5))) = links.U(r, "tx_frames");
            ++uplinks;
        }
    }
    EXPECT_EQ(uplinks, 16);
    EXPECT_EQ(predicted, simulated);
}

TEST_F(FabricRunHashTest, QueriesComeFromAFileToo)
{
    std::ofstream(m_tmp.Path() + "/q.txt") << "# salt src dst sport dport proto\n\n"
                                              "2654435769 0.0.0.0 0.0.0.0 1 0 0 ub\n";
    HashRun r = Run({"--hash", m_tmp.Path() + "/q.txt"}, "");
    EXPECT_EQ(r.status, 0) << r.err;
    EXPECT_EQ(r.out, "1364076727 - 2654435769 0.0.0.0 0.0.0.0 1 0 0 ub\n");
}

TEST_F(FabricRunHashTest, BadInputNamesTheLineAndTheField)
{
    const std::string good = "1 10.0.0.1 10.0.0.2 50000 4791 17\n";
    ExpectRejected(good + "# fine\n" + "x 10.0.0.1 10.0.0.2 50000 4791 17\n", 3, "salt", "'x'");
    ExpectRejected("switch:1 10.0.0.1 10.0.0.2 50000 4791 17\n", 1, "salt", "switch:1");
    ExpectRejected(good + "1 10.0.0.256 10.0.0.2 50000 4791 17\n", 2, "src_ip", "10.0.0.256");
    ExpectRejected("1 10.0.0.1 host:-1 50000 4791 17\n", 1, "dst_ip", "host:-1");
    ExpectRejected("1 10.0.0.1 10.0.0.2 65536 4791 17\n", 1, "src_port", "65536");
    ExpectRejected("1 10.0.0.1 10.0.0.2 flow:1 4791 17\n", 1, "src_port", "flow:1");
    ExpectRejected("1 10.0.0.1 10.0.0.2 50000 -1 17\n", 1, "dst_port", "-1");
    ExpectRejected("1 10.0.0.1 10.0.0.2 50000 4791 256\n", 1, "protocol", "256");
    ExpectRejected("1 10.0.0.1 10.0.0.2 50000\n", 1, "dst_port", "missing");
    ExpectRejected(good + good + "1 10.0.0.1 10.0.0.2 50000 4791 17 group=0\n",
                   3,
                   "group",
                   "group=0");
    ExpectRejected("1 10.0.0.1 10.0.0.2 50000 4791 17 roce\n", 1, "'roce'", "unexpected");
}

TEST_F(FabricRunHashTest, BadCommandLine)
{
    HashRun r = Run({"--hash", m_tmp.Path() + "/no-such-file"}, "");
    EXPECT_EQ(r.status, 2);
    EXPECT_TRUE(Contains(r.err, "no-such-file: cannot open"));
    r = Run({"--hash", "a", "b"}, "");
    EXPECT_EQ(r.status, 2);
    EXPECT_TRUE(Contains(r.err, "--hash: takes one query FILE at most"));
}

} // namespace
