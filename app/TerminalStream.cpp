#include "TerminalStream.h"

#include <string>

namespace headroom::cli {

namespace {

constexpr char kDigits[] = "0123456789abcdef";

} // namespace

ControlEscapingBuffer::~ControlEscapingBuffer()
{
    flushPending();
}

ControlEscapingBuffer::int_type ControlEscapingBuffer::overflow(int_type ch)
{
    if (traits_type::eq_int_type(ch, traits_type::eof()))
        return traits_type::not_eof(ch);
    put(static_cast<unsigned char>(traits_type::to_char_type(ch)));
    return ch;
}

std::streamsize ControlEscapingBuffer::xsputn(const char* s, std::streamsize n)
{
    for (std::streamsize i = 0; i < n; ++i)
        put(static_cast<unsigned char>(s[i]));
    return n;
}

int ControlEscapingBuffer::sync()
{
    return m_target->pubsync();
}

void ControlEscapingBuffer::flushPending()
{
    if (m_pendingLead)
        m_target->sputc(static_cast<char>(0xC2));
    m_pendingLead = false;
}

void ControlEscapingBuffer::put(unsigned char c)
{
    if (m_pendingLead) {
        m_pendingLead = false;
        if (c >= 0x80 && c <= 0x9F) { // U+0080..U+009F in UTF-8: C2 80..C2 9F
            const std::string escape { '\\', 'u', '0', '0', kDigits[c >> 4], kDigits[c & 0xF] };
            m_target->sputn(escape.data(), static_cast<std::streamsize>(escape.size()));
            return;
        }
        m_target->sputc(static_cast<char>(0xC2));
    }
    if (c == 0xC2) {
        m_pendingLead = true;
        return;
    }
    if (c == 0x7F) {
        m_target->sputn("\\u007f", 6);
        return;
    }
    if (c < 0x20 && c != '\n' && c != '\t') {
        const std::string escape { '\\', 'x', kDigits[c >> 4], kDigits[c & 0xF] };
        m_target->sputn(escape.data(), static_cast<std::streamsize>(escape.size()));
        return;
    }
    m_target->sputc(static_cast<char>(c));
}

TerminalSafeStream::TerminalSafeStream(std::ostream& stream)
    : std::ostream(nullptr)
    , m_buffer { std::make_unique<ControlEscapingBuffer>(stream.rdbuf()) }
{
    rdbuf(m_buffer.get());
}

TerminalSafeStream::~TerminalSafeStream()
{
    flush();
    rdbuf(nullptr);
}

} // namespace headroom::cli
