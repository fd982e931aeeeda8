# bash completion for kprofile: the same function as uprofile's.
if ! declare -F _profile_tool_complete >/dev/null; then
	. "${BASH_SOURCE[0]%/*}/uprofile" 2>/dev/null ||
		. "${BASH_SOURCE[0]%/*}/uprofile.bash"
fi
complete -F _profile_tool_complete kprofile
