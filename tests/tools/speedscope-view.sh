#!/bin/bash
# SPDX-License-Identifier: MIT
# speedscope-view.sh FILE OUT.png: open FILE in speedscope's own page,
# headless Chromium, and take a screenshot of what it draws.
#
# FILE is handed over the way speedscope's CLI does it (bin/cli.mjs): a
# JavaScript file calling speedscope.loadFileFromBase64(BASENAME, BASE64)
# and dist/release/index.html#localProfilePath=THAT_FILE.  One line comes
# before that call: window.alert is replaced by one that records its text
# on <html data-speedscope-alert>, since the importer reports an
# unrecognised or empty file with alert(), which would hang headless
# Chromium.
#
# The page is loaded twice: once for the DOM (--dump-dom), which tells
# whether the import worked (speedscope sets the title to "NAME -
# speedscope" once a profile is shown; a failed import shows "Something
# went wrong." or an alert and leaves the title "speedscope"), then for
# the screenshot.  Prints "speedscope-view.sh: loaded NAME" and exits 0;
# otherwise says why on stderr and exits 1 (2: usage, no npm package,
# no chromium).
#
# Environment: SPEEDSCOPE_DIR, the npm prefix holding
# node_modules/speedscope (default: build/npm in the repository, where
# ./setup.sh test installs it); SPEEDSCOPE_VIEW_BUDGET, Chromium's
# --virtual-time-budget in ms (default 10000); SPEEDSCOPE_VIEW_SIZE,
# --window-size (default 1400,900).  The DOM is kept as OUT.png.html
# when SPEEDSCOPE_VIEW_KEEP_DOM is set.
set -euo pipefail

me=speedscope-view.sh
if [[ $# -ne 2 ]]; then
	echo "usage: $me FILE OUT.png" >&2
	exit 2
fi
file=$1 out=$2
root=$(cd "$(dirname "$0")/../.." && pwd)
prefix=${SPEEDSCOPE_DIR:-$root/build/npm}
page=$prefix/node_modules/speedscope/dist/release/index.html
[[ -r $file ]] || { echo "$me: cannot read $file" >&2; exit 2; }
[[ -f $page ]] || {
	echo "$me: no $page: install the npm package speedscope (./setup.sh test)" >&2
	exit 2
}
command -v chromium >/dev/null || {
	echo "$me: chromium is not installed (Debian package chromium)" >&2
	exit 2
}
page=$(realpath "$page")
out=$(realpath -m "$out")

tmp=$(mktemp -d "${TMPDIR:-/tmp}/speedscope-view.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
js=$tmp/profile.js
name=$(basename "$file")
# JSON.stringify of the name: the file name as a JavaScript string.
jsname=$(printf '%s' "$name" | python3 -c \
	'import json, sys; print(json.dumps(sys.stdin.buffer.read().decode("utf-8", "replace")))')
{
	printf '%s\n' 'window.alert = function (m) { document.documentElement.setAttribute("data-speedscope-alert", String(m)) };'
	printf 'speedscope.loadFileFromBase64(%s, "' "$jsname"
	base64 -w0 "$file"
	printf '")'
} >"$js"
url="file://$page#localProfilePath=$js"

# The software WebGL that speedscope's flame chart needs: without a GPU
# Chromium falls back to SwiftShader only when asked to (trusted page).
browse() {
	timeout 120 chromium --headless --no-sandbox --disable-gpu \
		--enable-unsafe-swiftshader --hide-scrollbars \
		--force-device-scale-factor=1 --user-data-dir="$tmp/chromium" \
		--window-size="${SPEEDSCOPE_VIEW_SIZE:-1400,900}" \
		--virtual-time-budget="${SPEEDSCOPE_VIEW_BUDGET:-10000}" \
		"$@" "$url" 2>>"$tmp/chromium.log"
}

if ! browse --dump-dom >"$tmp/dom.html"; then
	echo "$me: chromium failed on $file (--dump-dom):" >&2
	tail -n 5 "$tmp/chromium.log" >&2
	exit 1
fi
[[ -z ${SPEEDSCOPE_VIEW_KEEP_DOM:-} ]] || cp "$tmp/dom.html" "$out.html"
# The serialised DOM's text, its entities decoded.
unhtml() {
	sed 's/&lt;/</g; s/&gt;/>/g; s/&quot;/"/g; s/&#39;/'"'"'/g; s/&nbsp;/ /g; s/&amp;/\&/g'
}
title=$(sed -n 's:.*<title>\(.*\) - speedscope</title>.*:\1:p' "$tmp/dom.html" |
	head -n 1 | unhtml)
alert=$(sed -n 's:.*data-speedscope-alert="\([^"]*\)".*:\1:p' "$tmp/dom.html" |
	head -n 1 | unhtml)
status=0
if grep -q 'Something went wrong' "$tmp/dom.html"; then
	echo "$me: $file: speedscope could not import it (\"Something went wrong.\")" >&2
	status=1
fi
if [[ -n $alert ]]; then
	echo "$me: $file: speedscope said: $alert" >&2
	status=1
fi
if [[ $status -eq 0 && -z $title ]]; then
	echo "$me: $file: no profile shown (the title is not \"NAME - speedscope\")" >&2
	status=1
fi
[[ $status -eq 0 ]] || exit 1

if ! browse --screenshot="$out" >/dev/null || [[ ! -s $out ]]; then
	echo "$me: chromium failed on $file (--screenshot):" >&2
	tail -n 5 "$tmp/chromium.log" >&2
	exit 1
fi
echo "$me: loaded $title"
