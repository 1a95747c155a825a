#!/usr/bin/env python3
"""Turns compiled packages into seeds of //fuzz:package_records_fuzzer.

  tools/fuzz_package_records.py OUT_DIR PACKAGE.srpkg...

Each package's records (without the zip's top folder and its version
record) are written one after the other, each after a line
"@@record NAME", to OUT_DIR/<package name>.records.
"""
import os
import sys
import zipfile


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    out_dir = sys.argv[1]
    os.makedirs(out_dir, exist_ok=True)
    for path in sys.argv[2:]:
        chunks = []
        with zipfile.ZipFile(path) as archive:
            for name in archive.namelist():
                record = name.split("/", 1)[1]
                if record == "version" or record.startswith(".data/"):
                    continue
                chunks.append(b"@@record " + record.encode() + b"\n" + archive.read(name))
        base = os.path.splitext(os.path.basename(path))[0]
        with open(os.path.join(out_dir, base + ".records"), "wb") as out:
            out.write(b"".join(chunks))
        print(os.path.join(out_dir, base + ".records"))


if __name__ == "__main__":
    main()
