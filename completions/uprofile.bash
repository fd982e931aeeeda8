# bash completion for uprofile and kprofile.
#
# The option and statistic lists come from the tool itself
# (--completion-helper prints its option tables), so they cannot drift
# from what the tool accepts.

_profile_tool_complete()
{
	local cur prev words cword
	_init_completion || return

	local tool=${words[0]} i
	# After the program name, complete that program's arguments as files.
	for ((i = 1; i < cword; i++)); do
		case ${words[i]} in
		-o | --output | -dirname | --dirname | -i | --input | -k | \
		-e | --event | -F | --freq | -c | --period | -p | --pid | \
		-d | --duration | -quit | --quit | -only | --only | \
		-exclude | --exclude | -format | --format | -pmu | --pmu)
			((i++))
			continue
			;;
		-*) continue ;;
		esac
		if ! "$tool" --completion-helper 2>/dev/null |
			grep -qx "stat:${words[i]%%:*}"; then
			_filedir
			return
		fi
	done

	case $prev in
	-o | --output | -i | --input | -k)
		_filedir
		return
		;;
	-dirname | --dirname)
		_filedir -d
		return
		;;
	-e | --event)
		COMPREPLY=($(compgen -W "$("$tool" --completion-helper \
			2>/dev/null | sed -n 's/^stat://p')" -- "$cur"))
		return
		;;
	-format | --format)
		COMPREPLY=($(compgen -W "text json" -- "$cur"))
		return
		;;
	-pmu | --pmu)
		COMPREPLY=($(compgen -W "amd-ibs intel-pebs arm-spe auto" \
			-- "$cur"))
		return
		;;
	-p | --pid)
		_pids
		return
		;;
	esac

	if [[ $cur == -* ]]; then
		COMPREPLY=($(compgen -W "$("$tool" --completion-helper \
			2>/dev/null | grep '^-') --help --version" -- "$cur"))
		return
	fi
	COMPREPLY=($(compgen -W "$("$tool" --completion-helper 2>/dev/null |
		sed -n 's/^stat://p')" -- "$cur"))
	COMPREPLY+=($(compgen -c -- "$cur"))
}
complete -F _profile_tool_complete uprofile kprofile
