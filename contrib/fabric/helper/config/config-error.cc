#include "config/config-error.h"

namespace ns3
{

ConfigError::ConfigError(const std::string& file,
                         int line,
                         const std::string& key,
                         const std::string& message)
    : std::runtime_error(Format(file, line, key, message)),
      m_file(file),
      m_line(line),
      m_key(key),
      m_message(message)
{
}

std::string
ConfigError::Format(const std::string& file,
                    int line,
                    const std::string& key,
                    const std::string& message)
{
    std::string s = file;
    if (line > 0)
    {
        s += ":" + std::to_string(line);
    }
    if (!key.empty())
    {
        s += ": " + key;
    }
    return s + ": " + message;
}

} // namespace ns3
