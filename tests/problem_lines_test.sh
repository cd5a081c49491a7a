#!/usr/bin/env bash
# Problem lines in the reports: a user's problem file graded on the
# reference and on an at-scale defect (split-K matmul), each result listing
# its line with what it graded and failed; `report --compare` sets the two
# backends side by side by problem line (the defect's row failing with the
# check and figure that failed it, the reference's passing), and each
# site's index shows the result's shape classes.
# Usage: problem_lines_test.sh KCONFORM
set -u
kc="$1"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fails=0
. "$(dirname "$0")/expect.sh"
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
printf '# a K past 2048, an output past the exact budget (sampled)\nsplitk: matmul_2d a=64x4097 b=4097x80\n' >"$work/lines.problems"
common=(run -k matmul_2d -d f32 --seed 1 -q --no-exhaustive --cases 4 --shapes "$work/lines.problems")
expect 0 "the reference passes the line" -- "$kc" "${common[@]}" --out "$work/ref"
expect 1 "the split-K defect fails it" -- "$kc" "${common[@]}" --backend mutant:matmul_split_k_drops_last --profile conformance --out "$work/mut"
/usr/bin/python3 - "$work/ref/results.json" "$work/mut/results.json" <<'PY' || fail "problem_lines in the results"
import json, sys
for path, failing in zip(sys.argv[1:], (False, True)):
    r = json.load(open(path))["kernels"][0]["results"][0]
    lines = r["shapes"]["problem_lines"]
    assert len(lines) == 1, lines
    l = lines[0]
    assert l["line"].endswith("lines.problems:2 (splitk)"), l
    assert 256 <= l["graded_exactly"] < 64 * 80, l      # a sample of the 5120 outputs
    assert (l["failed"] > 0) == failing, l
    worst = l["worst_accuracy_failure"]
    assert (worst is not None and worst > 1 and l["worst_metric"] == "normalized error") if failing else worst is None, l
print("ok:   each result lists its problem line")
PY
expect 0 "report --compare" -- "$kc" report "$work/ref/results.json" "$work/mut/results.json" --compare --out "$work/site"
/usr/bin/python3 - "$work/site/index.html" "$work/ref/site/index.html" <<'PY' || fail "the by-line table and the shapes column"
import re, sys
html = open(sys.argv[1]).read()
table = html[html.index('id="problem-lines-table"'):]
row = re.search(r"<tr><td>[^<]*lines\.problems:2 \(splitk\)</td><td>matmul_2d</td><td>f32</td>(.*?)</tr>", table).group(1)
cells = re.findall(r"<td[^>]*>(.*?)</td>", row)
assert len(cells) == 4, cells                       # verdict and graded, per backend
assert "pass" in cells[0] and "fail" in cells[2].lower(), cells
assert re.search(r"accuracy: [0-9.e+]+ normalized error", cells[2]), cells[2]   # the figure that failed it
index = open(sys.argv[2]).read()
assert "<th title=\"the shape classes" in index and "1 problem lines; largest [64, 4097] [4097, 80]" in index
print("ok:   the compare page sets the backends side by side by line; the index shows shape classes")
PY
[ $fails -eq 0 ] || { echo "$fails failure(s)"; exit 1; }
echo "all problem-line report checks passed"
