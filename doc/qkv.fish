# fish completion for qkv, read as the bash one is: commands from `qkv --help`, lesson names from
# `qkv list`, exercise ids from `qkv exercises --ids`, a command's options from its --help.
function __qkv_bin
    set -l words (commandline -opc)
    echo $words[1]
end

function __qkv_commands
    set -l q (__qkv_bin)
    $q --help 2>/dev/null | awk '/^Commands:/{on=1; next} on && /^  [a-z]/{print $1} on && /^$/{on=0}'
end

function __qkv_command
    set -l words (commandline -opc)
    test (count $words) -ge 2; and echo $words[2]
end

function __qkv_options
    set -l q (__qkv_bin)
    $q (__qkv_command) --help 2>/dev/null | string match -ar -- '--[a-z][a-z-]*' | sort -u
end

function __qkv_lessons
    set -l q (__qkv_bin)
    $q list --lang en 2>/dev/null | awk '{print $1; print $2}'
    echo all
end

function __qkv_ids
    set -l q (__qkv_bin)
    $q exercises --ids 2>/dev/null | string split " "
end

# the formats the command's own --help names, so none it refuses is offered
function __qkv_formats
    set -l q (__qkv_bin)
    $q (__qkv_command) --help 2>/dev/null | string match -r -- '^ *--format .*' | string match -ar '\b(?:text|markdown|json|html|csv)\b' | awk '!seen[$0]++'
end

complete -c qkv -f
complete -c qkv -n __fish_use_subcommand -a '(__qkv_commands) help'
complete -c qkv -n '__fish_seen_subcommand_from help' -a '(__qkv_commands)'
complete -c qkv -n '__fish_seen_subcommand_from lesson' -a '(__qkv_lessons)'
complete -c qkv -n '__fish_seen_subcommand_from exercise check hint solution; and test (count (commandline -opc)) -eq 2' -a '(__qkv_ids)'
complete -c qkv -n '__fish_seen_subcommand_from run validate grade' -F
complete -c qkv -n 'not __fish_use_subcommand; and string match -q -- "-*" (commandline -ct)' -a '(__qkv_options)'
complete -c qkv -l lang -x -a 'zh en'
complete -c qkv -l color -x -a 'auto always never'
complete -c qkv -l kernels -x -a 'avx512 avx2 neon plain'
complete -c qkv -l task -x -a 'induction reverse copy'
complete -c qkv -l format -x -a '(__qkv_formats)'
complete -c qkv -l data -r -F
complete -c qkv -s o -l output -r -F
complete -c qkv -l file -r -F
complete -c qkv -l assignment -r -F
