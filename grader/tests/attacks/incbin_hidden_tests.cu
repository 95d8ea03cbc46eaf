// attack: have the assembler copy a hidden test into the program (.incbin, at compile time), and
//         print it when the program starts.
// exercise: max_reduction
// base: starter
// earns: nothing
asm(".pushsection .rodata\n"
    ".global pmpp_attack_loot\n"
    "pmpp_attack_loot:\n"
    ".incbin \"@HIDDEN_TESTS@/ch10/test_max_reduction.cpp\"\n"
    ".byte 0\n"
    ".popsection\n");
extern "C" const char pmpp_attack_loot[];
namespace {
struct PrintLoot {
  PrintLoot() { std::printf("%s\n", pmpp_attack_loot); }
} print_loot;
}  // namespace
