# bash completion for qkv. Commands come from `qkv --help`, lesson names from `qkv list` and
# exercise ids from `qkv exercises --ids`, so the completion never falls behind the program.
_qkv() {
    local cur prev words cword
    if declare -F _init_completion >/dev/null; then
        _init_completion || return
    else
        cur=${COMP_WORDS[COMP_CWORD]}; prev=${COMP_WORDS[COMP_CWORD-1]}; words=("${COMP_WORDS[@]}"); cword=$COMP_CWORD
    fi
    local qkv=${words[0]}
    if [[ $cword -eq 1 ]]; then
        local cmds
        cmds=$("$qkv" --help 2>/dev/null | awk '/^Commands:/{on=1; next} on && /^  [a-z]/{print $1} on && /^$/{on=0}')
        COMPREPLY=($(compgen -W "$cmds help --help --version" -- "$cur"))
        return
    fi
    case $prev in
        --lang) COMPREPLY=($(compgen -W "zh en" -- "$cur")); return ;;
        --color) COMPREPLY=($(compgen -W "auto always never" -- "$cur")); return ;;
        --kernels) COMPREPLY=($(compgen -W "avx512 avx2 neon plain" -- "$cur")); return ;;
        --task) COMPREPLY=($(compgen -W "induction reverse copy" -- "$cur")); return ;;
        --format)  # the formats the command's own --help names, so none it refuses is offered
            local formats
            formats=$("$qkv" "${words[1]}" --help 2>/dev/null | grep -E -- '^ *--format ' | grep -oE '\<(text|markdown|json|html|csv)\>' | awk '!seen[$0]++')
            COMPREPLY=($(compgen -W "${formats:-text}" -- "$cur")); return ;;
        --data|-o|--output|--file|--save|--load|--scenario|--assignment) COMPREPLY=($(compgen -f -- "$cur")); return ;;
        --precision|--stage|--auto|--d-model|--heads|--seed|--tokens|--student|--lesson) return ;;
        --vocab|--seq|--layers|--segment|--steps|--batch|--lr|--warmup|--beta1|--beta2|--eps|--clip) return ;;
        --init-embedding|--init-position|--init-gain|--threads|--checkpoint-every|--layer) return ;;
    esac
    local cmd=${words[1]}
    if [[ $cur == -* ]]; then
        local opts
        opts=$("$qkv" "$cmd" --help 2>/dev/null | grep -oE -- '--[a-z][a-z-]*' | sort -u)
        COMPREPLY=($(compgen -W "$opts" -- "$cur"))
        return
    fi
    case $cmd in
        lesson)
            local names
            names=$("$qkv" list --lang en 2>/dev/null | awk '{print $1; print $2}')
            COMPREPLY=($(compgen -W "$names all" -- "$cur")) ;;
        help)
            local cmds
            cmds=$("$qkv" --help 2>/dev/null | awk '/^Commands:/{on=1; next} on && /^  [a-z]/{print $1} on && /^$/{on=0}')
            COMPREPLY=($(compgen -W "$cmds" -- "$cur")) ;;
        exercise|check|hint|solution)
            if [[ $cword -eq 2 ]]; then
                COMPREPLY=($(compgen -W "$("$qkv" exercises --ids 2>/dev/null)" -- "$cur"))
            fi ;;
        run|validate|grade)
            COMPREPLY=($(compgen -f -X '!*.toml' -- "$cur") $(compgen -d -- "$cur")) ;;
    esac
}
complete -F _qkv qkv
