// The nearest valid key offered for an unknown one (contrib/fabric/helper/config/key-suggestion.h).
// Distances are counted by hand: the fewest single-character edits.

#include "config/key-suggestion.h"

#include <gtest/gtest.h>

namespace ns3
{
namespace
{

TEST(KeySuggestion, EditDistanceCountsInsertionsDeletionsAndSubstitutions)
{
    EXPECT_EQ(EditDistance("", ""), 0u);
    EXPECT_EQ(EditDistance("xoff", "xoff"), 0u);
    EXPECT_EQ(EditDistance("xof", "xoff"), 1u);       // one insertion
    EXPECT_EQ(EditDistance("xofff", "xoff"), 1u);     // one deletion
    EXPECT_EQ(EditDistance("xon", "xof"), 1u);        // one substitution
    EXPECT_EQ(EditDistance("kitten", "sitting"), 3u); // k->s, e->i, +g
    EXPECT_EQ(EditDistance("", "abc"), 3u);
}

TEST(KeySuggestion, NearestKeyPrefersTheCloserAndThenTheLongerCommonStart)
{
    const std::vector<std::string> pfc{"enabled", "headroom", "lossless", "xoff", "xon"};
    // "xof" is one edit from both "xoff" and "xon": the one it starts like wins.
    EXPECT_EQ(NearestKey("xof", pfc), "xoff");
    EXPECT_EQ(NearestKey("headrom", pfc), "headroom");
    EXPECT_EQ(NearestKey("losless", pfc), "lossless");
    // Nothing close: no suggestion rather than a wild guess.
    EXPECT_EQ(NearestKey("no", pfc), "");
    EXPECT_EQ(NearestKey("buffer", pfc), "");
    EXPECT_EQ(DidYouMean(""), "");
    EXPECT_EQ(DidYouMean("switch.pfc.xoff"), " (did you mean 'switch.pfc.xoff'?)");
}

} // namespace
} // namespace ns3
