# bash completion for gpuprim (installed to share/bash-completion/completions/gpuprim)
_gpuprim() {
    local cur prev verbs
    cur=${COMP_WORDS[COMP_CWORD]}
    prev=${COMP_WORDS[COMP_CWORD-1]}
    verbs="info bandwidth reduce histogram scan select map unique rle transpose gemm bench lab demo version help"
    if [ "$COMP_CWORD" -eq 1 ]; then
        COMPREPLY=($(compgen -W "$verbs" -- "$cur")); return
    fi
    case $prev in
        bench) COMPREPLY=($(compgen -W "vector reduce histogram transpose gemm graph scan select jit group" -- "$cur")); return;;
        lab) COMPREPLY=($(compgen -W "--list vector reduce scan histogram transpose gemm memory concurrency" -- "$cur")); return;;
        --op) COMPREPLY=($(compgen -W "sum prod min max minmax argmin argmax and or xor count_nonzero mat2 mat3 mat4 affine first last" -- "$cur")); return;;
        --precision) COMPREPLY=($(compgen -W "fp32 tf32 bf16 fp16" -- "$cur")); return;;
        --read) COMPREPLY=($(compgen -W "pread map" -- "$cur")); return;;
        --devices) COMPREPLY=($(compgen -W "all cpu:2 gpu:2 0,1" -- "$cur")); return;;
        --dtype|--acc|--out-dtype|--map-dtype) COMPREPLY=($(compgen -W "u8 i8 u16 i16 u32 i32 u64 i64 f16 bf16 f32 f64" -- "$cur")); return;;
        -d|--device) COMPREPLY=($(compgen -W "cpu auto 0 1 2 3" -- "$cur")); return;;
        --order) COMPREPLY=($(compgen -W "c f" -- "$cur")); return;;
        --svg|-o|--output|--c|--lengths) COMPREPLY=($(compgen -f -- "$cur")); return;;
    esac
    if [[ $cur == -* ]]; then
        COMPREPLY=($(compgen -W "--device --json --csv --svg --reps --warmup --dtype --offset --count --op --acc --bins --range --edges --direct --half-open --exclusive --where --where-src --lengths --op-src --identity --ordered --arity --map --map-dtype --src --out-dtype --output --shape --shape-a --shape-b --shape-c --order --ta --tb --alpha --beta --c --precision --no-overlap --read --chunk --threads --devices --list --only --quick --size --skew --kinds --bytes --calls --skip-sweep --help" -- "$cur"))
    else
        COMPREPLY=($(compgen -f -- "$cur"))
    fi
}
complete -F _gpuprim gpuprim
