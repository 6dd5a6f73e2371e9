#ifndef FABRIC_CONFIG_ERROR_H
#define FABRIC_CONFIG_ERROR_H

#include <stdexcept>
#include <string>

namespace ns3
{

/**
 * \brief A user-input error: names the file, line and key so the message alone tells the user
 * what to fix. Thrown by the scenario and topology readers; fabric-run prints what() and exits 2.
 *
 * what() reads "FILE:LINE: KEY: MESSAGE" (LINE omitted when unknown, e.g. for --set values).
 */
class ConfigError : public std::runtime_error
{
  public:
    ConfigError(const std::string& file,
                int line,
                const std::string& key,
                const std::string& message);

    const std::string& File() const
    {
        return m_file;
    }

    int Line() const
    {
        return m_line;
    }

    const std::string& Key() const
    {
        return m_key;
    }

    /// The message without the "FILE:LINE: KEY: " prefix.
    const std::string& Message() const
    {
        return m_message;
    }

  private:
    static std::string Format(const std::string& file,
                              int line,
                              const std::string& key,
                              const std::string& message);
    std::string m_file;
    int m_line;
    std::string m_key;
    std::string m_message;
};

} // namespace ns3

#endif
