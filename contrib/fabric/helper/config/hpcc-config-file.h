#ifndef FABRIC_HPCC_CONFIG_FILE_H
#define FABRIC_HPCC_CONFIG_FILE_H

#include <string>
#include <vector>

/**
 * \file
 * Reads the config.txt of the HPCC-derived ns-3 simulators (alibaba-edu/High-Precision-Congestion-
 * Control simulation/mix/config.txt, read by simulation/scratch/third.cc:352-656; the variants of
 * conweave-project/conweave-ns3 scratch/network-load-balance.cc and inet-tub/ns3-datacenter
 * examples/PowerTCP/powertcp-evaluation-*.cc) into its keys and values, without interpreting
 * them (hpcc-config.h does that).
 *
 * The format is a stream of whitespace-separated tokens, as those programs read it with
 * operator>>: a key, then its values. Every key takes one value except KMAX_MAP, KMIN_MAP and
 * PMAX_MAP (a count n, then n pairs "rate value") and LINK_DOWN (three values: time, node A,
 * node B). Those programs skip a key they do not know and then read its value as the next key;
 * here an unknown key is an error naming the file, line and key (with the nearest known key),
 * and so is a key given twice (they keep the last) and a key without its values.
 */

namespace ns3
{

/// One key of a config.txt with its value tokens.
struct HpccConfigEntry
{
    std::string key;
    std::vector<std::string> values;
    int line = 0; ///< line of the key
};

/// A config.txt after reading: its entries in file order.
struct HpccConfigFile
{
    std::string path;
    std::vector<HpccConfigEntry> entries;

    /// The entry of \p key, or nullptr when the file does not set it.
    const HpccConfigEntry* Find(const std::string& key) const;
};

/// Every key the three simulators read, in the order third.cc reads them, then the keys only
/// ConWeave's network-load-balance.cc reads.
const std::vector<std::string>& HpccConfigKeys();

/// Reads \p path; throws ConfigError(path, line, key, message).
HpccConfigFile ReadHpccConfigFile(const std::string& path);

} // namespace ns3

#endif
