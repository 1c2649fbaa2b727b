function __calpipe_should_offer_completions_for_flags_or_options -a expected_commands
    set -l non_repeating_flags_or_options $argv[2..]
    set -l non_repeating_flags_or_options_absent 0
    set -l positional_index 0
    set -l commands
    __calpipe_parse_tokens
    test "$commands" = "$expected_commands"; and return $non_repeating_flags_or_options_absent
end

function __calpipe_should_offer_completions_for_positional -a expected_commands positional_index_comparison expected_positional_index
    set -l non_repeating_flags_or_options
    set -l non_repeating_flags_or_options_absent 0
    set -l positional_index 0
    set -l commands
    __calpipe_parse_tokens
    test "$commands" = "$expected_commands" -a \( "$positional_index" "$positional_index_comparison" "$expected_positional_index" \)
end

function __calpipe_parse_tokens -S
    set -l unparsed_tokens (__calpipe_tokens -pc)
    switch $unparsed_tokens[1]
    case 'calpipe'
        __calpipe_parse_subcommand 0 'version' 'h/help'
        switch $unparsed_tokens[1]
        case 'run'
            __calpipe_parse_subcommand 1 'set=+' 'dry-run' 'q/quiet' 'strict' 'wait=' 'full' 'offline' 'rejected=' 'shard=' 'log-level=' 'log-format=' 'summary-json=' 'version' 'h/help'
        case 'validate'
            __calpipe_parse_subcommand 1 'set=+' 'version' 'h/help'
        case 'convert'
            __calpipe_parse_subcommand 1 'o/output=' 'format=' 'output-format=' 'from=' 'to=' 'tz=' 'shape=' 'max-day-entries=' 'q/quiet' 'strict' 'log-level=' 'log-format=' 'summary-json=' 'version' 'h/help'
        case 'plugins'
            __calpipe_parse_subcommand 0 'json' 'version' 'h/help'
        case 'schema'
            __calpipe_parse_subcommand 0 'version' 'h/help'
        case 'query'
            __calpipe_parse_subcommand 1 'day=' 'days=' 'from=' 'to=' 'width=' 'json' 'version' 'h/help'
        case 'agenda'
            __calpipe_parse_subcommand 1 'from=' 'to=' 'color=' 'width=' 'locale=' 'set=+' 'version' 'h/help'
        case 'state'
            __calpipe_parse_subcommand 1 'version' 'h/help'
        case 'serve'
            __calpipe_parse_subcommand -r 1 'listen=' 'refresh=' 'version' 'h/help'
        case 'help'
            __calpipe_parse_subcommand -r 1 'version'
        end
    end
end

function __calpipe_tokens
    if test (string split -m 1 -f 1 -- . "$FISH_VERSION") -gt 3
        commandline --tokens-raw $argv
    else
        commandline -o $argv
    end
end

function __calpipe_parse_subcommand -S -a positional_count
    argparse -s r -- $argv
    set -l option_specs $argv[2..]
    set -l is_repeating_positional $_flag_r
    set -el _flag_r
    set -a commands $unparsed_tokens[1]
    set positional_index 0
    while true
        set -e unparsed_tokens[1]
        argparse -sn "$commands" $option_specs -- $unparsed_tokens 2> /dev/null
        set unparsed_tokens $argv
        set positional_index (math $positional_index + 1)
        for non_repeating_flag_or_option in $non_repeating_flags_or_options
            if set -ql "_flag_$(string replace -a - _ -- $non_repeating_flag_or_option)"
                set non_repeating_flags_or_options_absent 1
                break
            end
        end
        test (count $unparsed_tokens) -eq 0 -o \( -z "$is_repeating_positional" -a "$positional_index" -gt "$positional_count" \) && break
    end
end

function __calpipe_complete_directories
    set -l token (commandline -t)
    string match -- '*/' $token
    set -l subdirs $token*/
    printf %s\n $subdirs
end

function __calpipe_custom_completion
    set -x SAP_SHELL fish
    set -x SAP_SHELL_VERSION $FISH_VERSION
    set -l tokens (__calpipe_tokens -p)
    if test -z "$(__calpipe_tokens -t)"
        set -l index (count (__calpipe_tokens -pc))
        set tokens $tokens[..$index] \'\' $tokens[(math $index + 1)..]
    end
    command $tokens[1] $argv $tokens
end

