"""python3 -m static_runtime COMMAND: the sr tool's bench, verify and compile
on the installed package.

  bench MODEL.pt --inputs=FILE [--iters=N] [--warmup=N] [--OPTION=true|false ...]
      times the JIT, PyTorch's Static Runtime and static_runtime on the
      model, interleaved in this process (like `sr bench --against=pytorch-sr`).
  verify MODEL.pt --inputs=FILE[,FILE...] [--rounds=N] [--json=FILE] [--OPTION=true|false ...]
      sr verify's check, by the same code: static_runtime against the JIT
      under the given options and every standard option set, on every input
      file, each run twice, the outputs, the inputs after the run and every
      kernel's node checked (docs/verification.md); exits 0 only if all pass.
  compile MODEL.pt -o MODEL.srpkg [--inputs=FILE] [--OPTION=true|false ...]
      prepares the model once (its memory plan sized on the inputs, if given)
      and writes it as a compiled package, like `sr compile`.

MODEL.pt is a torch.jit.save archive, FILE a torch.save'd tuple or list of
arguments. Options are the runtime's (static_runtime.option_descriptions()).
Exit status: 0 success, 1 a failed check or an unreadable model or input, 2 a
bad command line.
"""
import argparse
import sys

import torch

import static_runtime

class UsageError(Exception):
    pass


def parse_options(flags):
    """--name=true|false flags -> {name: bool}, checked against the runtime's
    options."""
    known = static_runtime.option_descriptions()
    options = {}
    for flag in flags:
        name, _, value = flag.lstrip("-").partition("=")
        if not flag.startswith("--") or name not in known:
            raise UsageError(f"unknown flag {flag} (options: {', '.join(sorted(known))})")
        if value not in ("true", "false", ""):
            raise UsageError(f"{flag}: takes true or false")
        options[name] = value != "false"
    return options


def load_inputs(path, model):
    """The positional arguments of `model`'s forward from a torch.save'd
    file: a tuple or list is the arguments, any other value the only one,
    unless it is a dict with string keys and forward's first argument takes
    no dict (nor an optional one, nor Any): then it holds keyword arguments,
    put in the schema's order with the defaults of those it leaves out (as
    the sr tool reads it, with its errors' words)."""
    inputs = torch.load(path)
    if not isinstance(inputs, dict) or not inputs or \
            not all(isinstance(key, str) for key in inputs):
        return tuple(inputs) if isinstance(inputs, (tuple, list)) else (inputs,)
    arguments = [a for a in model.forward.schema.arguments if a.name != "self"]
    first = arguments[0].type if arguments else None
    if first is not None and first.kind() == "OptionalType":
        first = first.getElementType()
    if first is None or first.kind() in ("DictType", "AnyType"):
        return (inputs,)
    names = [a.name for a in arguments]
    prefix = "the inputs are a dict of keyword arguments: forward()"
    for key in inputs:
        if key not in names:
            raise ValueError(f"{prefix} got an unexpected keyword argument '{key}' "
                             f"(arguments: {', '.join(names)})")
    positional = []
    for index, argument in enumerate(arguments):
        if argument.name in inputs:
            positional.append(inputs[argument.name])
        elif argument.has_default_value():
            positional.append(argument.default_value)
        else:
            raise ValueError(f"{prefix} missing argument {index} ('{argument.name}') "
                             f"of type {argument.type.annotation_str}")
    return tuple(positional)


def verify(model_path, input_paths, rounds, given, json_path):
    """sr verify's verdict (the C++ verify/verify_model.h, one comparison for
    both), printed as sr verify prints it; the JSON report to `json_path`."""
    model = torch.jit.load(model_path).eval()
    input_sets = [(path, load_inputs(path, model)) for path in input_paths]
    verdict = static_runtime._static_runtime._verify(model._c, input_sets, given, rounds, False,
                                                     model_path)
    print(verdict["report"], end="")
    if json_path:
        with open(json_path, "w") as f:
            f.write(verdict["json"])
    return 0 if verdict["passed"] else 1


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python3 -m static_runtime", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    commands = parser.add_subparsers(dest="command", required=True)
    bench = commands.add_parser("bench", help="time a saved model")
    bench.add_argument("model", help="a torch.jit.save archive")
    bench.add_argument("--inputs", required=True,
                       help="a torch.save'd tuple or list of inputs, or dict of keyword arguments")
    bench.add_argument("--iters", type=int, default=100)
    bench.add_argument("--warmup", type=int, default=10)
    bench.add_argument("--threads", type=int, default=1, help="torch intra-op threads")
    check = commands.add_parser("verify", help="check a saved model against the JIT")
    check.add_argument("model", help="a torch.jit.save archive")
    check.add_argument("--inputs", required=True, help="input files, comma separated")
    check.add_argument("--rounds", type=int, default=2)
    check.add_argument("--json", help="also write the report as JSON to this file")
    compile_ = commands.add_parser("compile", help="write a compiled package")
    compile_.add_argument("model", help="a torch.jit.save archive")
    compile_.add_argument("-o", "--out", required=True, help="the package to write")
    compile_.add_argument("--inputs", help="sample inputs that size the memory plan")
    args, flags = parser.parse_known_args(argv)
    try:
        options = parse_options(flags)
    except UsageError as error:
        parser.print_usage(sys.stderr)
        print(f"static_runtime: {error}", file=sys.stderr)
        return 2
    try:
        model = torch.jit.load(args.model).eval()
        inputs = load_inputs(args.inputs, model) if args.inputs and args.command != "verify" \
            else ()
    except Exception as error:  # a missing or unreadable file
        print(f"static_runtime: cannot load: {error}", file=sys.stderr)
        return 1
    if args.command == "bench":
        torch.set_num_threads(args.threads)
        print(f"model: {args.model}")
        static_runtime.compare(model, inputs, iters=args.iters, warmup=args.warmup,
                               options=options)
        return 0
    if args.command == "verify":
        if args.rounds < 1:
            parser.print_usage(sys.stderr)
            print("static_runtime: --rounds must be >= 1", file=sys.stderr)
            return 2
        try:
            return verify(args.model, args.inputs.split(","), args.rounds, options, args.json)
        except TypeError as error:  # an input file's values do not fit forward's arguments
            print(f"static_runtime: {error}", file=sys.stderr)
            return 1
        except (OSError, RuntimeError, ValueError) as error:
            print(f"static_runtime: cannot load: {error}", file=sys.stderr)
            return 1
    static = static_runtime.StaticModule(model, sample_inputs=inputs, **options)
    static.save_package(args.out, source=args.model)
    print(f"wrote {args.out}: {static.kernel_counts()}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
