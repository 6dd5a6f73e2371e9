#ifndef FABRIC_KEY_SUGGESTION_H
#define FABRIC_KEY_SUGGESTION_H

#include <string>
#include <vector>

namespace ns3
{

/// Levenshtein distance: the fewest single-character insertions, deletions and substitutions
/// that turn \p a into \p b.
size_t EditDistance(const std::string& a, const std::string& b);

/**
 * \brief The valid key an unknown one was most likely meant to be ("xof" -> "xoff"), or "" when
 * none is close.
 *
 * Close means at most a third of the longer name's characters edited (at least one, at most
 * three) and fewer than half of the unknown name's, so that short keys are not matched to
 * unrelated short keys. Of equally distant ones
 * the one sharing the longest start wins ("xof": "xoff" rather than "xon"), then the first.
 */
std::string NearestKey(const std::string& unknown, const std::vector<std::string>& candidates);

/// " (did you mean 'switch.pfc.xoff'?)" for NearestKey's answer, "" when there is none.
std::string DidYouMean(const std::string& suggestion);

} // namespace ns3

#endif
