#include "ecmp-hash-queries.h"

#include "build/fabric-builder.h"
#include "config/config-error.h"
#include "link/frame-codec.h"
#include "run/scenario-runner.h"
#include "switch/ecmp-load-balancer.h"
#include "ub/ub-load-balancer.h"

#include <charconv>
#include <cstdint>
#include <string_view>
#include <vector>

namespace ns3
{

const char* const kEcmpHashUsage =
    R"(fabric-run --hash [FILE]: the switches' ECMP choice (FabricFlowHash) for many inputs

Reads FILE (default: standard input), one query per line ('#' starts a comment; blank lines
are skipped):

  SALT SRC_IP DST_IP SRC_PORT DST_PORT PROTOCOL [ub] [group=M]

  SALT      a switch's HashSalt (decimal or 0x hex), or switch:HASH_SALT:NODE, the salt the
            builder gives the switch at topology index NODE when switch.hash_salt is HASH_SALT
  SRC_IP    a.b.c.d, or host:I, the address of host I (0-based, in topology order); DST_IP too
  SRC_PORT  the UDP source port (the entropy), or flow:ID:SEED, the entropy of flow ID in a run
            of seed SEED, or flow:ID:SEED:K, the K-th entropy above it (ub.spray oblivious)
  DST_PORT  the UDP destination port (4791 RoCEv2, 4792 Unified Bus); PROTOCOL the IP protocol
  ub        a Unified Bus frame: the switch hashes the entropy (SRC_PORT) alone
  group=M   also print the position (HASH mod M) the switch picks in an ECMP group of M ports

Prints one line per query, in order:

  HASH INDEX SALT SRC_IP DST_IP SRC_PORT DST_PORT PROTOCOL [ub]

HASH = FabricFlowHash(frame, salt); INDEX = HASH mod M, or - without group=; then the inputs
with every switch:, host: and flow: form resolved. A bad line ends the answers: fabric-run
prints 'fabric-run: error: FILE:LINE: FIELD: why' on stderr and exits 2.
)";

namespace
{

/// Where a query is read from, for ConfigError.
struct Place
{
    const std::string& source;
    int line;
};

[[noreturn]] void
Fail(const Place& at, const std::string& field, const std::string& message)
{
    throw ConfigError(at.source, at.line, field, message);
}

/// An unsigned number in decimal (or 0x hex when \p hex) up to \p max; false for anything else.
template <typename T>
bool
ParseUnsigned(std::string_view text, T max, T* value, bool hex = false)
{
    int base = 10;
    if (hex && text.size() > 2 && text[0] == '0' && (text[1] == 'x' || text[1] == 'X'))
    {
        text.remove_prefix(2);
        base = 16;
    }
    uint64_t v = 0;
    auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v, base);
    if (text.empty() || ec != std::errc() || end != text.data() + text.size() || v > max)
    {
        return false;
    }
    *value = static_cast<T>(v);
    return true;
}

/// "prefix:A:B[:C]" split after the prefix into its parts; empty when \p text lacks the prefix.
std::vector<std::string_view>
Parts(std::string_view text, std::string_view prefix)
{
    std::vector<std::string_view> parts;
    if (text.substr(0, prefix.size()) != prefix)
    {
        return parts;
    }
    text.remove_prefix(prefix.size());
    while (true)
    {
        size_t colon = text.find(':');
        parts.push_back(text.substr(0, colon));
        if (colon == std::string_view::npos)
        {
            return parts;
        }
        text.remove_prefix(colon + 1);
    }
}

std::string
Quoted(std::string_view text)
{
    return "'" + std::string(text) + "'";
}

uint32_t
ParseSalt(std::string_view text, const Place& at)
{
    uint32_t salt = 0;
    std::vector<std::string_view> parts = Parts(text, "switch:");
    uint32_t hashSalt = 0;
    uint32_t node = 0;
    if (parts.size() == 2 && ParseUnsigned(parts[0], UINT32_MAX, &hashSalt, true) &&
        ParseUnsigned(parts[1], UINT32_MAX, &node))
    {
        return SwitchHashSalt(hashSalt, node);
    }
    if (parts.empty() && ParseUnsigned(text, UINT32_MAX, &salt, true))
    {
        return salt;
    }
    Fail(at,
         "salt",
         "expected a number 0..4294967295 or switch:HASH_SALT:NODE, got " + Quoted(text));
}

uint32_t
ParseAddress(std::string_view text, const Place& at, const std::string& field)
{
    std::vector<std::string_view> parts = Parts(text, "host:");
    uint32_t host = 0;
    if (parts.size() == 1 && ParseUnsigned(parts[0], UINT32_MAX - 0x0A000001u, &host))
    {
        return HostIpv4(host).Get();
    }
    uint32_t ip = 0;
    int octets = 0;
    for (std::string_view rest = text; parts.empty() && octets < 4; ++octets)
    {
        size_t dot = rest.find('.');
        uint32_t octet = 0;
        if ((octets < 3) == (dot == std::string_view::npos) ||
            !ParseUnsigned(rest.substr(0, dot), 255u, &octet))
        {
            break;
        }
        ip = (ip << 8) | octet;
        rest = dot == std::string_view::npos ? std::string_view() : rest.substr(dot + 1);
    }
    if (parts.empty() && octets == 4)
    {
        return ip;
    }
    Fail(at, field, "expected an IPv4 address a.b.c.d or host:INDEX, got " + Quoted(text));
}

