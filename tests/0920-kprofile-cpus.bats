#!/usr/bin/env bats
# kprofile's CPU modes (-all: one merged profile, -each: kmon.out.N per
# online CPU, -one: only the CPU it runs on) and the histogram of sample
# modes per CPU (text "sample modes" section, JSON "modes").

load helpers

@test "-all (the default): one kmon.out with a modes row for every online CPU" {
	skip_unless_perf_works
	local -a cpus
	mapfile -t cpus < <(online_cpus)
	local want
	want="[$(IFS=,; echo "${cpus[*]}")]"
	run -0 "$KPROFILE" -quiet -e cpu-clock sh -c "$(on_every_cpu)" sh \
		"$TPROG/kernelloop" read 0.5
	run -0 find . -maxdepth 1 -name 'kmon.out*'
	assert_output ./kmon.out
	kjson kmon.out
	assert_equal "$(jq -r .cpu <<<"$json")" null
	assert_equal "$(jq -c '[.modes[].cpu]' <<<"$json")" "$want"
	rm kmon.out
	run -0 "$KPROFILE" -quiet -all -e cpu-clock sh -c "$(on_every_cpu)" sh \
		"$TPROG/kernelloop" read 0.5
	run -0 find . -maxdepth 1 -name 'kmon.out*'
	assert_output ./kmon.out
	kjson kmon.out
	assert_equal "$(jq -c '[.modes[].cpu]' <<<"$json")" "$want"
}

@test "-each: kmon.out.N for every online CPU N, each only CPU N, totals as with -all" {
	skip_unless_perf_works
	local -a cpus
	mapfile -t cpus < <(online_cpus)
	local c want="" each_total=0 each_kernel=0 t
	run -0 --separate-stderr "$KPROFILE" -each -e cpu-clock \
		sh -c "$(on_every_cpu)" sh "$TPROG/kernelloop" read 1
	[[ $stderr == *"${#cpus[@]} profiles written (kmon.out."* ]] ||
		fail "unexpected summary: $stderr"
	for c in "${cpus[@]}"; do
		want+="./kmon.out.$c"$'\n'
	done
	run -0 find . -maxdepth 1 -name 'kmon.out*'
	assert_equal "$(sort <<<"$output")" "$(sort <<<"${want%$'\n'}")"
	for c in "${cpus[@]}"; do
		kjson "kmon.out.$c"
		assert_equal "$(jq -r .cpu <<<"$json")" "$c"
		assert_equal "$(jq -c '[.modes[].cpu]' <<<"$json")" "[$c]"
		# The CPU was busy in kernelloop: read_zero leads its file
		# (outside idle loops and interrupt-enable points).
		assert_equal "$(top_busy)" read_zero
		# The file's samples are its CPU's kernel-mode samples.
		assert_equal "$(jq '.statistics[0].samples' <<<"$json")" \
			"$(jq '[.modes[] | .kernel + .idle] | add' <<<"$json")"
		t=$(modes_total)
		((t > 300)) || fail "only $t samples on CPU $c in 1 s"
		each_total=$((each_total + t))
		each_kernel=$((each_kernel + $(jq '.statistics[0].samples' <<<"$json")))
	done
	# The same workload with -all: about as many samples in all.
	run -0 "$KPROFILE" -quiet -e cpu-clock -o all.out \
		sh -c "$(on_every_cpu)" sh "$TPROG/kernelloop" read 1
	kjson all.out
	assert_near "$each_total" "$(modes_total)" "$(($(modes_total) / 4))"
	assert_near "$each_kernel" "$(jq '.statistics[0].samples' <<<"$json")" \
		"$(($(jq '.statistics[0].samples' <<<"$json") * 2 / 5))"
}

@test "-each with -o FILE: FILE.N" {
	skip_unless_perf_works
	local c
	run -0 "$KPROFILE" -quiet -each -e cpu-clock -o k.out -d 0.3
	for c in $(online_cpus); do
		[[ -s k.out.$c ]] || fail "no k.out.$c"
	done
	[[ ! -e k.out && ! -e kmon.out ]]
}

