// A small mutation fuzzer that drives a libFuzzer harness (LLVMFuzzerTestOneInput) without clang, so
// every CI build (GCC, no sanitizers) fuzzes the file readers briefly. It runs every seed file, then
// mutates seeds (bit flips, byte edits, insertions, deletions, truncations, duplicated ranges, splices
// and dictionary tokens) from a fixed random seed until the time or run budget is spent. An input
// that crashes the harness is written to the artifact file by the signal handler before the process
// dies; a hang is caught by CTest's timeout.
//
// It reports the input that took the most CPU time; with --slow S, one over S seconds (an amplification:
// issue 26 asks that no input under 1 MB cost over a second) is written to the artifact file with
// ".slow" appended and fails the run.
//
//   fuzz_smoke_<name> [--seconds S] [--runs N] [--seed X] [--dict FILE] [--artifact FILE] [--slow S] DIR...

#include <algorithm>
#include <chrono>
#include <csignal>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <fcntl.h>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <iterator>
#include <random>
#include <string>
#include <unistd.h>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size);
// A harness may mutate structurally (fuzz_onnx_import.cpp changes one protobuf field); as under libFuzzer
// it then calls LLVMFuzzerMutate, which this driver provides, for plain byte edits.
extern "C" std::size_t LLVMFuzzerCustomMutator(
    std::uint8_t* data, std::size_t size, std::size_t maxSize, unsigned int seed) __attribute__((weak));
extern "C" std::size_t LLVMFuzzerMutate(std::uint8_t* data, std::size_t size, std::size_t maxSize);

