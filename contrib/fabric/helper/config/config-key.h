#ifndef FABRIC_CONFIG_KEY_H
#define FABRIC_CONFIG_KEY_H

#include "ns3/data-rate.h"
#include "ns3/nstime.h"

#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <vector>

namespace ns3
{

class YamlFields;
struct ScenarioBuild;
struct ScenarioKey;

/// How a key's value is written, so which reader takes it and what a malformed one is told.
enum class KeyKind
{
    Bytes,    ///< a byte size: 1500B, 64KiB, 4MiB
    Count,    ///< a non-negative integer
    Number,   ///< a real number
    Flag,     ///< true or false
    Duration, ///< a time with its unit: 150ns, 2us
    Rate,     ///< a data rate: 400Gbps, 50GB/s
    Length,   ///< a cable length in metres: 30m
    Choice,   ///< one of the key's choices
    Text,     ///< one value taken as written (a name, a file)
    Native,   ///< whatever the attribute's own type accepts (attribute-values.h)
    List,     ///< a list, read by the key's reader
    Mapping,  ///< a nested section: its keys are the rows below it
};

/// A value read from the file or taken from the default; the field the kind says is set.
struct KeyValue
{
    uint64_t count = 0; ///< Bytes, Count
    double number = 0;  ///< Number
    bool flag = false;  ///< Flag
    Time time;          ///< Duration
    DataRate rate;      ///< Rate
    std::string text;   ///< Choice (the file's spelling), Text, Native (the attribute's form)
};

/// A constraint beyond the kind: "" when \p value is acceptable, otherwise what is wrong.
using KeyCheck = std::function<std::string(const KeyValue& value)>;

/// Reads the key \p key of \p section (the mapping that holds it) into the scenario being built.
using KeyReader = void (*)(YamlFields& section, const ScenarioKey& key, ScenarioBuild& build);

/**
 * \brief One key of a scenario file: where it is, what it sets, how it is read and checked,
 * where its default comes from, and its line of `fabric-run --help`.
 *
 * A key that stands for an ns-3 attribute takes its default from that attribute's current
 * initial value (Config::SetDefault and --attr move it), never from a number written here. A
 * scenario-level key (no attribute) has its default in `fallback`, written as in a file. A
 * default the scenario computes from other keys (the PFC headroom) is described by `rule`.
 *
 * Rows are built with the setters: ScenarioKey("switch.pfc.xoff", KeyKind::Bytes, "...")
 * .Attribute("ns3::SharedBufferMmu::XoffThreshold").
 */
struct ScenarioKey
{
    ScenarioKey(std::string path, KeyKind kind, std::string help);

    std::string path; ///< dotted; "[]" stands for a list's items: "workload.flows[].src"
    KeyKind kind;
    std::string help;         ///< what it means (empty: the attribute's own help)
    std::string attribute;    ///< "ns3::Type::Attribute" it stands for, or "" (scenario level)
    KeyReader read = nullptr; ///< custom reader; nullptr: the value goes to `attribute`
    KeyCheck check;           ///< applied to values given in the file
    std::string fallback;     ///< scenario-level default, written as in a file
    std::function<std::string()> rule; ///< a default the scenario computes, for --help
    std::function<std::string(const KeyValue&)> shown;        ///< how --help writes the default
    std::vector<std::pair<std::string, std::string>> choices; ///< spelling -> attribute value
    std::string unit;           ///< for --help where the kind says too little
    std::string alias;          ///< a deprecated spelling that still loads, with a notice
    bool onlyWhenGiven = false; ///< set the attribute only when the file gives the key

    ScenarioKey& Attribute(std::string name);
    ScenarioKey& Reader(KeyReader reader);
    ScenarioKey& Check(KeyCheck c);
    ScenarioKey& Default(std::string value);
    ScenarioKey& Rule(std::string text);
    ScenarioKey& Rule(std::function<std::string()> text);
    ScenarioKey& Shown(std::function<std::string(const KeyValue&)> format);
    ScenarioKey& Choices(const std::vector<std::string>& spellings);
    /// Choices whose attribute value differs from the spelling: {spelling, attribute value}.
    ScenarioKey& MappedChoices(std::vector<std::pair<std::string, std::string>> spellings);
    ScenarioKey& Unit(std::string text);
    ScenarioKey& Alias(std::string deprecated);
    ScenarioKey& OnlyWhenGiven();

    /// The last component of the path, as written in the file: "xoff", "src".
    std::string Name() const;
    /// The mapping that holds the key: "switch.pfc", "" for top-level keys.
    std::string Parent() const;
};

using ScenarioKeys = std::vector<ScenarioKey>;

/// Checks for KeyCheck: each returns \p message for values outside the range.
KeyCheck Positive(const std::string& message);                     ///< count, number or time > 0
KeyCheck Within(double lo, double hi, const std::string& message); ///< count or number
KeyCheck AtMost(uint64_t max, const std::string& message);         ///< count, exactly

} // namespace ns3

#endif
