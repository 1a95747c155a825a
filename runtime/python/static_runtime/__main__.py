"""python3 -m static_runtime bench MODEL.pt --inputs INPUTS.pt [--iters N]
[--warmup N] [--OPTION=true|false ...]: times the JIT, PyTorch's Static
Runtime and static_runtime on the model (static_runtime.compare), like `sr
bench --against=pytorch-sr`."""
import argparse
import sys

import torch

import static_runtime


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python3 -m static_runtime", description=__doc__)
    commands = parser.add_subparsers(dest="command", required=True)
    bench = commands.add_parser("bench", help="time a saved model")
    bench.add_argument("model", help="a torch.jit.save archive")
    bench.add_argument("--inputs", required=True, help="a torch.save'd tuple or list of inputs")
    bench.add_argument("--iters", type=int, default=100)
    bench.add_argument("--warmup", type=int, default=10)
    bench.add_argument("--threads", type=int, default=1, help="torch intra-op threads")
    args = parser.parse_args(argv)
    torch.set_num_threads(args.threads)
    try:
        model = torch.jit.load(args.model).eval()
        inputs = torch.load(args.inputs)
    except Exception as error:  # a missing or unreadable file
        print(f"static_runtime: cannot load: {error}", file=sys.stderr)
        return 1
    if not isinstance(inputs, (tuple, list)):
        inputs = (inputs,)
    print(f"model: {args.model}")
    static_runtime.compare(model, tuple(inputs), iters=args.iters, warmup=args.warmup)
    return 0


if __name__ == "__main__":
    sys.exit(main())
