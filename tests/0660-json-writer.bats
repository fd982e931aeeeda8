#!/usr/bin/env bats
# The JSON writer (formats/jsonw.h) on its own, through
# tests/tools/jsonwcheck: escaping, nesting, layouts, numbers, and the
# misuse it refuses (a key twice in one object above all).  Every document
# it completes must pass the strict checker and Python's json.tool.

load helpers

JSONWCHECK=$ROOT/$BUILD/tests/jsonwcheck

# valid FILE: FILE passes tests/tools/jsoncheck and python3 -m json.tool.
valid() {
	json_check "$1"
	python3 -m json.tool "$1" >/dev/null ||
		fail "python3 -m json.tool rejects $1"
}

# writes CASE: run the case, which must succeed, into CASE.json, checked.
writes() {
	run -0 --separate-stderr "$JSONWCHECK" "$1"
	assert_equal "$stderr" ""
	printf '%s\n' "$output" >"$1.json"
	valid "$1.json"
}

# refuses CASE WHY: the writer refuses the case for WHY.
refuses() {
	run -1 --separate-stderr "$JSONWCHECK" "$1"
	assert_equal "$stderr" "jsonwcheck: $1: refused: $2"
}

@test "strings: quotes, backslashes and control characters escaped; bytes that are not UTF-8 become U+FFFD" {
	writes escapes
	assert_output - <<'EOF'
{
  "quote": "say \"hi\"",
  "backslash": "C:\\dir\\",
  "controls": "nl\n tab\t cr\u000d nul-free \u0001\u001f esc\u001b del\u007f",
  "utf8": "é € 😀",
  "bad": "ff\ufffd cont\ufffd cut\ufffd\ufffd overlong\ufffd\ufffd surrogate\ufffd\ufffd\ufffd end\ufffd",
  "key\"\\\n\ufffd": "in a key",
  "null": null
}
EOF
	# What a parser reads back.
	run -0 jq -c '[.quote, .backslash, .bad, (keys | sort)]' escapes.json
	assert_output '["say \"hi\"","C:\\dir\\","ff� cont� cut�� overlong�� surrogate��� end�",["backslash","bad","controls","key\"\\\n�","null","quote","utf8"]]'
}

@test "nesting: objects and arrays inside each other, in each layout" {
	writes nesting
	assert_output - <<'EOF'
{
  "rows": [
    {"n": 1, "inner": [
      {"deep": {"deeper": [[1, "two"]]}},
      true]},
    null
  ],
  "host": {"name": "vm"}
}
EOF
	run -0 jq -c '.rows[0].inner[0].deep.deeper' nesting.json
	assert_output '[[1,"two"]]'
}

@test "empty objects and arrays are {} and [] whatever the layout" {
	writes empty
	assert_output - <<'EOF'
[
  {},
  {},
  {},
  [],
  [],
  []
]
EOF
}

@test "numbers: integers exact at their limits, NaN and infinities as null" {
	writes numbers
	assert_output '{"u64_max": 18446744073709551615, "i64_min": -9223372036854775808, "minus_one": -1, "pi": 3.1416, "whole": 2500000000, "big": 1.5e+20, "small": 1.23457e-05, "nan": null, "inf": null, "minus_inf": null, "array": [-7, 1.50, null]}'
}

@test "a document may be a single string" {
	writes scalar-document
	assert_output '"just a string"'
}

@test "the same key in sibling objects, or in an object and one inside it, is fine" {
	writes siblings
	assert_output '[{"a": 1, "inner": {"a": 2, "inner": 3}, "b": 4}, {"a": 5, "inner": 6}]'
	writes many-keys
	run -0 jq -c '[.k39, .next.k39, .next.next.next.k0]' many-keys.json
	assert_output '[0,1,3]'
}

@test "a key twice in one object is refused; nothing more is written" {
	refuses duplicate "a key given twice in one object"
	assert_output '{"a": 1, "b": 2'
	refuses duplicate-after-inner "a key given twice in one object"
	assert_output '{"x": {"y": 1}'
	refuses duplicate-among-many "a key given twice in one object"
	[[ $output == *'"k998": 998, "k999": 999' ]] ||
		fail "output does not stop before the second k0"
}

@test "misuse is refused: members in arrays, elements in objects, brackets that do not match" {
	refuses member-in-array "a member outside an object"
	assert_output '['
	refuses element-in-object "an element outside an array"
	assert_output '{'
	refuses null-key "a member without a key"
	refuses unclosed "a container was left open"
	assert_output '{"a": []'
	refuses end-too-many "an end with nothing open"
	refuses two-documents "a second value after the document"
	assert_output '[]'
}
