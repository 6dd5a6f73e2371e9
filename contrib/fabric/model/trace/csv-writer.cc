#include "csv-writer.h"

#include <cstdio>

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
CsvWriter::Commit()
{
    if (!m_out.is_open())
    {
        return false;
    }
    m_out.flush();
    bool ok = m_out.good();
    m_out.close();
    return ok && std::rename((m_path + ".tmp").c_str(), m_path.c_str()) == 0;
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
