#ifndef FABRIC_TESTS_TEST_FILES_H
#define FABRIC_TESTS_TEST_FILES_H

// File and process helpers shared by the suites that run fabric-run and read its traces.

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>
#include <map>
#include <sstream>
#include <string>
#include <unistd.h>
#include <vector>

namespace ns3
{
namespace test
{

/// A fresh directory under /tmp (named <prefix>-XXXXXX), removed with everything in it when it
/// goes out of scope.
class TempDir
{
  public:
    explicit TempDir(const std::string& prefix = "fabric-test")
    {
        std::string pattern =
            (std::filesystem::temp_directory_path() / (prefix + "-XXXXXX")).string();
        std::vector<char> buf(pattern.begin(), pattern.end());
        buf.push_back('\0');
        if (mkdtemp(buf.data()) == nullptr)
        {
            ADD_FAILURE() << "mkdtemp failed for " << pattern;
        }
        m_path = buf.data();
    }

    ~TempDir()
    {
        std::error_code ec;
        std::filesystem::remove_all(m_path, ec);
    }

    TempDir(const TempDir&) = delete;
    TempDir& operator=(const TempDir&) = delete;

    const std::string& Path() const
    {
        return m_path;
    }

  private:
    std::string m_path;
};

/// gtest-only substring check (the suite links gtest, not gmock) that prints both strings.
inline ::testing::AssertionResult
Contains(const std::string& text, const std::string& part)
{
    if (text.find(part) != std::string::npos)
    {
        return ::testing::AssertionSuccess();
    }
    return ::testing::AssertionFailure()
           << "\"" << text << "\" does not contain \"" << part << "\"";
}

inline std::string
ReadFile(const std::string& path)
{
    std::ifstream in(path, std::ios::binary);
    std::ostringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

/// \p text split at line ends (no trailing empty line).
inline std::vector<std::string>
Lines(const std::string& text)
{
    std::vector<std::string> lines;
    std::istringstream in(text);
    for (std::string l; std::getline(in, l);)
    {
        lines.push_back(l);
    }
    return lines;
}

inline std::string
ShellQuote(const std::string& s)
{
    std::string q = "'";
    for (char c : s)
    {
        q += c == '\'' ? std::string("'\\''") : std::string(1, c);
    }
    return q + "'";
}

/// Wireshark's command-line decoder, which checks that the pcaps the fabric writes decode.
const char* const kTshark = "/usr/bin/tshark";

/// Success when tshark can run. A missing tshark is a failure, not a skip: `./fabric test`
/// installs it (PACKAGES in ./fabric), so its absence means the set-up is broken.
inline ::testing::AssertionResult
TsharkInstalled()
{
    if (access(kTshark, X_OK) == 0)
    {
        return ::testing::AssertionSuccess();
    }
    return ::testing::AssertionFailure()
           << kTshark << " not found: install Debian's tshark package (./fabric test does)";
}

/// A CSV file as rows of named cells.
struct Csv
{
    std::vector<std::string> columns;
    std::vector<std::map<std::string, std::string>> rows;

    uint64_t U(size_t row, const std::string& col) const
    {
        return std::stoull(rows.at(row).at(col));
    }
};

inline Csv
ReadCsv(const std::string& path)
{
    Csv csv;
    std::istringstream in(ReadFile(path));
    std::string line;
    if (!std::getline(in, line))
    {
        ADD_FAILURE() << path << " is empty or missing";
        return csv;
    }
    auto split = [](const std::string& l) {
        std::vector<std::string> cells;
        std::stringstream ss(l);
        for (std::string c; std::getline(ss, c, ',');)
        {
            cells.push_back(c);
        }
        if (!l.empty() && l.back() == ',')
        {
            cells.emplace_back(); // getline drops a trailing empty cell
        }
        return cells;
    };
    csv.columns = split(line);
    while (std::getline(in, line))
    {
        std::vector<std::string> cells = split(line);
        EXPECT_EQ(cells.size(), csv.columns.size()) << path << ": " << line;
        std::map<std::string, std::string> row;
        for (size_t i = 0; i < cells.size() && i < csv.columns.size(); ++i)
        {
            row[csv.columns[i]] = cells[i];
        }
        csv.rows.push_back(std::move(row));
    }
    return csv;
}

} // namespace test
} // namespace ns3

#endif
