#ifndef FABRIC_CSV_WRITER_H
#define FABRIC_CSV_WRITER_H

#include <charconv>
#include <cstdint>
#include <fstream>
#include <string>

namespace ns3
{

/**
 * \brief Writes one trace file atomically: rows go to "<path>.tmp", Commit() renames it to
 * <path>, so a reader never sees a half-written file (e.g. after a crash or Ctrl-C).
 */
class CsvWriter
{
  public:
    CsvWriter() = default;
    CsvWriter(const std::string& path, const std::string& header);
    ~CsvWriter();
    CsvWriter(const CsvWriter&) = delete;
    CsvWriter& operator=(const CsvWriter&) = delete;

    void Open(const std::string& path, const std::string& header);

    bool IsOpen() const
    {
        return m_out.is_open();
    }

    std::ofstream& Row()
    {
        return m_out;
    }

    /// Writes one row of integers, comma-separated and ended by a newline: the same bytes as
    /// `Row() << a << ',' << b << ... << '\n'`, without the stream formatting each number
    /// through its locale (about 1 700 instructions a row of four; a per-packet trace pays it
    /// on every packet).
    template <typename... Integers>
    void IntegerRow(Integers... values)
    {
        // 20 digits and a separator per value; one byte more for the newline, so the compiler
        // can see that the final write stays inside the buffer.
        char line[sizeof...(values) * 21 + 1];
        char* end = line;
        char* const limit = line + sizeof(line) - 1;
        bool first = true;
        auto put = [&](auto v) {
            if (!first)
            {
                *end++ = ',';
            }
            first = false;
            end = std::to_chars(end, limit, v).ptr;
        };
        (put(values), ...);
        *end++ = '\n';
        m_out.write(line, end - line);
    }

    /// Flushes, closes and renames into place; returns false on an I/O error. When the file is
    /// larger than \p gzipAbove bytes it is stored gzip-compressed as <path>.gz instead.
    bool Commit(uint64_t gzipAbove = UINT64_MAX);

  private:
    std::string m_path;
    std::ofstream m_out;
};

/// Writes \p content to \p path atomically (temp file + rename).
bool WriteFileAtomically(const std::string& path, const std::string& content);

} // namespace ns3

#endif
