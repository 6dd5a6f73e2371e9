#include "config/hpcc-config.h"

#include "config/config-error.h"
#include "config/hpcc-import.h"
#include "config/hpcc-pair-paths.h"
#include "config/units.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <functional>
#include <set>
#include <sstream>

namespace ns3
{

namespace
{

namespace fs = std::filesystem;

/// The reference's value of every key a config may leave out (third.cc:45-84; the same
/// defaults in powertcp-evaluation-burst.cc:45-84 and network-load-balance.cc). Keys without a
/// default there (RP_TIMER, RATE_AI, RATE_HAI, TOPOLOGY_FILE, FLOW_FILE) have none here.
const std::map<std::string, std::string>&
ReferenceDefaults()
{
    static const std::map<std::string, std::string> defaults = {
        {"CC_MODE", "1"},
        {"ENABLE_QCN", "1"},
        {"USE_DYNAMIC_PFC_THRESHOLD", "1"},
        {"PACKET_PAYLOAD_SIZE", "1000"},
        {"L2_CHUNK_SIZE", "0"},
        {"L2_ACK_INTERVAL", "0"},
        {"L2_BACK_TO_ZERO", "0"},
        {"PAUSE_TIME", "5"},
        {"SIMULATOR_STOP_TIME", "3.01"},
        {"FCT_OUTPUT_FILE", "fct.txt"},
        {"PFC_OUTPUT_FILE", "pfc.txt"},
        {"ALPHA_RESUME_INTERVAL", "55"},
        // third.cc:54 writes "ewma_gain = 1 / 16", an integer division: 0.
        {"EWMA_GAIN", "0"},
        {"RATE_DECREASE_INTERVAL", "4"},
        {"FAST_RECOVERY_TIMES", "5"},
        {"MIN_RATE", "100Mb/s"},
        {"DCTCP_RATE_AI", "1000Mb/s"},
        {"CLAMP_TARGET_RATE", "0"},
        {"ERROR_RATE_PER_LINK", "0"},
        {"HAS_WIN", "1"},
        {"GLOBAL_T", "1"},
        {"MI_THRESH", "5"},
        {"VAR_WIN", "0"},
        {"FAST_REACT", "1"},
        {"MULTI_RATE", "1"},
        {"SAMPLE_FEEDBACK", "0"},
        {"PINT_LOG_BASE", "1.05"},
        {"PINT_PROB", "1.0"},
        {"U_TARGET", "0.95"},
        {"INT_MULTI", "1"},
        {"RATE_BOUND", "1"},
        {"ACK_HIGH_PRIO", "0"},
        {"ENABLE_TRACE", "1"},
        {"BUFFER_SIZE", "16"},
        {"QLEN_MON_START", "2000000000"},
        {"QLEN_MON_END", "2100000000"},
        {"ENABLE_PFC", "1"},
        {"ENABLE_IRN", "0"},
        {"LB_MODE", "0"},
    };
    return defaults;
}

/// The translation of one file: the document being built and what to say about it.
class Translator
{
  public:
    Translator(const HpccConfigFile& file, HpccSimulator sim, const std::string& workingDir)
        : m_file(file),
          m_sim(sim),
          m_workingDir(workingDir)
    {
        m_out.configPath = file.path;
        m_out.document = YAML::Node(YAML::NodeType::Map);
    }

    HpccScenario Run();

  private:
    /// The entry of \p key: the file's, or the reference's default (line 0).
    HpccConfigEntry Entry(const std::string& key) const;

    bool Given(const std::string& key) const
    {
        return m_file.Find(key) != nullptr;
    }

    [[noreturn]] void Fail(const HpccConfigEntry& e, const std::string& message) const;
    /// A switch whose one modelled setting is \p modelled: refused with \p why otherwise.
    void RequireFlag(const std::string& key, bool modelled, const std::string& why);
    /// "FILE:LINE: KEY: text" (LINE "default" when the file leaves the key out).
    void Note(const HpccConfigEntry& e, const std::string& text);

    uint64_t Count(const HpccConfigEntry& e, size_t i = 0) const;
    double Number(const HpccConfigEntry& e, size_t i = 0) const;
    bool Flag(const HpccConfigEntry& e) const;
    DataRate Rate(const HpccConfigEntry& e) const;
    /// A whole number of nanoseconds from a time in \p unitNs units (the reference's doubles).
    std::string Duration(const HpccConfigEntry& e, double unitNs) const;
    std::string InputPath(const HpccConfigEntry& e) const;
    std::string OutputPath(const HpccConfigEntry& e);

    /// Sets scenario key \p path (dotted) to \p value, remembering \p e as its origin.
    template <typename T>
    void Set(const std::string& path, const T& value, const HpccConfigEntry& e);

    void ReadInputs();
    void TranslateCc();
    void TranslateCcParameters();
    void TranslateWindow();
    void TranslateNic();
    void TranslateSwitch();
    void TranslateEcn();
    void TranslateOutputs();
    void TranslateTrace();
    void TranslateRest();

