// The words the last blocks of the sum across GPUs trade, checked on the CPU: value and call number
// survive the packing, a later call always reads as later whatever the value's bits, consecutive
// calls use different halves of each rank's array, and ranks sharing a GPU are refused.
#include <catch2/catch_test_macros.hpp>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <set>
#include <stdexcept>

#include "ch10_reduction/multi_gpu/last_block_sum.hpp"

using namespace pmpp::ch10::multi_gpu;

namespace {
std::uint32_t bits_of(float value) {
  std::uint32_t bits = 0;
  std::memcpy(&bits, &value, sizeof bits);
  return bits;
}
}  // namespace

TEST_CASE("a partial word carries the call's number and the value's bits unchanged", "[last_block_sum]") {
  const float values[] = {0.0f, -0.0f, 1.5f, -3.0e38f, std::numeric_limits<float>::denorm_min(),
                          std::numeric_limits<float>::infinity(), std::nanf("")};
  for (std::uint64_t call : {std::uint64_t{1}, std::uint64_t{2}, std::uint64_t{0xFFFFFFFFu}}) {
    for (float v : values) {
      const Flag word = partial_word(call, bits_of(v));
      INFO("call " << call << ", value bits " << bits_of(v));
      CHECK(call_of(word) == call);
      CHECK(value_bits_of(word) == bits_of(v));
    }
  }
}

TEST_CASE("a later call's word reads as later whatever the values' bits", "[last_block_sum]") {
  // The waiting loop stops at call_of(word) >= call: the low bits must never carry into the number.
  for (std::uint64_t call = 1; call < 6; ++call) {
    CHECK(call_of(partial_word(call, 0xFFFFFFFFu)) < call_of(partial_word(call + 1, 0)));
    CHECK(call_of(partial_word(call, 0xFFFFFFFFu)) == call);
  }
  CHECK(call_of(0) == 0);  // a zeroed word is older than call 1
}

TEST_CASE("each rank's array gives every rank a word of its own, in halves that alternate by call",
          "[last_block_sum]") {
  for (int p = 1; p <= 9; ++p) {
    std::set<int> slots;
    for (std::uint64_t call = 1; call <= 2; ++call)
      for (int from = 0; from < p; ++from) {
        const int slot = exchange_slot(call, p, from);
        CHECK(slot >= 0);
        CHECK(slot < exchange_words(p));
        slots.insert(slot);
        CHECK(exchange_slot(call + 2, p, from) == slot);  // call k + 2 reuses call k's word
      }
    INFO("p = " << p);
    CHECK(static_cast<int>(slots.size()) == exchange_words(p));  // two consecutive calls never collide
  }
}

TEST_CASE("the last-block ending runs one rank per GPU and refuses ranks sharing one", "[last_block_sum]") {
  CHECK(last_block_sum_refusal(1, 1).empty());
  CHECK(last_block_sum_refusal(4, 4).empty());
  CHECK(last_block_sum_refusal(3, 1) ==
        "3 ranks share 1 GPU: a last block that waits for a rank queued behind it on its own GPU would wait "
        "forever");
  // Refused before any memory is made, so this needs no GPU.
  CHECK_THROWS_AS(LastBlockSum({0, 1}, {0, 0}, 2, {}), std::runtime_error);
}
