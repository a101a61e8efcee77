# bash completion for session-restore-ctl                  -*- shell-script -*-
# The keys, their values and the app ids come from the tool itself
# ("session-restore-ctl _complete …"), so they are never out of date.

_session_restore_ctl()
{
    local cur prev words cword
    if declare -F _init_completion >/dev/null; then
        _init_completion || return
    else
        cur=${COMP_WORDS[COMP_CWORD]}
        prev=${COMP_WORDS[COMP_CWORD-1]}
        words=("${COMP_WORDS[@]}")
        cword=$COMP_CWORD
    fi

    local prog=${words[0]}
    local commands="status list clear exclude include allow-recovery get set reset check monitor session help"

    if [[ $cword -eq 1 ]]; then
        COMPREPLY=($(compgen -W "$commands --help --version" -- "$cur"))
        return
    fi

    local command=${words[1]} args=() i
    # The positional arguments before the current word.
    for ((i = 2; i < cword; i++)); do
        [[ ${words[i]} == -* ]] || args+=("${words[i]}")
    done
    # An option's own argument is not positional.
    if [[ $command == check && ( $prev == --reason || $prev == -r ) ]]; then
        COMPREPLY=($(compgen -W "save launch recover restore" -- "$cur"))
        return
    fi
    if [[ $command == check && ( $prev == --saved-at || $prev == -s ) ]]; then
        return
    fi

    if [[ $cur == -* ]]; then
        local options="--help"
        case $command in
            status|list|exclude|include|allow-recovery|reset-crash-guard|set|reset|monitor)
                options+=" --json" ;;
            get) options+=" --gvariant --json" ;;
            clear) options+=" --json --yes" ;;
            check) options+=" --json --reason --saved-at" ;;
        esac
        COMPREPLY=($(compgen -W "$options" -- "$cur"))
        return
    fi

    local IFS=$'\n'
    case $command in
        get)
            [[ ${#args[@]} -eq 0 ]] &&
                COMPREPLY=($(compgen -W "$("$prog" _complete keys 2>/dev/null)" -- "$cur"))
            ;;
        reset)
            [[ ${#args[@]} -eq 0 ]] &&
                COMPREPLY=($(compgen -W "$("$prog" _complete settable 2>/dev/null)" -- "$cur"))
            ;;
        set)
            if [[ ${#args[@]} -eq 0 ]]; then
                COMPREPLY=($(compgen -W "$("$prog" _complete settable 2>/dev/null)" -- "$cur"))
            elif [[ ${#args[@]} -eq 1 ]]; then
                COMPREPLY=($(compgen -W "$("$prog" _complete values "${args[0]}" 2>/dev/null)" -- "$cur"))
            fi
            ;;
        include)
            COMPREPLY=($(compgen -W "$("$prog" _complete excluded 2>/dev/null)" -- "$cur"))
            ;;
        # reset-crash-guard: allow-recovery's old name, still accepted.
        list|clear|exclude|reset-crash-guard|allow-recovery)
            COMPREPLY=($(compgen -W "$("$prog" _complete apps 2>/dev/null)" -- "$cur"))
            ;;
        check)
            [[ ${#args[@]} -eq 0 ]] &&
                COMPREPLY=($(compgen -W "$("$prog" _complete apps 2>/dev/null)" -- "$cur"))
            ;;
        session)
            [[ ${#args[@]} -eq 0 ]] && COMPREPLY=($(compgen -W "end prepare" -- "$cur"))
            ;;
        help)
            [[ ${#args[@]} -eq 0 ]] &&
                COMPREPLY=($(IFS=' '; compgen -W "$commands" -- "$cur"))
            ;;
    esac
} &&
    complete -F _session_restore_ctl session-restore-ctl

# ex: filetype=sh
