#pragma once

#include <cassert>
#include <string>
#include <utility>
#include <variant>

namespace headroom {

/// A human-readable error with the place it is about. `message` is complete on its own
/// ("layers[3].kernel_size must be a positive integer"); `location` repeats the place in a form a
/// program can use (a JSON path such as "layers[3].kernel_size", a layer name, or "line 4, column 7").
struct Error final
{
    std::string message;
    std::string location;

    friend bool operator==(const Error&, const Error&) = default;
};

/// Either a value or an Error (a small stand-in for C++23's std::expected).
template <typename T> class [[nodiscard]] Result final
{
public:
    Result(T value)
        : m_state { std::move(value) }
    {
    } // NOLINT: implicit by design
    Result(Error error)
        : m_state { std::move(error) }
    {
    } // NOLINT: implicit by design

    [[nodiscard]] bool ok() const noexcept { return m_state.index() == 0; }
    explicit operator bool() const noexcept { return ok(); }

    [[nodiscard]] const T& value() const&
    {
        assert(ok());
        return std::get<0>(m_state);
    }
    [[nodiscard]] T& value() &
    {
        assert(ok());
        return std::get<0>(m_state);
    }
    [[nodiscard]] T&& value() &&
    {
        assert(ok());
        return std::get<0>(std::move(m_state));
    }
    [[nodiscard]] const T* operator->() const { return &value(); }
    [[nodiscard]] const T& operator*() const& { return value(); }

    [[nodiscard]] const Error& error() const&
    {
        assert(!ok());
        return std::get<1>(m_state);
    }

private:
    std::variant<T, Error> m_state;
};

} // namespace headroom