namespace {

using Bytes = std::vector<std::uint8_t>;

// What the signal handler writes out: the input being run, and where to.
const Bytes* g_current = nullptr;
char g_artifactPath[4096] = "crash-input";

extern "C" void writeCrashingInput(int signal)
{
    const int fd = ::open(g_artifactPath, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd >= 0 && g_current != nullptr) {
        const auto* p = g_current->data();
        std::size_t left = g_current->size();
        while (left > 0) {
            const auto n = ::write(fd, p, left);
            if (n <= 0)
                break;
            p += n;
            left -= static_cast<std::size_t>(n);
        }
        ::close(fd);
    }
    static const char message[] = "fuzz: the harness crashed; input saved to the artifact file\n";
    (void)!::write(2, message, sizeof message - 1);
    std::signal(signal, SIG_DFL);
    std::raise(signal);
}

Bytes readFile(const std::filesystem::path& path)
{
    std::ifstream in(path, std::ios::binary);
    return Bytes(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

/// libFuzzer dictionary lines: name="token" or "token", with \" and \\ and \xNN escapes.
std::vector<Bytes> readDictionary(const std::filesystem::path& path)
{
    std::vector<Bytes> tokens;
    std::ifstream in(path);
    for (std::string line; std::getline(in, line);) {
        const auto open = line.find('"');
        const auto close = line.rfind('"');
        if (line.empty() || line[0] == '#' || open == std::string::npos || close <= open)
            continue;
        Bytes token;
        for (std::size_t i = open + 1; i < close; ++i) {
            if (line[i] == '\\' && i + 1 < close) {
                ++i;
                if (line[i] == 'x' && i + 2 < close) {
                    token.push_back(static_cast<std::uint8_t>(std::stoi(line.substr(i + 1, 2), nullptr, 16)));
                    i += 2;
                    continue;
                }
            }
            token.push_back(static_cast<std::uint8_t>(line[i]));
        }
        tokens.push_back(std::move(token));
    }
    return tokens;
}

class Mutator
{
public:
    Mutator(std::uint64_t seed, const std::vector<Bytes>& seeds, const std::vector<Bytes>& dictionary)
        : m_random { seed }
        , m_seeds { seeds }
        , m_dictionary { dictionary }
    {
    }

    Bytes next()
    {
        Bytes data = m_seeds[pick(m_seeds.size())];
        if (LLVMFuzzerCustomMutator != nullptr && pick(2) == 0) {
            const std::size_t size = data.size();
            data.resize(std::max<std::size_t>(2 * size, 4096));
            data.resize(LLVMFuzzerCustomMutator(
                data.data(), size, data.size(), static_cast<unsigned int>(pick(1U << 31))));
            return data;
        }
        const std::size_t edits = 1 + pick(8);
        for (std::size_t i = 0; i < edits; ++i)
            mutate(data);
        return data;
    }

    /// One to eight byte edits of `data` (LLVMFuzzerMutate).
    void edit(Bytes& data)
    {
        const std::size_t edits = 1 + pick(8);
        for (std::size_t i = 0; i < edits; ++i)
            mutate(data);
    }

private:
    std::size_t pick(std::size_t n)
    {
        return n == 0 ? 0 : std::uniform_int_distribution<std::size_t>(0, n - 1)(m_random);
    }
    std::uint8_t randomByte()
    {
        static constexpr std::uint8_t kInteresting[]
            = { 0x00, 0x01, 0x7f, 0x80, 0xff, '"', '{', '}', '[', ']', ',', '-', '9' };
        return pick(2) == 0 ? kInteresting[pick(std::size(kInteresting))]
                            : static_cast<std::uint8_t>(pick(256));
    }

    void mutate(Bytes& data)
    {
        const std::size_t at = pick(data.size() + 1);
        switch (pick(8)) {
        case 0:
            if (!data.empty())
                data[pick(data.size())] ^= static_cast<std::uint8_t>(1U << pick(8));
            break;
        case 1:
            if (!data.empty())
                data[pick(data.size())] = randomByte();
            break;
        case 2:
            data.insert(data.begin() + static_cast<std::ptrdiff_t>(at), randomByte());
            break;
        case 3: {
            const std::size_t n = std::min(data.size() - std::min(at, data.size()), 1 + pick(16));
            data.erase(data.begin() + static_cast<std::ptrdiff_t>(at),
                data.begin() + static_cast<std::ptrdiff_t>(at + n));
            break;
        }
        case 4:
            data.resize(pick(data.size() + 1));
            break;
        case 5: {
            if (data.empty())
                break;
            const std::size_t from = pick(data.size());
            const std::size_t n = std::min(data.size() - from, 1 + pick(64));
            const Bytes chunk(data.begin() + static_cast<std::ptrdiff_t>(from),
                data.begin() + static_cast<std::ptrdiff_t>(from + n));
            data.insert(data.begin() + static_cast<std::ptrdiff_t>(pick(data.size() + 1)), chunk.begin(),
                chunk.end());
            break;
        }
        case 6: {
            const Bytes& other = m_seeds[pick(m_seeds.size())];
            const std::size_t from = pick(other.size() + 1);
            data.resize(std::min(at, data.size()));
            data.insert(data.end(), other.begin() + static_cast<std::ptrdiff_t>(from), other.end());
            break;
        }
        default:
            if (!m_dictionary.empty()) {
                const Bytes& token = m_dictionary[pick(m_dictionary.size())];
                data.insert(data.begin() + static_cast<std::ptrdiff_t>(at), token.begin(), token.end());
            }
            break;
        }
    }

    std::mt19937_64 m_random;
    const std::vector<Bytes>& m_seeds;
    const std::vector<Bytes>& m_dictionary;
};

Mutator* g_mutator = nullptr;

/// The input that took the most CPU time so far.
struct Slowest
{
    double seconds = 0;
    Bytes input;
};
Slowest g_slowest;

void run(const Bytes& input)
{
    g_current = &input;
    const std::clock_t start = std::clock();
    LLVMFuzzerTestOneInput(input.data(), input.size());
    const double seconds = static_cast<double>(std::clock() - start) / CLOCKS_PER_SEC;
    if (seconds > g_slowest.seconds)
        g_slowest = Slowest { seconds, input };
    g_current = nullptr;
}

/// Reports the slowest input; writes it out and returns false when it took over `limit` seconds.
bool reportSlowest(double limit)
{
    std::cout << "fuzz: the slowest input (" << g_slowest.input.size() << " bytes) took " << g_slowest.seconds
              << " s of CPU time\n";
    if (limit <= 0 || g_slowest.seconds <= limit)
        return true;
    const std::string path = std::string(g_artifactPath) + ".slow";
    std::ofstream(path, std::ios::binary)
        .write(reinterpret_cast<const char*>(g_slowest.input.data()),
            static_cast<std::streamsize>(g_slowest.input.size()));
    std::cerr << "fuzz: an input took more than " << limit << " s; written to " << path << "\n";
    return false;
}

} // namespace

extern "C" std::size_t LLVMFuzzerMutate(std::uint8_t* data, std::size_t size, std::size_t maxSize)
{
    if (g_mutator == nullptr)
        return size;
    Bytes bytes(data, data + size);
    g_mutator->edit(bytes);
    bytes.resize(std::min(bytes.size(), maxSize));
    std::copy(bytes.begin(), bytes.end(), data);
    return bytes.size();
}

int main(int argc, char** argv)
{
    double seconds = 10;
    long long maxRuns = -1;
    std::uint64_t seed = 1;
    double slow = 0;
    std::vector<Bytes> dictionary;
    std::vector<std::filesystem::path> dirs;
    for (int i = 1; i < argc; ++i) {
        const std::string arg = argv[i];
        const bool hasValue = i + 1 < argc;
        if (arg == "--seconds" && hasValue)
            seconds = std::atof(argv[++i]);
        else if (arg == "--runs" && hasValue)
            maxRuns = std::atoll(argv[++i]);
        else if (arg == "--seed" && hasValue)
            seed = std::strtoull(argv[++i], nullptr, 10);
        else if (arg == "--dict" && hasValue)
            dictionary = readDictionary(argv[++i]);
        else if (arg == "--slow" && hasValue)
            slow = std::atof(argv[++i]);
        else if (arg == "--artifact" && hasValue)
            std::snprintf(g_artifactPath, sizeof g_artifactPath, "%s", argv[++i]);
        else
            dirs.emplace_back(arg);
    }
    for (const int s : { SIGSEGV, SIGABRT, SIGFPE, SIGILL, SIGBUS })
        std::signal(s, writeCrashingInput);

    std::vector<Bytes> seeds;
    for (const auto& dir : dirs) {
        std::vector<std::filesystem::path> files;
        for (const auto& entry : std::filesystem::directory_iterator(dir))
            if (entry.is_regular_file())
                files.push_back(entry.path());
        std::sort(files.begin(), files.end()); // a fixed order: runs are reproducible
        for (const auto& f : files)
            seeds.push_back(readFile(f));
    }
    if (seeds.empty()) {
        std::cerr << "fuzz: no seed files in the given directories\n";
        return 2;
    }
    for (const auto& s : seeds)
        run(s);

    Mutator mutator { seed, seeds, dictionary };
    g_mutator = &mutator;
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
    long long runs = 0;
    while ((maxRuns < 0 || runs < maxRuns) && std::chrono::steady_clock::now() < deadline) {
        run(mutator.next());
        ++runs;
    }
    std::cout << "fuzz: " << seeds.size() << " seeds and " << runs << " mutated inputs ran without a crash\n";
    return reportSlowest(slow) ? 0 : 1;
}
