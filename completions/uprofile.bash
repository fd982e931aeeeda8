# bash completion for uprofile and kprofile.
#
# The options, which of them take a value, and the statistic names come
# from the tool itself (--completion-helper prints its option tables:
# "-name" or "-name=" when a value follows, "stat:NAME", and "native:NAME"
# for this CPU's native events, which only -e takes), so they cannot drift
# from what the tool accepts.

_profile_tool_complete()
{
	local cur prev words cword
	# native names have colons (INST_RETIRED:ANY_P): one word here
	_init_completion -n =: || return

	local tool=${words[0]} i helper opts valued stats natives
	helper=$("$tool" --completion-helper 2>/dev/null) || return
	opts=$(sed -n 's/^\(-[^=]*\)=\{0,1\}$/\1/p' <<<"$helper")
	valued=" $(sed -n 's/^\(-.*\)=$/\1/p' <<<"$helper" | tr '\n' ' ')"
	stats=$(sed -n 's/^stat://p' <<<"$helper")
	natives=$(sed -n 's/^native://p' <<<"$helper")

	# "-name" and "--name" are the same option.
	_profile_valued() {
		local o=${1%%=*}
		[[ $1 != *=* && ( $valued == *" $o "* ||
			$valued == *" ${o#-} "* ) ]]
	}

	# After the program name, complete that program's arguments as files.
	for ((i = 1; i < cword; i++)); do
		case ${words[i]} in
		-*)
			_profile_valued "${words[i]}" && ((i++))
			continue
			;;
		esac
		if ! grep -qxF "${words[i]%%:*}" <<<"$stats"; then
			_filedir
			return
		fi
	done

	# --name=VALUE and -name VALUE
	local opt=$prev
	if [[ $cur == -*=* ]]; then
		opt=${cur%%=*}
		cur=${cur#*=}
	elif [[ $prev == -* ]] && ! _profile_valued "$prev"; then
		opt=
	fi
	case ${opt#-} in
	-output | output | o | -report-file | report-file | -control | control | k | \
		-merge | merge | -archive | archive)
		_filedir
		return
		;;
	-input | input | i)
		# profiles: umon.out, kmon.out, umon.PID.out, NAME.umon, NAME.kmon
		_filedir '@(out|umon|kmon)'
		return
		;;
	-dirname | dirname | -symfs | symfs | -debug-dir | debug-dir)
		_filedir -d
		return
		;;
	-event | event | e)
		COMPREPLY=($(compgen -W "$stats $natives" -- "$cur"))
		__ltrim_colon_completions "$cur"
		return
		;;
	-start-after | start-after)
		COMPREPLY=($(compgen -W "$stats" -- "$cur"))
		__ltrim_colon_completions "$cur"
		return
		;;
	-format | format)
		COMPREPLY=($(compgen -W "text json csv folded pprof flamegraph callgrind speedscope firefox" -- "$cur"))
		return
		;;
	-by | by)
		# a comma-separated list: complete the key after the last comma
		local done=${cur%"${cur##*,}"}
		COMPREPLY=($(compgen -P "$done" -W "comm pid tid cpu object state" \
			-- "${cur##*,}"))
		return
		;;
	-call-graph | call-graph)
		COMPREPLY=($(compgen -W "fp dwarf auto" -- "$cur"))
		return
		;;
	-engine | engine)
		COMPREPLY=($(compgen -W "perf sim" -- "$cur"))
		return
		;;
	-python | python)
		COMPREPLY=($(compgen -W "on read off" -- "$cur"))
		return
		;;
	-pmu | pmu)
		COMPREPLY=($(compgen -W "amd-ibs intel-pebs arm-spe auto" \
			-- "$cur"))
		return
		;;
	-pid | pid | p)
		_pids
		return
		;;
	esac
	[[ -n $opt && $opt == -* ]] && return

	if [[ $cur == -* ]]; then
		COMPREPLY=($(compgen -W "$opts --help --version" -- "$cur"))
		return
	fi
	COMPREPLY=($(compgen -W "$stats" -- "$cur"))
	__ltrim_colon_completions "$cur"
	COMPREPLY+=($(compgen -c -- "$cur"))
}
complete -F _profile_tool_complete uprofile kprofile
