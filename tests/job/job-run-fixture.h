#ifndef FABRIC_TESTS_JOB_RUN_FIXTURE_H
#define FABRIC_TESTS_JOB_RUN_FIXTURE_H

// Runs fabric-run on a job scenario of tests/data/scenarios or examples/ and reads its job.csv
// and summary.json (tests/job/*-test.cc). The constants are the 100 Gbps star of
// tests/data/scenarios/job-star4.yaml (tests/job/job-timeline-test.cc derives them).

#include "../test-files.h"

#include <cstdlib>
#include <filesystem>
#include <gtest/gtest.h>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <sys/wait.h>
#include <vector>

namespace ns3::test
{

inline const std::string kSourceDir = FABRIC_SOURCE_DIR;
inline const std::string kFabricRun = std::string(FABRIC_BUILD_DIR) + "/fabric-run";

constexpr double kRate = 100e9;                           // bit/s
constexpr double kD = (4096 + 58 + 24) * 8 / kRate * 1e9; // ns: one data frame on the wire
constexpr double kA = (62 + 24) * 8 / kRate * 1e9;        // ns: one ACK on the wire
constexpr double kCable = 10;                             // ns: 2 m
constexpr double kLaunch = 1000;                          // ns: launch_cost 1us
constexpr double kTolerance = 100;                        // ns

/// A ring AllReduce of 4 ranks over the star: 6 rounds of n frames (job-timeline-test.cc).
inline double
RingOf4(uint32_t framesPerRound)
{
    return 6 * (kLaunch + framesPerRound * (kD + kA) + kD + 4 * kCable);
}

class JobRunFixture : public ::testing::Test
{
  protected:
    void SetUp() override
    {
        if (!std::filesystem::exists(kFabricRun))
        {
            GTEST_FAIL() << kFabricRun << " is missing: build the fabric-run target first";
        }
    }

    /// Runs tests/data/scenarios/<fixture> with \p sets; returns the exit status.
    int Run(const std::string& fixture,
            const std::string& name,
            const std::vector<std::string>& sets)
    {
        return RunScenario("tests/data/scenarios/" + fixture, name, sets);
    }

    /// Runs \p scenario (relative to the source tree) with \p sets; returns the exit status.
    int RunScenario(const std::string& scenario,
                    const std::string& name,
                    const std::vector<std::string>& sets)
    {
        m_dir = m_tmpDir.Path() + "/" + name;
        std::string cmd = "cd " + ShellQuote(kSourceDir) + " && exec " + ShellQuote(kFabricRun) +
                          " " + ShellQuote(scenario) + " --quiet --out " + ShellQuote(m_dir);
        for (const std::string& s : sets)
        {
            cmd += " --set " + ShellQuote(s);
        }
        cmd += " >" + ShellQuote(m_dir + ".log") + " 2>&1";
        int st = std::system(cmd.c_str());
        m_log = ReadFile(m_dir + ".log");
        return st != -1 && WIFEXITED(st) ? WEXITSTATUS(st) : -1;
    }

    nlohmann::json Summary() const
    {
        return nlohmann::json::parse(ReadFile(m_dir + "/summary.json"));
    }

    /// The job.csv row of (job, step, phase, rank).
    std::map<std::string, std::string> Row(const std::string& job,
                                           uint32_t step,
                                           const std::string& phase,
                                           uint32_t rank) const
    {
        Csv csv = ReadCsv(m_dir + "/job.csv");
        for (const auto& row : csv.rows)
        {
            if (row.at("job") == job && row.at("step") == std::to_string(step) &&
                row.at("phase") == phase && row.at("rank") == std::to_string(rank))
            {
                return row;
            }
        }
        ADD_FAILURE() << "no job.csv row " << job << " " << step << " " << phase << " " << rank;
        return {};
    }

    static double Ns(const std::map<std::string, std::string>& row, const std::string& col)
    {
        return std::stod(row.at(col));
    }

    TempDir m_tmpDir{"fabric-job"};
    std::string m_dir;
    std::string m_log;
};

} // namespace ns3::test

#endif
