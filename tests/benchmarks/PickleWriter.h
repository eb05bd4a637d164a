#pragma once

// A pickle written as CPython's pickler (protocol 4) writes plain data: every dict and str memoized, keys
// met again read from the memo. The benchmarks of the measured-run readers make their snapshots with it.
#include <cstdint>
#include <map>
#include <string>

namespace headroom::bench {

/// Writes protocol 4 opcodes the way pickle.Pickler does for plain data.
class PickleWriter final
{
public:
    std::string out;

    void begin() { out += "\x80\x04"; }
    void end() { out += '.'; }
    void memoize()
    {
        out += '\x94';
        ++m_memo;
    }
    void get(std::uint32_t index)
    {
        if (index < 256) {
            out += 'h';
            out += static_cast<char>(index);
        } else {
            out += 'j';
            le(index, 4);
        }
    }
    /// A str: from the memo when this writer met the same text before as an interned key.
    void key(const std::string& s)
    {
        if (const auto it = m_keys.find(s); it != m_keys.end()) {
            get(it->second);
            return;
        }
        m_keys[s] = m_memo;
        str(s);
    }
    void str(const std::string& s)
    {
        if (s.size() < 256) {
            out += '\x8c';
            out += static_cast<char>(s.size());
        } else {
            out += 'X';
            le(s.size(), 4);
        }
        out += s;
        memoize();
    }
    void integer(std::int64_t v)
    {
        if (v >= 0 && v < 256) {
            out += 'K';
            out += static_cast<char>(v);
        } else if (v >= 0 && v < 65536) {
            out += 'M';
            le(static_cast<std::uint64_t>(v), 2);
        } else if (v >= INT32_MIN && v <= INT32_MAX) {
            out += 'J';
            le(static_cast<std::uint64_t>(v), 4);
        } else {
            // LONG1: the fewest little-endian two's complement bytes (no sign beyond 8 here)
            std::size_t n = 1;
            while (n < 8
                && !(v >= -(std::int64_t { 1 } << (8 * n - 1)) && v < (std::int64_t { 1 } << (8 * n - 1)))) {
                ++n;
            }
            out += '\x8a';
            out += static_cast<char>(n);
            le(static_cast<std::uint64_t>(v), n);
        }
    }
    std::uint32_t emptyDict()
    {
        out += '}';
        memoize();
        return m_memo - 1;
    }
    std::uint32_t emptyList()
    {
        out += ']';
        memoize();
        return m_memo - 1;
    }
    void mark() { out += '('; }
    void setItems() { out += 'u'; }
    void appends() { out += 'e'; }

private:
    std::uint32_t m_memo = 0;
    std::map<std::string, std::uint32_t> m_keys;
    void le(std::uint64_t v, std::size_t n)
    {
        for (std::size_t i = 0; i < n; ++i) {
            out += static_cast<char>((v >> (8 * i)) & 0xFF);
        }
    }
};

} // namespace headroom::bench
