// The Poisson flow-size generator (helper/config/poisson-workload.h) and the CDF reader
// (helper/config/flow-size-cdf.h), checked against statistics derived from the CDF files
// themselves:
//   - the offered load over the run is within 2 % of `load`, with a duration long enough that
//     2 % is more than four standard deviations of the offered load (computed from the CDF's
//     first two moments);
//   - the drawn sizes pass a Kolmogorov-Smirnov test against the CDF at alpha = 0.01;
//   - a bad CDF file is rejected naming the file, the line and the field;
//   - the scenario keys (type poisson and mix, hosts, cdf by name or file).

#include "../test-files.h"
#include "config/config-error.h"
#include "config/flow-size-cdf.h"
#include "config/poisson-workload.h"
#include "config/scenario-config.h"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <gtest/gtest.h>
#include <numeric>

namespace ns3
{
namespace test
{
namespace
{

const std::string kSourceDir = FABRIC_SOURCE_DIR;

FlowSizeCdf
Shipped(const std::string& name)
{
    return FlowSizeCdf::Read(kSourceDir + "/" + ShippedCdfPath(name));
}

/// E[S] and E[S^2] of the piecewise-uniform distribution, segment by segment: a segment
/// [a, b] of mass p contributes p (a + b) / 2 and p (a^2 + ab + b^2) / 3.
std::pair<double, double>
Moments(const FlowSizeCdf& cdf)
{
    double m1 = 0;
    double m2 = 0;
    const auto& pts = cdf.Points();
    for (size_t i = 1; i < pts.size(); ++i)
    {
        double a = pts[i - 1].first;
        double b = pts[i].first;
        double p = (pts[i].second - pts[i - 1].second) / 100;
        m1 += p * (a + b) / 2;
        m2 += p * (a * a + a * b + b * b) / 3;
    }
    return {m1, m2};
}

PoissonLoad
Hosts(uint32_t n, double load, Time duration)
{
    PoissonLoad w;
    for (uint32_t h = 0; h < n; ++h)
    {
        w.hosts.push_back(h);
        w.linkRates.push_back(DataRate("100Gbps"));
    }
    w.load = load;
    w.duration = duration;
    return w;
}

TEST(FlowSizeCdf, ShippedFilesReadWithTheirPublishedMeans)
{
    // WebSearch by hand: midpoint x mass of each segment between the file's points.
    FlowSizeCdf ws = Shipped("websearch");
    double byHand = (5e3 * 15 + 15e3 * 5 + 25e3 * 10 + 40e3 * 10 + 65e3 * 13 + 140e3 * 7 +
                     600e3 * 10 + 1.5e6 * 10 + 3.5e6 * 10 + 7.5e6 * 7 + 20e6 * 3) /
                    100;
    EXPECT_DOUBLE_EQ(ws.MeanBytes(), byHand);
    for (const std::string& name : ShippedCdfNames())
    {
        FlowSizeCdf cdf = Shipped(name);
        EXPECT_EQ(cdf.Points().front().second, 0) << name;
        EXPECT_EQ(cdf.Points().back().second, 100) << name;
        EXPECT_DOUBLE_EQ(cdf.MeanBytes(), Moments(cdf).first) << name;
    }
}

TEST(FlowSizeCdf, QuantileInterpolatesLinearlyBetweenPoints)
{
    FlowSizeCdf cdf = FlowSizeCdf::FromPoints({{0, 0}, {1000, 50}, {3000, 100}}, "test");
    EXPECT_DOUBLE_EQ(cdf.Quantile(0.25), 500);
    EXPECT_DOUBLE_EQ(cdf.Quantile(0.5), 1000);
    EXPECT_DOUBLE_EQ(cdf.Quantile(0.75), 2000);
    EXPECT_DOUBLE_EQ(cdf.Probability(2000), 0.75);
    EXPECT_DOUBLE_EQ(cdf.MeanBytes(), 500 * 0.5 + 2000 * 0.5);
}

TEST(PoissonWorkload, OfferedLoadWithinTwoPercentOfLoad)
{
    for (const std::string name : {"websearch", "hadoop"})
    {
        SCOPED_TRACE(name);
        FlowSizeCdf cdf = Shipped(name);
        auto [m1, m2] = Moments(cdf);
        const uint32_t hosts = 16;
        const double load = 0.5;
        const double rateBps = 100e9;
        // Offered bytes = a compound Poisson sum: N flows (mean lambda T) of sizes S, variance
        // lambda T E[S^2]. Relative sd = sqrt(E[S^2] / (lambda T E[S]^2)); pick T for 2 % >= 4 sd.
        double lambda = hosts * load * rateBps / 8 / m1; // flows per second, all hosts
        double seconds = m2 / (m1 * m1) / lambda / std::pow(0.02 / 4, 2);
        PoissonLoad w = Hosts(hosts, load, Seconds(seconds));
        std::mt19937_64 rng(7);
        std::vector<FlowSpec> flows = GeneratePoissonFlows(w, cdf, FlowSpec(), rng);
        double bytes = 0;
        for (const FlowSpec& f : flows)
        {
            bytes += double(f.bytes);
            EXPECT_NE(f.src, f.dst);
            ASSERT_LT(f.start, Seconds(seconds));
        }
        double offered = bytes * 8 / (seconds * hosts * rateBps);
        EXPECT_NEAR(offered, load, 0.02 * load) << flows.size() << " flows in " << seconds << " s";
        EXPECT_TRUE(
            std::is_sorted(flows.begin(), flows.end(), [](const FlowSpec& a, const FlowSpec& b) {
                return a.start < b.start;
            }));
    }
}

TEST(PoissonWorkload, SizesPassKolmogorovSmirnovAgainstTheCdf)
{
    for (const std::string name : {"websearch", "hadoop", "alistorage"})
    {
        SCOPED_TRACE(name);
        FlowSizeCdf cdf = Shipped(name);
        PoissonLoad w = Hosts(8, 0.5, MilliSeconds(200));
        std::mt19937_64 rng(11);
        std::vector<FlowSpec> flows = GeneratePoissonFlows(w, cdf, FlowSpec(), rng);
        std::vector<double> sizes;
        for (const FlowSpec& f : flows)
        {
            sizes.push_back(double(f.bytes));
        }
        std::sort(sizes.begin(), sizes.end());
        double n = double(sizes.size());
        ASSERT_GT(n, 1000);
        // D = sup |F_n(x) - F(x)|, taken on both sides of every sample's step.
        double d = 0;
        for (size_t i = 0; i < sizes.size(); ++i)
        {
            double f = cdf.Probability(sizes[i]);
            d = std::max({d, (i + 1) / n - f, f - i / n});
        }
        // Kolmogorov's limit: P(sqrt(n) D > c) = alpha for c = sqrt(-ln(alpha / 2) / 2).
        const double alpha = 0.01;
        double critical = std::sqrt(-std::log(alpha / 2) / 2) / std::sqrt(n);
        EXPECT_LT(d, critical) << sizes.size() << " sizes";
    }
}

TEST(PoissonWorkload, DestinationsAreTheOtherListedHosts)
{
    FlowSizeCdf cdf = Shipped("websearch");
    PoissonLoad w = Hosts(3, 0.5, MilliSeconds(50));
    w.hosts = {2, 5, 7};
    std::mt19937_64 rng(3);
    std::map<std::pair<uint32_t, uint32_t>, int> pairs;
    for (const FlowSpec& f : GeneratePoissonFlows(w, cdf, FlowSpec(), rng))
    {
        ++pairs[{f.src, f.dst}];
    }
    // Every ordered pair of distinct listed hosts, and nothing else.
    EXPECT_EQ(pairs.size(), 6u);
    for (const auto& [p, n] : pairs)
    {
        EXPECT_NE(p.first, p.second);
        EXPECT_TRUE(p.first == 2 || p.first == 5 || p.first == 7);
        EXPECT_TRUE(p.second == 2 || p.second == 5 || p.second == 7);
    }
}

/// A CDF file with \p body; returns its path.
std::string
CdfFile(const std::string& name, const std::string& body)
{
    std::string path = testing::TempDir() + "/" + name;
    std::ofstream(path) << body;
    return path;
}

void
ExpectBadCdf(const std::string& body, int line, const std::string& field, const std::string& part)
{
    std::string path = CdfFile("bad-cdf.txt", body);
    try
    {
        FlowSizeCdf::Read(path);
        ADD_FAILURE() << "accepted:\n" << body;
    }
    catch (const ConfigError& e)
    {
        EXPECT_EQ(e.File(), path);
        EXPECT_EQ(e.Line(), line) << e.what();
        EXPECT_EQ(e.Key(), field) << e.what();
        EXPECT_TRUE(Contains(e.Message(), part)) << e.what();
    }
}

TEST(FlowSizeCdf, BadFilesNameFileLineAndField)
{
    ExpectBadCdf("0 0\n1000 abc\n", 2, "cdf_percent", "'abc' is not a number");
    ExpectBadCdf("# header\n0 0\nx 50\n2000 100\n", 3, "size_bytes", "'x' is not a number");
    ExpectBadCdf("0 0\n1000\n", 2, "cdf_percent", "missing");
    ExpectBadCdf("0 0\n2000 50\n1000 100\n", 3, "size_bytes", "sizes must increase");
    ExpectBadCdf("0 0\n1000 60\n2000 50\n3000 100\n", 3, "cdf_percent", "percents must increase");
    ExpectBadCdf("0 5\n1000 100\n", 1, "cdf_percent", "first point's percent must be 0");
    ExpectBadCdf("0 0\n1000 90\n", 2, "cdf_percent", "last point's percent must be 100");
    ExpectBadCdf("0 0\n1000 150\n", 2, "cdf_percent", "within 0..100");
    ExpectBadCdf("0 0\n1000 50 7\n", 2, "cdf_percent", "unexpected '7'");
    ExpectBadCdf("# only a comment\n", 0, "cdf", "at least two points");
}

TEST(FlowSizeCdf, HpccFormatWithoutCommentsReads)
{
    // HPCC's traffic_gen files as they ship: no header, Windows line ends accepted too.
    FlowSizeCdf cdf = FlowSizeCdf::Read(CdfFile("hpcc.txt", "0 0\r\n100 40\r\n1100 100\r\n"));
    EXPECT_DOUBLE_EQ(cdf.MeanBytes(), 50 * 0.4 + 600 * 0.6);
}

/// A scenario over 8 hosts with the workload mapping \p workload.
ScenarioConfig
LoadWorkload(const std::string& workload, const std::vector<std::string>& overrides = {})
{
    std::string file = testing::TempDir() + "/poisson-scenario.yaml";
    std::ofstream(file) << "topology: {generator: star, hosts: 8, rate: 100Gbps}\n"
                           "transport: roce\n"
                           "workload: "
                        << workload << "\n";
    return LoadScenario(file, overrides, kSourceDir);
}

TEST(PoissonScenario, KeysSelectCdfLoadDurationAndHosts)
{
    ScenarioConfig cfg = LoadWorkload(
        "{type: poisson, cdf: hadoop, load: 0.3, duration: 2ms, hosts: [h1, 3, h5], start: 1ms}");
    ASSERT_FALSE(cfg.flows.empty());
    for (const FlowSpec& f : cfg.flows)
    {
        EXPECT_TRUE(f.src == 1 || f.src == 3 || f.src == 5) << f.src;
        EXPECT_TRUE(f.dst == 1 || f.dst == 3 || f.dst == 5) << f.dst;
        EXPECT_GE(f.start, MilliSeconds(1));
        EXPECT_LT(f.start, MilliSeconds(3));
    }
    // A CDF file in HPCC's format, relative to the scenario file.
    std::ofstream(testing::TempDir() + "/fixed.txt") << "4095 0\n4096 100\n";
    cfg = LoadWorkload("{type: poisson, cdf: fixed.txt, load: 0.5, duration: 1ms}");
    ASSERT_FALSE(cfg.flows.empty());
    for (const FlowSpec& f : cfg.flows)
    {
        EXPECT_TRUE(f.bytes == 4095 || f.bytes == 4096) << f.bytes;
    }
}

TEST(PoissonScenario, MixAddsAnIncastEveryInterval)
{
    ScenarioConfig poisson = LoadWorkload("{type: poisson, duration: 1ms}");
    ScenarioConfig mix = LoadWorkload("{type: mix, duration: 1ms, incast_interval: 250us, "
                                      "senders: 3, receiver: 0, bytes_per_sender: 64KiB}");
    // 4 incasts (0, 250, 500, 750 us) of 3 senders each, plus the same Poisson flows.
    ASSERT_EQ(mix.flows.size(), poisson.flows.size() + 4 * 3);
    int incast = 0;
    for (const FlowSpec& f : mix.flows)
    {
        if (f.dst == 0 && f.bytes == 64 * 1024 && f.start.GetMicroSeconds() % 250 == 0)
        {
            ++incast;
        }
    }
    EXPECT_GE(incast, 12);
}

TEST(PoissonScenario, BadKeysAreRejected)
{
    auto rejects = [](const std::string& workload, const std::string& key) {
        try
        {
            LoadWorkload(workload);
            ADD_FAILURE() << "accepted " << workload;
        }
        catch (const ConfigError& e)
        {
            EXPECT_EQ(e.Key(), key) << e.what();
        }
    };
    rejects("{type: poisson, load: 1.5}", "workload.load");
    rejects("{type: poisson, load: 0}", "workload.load");
    rejects("{type: poisson, cdf: nosuch.txt}", "workload.cdf");
    rejects("{type: poisson, hosts: [h1]}", "workload.hosts");
    rejects("{type: poisson, hosts: [h1, h1]}", "workload.hosts");
    rejects("{type: poisson, duration: 0ns}", "workload.duration");
}

} // namespace
} // namespace test
} // namespace ns3
