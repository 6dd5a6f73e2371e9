#include "csv-writer.h"

#include <cstdio>
#include <vector>
#include <zlib.h>

namespace ns3
{

CsvWriter::CsvWriter(const std::string& path, const std::string& header)
{
    Open(path, header);
}

CsvWriter::~CsvWriter()
{
    if (m_out.is_open())
    {
        m_out.close();
        std::remove((m_path + ".tmp").c_str());
    }
}

void
CsvWriter::Open(const std::string& path, const std::string& header)
{
    m_path = path;
    m_out.open(path + ".tmp", std::ios::out | std::ios::trunc);
    m_out << header << '\n';
}

bool
CsvWriter::Commit(uint64_t gzipAbove)
{
    if (!m_out.is_open())
    {
        return false;
    }
    m_out.flush();
    bool ok = m_out.good();
    uint64_t size = static_cast<uint64_t>(m_out.tellp());
    m_out.close();
    std::string tmp = m_path + ".tmp";
    if (!ok)
    {
        return false;
    }
    if (size <= gzipAbove)
    {
        return std::rename(tmp.c_str(), m_path.c_str()) == 0;
    }
    // Large traces: gzip (readers such as tools/plot open either form).
    std::string gzTmp = m_path + ".gz.tmp";
    gzFile gz = gzopen(gzTmp.c_str(), "wb6");
    std::ifstream in(tmp, std::ios::binary);
    std::vector<char> buf(1 << 20);
    while (gz && in)
    {
        in.read(buf.data(), buf.size());
        if (in.gcount() > 0 && gzwrite(gz, buf.data(), static_cast<unsigned>(in.gcount())) <= 0)
        {
            ok = false;
            break;
        }
    }
    ok = gz && gzclose(gz) == Z_OK && ok;
    std::remove(tmp.c_str());
    return ok && std::rename(gzTmp.c_str(), (m_path + ".gz").c_str()) == 0;
}

bool
WriteFileAtomically(const std::string& path, const std::string& content)
{
    std::string tmp = path + ".tmp";
    {
        std::ofstream out(tmp, std::ios::out | std::ios::trunc);
        out << content;
        if (!out.good())
        {
            return false;
        }
    }
    return std::rename(tmp.c_str(), path.c_str()) == 0;
}

} // namespace ns3
