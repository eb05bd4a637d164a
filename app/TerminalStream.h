#pragma once

// Output that cannot drive the terminal: names come from files (a model's name, a layer's, a GPU's), and
// a control character in one would move the cursor, recolour or retitle the user's terminal.

#include <memory>
#include <ostream>
#include <streambuf>

namespace headroom::cli {

/// A stream buffer that passes everything to `target` except control characters, which it writes as
/// visible escapes: C0 controls other than newline and tab as "\x1b", DEL and the C1 controls (U+0080 to
/// U+009F, which some terminals obey as ESC sequences) as "\u009b". The second form is also a valid JSON
/// escape, so `--json` output stays valid (its writer escapes C0 controls itself).
class ControlEscapingBuffer final : public std::streambuf
{
public:
    explicit ControlEscapingBuffer(std::streambuf* target)
        : m_target { target }
    {
    }
    ~ControlEscapingBuffer() override;

    ControlEscapingBuffer(const ControlEscapingBuffer&) = delete;
    ControlEscapingBuffer& operator=(const ControlEscapingBuffer&) = delete;

protected:
    int_type overflow(int_type ch) override;
    std::streamsize xsputn(const char* s, std::streamsize n) override;
    int sync() override;

private:
    void put(unsigned char c);
    void flushPending();

    std::streambuf* m_target;
    bool m_pendingLead = false; ///< a 0xC2 byte whose successor decides whether it starts a C1 control
};

/// `stream`'s output through a ControlEscapingBuffer, for as long as this object lives.
class TerminalSafeStream final : public std::ostream
{
public:
    explicit TerminalSafeStream(std::ostream& stream);
    ~TerminalSafeStream() override;

private:
    std::unique_ptr<ControlEscapingBuffer> m_buffer;
};

} // namespace headroom::cli
