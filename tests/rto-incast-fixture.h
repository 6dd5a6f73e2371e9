#ifndef FABRIC_TESTS_RTO_INCAST_FIXTURE_H
#define FABRIC_TESTS_RTO_INCAST_FIXTURE_H

// The retransmission-timeout tests of both transports (tests/roce/roce-rto-test.cc,
// tests/ub/ub-rto-test.cc): one incast scenario, given as YAML text, run under different
// attribute overrides, each run into its own directory, and the spurious-resend counters read
// back from summary.json and flows.csv.

#include "config/scenario-config.h"
#include "fabric-sim-util.h"
#include "run/scenario-runner.h"
#include "test-files.h"

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

namespace ns3
{
namespace test
{

class RtoIncastFixture : public SimTest
{
  protected:
    /// \p yaml is the scenario; \p prefix names the temporary directory.
    RtoIncastFixture(const char* yaml, const std::string& prefix)
        : m_yaml(yaml),
          m_tmp(prefix)
    {
    }

    RunOutcome Run(const std::vector<std::string>& overrides)
    {
        std::string file = m_tmp.Path() + "/incast.yaml";
        std::ofstream(file) << m_yaml;
        ScenarioConfig cfg = LoadScenario(file, overrides, FABRIC_SOURCE_DIR);
        m_out = m_tmp.Path() + "/out" + std::to_string(m_runs++);
        std::filesystem::create_directories(m_out);
        return ScenarioRunner::Run(cfg, m_out);
    }

    static uint64_t Counter(const RunOutcome& o, const std::string& name)
    {
        return o.summary["counters"][name].get<uint64_t>();
    }

    /// Sum of the last run's flows.csv spurious_bytes column (its last column).
    uint64_t SpuriousInFlowsCsv()
    {
        Csv flows = ReadCsv(m_out + "/flows.csv");
        if (flows.columns.empty())
        {
            ADD_FAILURE() << "no flows.csv";
            return UINT64_MAX;
        }
        EXPECT_EQ(flows.columns.back(), "spurious_bytes");
        uint64_t sum = 0;
        for (size_t i = 0; i < flows.rows.size(); ++i)
        {
            sum += flows.U(i, "spurious_bytes");
        }
        return sum;
    }

    const char* m_yaml;
    TempDir m_tmp;
    std::string m_out;
    int m_runs = 0;
};

} // namespace test
} // namespace ns3

#endif
