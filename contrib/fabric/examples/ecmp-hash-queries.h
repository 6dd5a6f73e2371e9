// fabric-run --hash: the switches' ECMP choice for given inputs, computed by the library's own
// FabricFlowHash, so that tools (tools/fabrictools/validate/ecmp.py) predict paths without a
// second implementation of the hash.

#ifndef FABRIC_ECMP_HASH_QUERIES_H
#define FABRIC_ECMP_HASH_QUERIES_H

#include <istream>
#include <ostream>
#include <string>

namespace ns3
{

/// The query syntax, for fabric-run --help.
extern const char* const kEcmpHashUsage;

/**
 * Answers one query per line of \p in on \p out (kEcmpHashUsage describes both sides). A bad
 * line throws ConfigError naming \p source, the line number and the field; the answers to the
 * lines before it have been written by then.
 */
void AnswerEcmpHashQueries(std::istream& in, const std::string& source, std::ostream& out);

} // namespace ns3

#endif
