/*
 * histogram_pick.cuh — GPH_PICK(NAME, EXTRA): the kernel NAME<kind, T EXTRA> for a (kind, dtype) pair, or NULL for
 * a pair no binner serves (IDENT, LUT: u8 u16; INT: the integer dtypes; F32: u8 u16 f32; F64 and RANGE: all six).
 * EXTRA: further template arguments, each after GPH_COMMA. Used inside a function with `int kind` and `gp_dtype_t dt` in scope.
 */
#ifndef GP_HISTOGRAM_PICK_CUH
#define GP_HISTOGRAM_PICK_CUH

#define GPH_COMMA ,
#define GPH_K(NAME, K, T, ...) return (const void *)NAME<K, T __VA_ARGS__>
#define GPH_PICK(NAME, EXTRA)                                                                                         \
    switch (kind) {                                                                                                   \
    case K_IDENT:                                                                                                     \
        if (dt == GP_U8) GPH_K(NAME, K_IDENT, uint8_t, EXTRA);                                                        \
        if (dt == GP_U16) GPH_K(NAME, K_IDENT, uint16_t, EXTRA);                                                      \
        return NULL;                                                                                                  \
    case K_INT:                                                                                                       \
        if (dt == GP_U8) GPH_K(NAME, K_INT, uint8_t, EXTRA);                                                          \
        if (dt == GP_U16) GPH_K(NAME, K_INT, uint16_t, EXTRA);                                                        \
        if (dt == GP_I32) GPH_K(NAME, K_INT, int32_t, EXTRA);                                                         \
        if (dt == GP_U32) GPH_K(NAME, K_INT, uint32_t, EXTRA);                                                        \
        return NULL;                                                                                                  \
    case K_F32:                                                                                                       \
        if (dt == GP_U8) GPH_K(NAME, K_F32, uint8_t, EXTRA);                                                          \
        if (dt == GP_U16) GPH_K(NAME, K_F32, uint16_t, EXTRA);                                                        \
        if (dt == GP_F32) GPH_K(NAME, K_F32, float, EXTRA);                                                           \
        return NULL;                                                                                                  \
    case K_LUT:                                                                                                       \
        if (dt == GP_U8) GPH_K(NAME, K_LUT, uint8_t, EXTRA);                                                          \
        if (dt == GP_U16) GPH_K(NAME, K_LUT, uint16_t, EXTRA);                                                        \
        return NULL;                                                                                                  \
    case K_F64:                                                                                                       \
    case K_RANGE:                                                                                                     \
        if (kind == K_F64) {                                                                                          \
            if (dt == GP_U8) GPH_K(NAME, K_F64, uint8_t, EXTRA);                                                      \
            if (dt == GP_U16) GPH_K(NAME, K_F64, uint16_t, EXTRA);                                                    \
            if (dt == GP_I32) GPH_K(NAME, K_F64, int32_t, EXTRA);                                                     \
            if (dt == GP_U32) GPH_K(NAME, K_F64, uint32_t, EXTRA);                                                    \
            if (dt == GP_F32) GPH_K(NAME, K_F64, float, EXTRA);                                                       \
            if (dt == GP_F64) GPH_K(NAME, K_F64, double, EXTRA);                                                      \
        } else {                                                                                                      \
            if (dt == GP_U8) GPH_K(NAME, K_RANGE, uint8_t, EXTRA);                                                    \
            if (dt == GP_U16) GPH_K(NAME, K_RANGE, uint16_t, EXTRA);                                                  \
            if (dt == GP_I32) GPH_K(NAME, K_RANGE, int32_t, EXTRA);                                                   \
            if (dt == GP_U32) GPH_K(NAME, K_RANGE, uint32_t, EXTRA);                                                  \
            if (dt == GP_F32) GPH_K(NAME, K_RANGE, float, EXTRA);                                                     \
            if (dt == GP_F64) GPH_K(NAME, K_RANGE, double, EXTRA);                                                    \
        }                                                                                                             \
        return NULL;                                                                                                  \
    default: return NULL;                                                                                             \
    }

#endif