@test "-one under taskset -c B: only CPU B's samples" {
	skip_unless_perf_works
	# two CPUs we may use (A and B, not necessarily 0 and 1)
	need_cpus 2
	local a b
	read -r a b _ <<<"$(allowed_cpus | tr '\n' ' ')"
	# Keep CPU A busy in the kernel too (until the teardown ends it):
	# its samples must not appear.
	taskset -c "$a" "$TPROG/kernelloop" read 60 &
	BG_PIDS+=("$!")
	run -0 taskset -c "$b" "$KPROFILE" -one -quiet -e cpu-clock \
		"$TPROG/kernelloop" read 1
	kjson kmon.out
	assert_equal "$(jq -c '[.modes[].cpu] | unique' <<<"$json")" "[$b]"
	assert_equal "$(top_busy)" read_zero
	local t
	t=$(modes_total)
	# One CPU for one second, not two.
	assert_near "$t" 1000 350
	# -one without taskset: the CPU it started on, and only that one.
	rm kmon.out
	run -0 "$KPROFILE" -one -quiet -e cpu-clock -d 0.5
	kjson kmon.out
	(($(jq '.modes | length' <<<"$json") <= 1))
}

@test "the text report has a 'sample modes' section: a row per CPU and an 'all' row" {
	skip_unless_perf_works
	local -a cpus
	mapfile -t cpus < <(online_cpus)
	local before after
	before=$(proc_stat_cpus)
	run -0 "$KPROFILE" -quiet -e cpu-clock "$TPROG/kernelloop" read 1
	after=$(proc_stat_cpus)
	kjson kmon.out
	# kernelloop read is nearly all kernel; as much kernel time as the
	# kernel itself counted, CPU by CPU, on a busy machine too
	check_modes_against "$before" "$after"
	run -0 --separate-stderr "$KPROFILE" -i kmon.out
	assert_line 'sample modes, percent of each CPU'"'"'s samples:'
	assert_line --regexp '^ +cpu +user +kernel +idle +guest +hv +samples$'
	local c row='([0-9]+\.[0-9]{2} +){5}[0-9]+$'
	for c in "${cpus[@]}"; do
		assert_line --regexp "^ +$c +$row"
	done
	assert_line --regexp "^ +all +$row"
	# The section comes last: the rows after its title are its own.
	local i n=${#lines[@]} start=-1
	for ((i = 0; i < n; i++)); do
		[[ ${lines[i]} == 'sample modes, '* ]] && start=$i
	done
	((start > 0))
	assert_equal "$((n - start))" "$((${#cpus[@]} + 3))"
	# Percentages of each row add up to 100 (0 for a CPU that was never
	# sampled: a tickless idle CPU can go a whole second without a
	# cpu-clock sample); "all" sums the samples.
	local sum=0
	for ((i = start + 2; i < n; i++)); do
		awk '{ s = $2 + $3 + $4 + $5 + $6
		       exit !($7 == 0 ? s == 0 : s > 99.5 && s < 100.5) }' \
			<<<"${lines[i]}" || fail "row does not add up: ${lines[i]}"
		[[ ${lines[i]} == *' all '* ]] ||
			sum=$((sum + $(awk '{ print $7 }' <<<"${lines[i]}")))
	done
	assert_equal "$(awk '{ print $7 }' <<<"${lines[n - 1]}")" "$sum"
	# the text shows the JSON's counts
	for c in "${cpus[@]}"; do
		assert_line --regexp "^ +$c +.* $(jq --argjson c "$c" '.modes[] |
			select(.cpu == $c) | .user + .kernel + .idle + .guest +
			.hypervisor' <<<"$json")\$"
	done
}

@test "JSON modes: per-CPU sample counts of each mode, kernel share as /proc/stat counts it" {
	skip_unless_perf_works
	local before after
	before=$(proc_stat_cpus)
	run -0 "$KPROFILE" -quiet -e cpu-clock "$TPROG/kernelloop" read 1
	after=$(proc_stat_cpus)
	kjson kmon.out
	assert_equal "$(jq -c '[.modes[] | keys_unsorted]  | unique' <<<"$json")" \
		'[["cpu","user","kernel","idle","guest","hypervisor"]]'
	assert_equal "$(jq '[.modes[] | .[] | select(type != "number" or . < 0)]
		| length' <<<"$json")" 0
	# Kernel and user shares per CPU as the kernel's accounting has them
	# (a tickless idle CPU may have no sample at all: not compared).
	check_modes_against "$before" "$after"
	# The kernel-mode samples (kernel + idle) are the profile's samples.
	assert_equal "$(jq '[.modes[] | .kernel + .idle] | add' <<<"$json")" \
		"$(jq '.statistics[0].samples' <<<"$json")"
	# About 1000 samples per busy CPU-second.
	local t
	t=$(modes_total)
	((t >= 800 && t <= 2 * 1000 * $(online_cpus | wc -l))) ||
		fail "$t samples in a 1 s run"
	# No guest or hypervisor samples in a plain run.
	assert_equal "$(jq '[.modes[] | .guest + .hypervisor] | add' <<<"$json")" 0
}
