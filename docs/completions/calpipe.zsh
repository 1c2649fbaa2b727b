#compdef calpipe

__calpipe_complete() {
    local -ar non_empty_completions=("${@:#(|:*)}")
    local -ar empty_completions=("${(M)@:#(|:*)}")
    _describe -V '' non_empty_completions -- empty_completions -P $'\'\''
}

__calpipe_custom_complete() {
    local -a completions
    completions=("${(@f)"$("${command_name}" "${@}" "${command_line[@]}")"}")
    if [[ "${#completions[@]}" -gt 1 ]]; then
        __calpipe_complete "${completions[@]:0:-1}"
    fi
}

__calpipe_cursor_index_in_current_word() {
    if [[ -z "${QIPREFIX}${IPREFIX}${PREFIX}" ]]; then
        printf 0
    else
        printf %s "${#${(z)LBUFFER}[-1]}"
    fi
}

_calpipe() {
    emulate -RL zsh -G
    setopt extendedglob nullglob numericglobsort
    unsetopt aliases banghist

    local -xr SAP_SHELL=zsh
    local -x SAP_SHELL_VERSION
    SAP_SHELL_VERSION="$(builtin emulate zsh -c 'printf %s "${ZSH_VERSION}"')"
    local -r SAP_SHELL_VERSION

    local context state state_descr line
    local -A opt_args

    local -r command_name="${words[1]}"
    local -ar command_line=("${words[@]}")
    local -ir current_word_index="$((CURRENT - 1))"

    local -i ret=1
    local -ar arg_specs=(
        '--version[Show the version.]'
        '(-h --help)'{-h,--help}'[Show help information.]'
        '(-): :->command'
        '(-)*:: :->arg'
    )
    _arguments -w -s -S : "${arg_specs[@]}" && ret=0
    case "${state}" in
    command)
        local -ar subcommands=(
            'run:Run a pipeline file.'
            'validate:Check a pipeline file without running it.'
            'convert:Convert one calendar file to another format, optionally expanded and split into days.'
            'plugins:List the sources, stages and sinks a pipeline can use.'
            'schema:Print a JSON Schema of pipeline files, made from every plugin'\''s declared options.'
            'query:Print the agenda stored in a database written by the sqlite sink.'
            'agenda:Print the agenda of a pipeline or of a database in the terminal.'
            'state:Print the state the plugins of a pipeline kept from its last successful run, as JSON.'
            'serve:Run pipelines on their refresh intervals and serve their outputs over HTTP.'
            'help:Show subcommand help information.'
        )
        _describe -V subcommand subcommands && ret=0
        ;;
    arg)
        case "${words[1]}" in
        run|validate|convert|plugins|schema|query|agenda|state|serve|help)
            "_calpipe_${words[1]}" && ret=0
            ;;
        esac
        ;;
    esac

    return "${ret}"
}

_calpipe_run() {
    local -i ret=1
    local -ar ___log_level=('debug' 'info' 'warning' 'error')
    local -ar ___log_format=('text' 'json')
    local -ar arg_specs=(
        ':pipeline:'
        '*--set[Put VALUE at KEY in the pipeline file before it is read (repeatable)\: window.from=today-1d, sinks\[0\].path=out/a.json.]:KEY=VALUE:'
        '--dry-run[Read and process everything, but write nothing.]'
        '(--quiet -q)'{--quiet,-q}'[Print nothing but errors.]'
        '--strict[Fail (exit 1, nothing written) when any record is rejected.]'
        '--wait[Wait up to this many seconds for another run of the same pipeline or into the same database to end (default\: exit at once, naming it).]:seconds:'
        '--full[Read and write every source and event, also those that did not change since the last run.]'
        '--offline[Use only the HTTP cache\: no request is made; a URL with nothing cached fails.]'
        '--rejected[Append every rejected record to this file, one JSON line each with its reason, source, file, line and raw text (instead of the pipeline'\''s "rejected").]:file:'
        '--shard[Run only the sources in shard K of N (by a stable hash of each source'\''s name; every source is in exactly one shard). The sinks keep the rows of the other sources.]:K/N:'
        '--log-level[Least important messages shown\: debug, info, warning or error.]:level:{__calpipe_complete "${___log_level[@]}"}'
        '--log-format[text (lines for people) or json (one object per line\: time, level, message, source, file, line).]:format:{__calpipe_complete "${___log_format[@]}"}'
        '--summary-json[Also write the summary as JSON to FILE\: counts, seconds per source, stage and sink, warnings, exit code and reason.]:file:'
        '--version[Show the version.]'
        '(-h --help)'{-h,--help}'[Show help information.]'
    )
    _arguments -w -s -S : "${arg_specs[@]}" && ret=0

    return "${ret}"
}

_calpipe_validate() {
    local -i ret=1
    local -ar arg_specs=(
        ':pipeline:'
        '*--set[Put VALUE at KEY in the pipeline file before it is read (repeatable)\: window.from=today-1d, sinks\[0\].path=out/a.json.]:KEY=VALUE:'
        '--version[Show the version.]'
        '(-h --help)'{-h,--help}'[Show help information.]'
    )
    _arguments -w -s -S : "${arg_specs[@]}" && ret=0

    return "${ret}"
}

