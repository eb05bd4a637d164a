#pragma once

// 128-bit integers (GCC's and Clang's __int128) for the few figures whose products pass 64 bits before
// a division or a comparison brings them back: proportional shares of byte counts, cross-multiplied
// line comparisons, sums of signed changes in live memory.

namespace headroom {

__extension__ typedef unsigned __int128 Wide;
__extension__ typedef __int128 SignedWide;

} // namespace headroom
