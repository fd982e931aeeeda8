# fish completion for kprofile: the same function as uprofile's.
functions -q __profile_tool_candidates
or source (status dirname)/uprofile.fish
complete -c kprofile -f -a '(__profile_tool_candidates)'
