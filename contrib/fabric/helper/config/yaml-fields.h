#ifndef FABRIC_YAML_FIELDS_H
#define FABRIC_YAML_FIELDS_H

#include "config/config-error.h"

#include "ns3/data-rate.h"
#include "ns3/nstime.h"

#include <cstdint>
#include <set>
#include <string>
#include <vector>
#include <yaml-cpp/yaml.h>

namespace ns3
{

/**
 * \brief Typed, checked access to one YAML mapping of a scenario or topology file.
 *
 * Every getter names the file, line and dotted key in its ConfigError, so a user reading the
 * message knows exactly what to fix. Keys read are remembered; RejectUnknownKeys() then turns a
 * misspelled key into an error instead of a silently ignored setting.
 */
class YamlFields
{
  public:
    /// \param map the mapping node; \param file its file name; \param path dotted path of the
    /// mapping in the document ("" for the root, "switch.pfc" for a nested one).
    YamlFields(const YAML::Node& map, std::string file, std::string path);

    bool Has(const std::string& key) const;
    /// The child node (marks it as known); throws when missing.
    YAML::Node Node(const std::string& key);
    /// A nested mapping as its own YamlFields (an absent key gives an empty mapping).
    YamlFields Child(const std::string& key);

    std::string String(const std::string& key);
    std::string String(const std::string& key, const std::string& fallback);
    uint64_t Uint(const std::string& key);
    uint64_t Uint(const std::string& key, uint64_t fallback);
    double Double(const std::string& key);
    double Double(const std::string& key, double fallback);
    bool Bool(const std::string& key);
    bool Bool(const std::string& key, bool fallback);
    uint64_t Bytes(const std::string& key);
    uint64_t Bytes(const std::string& key, uint64_t fallback);
    DataRate Rate(const std::string& key);
    DataRate Rate(const std::string& key, DataRate fallback);
    Time Duration(const std::string& key);
    Time Duration(const std::string& key, Time fallback);
    /// A propagation delay given either as `delay: 150ns` or as `cable: 30m` (5 ns/m).
    Time DelayOrCable(const std::string& delayKey, const std::string& cableKey, Time fallback);
    std::vector<std::string> StringList(const std::string& key);

    /// Names \p key as valid here without reading it (a key a later reader or another section
    /// type reads): RejectUnknownKeys may suggest it for a misspelled one.
    void Expect(const std::string& key);

    /// Throws a ConfigError (\p message) for the first key of the mapping that no getter asked
    /// for, with the nearest valid key when one is close ("xof": did you mean 'xoff'?).
    void RejectUnknownKeys(const std::string& message = "unknown key") const;

    /// A ConfigError about \p key of this mapping (line of the key's value when present).
    ConfigError Error(const std::string& key, const std::string& message) const;

    const std::string& File() const
    {
        return m_file;
    }

    /// Dotted path of the mapping in the document ("" for the root).
    const std::string& Path() const
    {
        return m_path;
    }

    std::string KeyPath(const std::string& key) const;
    int LineOf(const std::string& key) const;

  private:
    YAML::Node Required(const std::string& key);
    std::string Scalar(const std::string& key);

    YAML::Node m_map;
    std::string m_file;
    std::string m_path;
    std::set<std::string> m_known;    ///< keys a getter asked for
    std::set<std::string> m_expected; ///< further valid keys, for suggestions only
};

/// Line (1-based) of a node in its file, or 0 when the node was not parsed from a file.
int YamlLine(const YAML::Node& node);

} // namespace ns3

#endif
