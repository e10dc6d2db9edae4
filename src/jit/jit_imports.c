/*
 * jit_imports.c — what a compiled CPU operator may call. Before a shared object the host compiler made (or the disk
 * cache holds) is loaded, its undefined dynamic symbols are read from the ELF and each must be a C math function or
 * one the templates use themselves (malloc, free, memcpy, ...); anything else — exit, abort, system, a misspelt
 * name — refuses the operator with GP_ERR_COMPILE naming the symbol, before any of it runs (docs/design/jit.md).
 * This closes the calls a line of C names; it is no sandbox (code run as the caller can still make a system call
 * itself), which the header's SECURITY note says.
 */
#define _GNU_SOURCE
#include "jit_internal.h"

#include <elf.h>
#include <string.h>

/* the C99 <math.h> functions, each also with the suffixes f and l */
static const char *const k_math[] = {
    "acos",   "asin",      "atan",     "atan2",    "cos",     "sin",    "tan",    "acosh",     "asinh",   "atanh",
    "cosh",   "sinh",      "tanh",     "exp",      "exp2",    "expm1",  "frexp",  "ilogb",     "ldexp",   "log",
    "log10",  "log1p",     "log2",     "logb",     "modf",    "scalbn", "scalbln", "cbrt",     "fabs",    "hypot",
    "pow",    "sqrt",      "erf",      "erfc",     "lgamma",  "tgamma", "ceil",   "floor",     "nearbyint", "rint",
    "lrint",  "llrint",    "round",    "lround",   "llround", "trunc",  "fmod",   "remainder", "remquo",  "copysign",
    "nan",    "nextafter", "nexttoward", "fdim",   "fmax",    "fmin",   "fma",    "sincos",    "exp10"};
/* what the templates and the compiler's own code generation call, and glibc's spellings of classification macros */
static const char *const k_runtime[] = {"malloc",       "calloc",       "realloc",      "free",          "memcpy",
                                        "memmove",      "memset",       "memcmp",       "__stack_chk_fail",
                                        "__memcpy_chk", "__memmove_chk", "__memset_chk", "__isnan",      "__isnanf",
                                        "__isinf",      "__isinff",     "__finite",     "__finitef",     "__fpclassify",
                                        "__fpclassifyf", "__signbit",    "__signbitf"};

static int allowed(const char *s, size_t len)
{
    for (size_t i = 0; i < sizeof k_runtime / sizeof k_runtime[0]; i++)
        if (strlen(k_runtime[i]) == len && memcmp(k_runtime[i], s, len) == 0) return 1;
    for (size_t i = 0; i < sizeof k_math / sizeof k_math[0]; i++) {
        const size_t m = strlen(k_math[i]);
        if (len >= m && len <= m + 1 && memcmp(k_math[i], s, m) == 0 &&
            (len == m || s[m] == 'f' || s[m] == 'l'))
            return 1;
    }
    return 0;
}

/* bytes [off, off + len) lie within the object of n bytes */
static int within(size_t n, uint64_t off, uint64_t len) { return off <= n && len <= n - off; }

gp_status_t gp__jit_check_imports(const char *what, const void *obj, size_t n)
{
    const unsigned char *b = obj;
    Elf64_Ehdr eh;
    if (!obj || n < sizeof eh || memcmp(b, ELFMAG, SELFMAG) != 0 || b[EI_CLASS] != ELFCLASS64 ||
        b[EI_DATA] != ELFDATA2LSB)
        return gp__error(GP_ERR_COMPILE, "%s: the compiled operator is not a 64-bit little-endian ELF object", what);
    memcpy(&eh, b, sizeof eh);
    if (eh.e_shentsize != sizeof(Elf64_Shdr) || !within(n, eh.e_shoff, (uint64_t)eh.e_shnum * sizeof(Elf64_Shdr)))
        return gp__error(GP_ERR_COMPILE, "%s: the compiled operator's section table lies outside it", what);
    int dynsyms = 0;
    for (unsigned i = 0; i < eh.e_shnum; i++) {
        Elf64_Shdr sh, strh;
        memcpy(&sh, b + eh.e_shoff + (uint64_t)i * sizeof sh, sizeof sh);
        if (sh.sh_type != SHT_DYNSYM) continue;
        dynsyms++;
        if (sh.sh_entsize != sizeof(Elf64_Sym) || sh.sh_link >= eh.e_shnum || !within(n, sh.sh_offset, sh.sh_size))
            return gp__error(GP_ERR_COMPILE, "%s: the compiled operator's symbol table lies outside it", what);
        memcpy(&strh, b + eh.e_shoff + (uint64_t)sh.sh_link * sizeof strh, sizeof strh);
        if (!within(n, strh.sh_offset, strh.sh_size))
            return gp__error(GP_ERR_COMPILE, "%s: the compiled operator's string table lies outside it", what);
        const char *str = (const char *)b + strh.sh_offset;
        for (uint64_t k = 1; k < sh.sh_size / sizeof(Elf64_Sym); k++) {
            Elf64_Sym sym;
            memcpy(&sym, b + sh.sh_offset + k * sizeof sym, sizeof sym);
            if (sym.st_shndx != SHN_UNDEF || ELF64_ST_BIND(sym.st_info) == STB_WEAK || sym.st_name == 0) continue;
            if (sym.st_name >= strh.sh_size)
                return gp__error(GP_ERR_COMPILE, "%s: a symbol's name lies outside the compiled operator", what);
            const char *s = str + sym.st_name;
            const size_t len = strnlen(s, strh.sh_size - sym.st_name);
            if (len == strh.sh_size - sym.st_name)
                return gp__error(GP_ERR_COMPILE, "%s: a symbol's name runs past the compiled operator", what);
            if (!allowed(s, len))
                return gp__error(GP_ERR_COMPILE, "%s: the operator calls '%.*s', which is not a C math function: an "
                                 "operator may call only <math.h>'s functions (docs/design/jit.md)", what,
                                 (int)(len > 200 ? 200 : len), s);
        }
    }
    if (dynsyms == 0)
        return gp__error(GP_ERR_COMPILE, "%s: the compiled operator has no dynamic symbol table", what);
    return GP_OK;
}
