#!/usr/bin/python3
"""The scenario layer's folders include only themselves and the folders above them
(docs/architecture.md, "The scenario layer"): config < build < record < distributed < run.
Also fails on a header or source left directly in helper/, outside every folder."""
import pathlib
import re
import sys

LAYERS = ["config", "build", "record", "distributed", "run"]
INCLUDE = re.compile(r'^\s*#\s*include\s+"([a-z]+)/[^"]+"', re.M)


def violations(helper: pathlib.Path):
    found = []
    for path in sorted(helper.iterdir()):
        if path.is_file() and path.suffix in (".h", ".cc"):
            found.append(f"{path.name}: in helper/ itself, not in one of {LAYERS}")
    for rank, layer in enumerate(LAYERS):
        for path in sorted((helper / layer).glob("*")):
            for folder in INCLUDE.findall(path.read_text()):
                if folder in LAYERS and LAYERS.index(folder) > rank:
                    found.append(f"{layer}/{path.name} includes {folder}/ (below it: only "
                                 f"{', '.join(LAYERS[:rank + 1])})")
    return found


def main():
    root = pathlib.Path(sys.argv[1]) if len(sys.argv) > 1 else pathlib.Path(__file__).parents[2]
    helper = root / "contrib" / "fabric" / "helper"
    missing = [layer for layer in LAYERS if not (helper / layer).is_dir()]
    if missing:
        sys.exit(f"missing helper folders: {missing}")
    # The check itself must be able to fail: an upward include in a copy of one file is found.
    probe = INCLUDE.findall('#include "run/scenario-runner.h"\n')
    assert probe == ["run"], probe
    found = violations(helper)
    if found:
        print("\n".join(found))
        sys.exit(1)
    print(f"helper layers ok: {', '.join(LAYERS)}")


if __name__ == "__main__":
    main()