uint16_t
ParseSourcePort(std::string_view text, const Place& at)
{
    std::vector<std::string_view> parts = Parts(text, "flow:");
    uint32_t id = 0;
    uint64_t seed = 0;
    uint32_t k = 0;
    if ((parts.size() == 2 || parts.size() == 3) && ParseUnsigned(parts[0], UINT32_MAX, &id) &&
        ParseUnsigned(parts[1], UINT64_MAX, &seed) &&
        (parts.size() == 2 || ParseUnsigned(parts[2], UINT32_MAX, &k)))
    {
        uint16_t entropy = FlowEntropy(id, seed);
        return parts.size() == 2 ? entropy : UbLoadBalancer::Port(entropy, k);
    }
    uint16_t port = 0;
    if (parts.empty() && ParseUnsigned(text, uint16_t(65535), &port))
    {
        return port;
    }
    Fail(at,
         "src_port",
         "expected a port 0..65535, flow:ID:SEED or flow:ID:SEED:K, got " + Quoted(text));
}

std::string
FormatIpv4(uint32_t ip)
{
    return std::to_string(ip >> 24) + "." + std::to_string((ip >> 16) & 255) + "." +
           std::to_string((ip >> 8) & 255) + "." + std::to_string(ip & 255);
}

/// One query line (without its comment) answered, or nothing for a blank line.
std::string
Answer(std::string_view text, const Place& at)
{
    std::vector<std::string_view> tokens;
    for (size_t i = 0; i < text.size();)
    {
        size_t start = text.find_first_not_of(" \t\r", i);
        if (start == std::string_view::npos)
        {
            break;
        }
        size_t end = text.find_first_of(" \t\r", start);
        tokens.push_back(text.substr(start, end == std::string_view::npos ? end : end - start));
        i = end == std::string_view::npos ? text.size() : end;
    }
    if (tokens.empty())
    {
        return "";
    }
    static const char* const kFields[] =
        {"salt", "src_ip", "dst_ip", "src_port", "dst_port", "protocol"};
    if (tokens.size() < 6)
    {
        Fail(at,
             kFields[tokens.size()],
             "missing (expected " + std::string(kFields[0]) +
                 " src_ip dst_ip src_port dst_port protocol)");
    }
    const uint32_t salt = ParseSalt(tokens[0], at);
    FrameInfo frame;
    frame.etherType = 0x0800;
    frame.srcIp = ParseAddress(tokens[1], at, "src_ip");
    frame.dstIp = ParseAddress(tokens[2], at, "dst_ip");
    frame.srcPort = ParseSourcePort(tokens[3], at);
    if (!ParseUnsigned(tokens[4], uint16_t(65535), &frame.dstPort))
    {
        Fail(at, "dst_port", "expected a port 0..65535, got " + Quoted(tokens[4]));
    }
    if (!ParseUnsigned(tokens[5], uint8_t(255), &frame.protocol))
    {
        Fail(at, "protocol", "expected an IP protocol number 0..255, got " + Quoted(tokens[5]));
    }
    uint32_t group = 0;
    for (size_t i = 6; i < tokens.size(); ++i)
    {
        if (tokens[i] == "ub" && !frame.entropyOnlyHash)
        {
            // A Unified Bus frame: the switches hash its entropy alone.
            frame.entropyOnlyHash = true;
        }
        else if (tokens[i].substr(0, 6) == "group=" && group == 0)
        {
            // An ECMP group lists ports of one switch: 1..65535 of them.
            if (!ParseUnsigned(tokens[i].substr(6), 65535u, &group) || group == 0)
            {
                Fail(at, "group", "expected a group size 1..65535, got " + Quoted(tokens[i]));
            }
        }
        else
        {
            Fail(at, Quoted(tokens[i]), "unexpected (after protocol: ub and group=M, once each)");
        }
    }
    const uint32_t hash = FabricFlowHash(frame, salt);
    std::string line = std::to_string(hash) + " " +
                       (group ? std::to_string(hash % group) : std::string("-")) + " " +
                       std::to_string(salt) + " " + FormatIpv4(frame.srcIp) + " " +
                       FormatIpv4(frame.dstIp) + " " + std::to_string(frame.srcPort) + " " +
                       std::to_string(frame.dstPort) + " " + std::to_string(frame.protocol);
    return line + (frame.entropyOnlyHash ? " ub\n" : "\n");
}

} // namespace

void
AnswerEcmpHashQueries(std::istream& in, const std::string& source, std::ostream& out)
{
    std::string line;
    for (int number = 1; std::getline(in, line); ++number)
    {
        std::string_view text(line);
        out << Answer(text.substr(0, text.find('#')), Place{source, number});
    }
}

} // namespace ns3
