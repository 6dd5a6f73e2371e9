// Queue-depth traces at scale: on-change rows, port and priority filters, and gzip above a
// size limit.

#include "../fabric-sim-util.h"
#include "../test-files.h"
#include "config/scenario-config.h"
#include "run/scenario-runner.h"

#include <filesystem>
#include <zlib.h>

namespace ns3
{
namespace test
{
namespace
{

namespace fs = std::filesystem;

class QueueTrace : public SimTest
{
  protected:
    RunOutcome Run(const std::vector<std::string>& overrides)
    {
        m_dir =
            (fs::temp_directory_path() / ("fabric-qtrace-" + std::to_string(getpid()))).string();
        fs::remove_all(m_dir);
        fs::create_directories(m_dir);
        std::vector<std::string> o = {"transport=raw",
                                      "cc=none",
                                      "workload.senders=4",
                                      "workload.bytes_per_sender=256KiB"};
        o.insert(o.end(), overrides.begin(), overrides.end());
        ScenarioConfig cfg = LoadScenario(std::string(FABRIC_SOURCE_DIR) + "/examples/incast.yaml",
                                          o,
                                          FABRIC_SOURCE_DIR);
        return ScenarioRunner::Run(cfg, m_dir);
    }

    void TearDown() override
    {
        fs::remove_all(m_dir);
        SimTest::TearDown();
    }

    std::string m_dir;
};

TEST_F(QueueTrace, OnChangeWritesOneRowPerEnqueueAndDequeue)
{
    RunOutcome o = Run({"trace.queue_mode=change",
                        "trace.queue_nodes=[sw0]",
                        "trace.queue_ports=[0]",
                        "trace.queue_priorities=[3]"});
    ASSERT_EQ(o.exitCode, 0) << o.message;
    Csv q = ReadCsv(m_dir + "/queues.csv");
    Csv links = ReadCsv(m_dir + "/links.csv");
    uint64_t dataFrames = 0;
    for (size_t i = 0; i < links.rows.size(); ++i)
    {
        if (links.rows[i].at("node") == "sw0" && links.rows[i].at("port") == "0")
        {
            // Everything sw0 sends to the receiver went through that queue once, except the
            // PFC frames, which bypass the data queues.
            dataFrames = links.U(i, "tx_frames");
        }
    }
    uint64_t pfcFramesToReceiver = 0; // the receiver never causes a pause here
    ASSERT_GT(dataFrames, 0u);
    EXPECT_EQ(q.rows.size(), 2 * (dataFrames - pfcFramesToReceiver));
    for (const auto& r : q.rows)
    {
        ASSERT_EQ(r.at("node"), "sw0");
        ASSERT_EQ(r.at("port"), "0");
        ASSERT_EQ(r.at("priority"), "3");
    }
    EXPECT_EQ(q.rows.back().at("bytes"), "0") << "the queue ends empty";
}

TEST_F(QueueTrace, LargeTracesAreGzipped)
{
    RunOutcome o = Run({"trace.gzip_above=100B"});
    ASSERT_EQ(o.exitCode, 0) << o.message;
    EXPECT_FALSE(fs::exists(m_dir + "/queues.csv"));
    ASSERT_TRUE(fs::exists(m_dir + "/queues.csv.gz"));
    gzFile gz = gzopen((m_dir + "/queues.csv.gz").c_str(), "rb");
    char header[64] = {};
    ASSERT_NE(gzgets(gz, header, sizeof header), nullptr);
    gzclose(gz);
    EXPECT_EQ(std::string(header), "time_ns,node,port,priority,bytes\n");
    // Small files stay plain.
    EXPECT_TRUE(fs::exists(m_dir + "/summary.json"));
}

} // namespace
} // namespace test
} // namespace ns3
