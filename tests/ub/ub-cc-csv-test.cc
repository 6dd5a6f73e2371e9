// cc.csv rows of UB channels (helper/record/run-recorder.cc): the 8:1 incast of
// examples/ub-nscc-incast.yaml (400 Gb/s, 100 m cables) with the flows starting at 9 us and a
// sample every 10 us. At the 10 us sample every sender has sent for 1 us and no ACK has come
// back (the unloaded RTT is 2.17 us), so each row shows its congestion control's initial state,
// derived here from the algorithms' definitions (docs/models.md#nscc, #ub-dctcp, #caqm); every
// later row must be consistent with itself (rate = window / RTT) and with the fabric (no RTT
// below the unloaded one).

#include "../fabric-sim-util.h"
#include "config/scenario-config.h"
#include "run/scenario-runner.h"

#include <filesystem>
#include <fstream>
#include <sstream>

namespace ns3
{
namespace test
{
namespace
{

namespace fs = std::filesystem;

// 4 cable crossings of 500 ns and the data frame (4096 + 66 B header + 24 B wire overhead)
// serialised twice at 400 Gb/s; the ACK's own serialisation only adds to it.
const double kUnloadedRttNs = 4 * 500 + 2 * (4096 + 66 + 24) * 8 / 400.0;
constexpr uint32_t kSenders = 8;

struct CcRow
{
    uint64_t timeNs;
    std::string flow, cc, rate, alpha, window, rtt, u;
};

std::vector<std::string>
SplitCsv(const std::string& line)
{
    std::vector<std::string> out(1);
    for (char c : line)
    {
        if (c == ',')
        {
            out.emplace_back();
        }
        else
        {
            out.back() += c;
        }
    }
    return out;
}

class UbCcCsv : public SimTest
{
  protected:
    std::vector<CcRow> Run(const std::string& cc)
    {
        m_dir = fs::temp_directory_path() / ("fabric-ub-cc-" + cc + "-" + std::to_string(getpid()));
        fs::create_directories(m_dir);
        ScenarioConfig cfg =
            LoadScenario(std::string(FABRIC_SOURCE_DIR) + "/examples/ub-nscc-incast.yaml",
                         {"cc=" + cc,
                          "workload.start=9us",
                          "workload.bytes_per_sender=512KiB",
                          "trace.rate_interval=10us"},
                         FABRIC_SOURCE_DIR);
        RunOutcome o = ScenarioRunner::Run(cfg, m_dir.string());
        EXPECT_EQ(o.exitCode, 0) << o.message;
        std::ifstream in(m_dir / "cc.csv");
        std::string line;
        std::getline(in, line);
        EXPECT_EQ(line, "time_ns,flow_id,cc,rate_gbps,alpha,window_bytes,rtt_ns,u,target_gbps");
        std::vector<CcRow> rows;
        while (std::getline(in, line))
        {
            std::vector<std::string> f = SplitCsv(line);
            EXPECT_EQ(f.size(), 9u) << line;
            if (f.size() == 9)
            {
                rows.push_back({std::stoull(f[0]), f[1], f[2], f[3], f[4], f[5], f[6], f[7]});
            }
        }
        return rows;
    }

    /// The 10 us rows (one per sender, nothing acknowledged yet) equal \p expected after the
    /// flow id; every later row: the named cc, rate = window x 8 / RTT in Gb/s, RTT at least
    /// the unloaded one.
    void CheckRows(const std::vector<CcRow>& rows, const std::string& cc, const std::string& first)
    {
        uint32_t initial = 0;
        uint32_t later = 0;
        for (const CcRow& r : rows)
        {
            EXPECT_EQ(r.cc, cc);
            if (r.timeNs == 10000)
            {
                ++initial;
                EXPECT_EQ(r.rate + "," + r.alpha + "," + r.window + "," + r.rtt + "," + r.u, first)
                    << "flow " << r.flow;
                continue;
            }
            if (r.rtt.empty())
            {
                continue;
            }
            ++later;
            double rtt = std::stod(r.rtt);
            EXPECT_GE(rtt, kUnloadedRttNs) << "t " << r.timeNs << " flow " << r.flow;
            if (!r.window.empty())
            {
                double expected = std::stod(r.window) * 8 / rtt;
                EXPECT_NEAR(std::stod(r.rate), expected, expected * 1e-5)
                    << "t " << r.timeNs << " flow " << r.flow;
            }
            else
            {
                EXPECT_EQ(r.rate, "") << "no window, no rate";
            }
        }
        EXPECT_EQ(initial, kSenders);
        EXPECT_GT(later, kSenders) << "no samples after the first ACKs";
    }

    void TearDown() override
    {
        fs::remove_all(m_dir);
        SimTest::TearDown();
    }

    fs::path m_dir;
};

TEST_F(UbCcCsv, NsccStartsAtOneAndAHalfBdpOfTheNetworkRtt)
{
    // W_max = 1.5 x network_rtt x line rate = 1.5 x 2.2 us x 50 GB/s = 165 000 B, the initial
    // window; no RTT sample yet, so no rate; no alpha; u = averaged delay / target = 0 / 2 us.
    std::vector<CcRow> rows = Run("nscc");
    CheckRows(rows, "nscc", ",,165000,,0");
    for (const CcRow& r : rows)
    {
        EXPECT_EQ(r.alpha, "");
        EXPECT_GE(std::stod(r.u), 0.0);
        EXPECT_LE(std::stoull(r.window), 165000u) << "above W_max";
    }
}

TEST_F(UbCcCsv, DctcpStartsAtTheBdpWindowWithAlphaOne)
{
    // docs/models.md#dctcp: initial window line rate x BaseRtt = 50 GB/s x 4 us = 200 000 B,
    // initial alpha 1.
    std::vector<CcRow> rows = Run("dctcp");
    CheckRows(rows, "dctcp", ",1,200000,,");
    for (const CcRow& r : rows)
    {
        double alpha = std::stod(r.alpha);
        EXPECT_GE(alpha, 0.0);
        EXPECT_LE(alpha, 1.0);
        EXPECT_EQ(r.u, "");
    }
}

TEST_F(UbCcCsv, CaqmStartsAtTenMtu)
{
    // model/ub/caqm.h: slow start from 10 MTU.
    CheckRows(Run("caqm"), "caqm", ",,40960,,");
}

TEST_F(UbCcCsv, NoCongestionControlHasNoWindowAndNoRate)
{
    std::vector<CcRow> rows = Run("none");
    CheckRows(rows, "none", ",,,,");
    for (const CcRow& r : rows)
    {
        EXPECT_EQ(r.rate, "");
        EXPECT_EQ(r.window, "");
    }
}

} // namespace
} // namespace test
} // namespace ns3
