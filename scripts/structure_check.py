"""The command line of the structure checks (scripts/layers.py, scripts/sizes.py).

  SCRIPT SOURCE_DIR            the report
  SCRIPT SOURCE_DIR --check    the same; exit 1 when it lists a violation
  SCRIPT --self-test           planted violations must be found
"""
import sys


def main(argv, doc, report, self_test, noun):
    """report(src) prints and returns the violations; self_test() returns an exit status."""
    if argv[1:] == ["--self-test"]:
        return self_test()
    if len(argv) not in (2, 3) or (len(argv) == 3 and argv[2] != "--check"):
        print(doc, file=sys.stderr)
        return 2
    found = report(argv[1])
    if len(argv) == 3:
        print(f"{'FAIL' if found else 'ok'}: {len(found)} {noun}")
        return 1 if found else 0
    return 0
