"""python3 -m static_runtime COMMAND: the sr tool's bench, verify and compile
on the installed package.

  bench MODEL.pt --inputs=FILE [--iters=N] [--warmup=N] [--OPTION=true|false ...]
      times the JIT, PyTorch's Static Runtime and static_runtime on the
      model, interleaved in this process (like `sr bench --against=pytorch-sr`).
  verify MODEL.pt --inputs=FILE[,FILE...] [--rounds=N] [--OPTION=true|false ...]
      checks static_runtime against the JIT under the given options and every
      standard option set, on every input file, each run twice; exits 0 only if
      every output (and every input the model writes to) equals the JIT's
      (within 1e-4 where pre-packed oneDNN kernels run), like `sr verify`.
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


def copied(value):
    """A deep copy of a call's arguments: a model may write to them."""
    if isinstance(value, torch.Tensor):
        return value.clone()
    if isinstance(value, tuple):
        return tuple(copied(v) for v in value)
    if isinstance(value, list):
        return [copied(v) for v in value]
    if isinstance(value, dict):
        return {k: copied(v) for k, v in value.items()}
    return value


def difference(expected, actual, exact):
    """'' if `actual` equals `expected` (within 1e-4 unless `exact`), else
    where they first differ."""
    if isinstance(expected, torch.Tensor):
        if not isinstance(actual, torch.Tensor) or expected.shape != actual.shape:
            return f"{type(actual).__name__} {getattr(actual, 'shape', '')} where the JIT " \
                   f"gives a tensor of shape {tuple(expected.shape)}"
        if exact and torch.equal(expected, actual):
            return ""
        if not exact and torch.allclose(expected, actual, rtol=1e-4, atol=1e-4, equal_nan=True):
            return ""
        diff = (expected.double() - actual.double()).abs().max().item() if expected.numel() else 0
        return f"tensor values differ (max |difference| {diff:.3g})"
    if isinstance(expected, (tuple, list)):
        if not isinstance(actual, (tuple, list)) or len(expected) != len(actual):
            return f"{actual!r:.80} where the JIT gives {expected!r:.80}"
        for i, (e, a) in enumerate(zip(expected, actual)):
            why = difference(e, a, exact)
            if why:
                return f"[{i}]: {why}"
        return ""
    if isinstance(expected, dict):
        if not isinstance(actual, dict) or expected.keys() != actual.keys():
            return "dict keys differ from the JIT's"
        for key in expected:
            why = difference(expected[key], actual[key], exact)
            if why:
                return f"[{key!r}]: {why}"
        return ""
    return "" if expected == actual else f"{actual!r:.80} where the JIT gives {expected!r:.80}"


def verify(model_path, input_paths, rounds, given):
    model = torch.jit.load(model_path).eval()
    input_sets = [(path, load_inputs(path, model)) for path in input_paths]
    option_sets = {"as given": given}
    option_sets.update({name: options
                        for name, options in static_runtime.standard_option_sets().items()
                        if name != "defaults"})
    failures, runs, checks = 0, 0, 0
    for set_name, options in option_sets.items():
        exact = not {**static_runtime.option_defaults(), **options}["prepack_weights"]
        try:
            static = static_runtime.StaticModule(model, **options)
        except Exception as error:  # the model cannot be prepared with these options
            print(f"FAILED [{set_name}]: the runtime prepares the model\n    {error}")
            failures += 1
            continue
        jit = torch.jit.load(model_path).eval()  # its own state, advancing with ours
        for _ in range(rounds):
            for input_name, inputs in input_sets:
                runs += 1
                checks += 2
                jit_inputs, our_inputs = copied(inputs), copied(inputs)
                with torch.no_grad():
                    expected = jit(*jit_inputs)
                try:
                    actual = static(*our_inputs)
                except Exception as error:
                    print(f"FAILED [{set_name}] ({input_name}): the model runs\n    {error}")
                    failures += 1
                    continue
                why = difference(expected, actual, exact) or \
                    difference(jit_inputs, our_inputs, exact=True)
                if why:
                    print(f"FAILED [{set_name}] ({input_name}): outputs and inputs after the "
                          f"run equal the JIT's\n    {why}")
                    failures += 1
    passed = failures == 0 and runs > 0
    print(f"verify: {len(option_sets)} option sets, {runs} runs, {checks} checks, {failures} "
          f"failed: {'PASSED' if passed else 'FAILED'}")
    return 0 if passed else 1


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
        try:
            return verify(args.model, args.inputs.split(","), args.rounds, options)
        except (OSError, RuntimeError, ValueError) as error:
            print(f"static_runtime: cannot load: {error}", file=sys.stderr)
            return 1
    static = static_runtime.StaticModule(model, sample_inputs=inputs, **options)
    static.save_package(args.out, source=args.model)
    print(f"wrote {args.out}: {static.kernel_counts()}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
