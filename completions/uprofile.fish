# fish completion for uprofile (kprofile.fish uses the same functions).
#
# As the bash completion: the options, which of them take a value, and the
# statistic names come from the tool itself (--completion-helper prints its
# option tables: "-name" or "-name=" when a value follows, "stat:NAME", and
# "native:NAME" for this CPU's native events, which only -e takes), so they
# cannot drift from what the tool accepts.

# __profile_tool_files [REGEX [only]]: file names completing the current
# token (after its "--name=", kept), directories too; only those matching
# REGEX when some do, or always with "only".
function __profile_tool_files
    set -l cur (commandline -ct)
    set -l pre (string match -r -- '^-[^=]*=' $cur)
    set cur (string sub -s (math (string length -- "$pre") + 1) -- $cur)
    set -l files (complete -C "__fish_command_without_completions $cur" | string split -f1 \t)
    set -q argv[1]; or set argv '.'
    set -l some (string match -re -- "$argv[1]|/\$" $files)
    if string match -qrv -- '/$' $some; or test "$argv[2]" = only
        printf '%s\n' "$pre"$some
    else
        printf '%s\n' "$pre"$files
    end
end

function __profile_tool_candidates
    set -l tokens (commandline -opc)
    set -l cur (commandline -ct)
    set -l helper ($tokens[1] --completion-helper 2>/dev/null); or return
    set -l opts (string match -r -- '^-[^=]*' $helper)
    set -l valued (string match -r -g -- '^(-.*)=$' $helper)
    set -l stats (string match -r -g -- '^stat:(.*)$' $helper)
    set -l natives (string match -r -g -- '^native:(.*)$' $helper)

    # After the program name, its own arguments, completed as for the
    # program; an option's value is not the program.
    set -l i 2
    while test $i -le (count $tokens)
        set -l w $tokens[$i]
        if string match -q -- '-*' $w
            if not string match -q -- '*=*' $w
                and contains -- (string replace -r -- '^--' - $w) $valued
                set i (math $i + 1)
            end
        else if not contains -- (string split -m1 -f1 : -- $w) $stats
            complete -C (string join ' ' -- (string escape -- $tokens[$i..-1]) $cur)
            return
        end
        set i (math $i + 1)
    end

    # --name=VALUE and -name VALUE
    set -l opt
    set -l pre
    if string match -qr -- '^-[^=]*=' $cur
        set opt (string split -m1 -f1 = -- $cur)
        set pre $opt=
        set cur (string split -m1 -f2 = -- $cur)
    else if test (count $tokens) -gt 1
        and contains -- (string replace -r -- '^--' - $tokens[-1]) $valued
        set opt $tokens[-1]
    end
    # a comma-separated list (-e, -by): complete after the last comma
    set -l list (string match -r -- '^.*,' $cur)
    set -l values
    switch (string replace -r -- '^--?' '' "$opt")
        case output o report-file control k merge archive
            __profile_tool_files
            return
        case input i
            # profiles: umon.out, kmon.out, umon.PID.out, NAME.umon, NAME.kmon
            __profile_tool_files '\.(?:out|umon|kmon)$'
            return
        case dirname symfs debug-dir
            __profile_tool_files '/$' only
            return
        case event e
            set values $stats $natives
        case start-after
            set list
            set values $stats
        case format
            set values text json csv folded pprof flamegraph callgrind speedscope firefox
        case by
            set values comm pid tid cpu object state
        case call-graph
            set values fp dwarf auto
        case engine
            set values perf sim
        case python
            set values on read off
        case pmu
            set values amd-ibs intel-pebs arm-spe auto
        case pid p
            __fish_complete_pids
            return
        case ''
        case '*'
            # any other value (a number, a name): nothing to offer
            return
    end
    if test -n "$opt"
        printf '%s\n' "$pre$list"$values
        return
    end

    switch $cur
        case '--*'
            # the long spelling of each long option
            printf '%s\n' -(string match -r -- '^-..+' $opts) --help --version
        case '-*'
            printf '%s\n' $opts --help --version
        case '*'
            printf '%s\n' $stats
            __fish_complete_command
    end
end

complete -c uprofile -f -a '(__profile_tool_candidates)'
