#!/usr/bin/env bash
# The adapters (adapters/): every one this build has is graded through its
# plug-in, in the conformance profile, with short case counts; the results
# record the library's name, version and build flags; claims are judged;
# the libm adapter is bit for bit the reference wherever the reference
# calls the same glibc function; and `report --compare` puts every backend
# side by side with figures equal to the documents' and links that resolve.
# Usage: adapters_test.sh KCONFORM ADAPTERS_TXT
set -u
kc="$1"
list="$2"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fails=0
. "$(dirname "$0")/expect.sh"
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
grep "not built" "$list" | sed 's/^/note: /'
mapfile -t built < <(grep -v "not built" "$list")
[ ${#built[@]} -ge 1 ] || { fail "no adapter built (libm always should be)"; exit 1; }
docs=()
for line in "${built[@]}"; do
  name=${line%%: *}
  path=${line#*: }
  # libtorch calls the system BLAS (libblas.so.3, OpenBLAS where libopenblas
  # is installed): OpenBLAS's pool of spinning threads, new in each fresh
  # worker, made the worker watch them after every first call (147 s against
  # 7 s). The adapter runs torch on one thread; its BLAS is given one too.
  blas_threads=""
  [ "$name" = libtorch ] && blas_threads="OPENBLAS_NUM_THREADS=1"
  env $blas_threads "$kc" run --backend "plugin:$path" --cases 10 --no-exhaustive --quiet --out "$work/$name" >"$work/$name.log" 2>&1
  rc=$?
  if [ $rc -gt 1 ]; then fail "$name: run exited $rc"; tail -5 "$work/$name.log"; continue; fi
  echo "ok:   $name graded ($(tail -2 "$work/$name.log" | head -1))"
  docs+=("$work/$name/results.json")
done
# The reference, first column, over the kernels the adapters graded (the
# whole inventory took 10 s of this test for rows no adapter has).
mapfile -t kernel_args < <(python3 -c '
import json, sys
names = sorted({k["name"] for p in sys.argv[1:] for k in json.load(open(p))["kernels"]})
print("\n".join(a for n in names for a in ("--kernel", n)))' "${docs[@]}")
"$kc" run "${kernel_args[@]}" --cases 10 --no-exhaustive --quiet --out "$work/reference" >/dev/null
docs=("$work/reference/results.json" "${docs[@]}")
python3 - "$work" "${docs[@]}" <<'PY' || fails=$((fails + 1))
import json, sys
work, ref, adapters = sys.argv[1], json.load(open(sys.argv[2])), [json.load(open(p)) for p in sys.argv[3:]]
refr = {(k["name"], r["dtype"]): r for k in ref["kernels"] for r in k["results"]}
ok = True
def bad(*a):
    global ok; ok = False; print("FAIL:", *a)
for d in adapters:
    p = d["run"].get("plugin", {})
    name = p.get("name", "?")
    if d["run"].get("profile") != "conformance": bad(name, "not graded in the conformance profile")
    for f in ("name", "version", "build_flags"):
        if not p.get(f): bad(name, "the results do not record the library's", f)
    results = [(k["name"], r) for k in d["kernels"] for r in k["results"]]
    if not results: bad(name, "graded nothing")
    for kn, r in results:
        if r["elements"] <= 0 and r["verdict"] != "fail": bad(name, kn, r["dtype"], "no element graded")
        c = r["declared"]["claim_verdict"]
        if name.startswith("sleef") and c not in ("confirmed", "refuted"): bad(name, kn, r["dtype"], "claim not judged:", c)
        # glibc called directly gives the reference's bits wherever the reference calls the same function (all but erf, a port of Rust's libm).
        if name == "glibc-libm" and kn != "erf" and r["differs_from_reference"] != 0:
            bad(name, kn, r["dtype"], "differs from the reference in", r["differs_from_reference"], "outcomes")
    # OpenBLAS: correct on every case kconform draws (its empty batches and overflow orders included: issue 37).
    if name == "OpenBLAS":
        for kn, r in results:
            if r["verdict"] != "pass": bad(name, kn, r["dtype"], "fails:", r["headline"])
    print(f"ok:   {name} {p.get('version')}: {sum(r['verdict'] == 'pass' for _, r in results)} of {len(results)} pass")
sys.exit(0 if ok else 1)
PY

expect 0 "report --compare" -- "$kc" report "${docs[@]}" --compare --out "$work/site"
python3 - "$work/site" "${docs[@]}" <<'PY' || fails=$((fails + 1))
import html, json, os, re, sys
site, docs = sys.argv[1], [json.load(open(p)) for p in sys.argv[2:]]
index = open(os.path.join(site, "index.html"), encoding="utf-8").read()
ok = True
if index.count('<th colspan="5"') != len(docs) or not all(f'b{i}' in index for i in range(len(docs))):
    print("FAIL: not one column group per backend"); ok = False
# Each row: kernel, dtype, then per backend its verdict figure (data-v, data-metric), verdict, bound (tier),
# max ulp / distance, claim; check the figures equal the documents' (a non-finite one: null, flagged).
def figure(r, key):
    v = r["accuracy"][key]
    if v is None:
        flag = r["accuracy"].get("nonfinite", {}).get(key)
        return {"inf": "Infinity", "-inf": "-Infinity", "NaN": "NaN"}.get(flag)
    return float(v)
body = index[index.find("<tbody>"):]
checked = 0
for row in re.findall(r"<tr>(.*?)</tr>", body, re.S):
    cells = re.findall(r"<td[^>]*>.*?</td>", row, re.S)
    kernel = html.unescape(re.sub(r"<[^>]+>", "", cells[0])); dtype = html.unescape(re.sub(r"<[^>]+>", "", cells[1]))
    i, b = 2, 0
    while i < len(cells) and b < len(docs):
        if "not graded" in cells[i]:
            i += 1; b += 1; continue
        metric = re.search(r'data-metric="([^"]*)"', cells[i])
        key = "max_normalized" if metric and metric.group(1).startswith("normalized") else "max_frac_ulp"
        want = next((figure(r, key) for k in docs[b]["kernels"] if k["name"] == kernel for r in k["results"] if r["dtype"] == dtype), None)
        got = re.search(r'data-v="([^"]*)"', cells[i])
        same = got and want is not None and (got.group(1) == want if isinstance(want, str) else float(got.group(1)) == want)
        if not same:
            print("FAIL: figure", kernel, dtype, "backend", b, got and got.group(1), want); ok = False
        if kernel.startswith("matmul") and key != "max_normalized":
            print("FAIL:", kernel, "is condition-aware: its verdict figure is the normalized error"); ok = False
        checked += 1
        i += 5; b += 1
if checked < len(docs) * 5: print("FAIL: only", checked, "figures checked"); ok = False
pages = {}
for root, _, files in os.walk(site):
    for f in files:
        rel = os.path.relpath(os.path.join(root, f), site)
        if rel.endswith(".html"): pages[rel] = open(os.path.join(root, f), encoding="utf-8").read()
for name, text in pages.items():
    for href in re.findall(r'href="([^"]*)"', text):
        target, _, frag = html.unescape(href).partition("#")
        target = os.path.normpath(os.path.join(os.path.dirname(name), target)) if target else name
        if target not in pages: print(f"FAIL: {name}: broken link {href}"); ok = False; continue
        if frag and f'id="{frag}"' not in pages[target]: print(f"FAIL: {name}: no id {frag} in {target}"); ok = False
print(f"comparison: {len(pages)} pages, {len(docs)} backends, {checked} figures equal to the documents'" if ok else "FAIL: comparison site")
sys.exit(0 if ok else 1)
PY
# libmvec graded against its own documented 4-ulp bound (--accuracy claimed):
# every kernel x dtype passes; its results name the tier.
if grep -q "^libmvec: /" "$list"; then
  mvec=$(grep "^libmvec: /" "$list" | sed 's/^libmvec: //')
  expect 0 "libmvec under --accuracy claimed" -- "$kc" run --backend "plugin:$mvec" --accuracy claimed --cases 10 --no-exhaustive --quiet --out "$work/mvec-claimed"
  python3 - "$work/mvec-claimed/results.json" <<'PY' || fails=$((fails + 1))
import json, sys
d = json.load(open(sys.argv[1]))
rs = [r for k in d["kernels"] for r in k["results"]]
bad = [r for r in rs if r["accuracy_tier"]["name"] != "claimed" or not r["accuracy_tier"]["covered"]]
if len(rs) < 14 or bad or d["run"]["accuracy_tier"] != "claimed":
    print("FAIL: libmvec's claimed tier not recorded on every result"); sys.exit(1)
print(f"ok:   libmvec: {len(rs)} results graded against its claim of 4 ulp")
PY
fi

# The defects the BLIS adapter found, reproduced without kconform
# (adapters/blas/repro/): each program exits non-zero while BLIS has the
# defect; one that passes means this BLIS is fixed and the note is stale.
if grep -q "^blis: /" "$list"; then
  repro="$(dirname "$0")/../adapters/blas/repro"
  for f in blis_gemm_reads_past_c blis_dgemm_loses_nan; do
    cc "$repro/$f.c" -I/usr/include/x86_64-linux-gnu/blis-openmp -L/usr/lib/x86_64-linux-gnu/blis-openmp -lblis \
      -Wl,-rpath,/usr/lib/x86_64-linux-gnu/blis-openmp -o "$work/$f" || { fail "$f does not build"; continue; }
    if (cd "$work" && "./$f" >"$work/$f.out" 2>&1); then fail "$f: BLIS no longer shows the defect"; else echo "ok:   $f reproduces the BLIS defect"; fi
  done
fi
[ $fails -eq 0 ] && echo "adapters: all passed"
exit $((fails > 0))
