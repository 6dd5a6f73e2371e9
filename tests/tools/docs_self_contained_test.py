#!/usr/bin/python3
"""The repository's documentation is self-contained.

Fails (exit 1, one line per problem with file and line) when a tracked file
  - mentions the old out-of-tree domain digest or a path into a sibling `shared` folder
    (documents outside the repository that a clone does not have), or
  - points at a section of docs/models.md (`models.md#` and an anchor) that it does not have.
Anchors of docs/models.md are its explicit `<a id="...">` tags and the GitHub slugs of its
headings. Before checking the repository, the checker is run on a small tree with known
problems, so a checker that cannot fail fails the test.

Usage: docs_self_contained_test.py [SOURCE_DIR]   (default: the repository holding this file)
"""

import os
import re
import subprocess
import sys
import tempfile

# Built from pieces so that this file does not match what it looks for.
FORBIDDEN = [
    ("the out-of-tree domain digest", re.compile("DOMAIN" + r"\.md")),
    ("a path outside the repository", re.compile(r"\.\./" + "shared" + r"\b|/work/" + "shared")),
]
MODELS = "docs/models.md"
POINTER = re.compile(r"models\.md#([A-Za-z0-9_-]+)")
EXPLICIT_ANCHOR = re.compile(r"<a\s+(?:id|name)=\"([^\"]+)\"")
HEADING = re.compile(r"^#{1,6}\s+(.*?)\s*#*\s*$")


def tracked_files(root):
    """Files under version control; without git, every file outside .git and build trees."""
    try:
        out = subprocess.run(["git", "-C", root, "ls-files", "-z", "--cached", "--others",
                              "--exclude-standard"], check=True,
                             stdout=subprocess.PIPE, stderr=subprocess.DEVNULL).stdout
        return [p for p in out.decode("utf-8", "replace").split("\0") if p]
    except (OSError, subprocess.CalledProcessError):
        files = []
        for d, dirs, names in os.walk(root):
            dirs[:] = [x for x in dirs if x != ".git" and not x.startswith("build")]
            files += [os.path.relpath(os.path.join(d, n), root) for n in names]
        return files


def read_text(path):
    """The file as text, or None for binary files (images, archives)."""
    with open(path, "rb") as f:
        data = f.read()
    if b"\0" in data[:8192]:
        return None
    return data.decode("utf-8", "replace")


def github_slug(heading):
    """The anchor GitHub gives a heading: lower case, punctuation dropped, spaces to hyphens."""
    text = re.sub(r"<[^>]+>", "", heading).strip().lower()
    text = re.sub(r"[^\w\- ]", "", text)
    return text.replace(" ", "-")


def anchors(models_text):
    found = set(EXPLICIT_ANCHOR.findall(models_text))
    in_code = False
    for line in models_text.splitlines():
        if line.startswith("```"):
            in_code = not in_code
            continue
        m = None if in_code else HEADING.match(line)
        if m:
            found.add(github_slug(m.group(1)))
    return found


def problems(root, files):
    out = []
    models_path = os.path.join(root, MODELS)
    if not os.path.isfile(models_path):
        return [f"{MODELS}: missing"]
    known = anchors(read_text(models_path))
    for rel in sorted(files):
        path = os.path.join(root, rel)
        if not os.path.isfile(path):
            continue
        text = read_text(path)
        if text is None:
            continue
        for n, line in enumerate(text.splitlines(), 1):
            for what, rx in FORBIDDEN:
                if rx.search(line):
                    out.append(f"{rel}:{n}: mentions {what}: {line.strip()[:120]}")
            for anchor in POINTER.findall(line):
                if anchor not in known:
                    out.append(f"{rel}:{n}: {MODELS} has no anchor '{anchor}'")
    return out


def selftest():
    """The checker finds every kind of problem in a tree that has them, and none in one that
    does not."""
    with tempfile.TemporaryDirectory() as root:
        os.makedirs(os.path.join(root, "docs"))
        with open(os.path.join(root, MODELS), "w") as f:
            f.write('# Models\n\n<a id="incast-fill"></a>\n## Incast fill time\n\n'
                    "```\n# not a heading\n```\n## Queue integrator\n")
        ref = "docs/models.md" + "#"
        good = {"a.cc": f"// see {ref}incast-fill and {ref}queue-integrator\n"}
        bad = {
            "b.h": f"/// model of {ref}no-such-model\n",
            "c.yaml": "# reference (" + "DOMAIN" + ".md §2)\n",
            "d.py": "# read ../" + "shared/reference/chapter.txt\n",
            "e.md": "[x](models.md" + "#not-a-heading)\n",
        }
        for name, text in {**good, **bad}.items():
            with open(os.path.join(root, name), "w") as f:
                f.write(text)
        found = problems(root, list(good) + list(bad))
        flagged = {p.split(":", 1)[0] for p in found}
        if flagged != set(bad) or len(found) != len(bad):
            return [f"self-test: expected one problem in each of {sorted(bad)}, got {found}"]
    return []


def main():
    root = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else
                           os.path.join(os.path.dirname(__file__), "..", ".."))
    found = selftest() or problems(root, tracked_files(root))
    for p in found:
        print(p)
    if found:
        print(f"FAIL: {len(found)} problem(s)")
        return 1
    print(f"docs self-contained: no outside references, every {MODELS} anchor exists")
    return 0


if __name__ == "__main__":
    sys.exit(main())