_calpipe_convert() {
    local -i ret=1
    local -ar ___log_level=('debug' 'info' 'warning' 'error')
    local -ar ___log_format=('text' 'json')
    local -ar arg_specs=(
        ':input:'
        '(--output -o)'{--output,-o}'[Output file, or - for standard output.]:output:'
        '--format[Input format (a source type such as ics or json); default\: from the input'\''s content, then its extension.]:format:'
        '--output-format[Output format (a sink type such as ics or json); default\: from the output'\''s extension.]:output-format:'
        '--from[First day of the window (YYYY-MM-DD, today, today+Nd, today-Nw).]:from:'
        '--to[Day after the last day of the window (exclusive).]:to:'
        '--tz[Output time zone (IANA name); default\: $TZ, then the system zone.]:tz:'
        '--shape[For JSON output\: days, events or occurrences.]:shape:'
        '--max-day-entries[With days\: the most day entries one series or event may make (the split stage'\''s max_day_entries; default 100000).]:n:'
        '(--quiet -q)'{--quiet,-q}'[Print nothing but errors.]'
        '--strict[Fail (exit 1, nothing written) when any record is rejected.]'
        '--log-level[Least important messages shown\: debug, info, warning or error.]:level:{__calpipe_complete "${___log_level[@]}"}'
        '--log-format[text (lines for people) or json (one object per line\: time, level, message, source, file, line).]:format:{__calpipe_complete "${___log_format[@]}"}'
        '--summary-json[Also write the summary as JSON to FILE\: counts, seconds per source, stage and sink, warnings, exit code and reason.]:file:'
        '--version[Show the version.]'
        '(-h --help)'{-h,--help}'[Show help information.]'
    )
    _arguments -w -s -S : "${arg_specs[@]}" && ret=0

    return "${ret}"
}

_calpipe_plugins() {
    local -i ret=1
    local -ar arg_specs=(
        '--json[Print the list as JSON for machines.]'
        '--version[Show the version.]'
        '(-h --help)'{-h,--help}'[Show help information.]'
    )
    _arguments -w -s -S : "${arg_specs[@]}" && ret=0

    return "${ret}"
}

_calpipe_schema() {
    local -i ret=1
    local -ar arg_specs=(
        '--version[Show the version.]'
        '(-h --help)'{-h,--help}'[Show help information.]'
    )
    _arguments -w -s -S : "${arg_specs[@]}" && ret=0

    return "${ret}"
}

_calpipe_query() {
    local -i ret=1
    local -ar arg_specs=(
        ':database:'
        '--day[Show this day (with --days, the first of them).]:day:'
        '--days[Show this many days (from --day, else from today).]:days:'
        '--from[Show days from this one on.]:from:'
        '--to[Show days before this one (exclusive).]:to:'
        '--width[Cut lines to this many characters (default\: the terminal'\''s width; no cut when not a terminal).]:width:'
        '--json[Print the days document (the json sink'\''s shape) instead of a table.]'
        '--version[Show the version.]'
        '(-h --help)'{-h,--help}'[Show help information.]'
    )
    _arguments -w -s -S : "${arg_specs[@]}" && ret=0

    return "${ret}"
}

_calpipe_agenda() {
    local -i ret=1
    local -ar ___color=('never' 'auto' 'always')
    local -ar arg_specs=(
        ':input:'
        '--from[First day to show (YYYY-MM-DD, today, today+Nd, today-Nw).]:from:'
        '--to[Day to stop before (exclusive).]:to:'
        '--color[Colours\: never, auto (a terminal without NO_COLOR) or always.]:color:{__calpipe_complete "${___color[@]}"}'
        '--width[Columns to fit (default\: the terminal'\''s width, else $COLUMNS, else 80).]:width:'
        '--locale[Language of weekday and month names (en, en-GB, de, ...).]:locale:'
        '*--set[Put VALUE at KEY in the pipeline file before it is read (repeatable)\: window.from=today-1d, sources\[0\].path=feeds/team.ics.]:KEY=VALUE:'
        '--version[Show the version.]'
        '(-h --help)'{-h,--help}'[Show help information.]'
    )
    _arguments -w -s -S : "${arg_specs[@]}" && ret=0

    return "${ret}"
}

_calpipe_state() {
    local -i ret=1
    local -ar arg_specs=(
        ':pipeline:'
        '--version[Show the version.]'
        '(-h --help)'{-h,--help}'[Show help information.]'
    )
    _arguments -w -s -S : "${arg_specs[@]}" && ret=0

    return "${ret}"
}

_calpipe_serve() {
    local -i ret=1
    local -ar arg_specs=(
        '*:pipelines:'
        '--listen[Where to listen\: PORT (on 127.0.0.1), HOST\:PORT or \[IPv6\]\:PORT; port 0\: any free port.]:address:'
        '--refresh[Run a pipeline without serve.refresh this often\: 30s, 15m, 1h.]:interval:'
        '--version[Show the version.]'
        '(-h --help)'{-h,--help}'[Show help information.]'
    )
    _arguments -w -s -S : "${arg_specs[@]}" && ret=0

    return "${ret}"
}

_calpipe_help() {
    local -i ret=1
    local -ar arg_specs=(
        '*:subcommands:'
        '--version[Show the version.]'
    )
    _arguments -w -s -S : "${arg_specs[@]}" && ret=0

    return "${ret}"
}

if [[ "${funcstack[1]}" = _calpipe ]]; then
    _calpipe "${@}"
else
    compdef _calpipe calpipe
fi
