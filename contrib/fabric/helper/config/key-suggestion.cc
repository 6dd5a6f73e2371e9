#include "config/key-suggestion.h"

#include <algorithm>

namespace ns3
{

size_t
EditDistance(const std::string& a, const std::string& b)
{
    // One row of the dynamic-programming table at a time.
    std::vector<size_t> row(b.size() + 1);
    for (size_t j = 0; j <= b.size(); ++j)
    {
        row[j] = j;
    }
    for (size_t i = 1; i <= a.size(); ++i)
    {
        size_t diagonal = row[0];
        row[0] = i;
        for (size_t j = 1; j <= b.size(); ++j)
        {
            size_t above = row[j];
            row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] != b[j - 1])});
            diagonal = above;
        }
    }
    return row[b.size()];
}

namespace
{

size_t
CommonPrefix(const std::string& a, const std::string& b)
{
    size_t n = 0;
    while (n < a.size() && n < b.size() && a[n] == b[n])
    {
        ++n;
    }
    return n;
}

} // namespace

std::string
NearestKey(const std::string& unknown, const std::vector<std::string>& candidates)
{
    std::string best;
    size_t bestDistance = 0;
    size_t bestPrefix = 0;
    for (const std::string& c : candidates)
    {
        if (c == unknown)
        {
            continue;
        }
        size_t limit = std::clamp<size_t>(std::max(unknown.size(), c.size()) / 3, 1, 3);
        size_t d = EditDistance(unknown, c);
        size_t prefix = CommonPrefix(unknown, c);
        bool closer = d < bestDistance || (d == bestDistance && prefix > bestPrefix);
        // Also fewer edits than half of what was typed: "no" is one edit from "xon", but
        // nothing suggests it was meant.
        if (d <= limit && 2 * d < unknown.size() && (best.empty() || closer))
        {
            best = c;
            bestDistance = d;
            bestPrefix = prefix;
        }
    }
    return best;
}

std::string
DidYouMean(const std::string& suggestion)
{
    return suggestion.empty() ? "" : " (did you mean '" + suggestion + "'?)";
}

} // namespace ns3
