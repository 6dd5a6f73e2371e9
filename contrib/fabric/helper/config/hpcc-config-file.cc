#include "config/hpcc-config-file.h"

#include "config/config-error.h"
#include "config/key-suggestion.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

namespace ns3
{

namespace
{

/// A token with the line it is on.
struct Token
{
    std::string text;
    int line = 0;
};

std::vector<Token>
Tokenize(const std::string& path)
{
    std::error_code ec;
    if (std::filesystem::is_directory(path, ec))
    {
        throw ConfigError(path, 0, "", "is a directory, expected a config.txt");
    }
    std::ifstream in(path);
    if (!in)
    {
        throw ConfigError(path, 0, "", std::string("cannot open file: ") + std::strerror(errno));
    }
    std::vector<Token> tokens;
    std::string text;
    for (int line = 1; std::getline(in, text); ++line)
    {
        std::istringstream words(text);
        std::string word;
        while (words >> word)
        {
            tokens.push_back({word, line});
        }
    }
    return tokens;
}

bool
IsMapKey(const std::string& key)
{
    return key == "KMAX_MAP" || key == "KMIN_MAP" || key == "PMAX_MAP";
}

/// Whether \p text is a non-negative decimal integer (a map's count).
bool
IsCount(const std::string& text)
{
    return !text.empty() && text.size() < 6 &&
           text.find_first_not_of("0123456789") == std::string::npos;
}

} // namespace

const HpccConfigEntry*
HpccConfigFile::Find(const std::string& key) const
{
    for (const HpccConfigEntry& e : entries)
    {
        if (e.key == key)
        {
            return &e;
        }
    }
    return nullptr;
}

const std::vector<std::string>&
HpccConfigKeys()
{
    static const std::vector<std::string> keys = {
        // alibaba-edu/High-Precision-Congestion-Control simulation/scratch/third.cc:360-653; the
        // same keys in inet-tub/ns3-datacenter examples/PowerTCP/powertcp-evaluation-burst.cc.
        "ENABLE_QCN",
        "USE_DYNAMIC_PFC_THRESHOLD",
        "CLAMP_TARGET_RATE",
        "PAUSE_TIME",
        "DATA_RATE",
        "LINK_DELAY",
        "PACKET_PAYLOAD_SIZE",
        "L2_CHUNK_SIZE",
        "L2_ACK_INTERVAL",
        "L2_BACK_TO_ZERO",
        "TOPOLOGY_FILE",
        "FLOW_FILE",
        "TRACE_FILE",
        "TRACE_OUTPUT_FILE",
        "SIMULATOR_STOP_TIME",
        "ALPHA_RESUME_INTERVAL",
        "RP_TIMER",
        "EWMA_GAIN",
        "FAST_RECOVERY_TIMES",
        "RATE_AI",
        "RATE_HAI",
        "ERROR_RATE_PER_LINK",
        "CC_MODE",
        "RATE_DECREASE_INTERVAL",
        "MIN_RATE",
        "FCT_OUTPUT_FILE",
        "HAS_WIN",
        "GLOBAL_T",
        "MI_THRESH",
        "VAR_WIN",
        "FAST_REACT",
        "U_TARGET",
        "INT_MULTI",
        "RATE_BOUND",
        "ACK_HIGH_PRIO",
        "DCTCP_RATE_AI",
        "PFC_OUTPUT_FILE",
        "LINK_DOWN",
        "ENABLE_TRACE",
        "KMAX_MAP",
        "KMIN_MAP",
        "PMAX_MAP",
        "BUFFER_SIZE",
        "QLEN_MON_FILE",
        "QLEN_MON_START",
        "QLEN_MON_END",
        "MULTI_RATE",
        "SAMPLE_FEEDBACK",
        "PINT_LOG_BASE",
        "PINT_PROB",
        // conweave-project/conweave-ns3 scratch/network-load-balance.cc (its run.py writes them).
        "ENABLE_PFC",
        "ENABLE_IRN",
        "LB_MODE",
        "RANDOM_SEED",
        "LOAD",
        "FLOW_INPUT_FILE",
        "FLOWGEN_START_TIME",
        "FLOWGEN_STOP_TIME",
        "SW_MONITORING_INTERVAL",
        "CNP_OUTPUT_FILE",
        "VOQ_MON_FILE",
        "VOQ_MON_DETAIL_FILE",
        "UPLINK_MON_FILE",
        "CONN_MON_FILE",
        "EST_ERROR_MON_FILE",
        "CONWEAVE_TX_EXPIRY_TIME",
        "CONWEAVE_REPLY_TIMEOUT_EXTRA",
        "CONWEAVE_PATH_PAUSE_TIME",
        "CONWEAVE_EXTRA_VOQ_FLUSH_TIME",
        "CONWEAVE_DEFAULT_VOQ_WAITING_TIME",
    };
    return keys;
}

HpccConfigFile
ReadHpccConfigFile(const std::string& path)
{
    const std::vector<std::string>& known = HpccConfigKeys();
    std::vector<Token> tokens = Tokenize(path);
    HpccConfigFile file;
    file.path = path;
    std::map<std::string, int> seenAt;
    size_t i = 0;
    auto take = [&](const Token& key, const char* what) -> std::string {
        if (i >= tokens.size())
        {
            throw ConfigError(path,
                              key.line,
                              key.text,
                              std::string("missing ") + what + " at the end of the file");
        }
        const Token& t = tokens[i];
        if (std::find(known.begin(), known.end(), t.text) != known.end())
        {
            throw ConfigError(path,
                              key.line,
                              key.text,
                              std::string("missing ") + what + ": found the key " + t.text +
                                  " (line " + std::to_string(t.line) + ") instead");
        }
        ++i;
        return t.text;
    };
    while (i < tokens.size())
    {
        const Token key = tokens[i++];
        if (std::find(known.begin(), known.end(), key.text) == known.end())
        {
            throw ConfigError(path,
                              key.line,
                              key.text,
                              "unknown config.txt key (the HPCC simulators skip such a key "
                              "silently and read its value as the next key)" +
                                  DidYouMean(NearestKey(key.text, known)));
        }
        if (auto it = seenAt.find(key.text); it != seenAt.end())
        {
            throw ConfigError(path,
                              key.line,
                              key.text,
                              "given twice (first on line " + std::to_string(it->second) +
                                  "); the HPCC simulators keep the last silently, say it once");
        }
        seenAt[key.text] = key.line;
        HpccConfigEntry entry;
        entry.key = key.text;
        entry.line = key.line;
        if (IsMapKey(key.text))
        {
            std::string count = take(key, "the number of link speeds");
            if (!IsCount(count))
            {
                throw ConfigError(path,
                                  key.line,
                                  key.text,
                                  "expected the number of link speeds first, got '" + count + "'");
            }
            entry.values.push_back(count);
            for (int k = 0; k < 2 * std::stoi(count); ++k)
            {
                entry.values.push_back(take(key, "a 'rate value' pair"));
            }
        }
        else if (key.text == "LINK_DOWN")
        {
            for (const char* what : {"the time", "node A", "node B"})
            {
                entry.values.push_back(take(key, what));
            }
        }
        else
        {
            entry.values.push_back(take(key, "the value"));
        }
        file.entries.push_back(std::move(entry));
    }
    return file;
}

} // namespace ns3
