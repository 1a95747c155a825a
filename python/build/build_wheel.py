"""Writes the static_runtime wheel (PEP 427) from the package's files, with
only the standard library: the files under the package directory, the
dist-info (METADATA, WHEEL, top_level.txt) and RECORD with every file's
SHA-256.

    build_wheel.py --out DIR/static_runtime-VERSION-TAG.whl --version VERSION \
        --tag TAG --requires 'torch (>=1.13.0a0, <1.14)' PATH_IN_WHEEL=FILE...
"""
import argparse
import base64
import hashlib
import zipfile

# Every member gets this timestamp, so the wheel's bytes depend only on its
# contents.
EPOCH = (1980, 1, 1, 0, 0, 0)


def record_line(name, data):
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    return f"{name},sha256={digest},{len(data)}"


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--out", required=True)
    parser.add_argument("--version", required=True)
    parser.add_argument("--tag", required=True)
    parser.add_argument("--requires", action="append", default=[])
    parser.add_argument("files", nargs="+", help="PATH_IN_WHEEL=FILE")
    args = parser.parse_args()

    dist_info = f"static_runtime-{args.version}.dist-info"
    members = []
    for spec in sorted(args.files):
        name, path = spec.split("=", 1)
        with open(path, "rb") as f:
            members.append((name, f.read()))
    metadata = "\n".join(
        ["Metadata-Version: 2.1", "Name: static_runtime", f"Version: {args.version}",
         "Summary: A static runtime for TorchScript inference on LibTorch 1.13 "
         "(a drop-in for torch._C._jit_to_static_module)",
         "Requires-Python: >=3.11, <3.12"] +
        [f"Requires-Dist: {requirement}" for requirement in args.requires]) + "\n"
    wheel = "\n".join(["Wheel-Version: 1.0", "Generator: static_runtime build_wheel.py",
                       "Root-Is-Purelib: false", f"Tag: {args.tag}"]) + "\n"
    members += [(f"{dist_info}/METADATA", metadata.encode()),
                (f"{dist_info}/WHEEL", wheel.encode()),
                (f"{dist_info}/top_level.txt", b"static_runtime\n")]
    record = [record_line(name, data) for name, data in members] + [f"{dist_info}/RECORD,,"]
    members.append((f"{dist_info}/RECORD", ("\n".join(record) + "\n").encode()))

    with zipfile.ZipFile(args.out, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, data in members:
            info = zipfile.ZipInfo(name, date_time=EPOCH)
            info.compress_type = zipfile.ZIP_DEFLATED
            # Shared objects stay executable once installed.
            info.external_attr = (0o755 if name.endswith(".so") else 0o644) << 16
            archive.writestr(info, data)


if __name__ == "__main__":
    main()
