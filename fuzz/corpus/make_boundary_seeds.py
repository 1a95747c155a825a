#!/usr/bin/env python3
"""Writes the fuzzers' boundary seeds: every reader of an enum or an index
given the last valid value, the count, and the count plus one.

  python3 fuzz/corpus/make_boundary_seeds.py   (from the repository root)

- ir/boundary__<enum>_<value>.ir: an aten::empty whose dtype, layout or
  memory format constant is count-1, count, count+1 or -1 (the counts are
  read from LibTorch's c10 headers, so a LibTorch with more dtypes moves
  the seeds with it);
- model/boundary__memo_<form>_<i>_of_<count>.pt: mlp.pt with a memo get
  of index i (count-1, count, count+1 of the memo stored before it) in its
  data.pkl, in the one-byte and four-byte forms (count-1 loads as mlp.pt);
- package_records/boundary__dtype_<value>.records: mlp.records with its
  memory plan's first dtype at count-1, count and count+1.
"""
import os
import pickletools
import re
import struct
import zipfile

INCLUDE = "/usr/include/c10/core"


def enum_count(header, enum):
    """The number of enumerators before NumOptions in `enum class enum`."""
    text = open(os.path.join(INCLUDE, header)).read()
    body = re.search(r"enum class " + enum + r"\b[^{]*\{(.*?)NumOptions", text, re.S).group(1)
    return len([name for name in body.split(",") if name.strip()])


def scalar_type_count():
    """ScalarType's enumerators: an X-macro list's entries, then those named
    after it (Undefined) before NumOptions."""
    text = open(os.path.join(INCLUDE, "ScalarType.h")).read()
    macro = re.search(r"#define AT_FORALL_SCALAR_TYPES_WITH_COMPLEX_AND_QINTS\(_\)(.*?)\n\n",
                      text, re.S).group(1)
    after = re.search(r"enum class ScalarType\b.*?#undef DEFINE_ENUM(.*?)NumOptions", text,
                      re.S).group(1)
    return len(re.findall(r"\b_\(", macro)) + len([n for n in after.split(",") if n.strip()])


def write(path, data):
    with open(path, "wb") as out:
        out.write(data)
    print(path)


def ir_seeds(counts):
    for argument, count in counts.items():
        for value in (count - 1, count, count + 1, -1):
            given = {a: "%none" for a in counts}
            given[argument] = "%value"
            ir = ("graph(%n : int):\n"
                  "  %sizes : int[] = prim::ListConstruct(%n)\n"
                  f"  %value : int = prim::Constant[value={value}]()\n"
                  "  %none : NoneType = prim::Constant()\n"
                  f"  %y : Tensor = aten::empty(%sizes, {given['dtype']}, {given['layout']},"
                  f" %none, %none, {given['memory_format']})\n"
                  "  return (%y)\n")
            name = f"boundary__{argument}_{'minus_1' if value < 0 else value}.ir"
            write(os.path.join("fuzz/corpus/ir", name), ir.encode())


def with_memo_get(pickle_bytes, get):
    """The pickle with one more item in its outermost dict, before its last
    SETITEMS: the key 'training' (stored as a new memo entry, the last one),
    then the key `get` reads, each set to True. With `get` reading the last
    entry the pickle loads as before (the same key set twice to the same
    value). Returns the new pickle and the memo's count at `get`."""
    ops = list(pickletools.genops(pickle_bytes))
    setitems = max(at for opcode, _, at in ops if opcode.name == "SETITEMS")
    count = max(arg + 1 for opcode, arg, at in ops
                if opcode.name in ("BINPUT", "LONG_BINPUT") and at < setitems)
    key = b"X" + struct.pack("<I", len(b"training")) + b"training"
    put = b"r" + struct.pack("<I", count)
    added = key + put + b"\x88" + get(count + 1) + b"\x88"
    return pickle_bytes[:setitems] + added + pickle_bytes[setitems:], count + 1


def rewrite_archive(source, target, changed):
    """Copies a zip archive, each record through `changed(name, bytes)`."""
    with zipfile.ZipFile(source) as archive, zipfile.ZipFile(target, "w") as out:
        for info in archive.infolist():
            out.writestr(info, changed(info.filename, archive.read(info.filename)))
    print(target)


def model_seeds():
    source = "fuzz/corpus/model/mlp.pt"
    with zipfile.ZipFile(source) as archive:
        data_name = next(n for n in archive.namelist() if n.endswith("/data.pkl"))
        data = archive.read(data_name)
    for offset in (-1, 0, 1):  # count-1, count, count+1
        for form, get in (("binget", lambda c: b"h" + struct.pack("<B", c + offset)),
                          ("long_binget", lambda c: b"j" + struct.pack("<I", c + offset))):
            changed, count = with_memo_get(data, get)
            target = f"fuzz/corpus/model/boundary__memo_{form}_{count + offset}_of_{count}.pt"
            rewrite_archive(source, target,
                            lambda name, record: changed if name == data_name else record)


def package_records_seeds(dtypes):
    source = "fuzz/corpus/package_records/mlp.records"
    records = open(source, "rb").read()
    plan = re.search(rb'"dtype": ?(\d+)', records.split(b"@@record memory_plan.json", 1)[1])
    assert plan, "no dtype in mlp.records' memory plan"
    at = len(records) - len(records.split(b"@@record memory_plan.json", 1)[1]) + plan.start(1)
    for value in (dtypes - 1, dtypes, dtypes + 1):
        changed = records[:at] + str(value).encode() + records[at + len(plan.group(1)):]
        write(f"fuzz/corpus/package_records/boundary__dtype_{value}.records", changed)


def main():
    counts = {
        "dtype": scalar_type_count(),
        "layout": enum_count("Layout.h", "Layout"),
        "memory_format": enum_count("MemoryFormat.h", "MemoryFormat"),
    }
    print("counts:", counts)
    ir_seeds(counts)
    model_seeds()
    package_records_seeds(counts["dtype"])


if __name__ == "__main__":
    main()
