#!/usr/bin/env bash
# The site as a reader sees it: renders a small run, loads the index and a
# kernel page in headless Chromium, and fails on a script error (the pages
# write window.onerror into the DOM), on a console error, when the page's
# script did not run, or on any href that does not resolve to a file of the
# site. Keeps screenshots in ARTIFACTS. Usage: browser_test.sh KCONFORM ARTIFACTS
set -u
kc="$1"
artifacts="$2"
browser=$(command -v chromium || command -v chromium-browser || true)
if [ -z "$browser" ]; then
  echo "FAIL: chromium is not installed; install Debian's 'chromium' package (scripts/install-deps.sh does)"
  exit 1
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$artifacts"
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }

"$kc" run --kernel exp --kernel gelu --cases 10 --out "$work/run" --quiet >"$work/run.log" 2>&1
rc=$?
[ "$rc" -le 1 ] || { cat "$work/run.log"; fail "kconform run exited $rc"; exit 1; }
site="$work/site"
# A planted regression, so the diff page shows what a nightly would: exp's
# first dtype fails with a larger error.
python3 - "$work/run/results.json" "$work/new.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
r = d["kernels"][0]["results"][0]
r["verdict"] = "fail"
r["accuracy"]["max_frac_ulp"] = 3 * r["accuracy"]["max_frac_ulp"]
json.dump(d, open(sys.argv[2], "w"))
PY
"$kc" report "$work/new.json" --baseline "$work/run/results.json" --out "$site" >"$work/report.log" 2>&1
rc=$?
[ "$rc" -eq 1 ] || { cat "$work/report.log"; fail "kconform report --baseline on a planted regression exited $rc, expected 1"; }

chrome() {  # chrome LOG ARGS... : headless, offline, a fresh profile each time
  local log=$1
  shift
  timeout 60 "$browser" --headless --no-sandbox --disable-gpu --disable-background-networking \
    --disable-component-update --disable-sync --no-first-run --user-data-dir="$(mktemp -d -p "$work")" \
    --enable-logging=stderr --v=0 "$@" 2>>"$log"
}

check_page() {  # check_page FILE SHOT
  local page="$site/$1" shot="$artifacts/$2" log="$work/$2.log"
  [ -f "$page" ] || { fail "$1 missing"; return; }
  chrome "$log" --dump-dom "file://$page" >"$work/$2.dom"
  grep -q 'data-js-ready="1"' "$work/$2.dom" || fail "$1: the page's script did not run"
  if grep -q 'data-js-error=' "$work/$2.dom"; then fail "$1: script error: $(grep -o 'data-js-error="[^"]*"' "$work/$2.dom")"; fi
  # The pages never log, so any console line (Chromium prints them as CONSOLE) is an error.
  if grep -E 'Uncaught|CONSOLE|Refused to' "$log"; then fail "$1: console messages (above)"; fi
  chrome "$log" --screenshot="$shot" --window-size=1280,2000 "file://$page" >/dev/null
  [ -s "$shot" ] || fail "$1: no screenshot"
  echo "screenshot: $shot"
}

check_page index.html report-index.png
kernel_page=$(basename "$(ls "$site"/kernel-exp.html)")
check_page "$kernel_page" report-kernel-exp.png
check_page diff.html report-diff.png

grep -q 'REGRESSED' "$work/report-diff.png.dom" || fail "diff page does not flag the planted regression"

# A failing kernel page, as a kernel author first sees it: the failing check
# and its figure lead the dtype's section, before the failures, plots,
# statistics and the contract (the screenshot keeps the top of the page).
"$kc" run --kernel exp --dtype f32 --backend mutant:exp_f32_2ulp --out "$work/failing" --quiet >"$work/failing.log" 2>&1
[ $? -eq 1 ] || fail "the mutant run did not fail"
failing_page="$work/failing/site/kernel-exp.html"
chrome "$work/failing.log" --dump-dom "file://$failing_page" >"$work/failing.dom"
python3 - "$work/failing.dom" <<'PY' || fails=$((fails + 1))
import re, sys
dom = open(sys.argv[1], encoding="utf-8").read()
section = dom.find('id="dtype-f32"')
lead = re.search(r'<li class="headline finding"[^>]*data-figure="([^"]*)" data-bound="([^"]*)"[^>]*><strong>([^<]*)</strong>', dom)
if section < 0 or not lead:
    print("FAIL: failing page: no headline finding"); sys.exit(1)
later = [dom.find(m, section) for m in ('id="failures-', '<h3>Error histogram', '<h3>Statistics', 'id="contract"')]
if any(0 <= p < lead.start() for p in later) or lead.start() < section:
    print("FAIL: failing page: something comes before the headline finding"); sys.exit(1)
if not float(lead.group(1)) > float(lead.group(2)):
    print(f"FAIL: failing page: the headline's figure {lead.group(1)} is within its bound {lead.group(2)}"); sys.exit(1)
print(f"failing page leads with: {lead.group(3)}")
PY
chrome "$work/failing.log" --screenshot="$artifacts/report-failing-kernel.png" --window-size=1280,900 "file://$failing_page" >/dev/null
[ -s "$artifacts/report-failing-kernel.png" ] && echo "screenshot: $artifacts/report-failing-kernel.png" || fail "no screenshot of the failing page"

# The comparison site (report --compare): the reference and the defective
# exp side by side, its table and a kernel's overlaid profiles render.
"$kc" report "$work/run/results.json" "$work/failing/results.json" --compare --out "$work/compare" >"$work/compare.log" 2>&1 ||
  fail "report --compare exited $?: $(cat "$work/compare.log")"
site_saved=$site
site="$work/compare"
check_page index.html compare-index.png
check_page compare-exp.html compare-exp.png
check_page b1/kernel-exp.html compare-b1-exp.png
grep -q 'id="comparison"' "$work/compare-index.png.dom" || fail "comparison: no table"
grep -q '<polyline' "$work/compare-exp.png.dom" || fail "comparison: no overlaid profile"
site=$site_saved

# The filter works in the rendered DOM: the script fills in the row count.
grep -q 'id="shown"[^>]*>[0-9]* of [0-9]* shown' "$work/report-index.png.dom" || fail "index: filter did not initialise"

# No broken links: every href (fragment dropped) names a file of the site,
# and every fragment names an id on its target page.
python3 - "$site" <<'PY' || fails=$((fails + 1))
import html, os, re, sys
site = sys.argv[1]
bad = 0
pages = {f: open(os.path.join(site, f), encoding="utf-8").read() for f in os.listdir(site)}
for name, text in pages.items():
    for href in re.findall(r'href="([^"]*)"', text):
        href = html.unescape(href)
        target, _, frag = href.partition("#")
        target = target or name
        if re.match(r"^[a-z]+:", target) or target not in pages:
            print(f"FAIL: {name}: broken or external link {href!r}"); bad += 1; continue
        if frag and f'id="{frag}"' not in pages[target]:
            print(f"FAIL: {name}: link {href!r}: no id {frag!r} in {target}"); bad += 1
    if re.search(r'(src|href)="(https?:)?//', text):
        print(f"FAIL: {name}: refers to a resource elsewhere"); bad += 1
print(f"checked links in {len(pages)} pages")
sys.exit(1 if bad else 0)
PY

[ "$fails" -eq 0 ] && echo "browser test passed" || echo "$fails browser checks failed"
[ "$fails" -eq 0 ]
