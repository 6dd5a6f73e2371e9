// The simulator's own pcaps, decoded by tshark (Wireshark's dissectors): a RoCE incast with
// DCQCN and PFC shows RDMA WRITE opcodes, QPNs and PSNs exactly as the NIC numbers them,
// CNPs (opcode 0x81) as many as the senders counted, CE marks as many as the receiver counted,
// and MAC Control PFC frames as many as pfc.csv logged.

#include "../test-files.h"
#include "roce/rdma-nic.h"

#include <filesystem>
#include <map>
#include <set>
#include <sys/wait.h>

namespace ns3
{
namespace test
{
namespace
{

namespace fs = std::filesystem;

/// Runs tshark on \p pcap with a display filter; one line per frame, fields separated by tabs.
std::vector<std::vector<std::string>>
Tshark(const std::string& pcap, const std::string& filter, const std::vector<std::string>& fields)
{
    std::string cmd = std::string(kTshark) + " -r " + ShellQuote(pcap) + " -Y " +
                      ShellQuote(filter) + " -T fields";
    for (const auto& f : fields)
    {
        cmd += " -e " + f;
    }
    cmd += " 2>/dev/null";
    std::vector<std::vector<std::string>> rows;
    FILE* p = popen(cmd.c_str(), "r");
    char line[4096];
    while (p && fgets(line, sizeof line, p))
    {
        std::vector<std::string> row;
        std::stringstream ss(std::string(line).substr(0, std::string(line).find('\n')));
        for (std::string c; std::getline(ss, c, '\t');)
        {
            row.push_back(c);
        }
        rows.push_back(row);
    }
    if (p)
    {
        pclose(p);
    }
    return rows;
}

TEST(RocePcap, TsharkDecodesOpcodesQpnsPsnsCnpsAndPfc)
{
    ASSERT_TRUE(TsharkInstalled());
    std::string out =
        (fs::temp_directory_path() / ("fabric-roce-pcap-" + std::to_string(getpid()))).string();
    fs::remove_all(out);
    std::string cmd = "cd " + ShellQuote(FABRIC_SOURCE_DIR) + " && exec " +
                      ShellQuote(std::string(FABRIC_BUILD_DIR) + "/fabric-run") +
                      " tests/data/scenarios/roce-pcap.yaml --quiet --out " + ShellQuote(out) +
                      " >/dev/null 2>&1";
    int st = std::system(cmd.c_str());
    ASSERT_TRUE(WIFEXITED(st) && WEXITSTATUS(st) == 0) << cmd;
    Csv flows = ReadCsv(out + "/flows.csv");
    Csv pfc = ReadCsv(out + "/pfc.csv");
    ASSERT_EQ(flows.rows.size(), 3u);

    // sw0 port 0 faces the receiver h0: data leaves there, ACKs and CNPs arrive there.
    std::string toReceiver = out + "/sw0-0.pcap";
    auto data = Tshark(
        toReceiver,
        "infiniband.bth.opcode <= 10 && ip.dst == 10.0.0.1",
        {"infiniband.bth.opcode", "infiniband.bth.destqp", "infiniband.bth.psn", "ip.dsfield.ecn"});
    std::map<uint32_t, std::vector<uint32_t>> psns;
    std::map<uint32_t, std::vector<uint32_t>> opcodes;
    uint64_t ce = 0;
    for (const auto& r : data)
    {
        ASSERT_EQ(r.size(), 4u);
        uint32_t qp = std::stoul(r[1], nullptr, 0);
        opcodes[qp].push_back(std::stoul(r[0]));
        psns[qp].push_back(std::stoul(r[2]));
        ce += r[3] == "3" ? 1 : 0;
    }
    uint64_t ceLogged = 0;
    uint64_t cnpsLogged = 0;
    for (size_t i = 0; i < flows.rows.size(); ++i)
    {
        uint32_t qp = static_cast<uint32_t>(flows.U(i, "flow_id"));
        uint32_t packets = static_cast<uint32_t>((flows.U(i, "bytes") + 4095) / 4096);
        ceLogged += flows.U(i, "ecn_marked_frames");
        cnpsLogged += flows.U(i, "cnps");
        ASSERT_EQ(psns[qp].size(), packets) << "qp " << qp << ": lossless, each packet once";
        uint32_t start = RdmaNic::InitialPsn(qp);
        for (uint32_t k = 0; k < packets; ++k)
        {
            EXPECT_EQ(psns[qp][k], (start + k) & 0xFFFFFF) << "qp " << qp << " packet " << k;
        }
        EXPECT_EQ(opcodes[qp].front(), 6u); // RDMA WRITE First
        EXPECT_EQ(opcodes[qp].back(), 8u);  // RDMA WRITE Last
    }
    EXPECT_EQ(ce, ceLogged);
    EXPECT_GT(ce, 0u) << "the scenario must mark";

    // CNPs: BTH opcode 0x81 (Wireshark 4.0 names it "Unknown (129)" but decodes the BTH).
    auto cnps = Tshark(toReceiver, "infiniband.bth.opcode == 129", {"infiniband.bth.destqp"});
    EXPECT_EQ(cnps.size(), cnpsLogged);
    EXPECT_GT(cnpsLogged, 0u);

    // PFC: every XOFF/XON sw0 sent is one MAC Control frame, opcode 0x0101, on its port.
    uint64_t pfcFrames = 0;
    for (int port = 0; port < 3; ++port)
    {
        pfcFrames += Tshark(out + "/sw0-" + std::to_string(port) + ".pcap",
                            "macc.opcode == 0x0101 && eth.dst == 01:80:c2:00:00:01 && "
                            "!(eth.src == 00:00:00:00:00:00)",
                            {"macc.cbfc.enbv"})
                         .size();
    }
    uint64_t pfcLogged = 0;
    for (const auto& r : pfc.rows)
    {
        pfcLogged += r.at("node") == "sw0" && r.at("event").find("_SENT") != std::string::npos;
    }
    uint64_t pfcReceivedBySw0 = 0;
    for (const auto& r : pfc.rows)
    {
        pfcReceivedBySw0 +=
            r.at("node") == "sw0" && r.at("event").find("RECEIVED") != std::string::npos;
    }
    EXPECT_GT(pfcLogged, 0u) << "the scenario must pause";
    // sw0's pcaps hold the frames it sent and those it received.
    EXPECT_EQ(pfcFrames, pfcLogged + pfcReceivedBySw0);
    fs::remove_all(out);
}

} // namespace
} // namespace test
} // namespace ns3
