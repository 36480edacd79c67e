#!/usr/bin/env python3
"""Re-runs every output block of README.md that starts with "$ build/sim/bnsim ..." and writes
what the command prints now in its place (the build's version as VERSION), as
tests/test_readme_commands.cpp expects it. Run from the repository root after building; a change
that moves a shown figure explains it in its commit (`git diff README.md` shows which).
"""
import os
import re
import subprocess
import sys

PROMPT = "$ build/sim/bnsim "


def run(command):
    env = dict(os.environ, SYSTEMC_DISABLE_COPYRIGHT_MESSAGE="1")
    r = subprocess.run(command.split(), stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env,
                       universal_newlines=True)
    if r.returncode != 0:
        sys.exit("README.md: %s exited %d: %s" % (command, r.returncode, r.stderr.strip()[-300:]))
    out = re.sub(r"^(provenance  bnsim )[^,]*", r"\1VERSION", r.stdout, flags=re.M)
    return out


def main():
    lines = open("README.md").read().split("\n")
    out, i, changed = [], 0, 0
    while i < len(lines):
        line = lines[i]
        out.append(line)
        i += 1
        if line != "```" or i >= len(lines) or not lines[i].startswith(PROMPT):
            continue
        command = lines[i][2:]
        out.append(lines[i])
        i += 1
        old = []
        while i < len(lines) and not lines[i].startswith("```"):
            old.append(lines[i])
            i += 1
        new = run(command).rstrip("\n").split("\n")
        changed += new != old
        out.extend(new)
    open("README.md", "w").write("\n".join(out))
    print("README.md: %d output block(s) rewritten" % changed)


if __name__ == "__main__":
    main()