    const HpccConfigFile& m_file;
    HpccSimulator m_sim;
    std::string m_workingDir;
    HpccScenario m_out;
    HpccTopology m_topo;
    HpccPairMaxima m_paths; ///< maxRtt, maxBdp, the NIC rate (third.cc)
    std::set<uint8_t> m_flowPriorities;
    uint32_t m_payload = 1000;
    uint32_t m_ccMode = 1;
    std::set<std::string> m_handled; ///< keys translated so far
};

std::string
BitsPerSecond(uint64_t bps)
{
    return std::to_string(bps) + "bps";
}

std::string
Nanoseconds(uint64_t ns)
{
    return std::to_string(ns) + "ns";
}

HpccConfigEntry
Translator::Entry(const std::string& key) const
{
    if (const HpccConfigEntry* e = m_file.Find(key))
    {
        return *e;
    }
    HpccConfigEntry d;
    d.key = key;
    auto it = ReferenceDefaults().find(key);
    if (it != ReferenceDefaults().end())
    {
        d.values.push_back(it->second);
    }
    return d;
}

void
Translator::Fail(const HpccConfigEntry& e, const std::string& message) const
{
    throw ConfigError(m_file.path,
                      e.line,
                      e.key,
                      e.line == 0 && e.values.empty()
                          ? "not set, and the reference has no default for it: " + message
                      : e.line == 0
                          ? "not set; the reference's default " + e.values.front() + ": " + message
                          : message);
}

void
Translator::RequireFlag(const std::string& key, bool modelled, const std::string& why)
{
    HpccConfigEntry e = Entry(key);
    if (Flag(e) != modelled)
    {
        Fail(e, why);
    }
    m_handled.insert(key);
}

void
Translator::Note(const HpccConfigEntry& e, const std::string& text)
{
    m_out.notes.push_back(m_file.path + ":" + (e.line ? std::to_string(e.line) : "default") + ": " +
                          e.key + ": " + text);
}

uint64_t
Translator::Count(const HpccConfigEntry& e, size_t i) const
{
    if (e.values.size() <= i)
    {
        Fail(e, "an integer is needed");
    }
    auto v = ParseCount(e.values[i]);
    if (!v)
    {
        Fail(e, "expected a non-negative integer, got '" + e.values[i] + "'");
    }
    return *v;
}

double
Translator::Number(const HpccConfigEntry& e, size_t i) const
{
    if (e.values.size() <= i)
    {
        Fail(e, "a number is needed");
    }
    const std::string& t = e.values[i];
    char* end = nullptr;
    double v = std::strtod(t.c_str(), &end);
    if (t.empty() || *end != '\0' || !std::isfinite(v) || v < 0)
    {
        Fail(e, "expected a non-negative number, got '" + t + "'");
    }
    return v;
}

bool
Translator::Flag(const HpccConfigEntry& e) const
{
    // The reference reads these into integers and tests them for non-zero.
    return Count(e) != 0;
}

DataRate
Translator::Rate(const HpccConfigEntry& e) const
{
    if (e.values.empty())
    {
        Fail(e, "a rate is needed (e.g. 50Mb/s)");
    }
    // ns-3's DataRate, which the reference parses these with, also takes a bare number of bit/s.
    std::string text = e.values.front();
    if (!text.empty() && text.find_first_not_of("0123456789.") == std::string::npos)
    {
        text += "bps";
    }
    auto r = ParseDataRate(text);
    if (!r)
    {
        Fail(e, "expected a rate such as 50Mb/s, got '" + e.values.front() + "'");
    }
    return *r;
}

std::string
Translator::Duration(const HpccConfigEntry& e, double unitNs) const
{
    double ns = Number(e) * unitNs;
    if (ns > 1e18)
    {
        Fail(e, "too long a time");
    }
    // Picoseconds keep sub-nanosecond fractions of the decimal text (0.5 us = 500000 ps).
    return std::to_string(static_cast<uint64_t>(std::llround(ns * 1000))) + "ps";
}

std::string
Translator::InputPath(const HpccConfigEntry& e) const
{
    if (e.values.empty())
    {
        Fail(e, "a file name is needed");
    }
    fs::path p(e.values.front());
    std::vector<fs::path> tried;
    if (p.is_absolute())
    {
        tried.push_back(p);
    }
    else
    {
        tried.push_back(fs::path(m_workingDir) / p);
        // The config's directory and each one above it: shipped configs name files relative to
        // the directory the simulator runs in (simulation/ for HPCC's mix/config.txt).
        for (fs::path dir = fs::absolute(m_file.path).parent_path(); !dir.empty();
             dir = dir.parent_path())
        {
            tried.push_back(dir / p);
            if (dir == dir.root_path())
            {
                break;
            }
        }
    }
    for (const fs::path& candidate : tried)
    {
        std::error_code ec;
        if (fs::is_regular_file(candidate, ec))
        {
            return fs::absolute(candidate).lexically_normal().string();
        }
    }
    Fail(e,
         "file '" + e.values.front() +
             "' not found in the working directory nor beside or above the config file");
}

std::string
Translator::OutputPath(const HpccConfigEntry& e)
{
    fs::path p(e.values.front());
    if (p.is_absolute() || p.lexically_normal().string().rfind("..", 0) == 0)
    {
        Note(e,
             "written as " + p.filename().string() +
                 " in the run's output directory (outputs stay under --out)");
        return p.filename().string();
    }
    return p.lexically_normal().string();
}

template <typename T>
void
Translator::Set(const std::string& path, const T& value, const HpccConfigEntry& e)
{
    YAML::Node node = m_out.document;
    std::string rest = path;
    std::vector<YAML::Node> chain;
    size_t dot;
    while ((dot = rest.find('.')) != std::string::npos)
    {
        std::string head = rest.substr(0, dot);
        if (!node[head] || !node[head].IsMap())
        {
            node[head] = YAML::Node(YAML::NodeType::Map);
        }
        node.reset(node[head]);
        rest = rest.substr(dot + 1);
    }
    node[rest] = value;
    m_out.origin[path] = e;
    m_handled.insert(e.key);
}

void
Translator::ReadInputs()
{
    HpccConfigEntry payload = Entry("PACKET_PAYLOAD_SIZE");
    m_payload = static_cast<uint32_t>(Count(payload));
    if (m_payload == 0 || m_payload > 9000)
    {
        Fail(payload, "a payload of 1..9000 bytes is needed");
    }
    Set("host.mtu", std::to_string(m_payload) + "B", payload);
    // The reference serializes a packet's own bytes only: no preamble, FCS or gap.
    Set("link.wire_overhead", std::string("0B"), payload);

    HpccConfigEntry topo = Entry("TOPOLOGY_FILE");
    std::string topoPath = InputPath(topo);
    // Read here for the paths and priorities; the scenario reader reads (and warns) again.
    HpccCounts counts = HpccCountsFromGlobal() == HpccCounts::STRICT ? HpccCounts::STRICT
                                                                     : HpccCounts::AS_HPCC_SILENT;
    m_topo = ReadHpccTopology(topoPath, counts);
    // Neighbours in topology.txt id order, as the reference's search visits them.
    std::vector<uint32_t> ids(m_topo.spec.nodes.size());
    for (uint32_t id = 0; id < m_topo.nodeIndexOfNodeId.size(); ++id)
    {
        ids[m_topo.nodeIndexOfNodeId[id]] = id;
    }
    HpccPairTable table(m_topo.spec, ids, m_payload);
    m_paths = ComputeHpccPairMaxima(table, m_topo.spec);
    Set("topology.hpcc", topoPath, topo);

    HpccConfigEntry flows = Entry("FLOW_FILE");
    std::string flowPath = InputPath(flows);
    for (const FlowSpec& f : ReadHpccFlows(flowPath, m_topo, counts))
    {
        m_flowPriorities.insert(f.priority);
    }
    Set("workload.type", std::string("hpcc"), flows);
    Set("workload.file", flowPath, flows);

    HpccConfigEntry stop = Entry("SIMULATOR_STOP_TIME");
    Set("stop_time", Duration(stop, 1e9), stop);
}

void
Translator::TranslateCc()
{
    HpccConfigEntry mode = Entry("CC_MODE");
    m_ccMode = static_cast<uint32_t>(Count(mode));
    Set("transport", std::string("roce"), mode);
    if (m_sim == HpccSimulator::NS3_DATACENTER)
    {
        // powertcp-evaluation-burst.cc:716 replaces CC_MODE with --algorithm (and --wien,
        // --delayWien choose PowerTCP / theta-PowerTCP under mode 3): the scenario's cc does.
        Note(mode,
             "ns3-datacenter takes the algorithm from its command line (--algorithm, --wien, "
             "--delayWien), not from this key: set cc in the scenario or with --set cc=... "
             "(hpcc, powertcp, theta-powertcp, dcqcn, timely, dctcp-rate); CC_MODE gives the "
             "default");
    }
    switch (m_ccMode)
    {
    case 1:
        Set("cc", std::string("dcqcn"), mode);
        break;
    case 3:
        Set("cc", std::string("hpcc"), mode);
        break;
    case 7:
        Set("cc", std::string("timely"), mode);
        break;
    case 8:
        Set("cc", std::string("dctcp-rate"), mode);
        break;
    case 10:
        Fail(mode,
             "CC_MODE 10 (HPCC-PINT, probabilistic in-band telemetry) is not modelled; CC_MODE 3 "
             "runs HPCC with full INT");
    default:
        Fail(mode,
             "CC_MODE " + std::to_string(m_ccMode) +
                 " is none of the reference's algorithms (1 DCQCN, 3 HPCC, 7 TIMELY, 8 DCTCP, "
                 "10 HPCC-PINT)");
    }
}

void
Translator::TranslateCcParameters()
{
    const bool globalT = Flag(Entry("GLOBAL_T"));
    const uint64_t t = m_paths.maxRttNs;
    HpccConfigEntry globalTEntry = Entry("GLOBAL_T");
    if (!globalT && (m_ccMode == 3 || m_sim == HpccSimulator::NS3_DATACENTER))
    {
        Fail(globalTEntry,
             "GLOBAL_T 0 gives every QP its own pair's base RTT as HPCC's T; ns3-fabric's "
             "HPCC and PowerTCP take one T for all QPs (hpcc.base_rtt): use GLOBAL_T 1");
    }
    // T = maxRtt (third.cc:894-912), HPCC's and PowerTCP's base RTT.
    for (const char* section : {"hpcc", "powertcp", "theta_powertcp"})
    {
        Set(std::string(section) + ".base_rtt", Nanoseconds(t), globalTEntry);
    }
    HpccConfigEntry minRate = Entry("MIN_RATE");
    std::string minRateText = BitsPerSecond(Rate(minRate).GetBitRate());
    for (const char* section :
         {"dcqcn", "hpcc", "powertcp", "theta_powertcp", "timely", "dctcp_rate"})
    {
        Set(std::string(section) + ".min_rate", minRateText, minRate);
    }
    HpccConfigEntry uTarget = Entry("U_TARGET");
    double eta = Number(uTarget);
    if (eta <= 0 || eta > 1)
    {
        Fail(uTarget, "the target utilisation must be within (0, 1]");
    }
    Set("hpcc.eta", uTarget.values.front(), uTarget);
    Set("powertcp.eta", uTarget.values.front(), uTarget);
    HpccConfigEntry mi = Entry("MI_THRESH");
    Set("hpcc.max_stage", Count(mi), mi);

    // DCQCN, HPCC and TIMELY step by RATE_AI and RATE_HAI (third.cc:61 gives them no default).
    const bool stepsByRateAi = m_ccMode == 1 || m_ccMode == 3 || m_ccMode == 7;
    HpccConfigEntry rateAi = Entry("RATE_AI");
    HpccConfigEntry rateHai = Entry("RATE_HAI");
    if (rateAi.values.empty() || rateHai.values.empty())
    {
        if (stepsByRateAi)
        {
            Fail(rateAi.values.empty() ? rateAi : rateHai,
                 "DCQCN, HPCC and TIMELY step by it (third.cc:61 leaves it empty)");
        }
    }
    else
    {
        DataRate ai = Rate(rateAi);
        DataRate hai = Rate(rateHai);
        Set("dcqcn.rate_ai", BitsPerSecond(ai.GetBitRate()), rateAi);
        Set("dcqcn.rate_hai", BitsPerSecond(hai.GetBitRate()), rateHai);
        Set("timely.additive_increase", BitsPerSecond(ai.GetBitRate()), rateAi);
        // TIMELY's hyper step is a whole multiple of RATE_AI here (timely.hai_multiplier). Only
        // CC_MODE 7 reads it: conweave-project/conweave-ns3 run.py:353-354 writes DCQCN's
        // 40.0Mb/s and 100.0Mb/s (2.5 steps), which DCQCN takes as they are.
        if (hai.GetBitRate() % ai.GetBitRate() == 0)
        {
            Set("timely.hai_multiplier", hai.GetBitRate() / ai.GetBitRate(), rateHai);
        }
        else if (m_ccMode == 7)
        {
            Fail(rateHai,
                 "TIMELY's hyper step is a multiple of RATE_AI here (timely.hai_multiplier); "
                 "RATE_HAI must be a whole multiple of RATE_AI");
        }
        // HPCC's additive step is a rate (rdma-hw.cc UpdateRateHp: + m_rai); the window's is
        // that rate times T.
        uint64_t wAi = ai.GetBitRate() * t / 8000000000ULL;
        Set("hpcc.w_ai", std::to_string(std::max<uint64_t>(wAi, 1)) + "B", rateAi);
    }
    // DCQCN as the Mellanox NIC runs it (rdma-hw.cc cnp_received_mlx and the timers after it).
    HpccConfigEntry mode = Entry("CC_MODE");
    Set("dcqcn.variant", std::string("mellanox"), mode);
    Set("dcqcn.initial_alpha", std::string("1"), mode); // rdma-queue-pair.cc:40 mlx.m_alpha = 1
    Set("dcqcn.byte_counter", std::string("0B"), mode); // the Mlx model has no byte counter
    // Steps as given: scaled by line rate / the NIC rate, a factor of 1 on the hosts.
    Set("dcqcn.rate_scale_reference", BitsPerSecond(m_paths.nicRateBps), mode);
    HpccConfigEntry g = Entry("EWMA_GAIN");
    double gain = Number(g);
    if (gain > 1)
    {
        Fail(g, "a gain within 0..1 is needed");
    }
    Set("dcqcn.g", g.values.front(), g);
    Set("dctcp_rate.g", g.values.front(), g); // rdma-hw.cc HandleAckDctcp uses m_g too
    HpccConfigEntry alphaResume = Entry("ALPHA_RESUME_INTERVAL");
    Set("dcqcn.alpha_timer", Duration(alphaResume, 1e3), alphaResume);
    HpccConfigEntry decrease = Entry("RATE_DECREASE_INTERVAL");
    Set("dcqcn.rate_decrease_interval", Duration(decrease, 1e3), decrease);
    HpccConfigEntry rpTimer = Entry("RP_TIMER");
    if (rpTimer.values.empty())
    {
        if (m_ccMode == 1)
        {
            Fail(rpTimer, "DCQCN's rate-increase timer (third.cc:53 leaves it unset)");
        }
    }
    else
    {
        Set("dcqcn.rate_increase_timer", Duration(rpTimer, 1e3), rpTimer);
    }
    HpccConfigEntry fr = Entry("FAST_RECOVERY_TIMES");
    Set("dcqcn.fast_recovery_stages", Count(fr), fr);
    HpccConfigEntry clamp = Entry("CLAMP_TARGET_RATE");
    Set("dcqcn.clamp_target_rate", Flag(clamp), clamp);
    HpccConfigEntry dctcpAi = Entry("DCTCP_RATE_AI");
    Set("dctcp_rate.rate_ai", BitsPerSecond(Rate(dctcpAi).GetBitRate()), dctcpAi);
    // TIMELY as the reference updates it (once per round trip of data).
    Set("timely.variant", std::string("simulator"), mode);
    // PowerTCP / theta-PowerTCP: the authors' rules (rdma-hw.cc:1063-1070).
    Set("powertcp.variant", std::string("simulator"), mode);
    Set("theta_powertcp.variant", std::string("simulator"), mode);

    // HPCC's switches of behaviour: what ns3-fabric's HPCC always does, or refused.
    // FAST_REACT is read by HPCC only (rdma-hw.cc FastReactHp, from HandleAckHp with CC_MODE 3);
    // conweave-project/conweave-ns3 run.py:356 writes FAST_REACT 0 for DCQCN.
    HpccConfigEntry fastReact = Entry("FAST_REACT");
    if (!Flag(fastReact) && m_ccMode == 3)
    {
        Fail(fastReact,
             "FAST_REACT 0 (HPCC reacts once per RTT only) is not modelled: ns3-fabric's HPCC "
             "reacts on every ACK against the once-per-RTT reference (FAST_REACT 1)");
    }
    if (!Flag(fastReact))
    {
        Note(fastReact, "HPCC-only switch; inert for CC_MODE " + std::to_string(m_ccMode));
    }
    m_handled.insert("FAST_REACT");
    HpccConfigEntry multiRate = Entry("MULTI_RATE");
    if (Flag(multiRate) && m_ccMode == 3)
    {
        Fail(multiRate,
             "MULTI_RATE 1 (a rate per hop, the minimum sent) is not modelled: ns3-fabric's "
             "HPCC keeps one rate per QP (MULTI_RATE 0)");
    }
    if (Flag(multiRate))
    {
        Note(multiRate, "HPCC-only switch; inert for CC_MODE " + std::to_string(m_ccMode));
    }
    m_handled.insert("MULTI_RATE");
    RequireFlag("SAMPLE_FEEDBACK",
                false,
                "SAMPLE_FEEDBACK 1 (HPCC acts on INT only when the queue is non-empty) is not "
                "modelled: ns3-fabric's HPCC reads every ACK's INT (SAMPLE_FEEDBACK 0)");
    HpccConfigEntry intMulti = Entry("INT_MULTI");
    if (Count(intMulti) != 1)
    {
        Fail(intMulti,
             "INT_MULTI scales the INT byte counter to fit its bits (int-header.h); ns3-fabric "
             "carries exact counters, which is INT_MULTI 1");
    }
    m_handled.insert("INT_MULTI");
    for (const char* pint : {"PINT_LOG_BASE", "PINT_PROB"})
    {
        HpccConfigEntry e = Entry(pint);
        Number(e);
        if (Given(pint))
        {
            Note(e, "used only by CC_MODE 10 (HPCC-PINT): inert here");
        }
        m_handled.insert(pint);
    }
}

void
Translator::TranslateWindow()
{
    // third.cc:958-961 (ScheduleFlowInputs): win = HAS_WIN ? (GLOBAL_T ? maxBdp : pairBdp) : 0,
    // and VAR_WIN scales it by rate / line rate (rdma-queue-pair.cc GetWin).
    HpccConfigEntry hasWin = Entry("HAS_WIN");
    HpccConfigEntry globalT = Entry("GLOBAL_T");
    HpccConfigEntry varWin = Entry("VAR_WIN");
    if (!Flag(hasWin))
    {
        Set("roce.rate_window", std::string("off"), hasWin);
    }
    else
    {
        Set("roce.rate_window", std::string(Flag(globalT) ? "global" : "pair"), hasWin);
    }
    Set("roce.rate_window_scaled", Flag(varWin), varWin);
    m_handled.insert("GLOBAL_T");
}

void
Translator::TranslateNic()
{
    HpccConfigEntry ackInterval = Entry("L2_ACK_INTERVAL");
    HpccConfigEntry chunk = Entry("L2_CHUNK_SIZE");
    HpccConfigEntry backToZero = Entry("L2_BACK_TO_ZERO");
    uint64_t interval = Count(ackInterval);
    uint64_t chunkBytes = Count(chunk);
    // rdma-hw.cc ReceiverCheckSeq: an ACK once the next expected byte passes the milestone
    // (every L2_ACK_INTERVAL bytes) or lands on a multiple of L2_CHUNK_SIZE.
    if (interval == 0)
    {
        Fail(ackInterval,
             "L2_ACK_INTERVAL 0 means no ACKs at all (rdma-hw.cc prints \"shouldn't receive "
             "ack\"); a RoCE sender here needs them");
    }
    if (interval <= m_payload)
    {
        Set("roce.ack_interval", 1, ackInterval);
        Note(chunk,
             "ACKs already go out for every packet (L2_ACK_INTERVAL " + std::to_string(interval) +
                 " B is at most one payload), so the chunk adds none; with L2_BACK_TO_ZERO 0 it "
                 "sets nothing else");
    }
    else if (interval % m_payload == 0 && (chunkBytes == 0 || chunkBytes % interval == 0))
    {
        Set("roce.ack_interval", interval / m_payload, ackInterval);
    }
    else
    {
        Fail(ackInterval,
             "ACKs every " + std::to_string(interval) + " B with chunks of " +
                 std::to_string(chunkBytes) + " B do not fall on whole packets of " +
                 std::to_string(m_payload) + " B; roce.ack_interval counts packets");
    }
    m_handled.insert("L2_CHUNK_SIZE");
    if (Flag(backToZero))
    {
        Fail(backToZero,
             "L2_BACK_TO_ZERO 1 (a NACK restarts the chunk from its first byte) is not "
             "modelled; go-back-N from the NACKed packet is L2_BACK_TO_ZERO 0");
    }
    HpccConfigEntry irn = Entry("ENABLE_IRN");
    m_handled.insert("L2_BACK_TO_ZERO");
    if (m_sim == HpccSimulator::CONWEAVE && Flag(irn))
    {
        Set("roce.recovery", std::string("sr"), irn);
    }
    else
    {
        Set("roce.recovery", std::string("gbn"), backToZero);
        if (Given("ENABLE_IRN") && m_sim != HpccSimulator::CONWEAVE)
        {
            Fail(irn, "ENABLE_IRN is ConWeave's key: pass the config as a ConWeave one");
        }
        m_handled.insert("ENABLE_IRN");
    }
    // The reference's NIC round-robin (qbb-net-device.cc GetNextQindex): no key, always.
    Set("roce.serve_new_qp_first", true, Entry("CC_MODE"));
    RequireFlag("RATE_BOUND",
                true,
                "RATE_BOUND 0 (packets leave at line rate, the window alone limits a QP) is not "
                "modelled: RoCE QPs here are paced at their rate (RATE_BOUND 1)");
    HpccConfigEntry ackPrio = Entry("ACK_HIGH_PRIO");
    if (m_sim == HpccSimulator::CONWEAVE)
    {
        // No config.txt key: conweave-project/conweave-ns3 scratch/network-load-balance.cc:1445
        // gives every switch AckHighPrio 1 (switch-node.cc:226-236: ACK/NACK to queue 0, its
        // highest priority).
        Set("switch.ack_high_priority", true, Entry("CC_MODE"));
        Note(Entry("CC_MODE"),
             "ConWeave's switches put every ACK and NACK in the highest priority "
             "(network-load-balance.cc:1445 gives each switch AckHighPrio 1): "
             "switch.ack_high_priority: true");
    }
    else if (Flag(ackPrio))
    {
        Set("switch.ack_high_priority", true, ackPrio);
        Note(ackPrio,
             "switch.ack_high_priority: true (every switch sends ACKs, NAKs and CNPs at "
             "priority 7). The reference's ACK_HIGH_PRIO 1 keeps its NIC's ACK queue from PFC "
             "pauses of priority 3 (third.cc:898-901, qbb-net-device.cc:96) and leaves its "
             "switches' AckHighPrio at 0; here ACKs leave the NIC at their data's priority");
    }
    if (m_flowPriorities.size() > 1 ||
        (m_flowPriorities.size() == 1 && *m_flowPriorities.begin() != 3))
    {
        Note(ackPrio,
             "the reference's ACKs use NIC queue 3 whatever the data's priority; here they use "
             "the data's priority");
    }
    m_handled.insert("ACK_HIGH_PRIO");
    HpccConfigEntry pause = Entry("PAUSE_TIME");
    Number(pause);
    Note(pause,
         "the reference's PauseTime attribute is not read by its switches (a PFC pause holds "
         "until resumed, as here: switch.pfc.pause_quanta is refreshed while paused)");
    m_handled.insert("PAUSE_TIME");
}

void
Translator::TranslateSwitch()
{
    HpccConfigEntry buffer = Entry("BUFFER_SIZE");
    uint64_t mib = Count(buffer);
    if (mib == 0)
    {
        Fail(buffer, "a buffer of at least 1 MiB is needed");
    }
    Set("switch.buffer", std::to_string(mib * 1024 * 1024) + "B", buffer);
    HpccConfigEntry pfc = Entry("ENABLE_PFC");
    bool pfcOn = m_sim != HpccSimulator::CONWEAVE || Flag(pfc);
    if (m_sim != HpccSimulator::CONWEAVE && Given("ENABLE_PFC"))
    {
        Fail(pfc, "ENABLE_PFC is ConWeave's key: pass the config as a ConWeave one");
    }
    m_handled.insert("ENABLE_PFC");
    Set("switch.pfc.enabled", pfcOn, buffer);
    // Every priority a flow uses is lossless: the reference pauses every queue but the
    // highest-priority control queue 0 (switch-node.cc:123).
    YAML::Node lossless(YAML::NodeType::Sequence);
    for (uint8_t p : m_flowPriorities)
    {
        lossless.push_back(static_cast<uint32_t>(p));
    }
    Set("switch.pfc.lossless", lossless, Entry("FLOW_FILE"));
    // Headroom per port: 3 x rate x cable delay (third.cc:622-623,
    // powertcp-evaluation-burst.cc:941-944).
    Set("switch.pfc.headroom_delay_multiple", 3, buffer);
    HpccConfigEntry dyn = Entry("USE_DYNAMIC_PFC_THRESHOLD");
    if (m_sim == HpccSimulator::NS3_DATACENTER)
    {
        // Its MMU runs dynamic thresholds with alpha 1/8; BUFFER_SIZE is the shared pool and
        // the headroom comes on top (powertcp-evaluation-burst.cc:925-951); XON 2496 B below
        // the threshold (switch-mmu.cc:99-100).
        Set("switch.pfc.headroom_outside_buffer", true, buffer);
        Set("switch.pfc.dynamic_alpha", std::string("0.125"), buffer);
        Set("switch.pfc.xon_offset", std::string("2496B"), buffer);
        if (Given("USE_DYNAMIC_PFC_THRESHOLD"))
        {
            Note(dyn,
                 "ns3-datacenter does not read this key (its MMU always runs dynamic "
                 "thresholds, alpha 1/8)");
        }
    }
    else
    {
        // HPCC's MMU: BUFFER_SIZE holds the headroom; XOFF at (free buffer) >> 3, XON 3 KiB
        // below it (switch-mmu.cc:26-27, 92-93; third.cc:628).
        if (!Flag(dyn))
        {
            Fail(dyn,
                 "the reference's switches use dynamic thresholds whatever this key says "
                 "(switch-mmu.cc:92-93); say 1");
        }
        Set("switch.pfc.headroom_outside_buffer", false, buffer);
        Set("switch.pfc.dynamic_alpha", std::string("0.125"), dyn);
        Set("switch.pfc.xon_offset", std::string("3KiB"), dyn);
        Note(dyn,
             "HPCC's MMU halves a port's 1/8 for each doubling of its rate above the NIC's "
             "(third.cc:626-630) and reserves 4 KiB per (port, queue) before the shared pool "
             "(switch-mmu.cc:26); here every port uses 1/8 and there is no reserve");
    }
    m_handled.insert("USE_DYNAMIC_PFC_THRESHOLD");
}

void
Translator::TranslateEcn()
{
    HpccConfigEntry qcn = Entry("ENABLE_QCN");
    Set("switch.ecn.enabled", Flag(qcn), qcn);
    // Marking is decided as a packet leaves (switch-node.cc SwitchNotifyDequeue).
    Set("switch.ecn.mark_on", std::string("dequeue"), qcn);
    std::map<uint64_t, std::vector<std::string>> bySpeed; // rate -> kmin, kmax, pmax
    const char* keys[] = {"KMIN_MAP", "KMAX_MAP", "PMAX_MAP"};
    for (int k = 0; k < 3; ++k)
    {
        HpccConfigEntry e = Entry(keys[k]);
        if (e.values.empty())
        {
            if (Flag(qcn))
            {
                Fail(e, "ENABLE_QCN needs it for every link speed (third.cc:611-613 asserts)");
            }
            continue;
        }
        uint64_t n = Count(e);
        for (uint64_t i = 0; i < n; ++i)
        {
            auto rate = ParseCount(e.values[1 + 2 * i]);
            if (!rate || *rate == 0)
            {
                Fail(e, "expected a link speed in bit/s, got '" + e.values[1 + 2 * i] + "'");
            }
            const std::string& v = e.values[2 + 2 * i];
            std::vector<std::string>& row = bySpeed[*rate];
            row.resize(3);
            if (k < 2)
            {
                // KB of 1000 B (switch-mmu.cc ConfigEcn: kmin * 1000).
                auto kb = ParseCount(v);
                if (!kb)
                {
                    Fail(e, "expected a threshold in KB, got '" + v + "'");
                }
                row[k] = std::to_string(*kb * 1000) + "B";
            }
            else
            {
                HpccConfigEntry one = e;
                one.values = {v};
                double p = Number(one);
                if (p > 1)
                {
                    Fail(e, "a marking probability within 0..1 is needed, got '" + v + "'");
                }
                row[k] = v;
            }
        }
        m_handled.insert(keys[k]);
    }
    if (!Flag(qcn) && bySpeed.empty())
    {
        return;
    }
    std::set<uint64_t> speeds;
    for (const TopologyLink& l : m_topo.spec.links)
    {
        speeds.insert(l.rate.GetBitRate());
    }
    YAML::Node map(YAML::NodeType::Sequence);
    for (uint64_t s : speeds)
    {
        auto it = bySpeed.find(s);
        for (int k = 0; k < 3; ++k)
        {
            if (it == bySpeed.end() || it->second[k].empty())
            {
                Fail(Entry(keys[k]),
                     "no value for the topology's link speed " + std::to_string(s) +
                         " (the reference asserts one for every speed, third.cc:611-613)");
            }
        }
        YAML::Node row(YAML::NodeType::Map);
        row["rate"] = BitsPerSecond(s);
        row["kmin"] = it->second[0];
        row["kmax"] = it->second[1];
        row["pmax"] = it->second[2];
        map.push_back(row);
    }
    Set("switch.ecn.speed_map", map, Entry("KMIN_MAP"));
}

void
Translator::TranslateOutputs()
{
    HpccConfigEntry fct = Entry("FCT_OUTPUT_FILE");
    Set("trace.hpcc.fct", OutputPath(fct), fct);
    // ConWeave's fct.txt has its own columns (network-load-balance.cc qp_finish).
    Set("trace.hpcc.format",
        std::string(m_sim == HpccSimulator::CONWEAVE         ? "conweave"
                    : m_sim == HpccSimulator::NS3_DATACENTER ? "ns3-datacenter"
                                                             : "hpcc"),
        fct);
    HpccConfigEntry pfc = Entry("PFC_OUTPUT_FILE");
    Set("trace.hpcc.pfc", OutputPath(pfc), pfc);
    if (m_sim == HpccSimulator::NS3_DATACENTER)
    {
        Note(pfc,
             "powertcp-evaluation-burst.cc:915-916 leaves its PFC trace unconnected (an empty "
             "file); ns3-fabric writes the pause events");
    }
    HpccConfigEntry start = Entry("QLEN_MON_START");
    HpccConfigEntry end = Entry("QLEN_MON_END");
    // ConWeave's run.py writes QLEN_MON_START/END as seconds with a fraction (2.0, run.py:349-350);
    // network-load-balance.cc:1055-1058 reads them as nanoseconds with conf >> uint64_t, which
    // keeps the digits before the point (2 ns; ".0" is then read as the next key, unknown and
    // skipped).
    auto monitorNs = [&](HpccConfigEntry& e) {
        if (m_sim == HpccSimulator::CONWEAVE && !e.values.empty())
        {
            const std::string text = e.values.front();
            const size_t point = text.find('.');
            if (point != std::string::npos && point > 0 &&
                text.find_first_not_of("0123456789", point + 1) == std::string::npos)
            {
                e.values.front() = text.substr(0, point);
                Note(e,
                     "'" + text + "' read as " + e.values.front() +
                         " ns, as network-load-balance.cc:1055-1058 reads it (conf >> uint64_t)");
            }
        }
        return Count(e);
    };
    if (Given("QLEN_MON_FILE"))
    {
        HpccConfigEntry qlen = Entry("QLEN_MON_FILE");
        Set("trace.hpcc.qlen", OutputPath(qlen), qlen);
        Set("trace.hpcc.qlen_start", Nanoseconds(monitorNs(start)), start);
        Set("trace.hpcc.qlen_end", Nanoseconds(monitorNs(end)), end);
    }
    else
    {
        monitorNs(start);
        monitorNs(end);
        if (Given("QLEN_MON_START") || Given("QLEN_MON_END"))
        {
            Note(start, "no QLEN_MON_FILE: no queue histogram is written");
        }
        m_handled.insert("QLEN_MON_START");
        m_handled.insert("QLEN_MON_END");
    }
    m_handled.insert("QLEN_MON_FILE");
}

void
Translator::TranslateTrace()
{
    HpccConfigEntry enable = Entry("ENABLE_TRACE");
    HpccConfigEntry traceFile = Entry("TRACE_FILE");
    HpccConfigEntry traceOut = Entry("TRACE_OUTPUT_FILE");
    m_handled.insert("ENABLE_TRACE");
    m_handled.insert("TRACE_FILE");
    m_handled.insert("TRACE_OUTPUT_FILE");
    if (m_sim == HpccSimulator::NS3_DATACENTER)
    {
        if (Given("TRACE_FILE") || Given("TRACE_OUTPUT_FILE") || Given("ENABLE_TRACE"))
        {
            Note(enable,
                 "read but not used by powertcp-evaluation-burst.cc (it traces no packets); "
                 "ns3-fabric traces none either (trace.pcap_nodes would)");
        }
        return;
    }
    if (!Flag(enable) || traceFile.values.empty())
    {
        return;
    }
    // trace.txt: a count, then node ids (third.cc:918-927: ids past the topology are skipped).
    std::string path;
    try
    {
        path = InputPath(traceFile);
    }
    catch (const ConfigError&)
    {
        Note(traceFile,
             "not found: the reference then traces no node (its read of the count fails), "
             "and so does ns3-fabric");
        return;
    }
    std::ifstream in(path);
    uint64_t count = 0;
    in >> count;
    YAML::Node nodes(YAML::NodeType::Sequence);
    for (uint64_t i = 0; i < count; ++i)
    {
        uint64_t id;
        if (!(in >> id))
        {
            throw ConfigError(path, 0, "N_nodes", "fewer node ids than the count on line 1");
        }
        if (id < m_topo.nodeIndexOfNodeId.size())
        {
            nodes.push_back(id);
        }
    }
    if (nodes.size() == 0)
    {
        return;
    }
    Set("trace.pcap", true, enable);
    Set("trace.pcap_nodes", nodes, traceFile);
    // mix.tr records each packet's headers and queue state, not its payload: the pcaps keep
    // the first 128 B of a frame, every header of a RoCE frame with INT.
    Set("trace.pcap_snaplen", std::string("128B"), traceOut);
    Note(traceOut,
         "HPCC's binary packet trace (mix.tr) is not written; every frame at the " +
             std::to_string(nodes.size()) +
             " nodes of the trace file goes to pcap files instead (trace.pcap_nodes, its "
             "headers: trace.pcap_snaplen 128B), readable by Wireshark");
}

void
Translator::TranslateRest()
{
    HpccConfigEntry err = Entry("ERROR_RATE_PER_LINK");
    double rate = Number(err);
    if (rate > 1)
    {
        Fail(err, "a loss probability within 0..1 is needed");
    }
    if (rate > 0)
    {
        // third.cc:547-560: the links whose own error_rate is 0 take this one.
        Set("link.loss_rate", err.values.front(), err);
    }
    m_handled.insert("ERROR_RATE_PER_LINK");
    if (const HpccConfigEntry* down = m_file.Find("LINK_DOWN"))
    {
        uint64_t us = Count(*down, 0);
        uint64_t a = Count(*down, 1);
        uint64_t b = Count(*down, 2);
        if (us > 0)
        {
            const auto& index = m_topo.nodeIndexOfNodeId;
            if (a >= index.size() || b >= index.size())
            {
                Fail(*down, "node " + std::to_string(std::max(a, b)) + " is not in the topology");
            }
            // third.cc:990-992: down at 2 s + LINK_DOWN us, routes recomputed.
            YAML::Node ev(YAML::NodeType::Map);
            ev["at"] = std::to_string(2000000 + us) + "us";
            YAML::Node ends(YAML::NodeType::Sequence);
            ends.push_back(m_topo.spec.nodes[index[a]].name);
            ends.push_back(m_topo.spec.nodes[index[b]].name);
            ev["link_down"] = ends;
            YAML::Node events(YAML::NodeType::Sequence);
            events.push_back(ev);
            Set("events", events, *down);
        }
        m_handled.insert("LINK_DOWN");
    }
    for (const char* legacy : {"DATA_RATE", "LINK_DELAY"})
    {
        if (Given(legacy))
        {
            Note(Entry(legacy),
                 "read but unused by the reference (every link's rate and delay come from the "
                 "topology file)");
            m_handled.insert(legacy);
        }
    }
    // ConWeave's keys.
    if (m_sim == HpccSimulator::CONWEAVE)
    {
        HpccConfigEntry lb = Entry("LB_MODE");
        uint64_t mode = Count(lb);
        // network-load-balance.cc: 0 ECMP, 2 DRILL, 3 CONGA, 6 LetFlow, 9 ConWeave.
        std::map<uint64_t, std::string> lbs = {{0, "ecmp"},
                                               {2, "drill"},
                                               {3, "conga"},
                                               {6, "flowlet"},
                                               {9, "conweave"}};
        auto it = lbs.find(mode);
        if (it == lbs.end())
        {
            Fail(lb,
                 "LB_MODE " + std::to_string(mode) +
                     " is not modelled (0 ECMP, 2 DRILL, 3 CONGA, 6 LetFlow and 9 ConWeave are)");
        }
        Set("switch.lb", it->second, lb);
        m_handled.insert("LB_MODE");
        // What network-load-balance.cc fixes in code rather than in the config.
        if (mode == 3)
        {
            // :61-65: CONGA's flowlet timeout, DRE period and DRE alpha.
            Set("conga.flowlet_gap", std::string("100us"), lb);
            Set("conga.dre_period", std::string("50us"), lb);
            Set("conga.dre_alpha", std::string("0.2"), lb);
        }
        else if (mode == 6)
        {
            Set("flowlet.gap", std::string("100us"), lb); // :68: LetFlow's flowlet timeout
        }
        else if (mode == 9)
        {
            // Its reorder queues (VOQs) wait outside the MMU (switch-node.cc:198-214).
            Set("conweave.hold_in_buffer", std::string("false"), lb);
        }
        if (const HpccConfigEntry* seed = m_file.Find("RANDOM_SEED"))
        {
            Set("seed", Count(*seed), *seed);
        }
        for (const char* output : {"CNP_OUTPUT_FILE",
                                   "VOQ_MON_FILE",
                                   "VOQ_MON_DETAIL_FILE",
                                   "UPLINK_MON_FILE",
                                   "CONN_MON_FILE",
                                   "EST_ERROR_MON_FILE",
                                   "FLOW_INPUT_FILE",
                                   "SW_MONITORING_INTERVAL"})
        {
            if (Given(output))
            {
                Note(Entry(output),
                     "ConWeave's monitor output is not written (queues.csv, rates.csv and "
                     "flows.csv hold the queue, uplink and flow data)");
                m_handled.insert(output);
            }
        }
        for (const char* gen : {"LOAD", "FLOWGEN_START_TIME", "FLOWGEN_STOP_TIME"})
        {
            if (Given(gen))
            {
                Note(Entry(gen),
                     "describes how the flow file was generated (run.py); the flows come from "
                     "FLOW_FILE");
                m_handled.insert(gen);
            }
        }

        // ConWeave's timers: whole microseconds (network-load-balance.cc:769-797 reads each as
        // conf >> uint32_t, then MicroSeconds(v)); a key left out keeps the default of
        // network-load-balance.cc:72-76.
        struct Timer
        {
            const char* key;
            const char* scenarioKey;
            uint64_t defaultUs;
        };

        for (const Timer& t :
             {Timer{"CONWEAVE_TX_EXPIRY_TIME", "conweave.tx_expiry_time", 1000},
              Timer{"CONWEAVE_REPLY_TIMEOUT_EXTRA", "conweave.reply_timeout_extra", 4},
              Timer{"CONWEAVE_PATH_PAUSE_TIME", "conweave.path_pause_time", 8},
              Timer{"CONWEAVE_EXTRA_VOQ_FLUSH_TIME", "conweave.extra_voq_flush_time", 32},
              Timer{"CONWEAVE_DEFAULT_VOQ_WAITING_TIME", "conweave.default_voq_waiting_time", 500}})
        {
            HpccConfigEntry e = Entry(t.key);
            if (mode == 9)
            {
                uint64_t us = Given(t.key) ? Count(e) : t.defaultUs;
                Set(t.scenarioKey, std::to_string(us) + "us", e);
            }
            else if (Given(t.key))
            {
                Note(e, "ConWeave's parameter: inert with LB_MODE " + std::to_string(mode));
            }
            m_handled.insert(t.key);
        }
    }
}

HpccScenario
Translator::Run()
{
    ReadInputs();
    TranslateCc();
    TranslateCcParameters();
    TranslateWindow();
    TranslateNic();
    TranslateSwitch();
    TranslateEcn();
    TranslateOutputs();
    TranslateTrace();
    TranslateRest();
    // A key of the file that no step used is one the chosen simulator does not read.
    for (const HpccConfigEntry& e : m_file.entries)
    {
        if (m_handled.count(e.key) == 0)
        {
            Fail(e,
                 std::string("not a key of ") +
                     (m_sim == HpccSimulator::CONWEAVE ? "ConWeave's" : "this simulator's") +
                     " config.txt; for ConWeave's keys pass the config as a ConWeave one");
        }
    }
    return m_out;
}

} // namespace

const std::vector<std::string>&
HpccSimulatorNames()
{
    static const std::vector<std::string> names = {"hpcc", "conweave", "ns3-datacenter"};
    return names;
}

HpccSimulator
HpccSimulatorFromName(const std::string& name,
                      const std::string& file,
                      int line,
                      const std::string& key)
{
    if (name == "hpcc")
    {
        return HpccSimulator::HPCC;
    }
    if (name == "conweave")
    {
        return HpccSimulator::CONWEAVE;
    }
    if (name == "ns3-datacenter")
    {
        return HpccSimulator::NS3_DATACENTER;
    }
    throw ConfigError(file, line, key, "'" + name + "' is none of hpcc, conweave, ns3-datacenter");
}

HpccScenario
TranslateHpccConfig(const std::string& path, HpccSimulator simulator, const std::string& workingDir)
{
    HpccConfigFile file = ReadHpccConfigFile(path);
    return Translator(file, simulator, workingDir).Run();
}

void
MergeScenarioDocuments(YAML::Node& base, const YAML::Node& overlay)
{
    for (const auto& kv : overlay)
    {
        std::string key = kv.first.Scalar();
        YAML::Node mine = base[key];
        if (mine && mine.IsMap() && kv.second.IsMap())
        {
            MergeScenarioDocuments(mine, kv.second);
        }
        else
        {
            base[key] = kv.second;
        }
    }
}

} // namespace ns3