complete -c 'calpipe' -f
complete -c 'calpipe' -n '__calpipe_should_offer_completions_for_flags_or_options "calpipe" version' -l 'version' -d 'Show the version.'
complete -c 'calpipe' -n '__calpipe_should_offer_completions_for_flags_or_options "calpipe" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'calpipe' -n '__calpipe_should_offer_completions_for_positional "calpipe" -eq 1' -fa 'run' -d 'Run a pipeline file.'
complete -c 'calpipe' -n '__calpipe_should_offer_completions_for_positional "calpipe" -eq 1' -fa 'validate' -d 'Check a pipeline file without running it.'
complete -c 'calpipe' -n '__calpipe_should_offer_completions_for_positional "calpipe" -eq 1' -fa 'convert' -d 'Convert one calendar file to another format, optionally expanded and split into days.'
complete -c 'calpipe' -n '__calpipe_should_offer_completions_for_positional "calpipe" -eq 1' -fa 'plugins' -d 'List the sources, stages and sinks a pipeline can use.'
complete -c 'calpipe' -n '__calpipe_should_offer_completions_for_positional "calpipe" -eq 1' -fa 'schema' -d 'Print a JSON Schema of pipeline files, made from every plugin\'s declared options.'
complete -c 'calpipe' -n '__calpipe_should_offer_completions_for_positional "calpipe" -eq 1' -fa 'query' -d 'Print the agenda stored in a database written by the sqlite sink.'
complete -c 'calpipe' -n '__calpipe_should_offer_completions_for_positional "calpipe" -eq 1' -fa 'agenda' -d 'Print the agenda of a pipeline or of a database in the terminal.'
complete -c 'calpipe' -n '__calpipe_should_offer_completions_for_positional "calpipe" -eq 1' -fa 'state' -d 'Print the state the plugins of a pipeline kept from its last successful run, as JSON.'
complete -c 'calpipe' -n '__calpipe_should_offer_completions_for_positional "calpipe" -eq 1' -fa 'serve' -d 'Run pipelines on their refresh intervals and serve their outputs over HTTP.'
complete -c 'calpipe' -n '__calpipe_should_offer_completions_for_positional "calpipe" -eq 1' -fa 'help' -d 'Show subcommand help information.'
complete -c 'calpipe' -n '__calpipe_should_offer_completions_for_flags_or_options "calpipe run"' -l 'set' -d 'Put VALUE at KEY in the pipeline file before it is read (repeatable): window.from=today-1d, sinks[0].path=out/a.json.' -rfka ''
complete -c 'calpipe' -n '__calpipe_should_offer_completions_for_flags_or_options "calpipe run" dry-run' -l 'dry-run' -d 'Read and process everything, but write nothing.'
complete -c 'calpipe' -n '__calpipe_should_offer_completions_for_flags_or_options "calpipe run" q quiet' -l 'quiet' -s 'q' -d 'Print nothing but errors.'
complete -c 'calpipe' -n '__calpipe_should_offer_completions_for_flags_or_options "calpipe run" strict' -l 'strict' -d 'Fail (exit 1, nothing written) when any record is rejected.'
complete -c 'calpipe' -n '__calpipe_should_offer_completions_for_flags_or_options "calpipe run" wait' -l 'wait' -d 'Wait up to this many seconds for another run of the same pipeline or into the same database to end (default: exit at once, naming it).' -rfka ''
complete -c 'calpipe' -n '__calpipe_should_offer_completions_for_flags_or_options "calpipe run" full' -l 'full' -d 'Read and write every source and event, also those that did not change since the last run.'
complete -c 'calpipe' -n '__calpipe_should_offer_completions_for_flags_or_options "calpipe run" offline' -l 'offline' -d 'Use only the HTTP cache: no request is made; a URL with nothing cached fails.'
complete -c 'calpipe' -n '__calpipe_should_offer_completions_for_flags_or_options "calpipe run" rejected' -l 'rejected' -d 'Append every rejected record to this file, one JSON line each with its reason, source, file, line and raw text (instead of the pipeline\'s "rejected").' -rfka ''
complete -c 'calpipe' -n '__calpipe_should_offer_completions_for_flags_or_options "calpipe run" shard' -l 'shard' -d 'Run only the sources in shard K of N (by a stable hash of each source\'s name; every source is in exactly one shard). The sinks keep the rows of the other sources.' -rfka ''
complete -c 'calpipe' -n '__calpipe_should_offer_completions_for_flags_or_options "calpipe run" log-level' -l 'log-level' -d 'Least important messages shown: debug, info, warning or error.' -rfka 'debug info warning error'
complete -c 'calpipe' -n '__calpipe_should_offer_completions_for_flags_or_options "calpipe run" log-format' -l 'log-format' -d 'text (lines for people) or json (one object per line: time, level, message, source, file, line).' -rfka 'text json'
complete -c 'calpipe' -n '__calpipe_should_offer_completions_for_flags_or_options "calpipe run" summary-json' -l 'summary-json' -d 'Also write the summary as JSON to FILE: counts, seconds per source, stage and sink, warnings, exit code and reason.' -rfka ''
complete -c 'calpipe' -n '__calpipe_should_offer_completions_for_flags_or_options "calpipe run" version' -l 'version' -d 'Show the version.'
complete -c 'calpipe' -n '__calpipe_should_offer_completions_for_flags_or_options "calpipe run" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'calpipe' -n '__calpipe_should_offer_completions_for_flags_or_options "calpipe validate"' -l 'set' -d 'Put VALUE at KEY in the pipeline file before it is read (repeatable): window.from=today-1d, sinks[0].path=out/a.json.' -rfka ''
complete -c 'calpipe' -n '__calpipe_should_offer_completions_for_flags_or_options "calpipe validate" version' -l 'version' -d 'Show the version.'
complete -c 'calpipe' -n '__calpipe_should_offer_completions_for_flags_or_options "calpipe validate" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'calpipe' -n '__calpipe_should_offer_completions_for_flags_or_options "calpipe convert" o output' -l 'output' -s 'o' -d 'Output file, or - for standard output.' -rfka ''
complete -c 'calpipe' -n '__calpipe_should_offer_completions_for_flags_or_options "calpipe convert" format' -l 'format' -d 'Input format (a source type such as ics or json); default: from the input\'s content, then its extension.' -rfka ''
complete -c 'calpipe' -n '__calpipe_should_offer_completions_for_flags_or_options "calpipe convert" output-format' -l 'output-format' -d 'Output format (a sink type such as ics or json); default: from the output\'s extension.' -rfka ''
complete -c 'calpipe' -n '__calpipe_should_offer_completions_for_flags_or_options "calpipe convert" from' -l 'from' -d 'First day of the window (YYYY-MM-DD, today, today+Nd, today-Nw).' -rfka ''
complete -c 'calpipe' -n '__calpipe_should_offer_completions_for_flags_or_options "calpipe convert" to' -l 'to' -d 'Day after the last day of the window (exclusive).' -rfka ''
complete -c 'calpipe' -n '__calpipe_should_offer_completions_for_flags_or_options "calpipe convert" tz' -l 'tz' -d 'Output time zone (IANA name); default: $TZ, then the system zone.' -rfka ''
complete -c 'calpipe' -n '__calpipe_should_offer_completions_for_flags_or_options "calpipe convert" shape' -l 'shape' -d 'For JSON output: days, events or occurrences.' -rfka ''
complete -c 'calpipe' -n '__calpipe_should_offer_completions_for_flags_or_options "calpipe convert" max-day-entries' -l 'max-day-entries' -d 'With days: the most day entries one series or event may make (the split stage\'s max_day_entries; default 100000).' -rfka ''
complete -c 'calpipe' -n '__calpipe_should_offer_completions_for_flags_or_options "calpipe convert" q quiet' -l 'quiet' -s 'q' -d 'Print nothing but errors.'
complete -c 'calpipe' -n '__calpipe_should_offer_completions_for_flags_or_options "calpipe convert" strict' -l 'strict' -d 'Fail (exit 1, nothing written) when any record is rejected.'
complete -c 'calpipe' -n '__calpipe_should_offer_completions_for_flags_or_options "calpipe convert" log-level' -l 'log-level' -d 'Least important messages shown: debug, info, warning or error.' -rfka 'debug info warning error'
complete -c 'calpipe' -n '__calpipe_should_offer_completions_for_flags_or_options "calpipe convert" log-format' -l 'log-format' -d 'text (lines for people) or json (one object per line: time, level, message, source, file, line).' -rfka 'text json'
complete -c 'calpipe' -n '__calpipe_should_offer_completions_for_flags_or_options "calpipe convert" summary-json' -l 'summary-json' -d 'Also write the summary as JSON to FILE: counts, seconds per source, stage and sink, warnings, exit code and reason.' -rfka ''
complete -c 'calpipe' -n '__calpipe_should_offer_completions_for_flags_or_options "calpipe convert" version' -l 'version' -d 'Show the version.'
complete -c 'calpipe' -n '__calpipe_should_offer_completions_for_flags_or_options "calpipe convert" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'calpipe' -n '__calpipe_should_offer_completions_for_flags_or_options "calpipe plugins" json' -l 'json' -d 'Print the list as JSON for machines.'
complete -c 'calpipe' -n '__calpipe_should_offer_completions_for_flags_or_options "calpipe plugins" version' -l 'version' -d 'Show the version.'
complete -c 'calpipe' -n '__calpipe_should_offer_completions_for_flags_or_options "calpipe plugins" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'calpipe' -n '__calpipe_should_offer_completions_for_flags_or_options "calpipe schema" version' -l 'version' -d 'Show the version.'
complete -c 'calpipe' -n '__calpipe_should_offer_completions_for_flags_or_options "calpipe schema" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'calpipe' -n '__calpipe_should_offer_completions_for_flags_or_options "calpipe query" day' -l 'day' -d 'Show this day (with --days, the first of them).' -rfka ''
complete -c 'calpipe' -n '__calpipe_should_offer_completions_for_flags_or_options "calpipe query" days' -l 'days' -d 'Show this many days (from --day, else from today).' -rfka ''
complete -c 'calpipe' -n '__calpipe_should_offer_completions_for_flags_or_options "calpipe query" from' -l 'from' -d 'Show days from this one on.' -rfka ''
complete -c 'calpipe' -n '__calpipe_should_offer_completions_for_flags_or_options "calpipe query" to' -l 'to' -d 'Show days before this one (exclusive).' -rfka ''
complete -c 'calpipe' -n '__calpipe_should_offer_completions_for_flags_or_options "calpipe query" width' -l 'width' -d 'Cut lines to this many characters (default: the terminal\'s width; no cut when not a terminal).' -rfka ''
complete -c 'calpipe' -n '__calpipe_should_offer_completions_for_flags_or_options "calpipe query" json' -l 'json' -d 'Print the days document (the json sink\'s shape) instead of a table.'
complete -c 'calpipe' -n '__calpipe_should_offer_completions_for_flags_or_options "calpipe query" version' -l 'version' -d 'Show the version.'
complete -c 'calpipe' -n '__calpipe_should_offer_completions_for_flags_or_options "calpipe query" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'calpipe' -n '__calpipe_should_offer_completions_for_flags_or_options "calpipe agenda" from' -l 'from' -d 'First day to show (YYYY-MM-DD, today, today+Nd, today-Nw).' -rfka ''
complete -c 'calpipe' -n '__calpipe_should_offer_completions_for_flags_or_options "calpipe agenda" to' -l 'to' -d 'Day to stop before (exclusive).' -rfka ''
complete -c 'calpipe' -n '__calpipe_should_offer_completions_for_flags_or_options "calpipe agenda" color' -l 'color' -d 'Colours: never, auto (a terminal without NO_COLOR) or always.' -rfka 'never auto always'
complete -c 'calpipe' -n '__calpipe_should_offer_completions_for_flags_or_options "calpipe agenda" width' -l 'width' -d 'Columns to fit (default: the terminal\'s width, else $COLUMNS, else 80).' -rfka ''
complete -c 'calpipe' -n '__calpipe_should_offer_completions_for_flags_or_options "calpipe agenda" locale' -l 'locale' -d 'Language of weekday and month names (en, en-GB, de, ...).' -rfka ''
complete -c 'calpipe' -n '__calpipe_should_offer_completions_for_flags_or_options "calpipe agenda"' -l 'set' -d 'Put VALUE at KEY in the pipeline file before it is read (repeatable): window.from=today-1d, sources[0].path=feeds/team.ics.' -rfka ''
complete -c 'calpipe' -n '__calpipe_should_offer_completions_for_flags_or_options "calpipe agenda" version' -l 'version' -d 'Show the version.'
complete -c 'calpipe' -n '__calpipe_should_offer_completions_for_flags_or_options "calpipe agenda" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'calpipe' -n '__calpipe_should_offer_completions_for_flags_or_options "calpipe state" version' -l 'version' -d 'Show the version.'
complete -c 'calpipe' -n '__calpipe_should_offer_completions_for_flags_or_options "calpipe state" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'calpipe' -n '__calpipe_should_offer_completions_for_flags_or_options "calpipe serve" listen' -l 'listen' -d 'Where to listen: PORT (on 127.0.0.1), HOST:PORT or [IPv6]:PORT; port 0: any free port.' -rfka ''
complete -c 'calpipe' -n '__calpipe_should_offer_completions_for_flags_or_options "calpipe serve" refresh' -l 'refresh' -d 'Run a pipeline without serve.refresh this often: 30s, 15m, 1h.' -rfka ''
complete -c 'calpipe' -n '__calpipe_should_offer_completions_for_flags_or_options "calpipe serve" version' -l 'version' -d 'Show the version.'
complete -c 'calpipe' -n '__calpipe_should_offer_completions_for_flags_or_options "calpipe serve" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'calpipe' -n '__calpipe_should_offer_completions_for_flags_or_options "calpipe help" version' -l 'version' -d 'Show the version.'
