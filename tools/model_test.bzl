"""Macros for projects that import static_runtime (load from
`@static_runtime//tools:model_test.bzl`) to gate their own models in CI.

    static_runtime_model_test(
        name = "ranker_verify",
        model = "ranker.pt",                    # torch.jit.save archive
        inputs = ["ranker_inputs.pt"],          # torch.save'd tuples (any number)
    )

is a test that runs `sr verify` on the model: outputs equal to the JIT's under
every option set, inputs unmodified, held outputs stable, nothing retained.

    static_runtime_model_benchmark(
        name = "ranker_bench",
        model = "ranker.pt",
        inputs = ["ranker_inputs.pt"],
    )

is a runnable target (`bazel run :ranker_bench`) that times the model against
the JIT (`sr bench`, interleaved) and writes the JSON report to
`ranker_bench.json` in the directory it is run from; `sr gate` compares two
such reports.
"""

_SR = Label("//tools:sr")
_RUN_SR = Label("//tools:run_sr.sh")

def _runtime_flags(options, frozen):
    flags = ["--frozen"] if frozen else []
    for name, value in options.items():
        if type(value) == "bool":
            value = "true" if value else "false"
        flags.append("--%s=%s" % (name.replace("_", "-"), value))
    return flags

def _input_flags(inputs, input_specs, seeds):
    flags = []
    if inputs:
        flags.append("--inputs=" + ",".join(["$(rootpath %s)" % i for i in inputs]))
    if input_specs:
        flags.append("--input-spec=" + "|".join(input_specs))
        flags.append("--seeds=%d" % seeds)
    return flags

def _sr_target(rule, name, model, inputs, args, options, frozen, kwargs):
    """`rule` (sh_test or sh_binary) running tools:sr with `args` and the runtime flags."""
    rule(
        name = name,
        srcs = [_RUN_SR],
        args = args + _runtime_flags(options, frozen),
        data = [_SR, model] + inputs,
        **kwargs
    )

def static_runtime_model_test(
        name,
        model,
        inputs = [],
        input_specs = [],
        options = {},
        seeds = 2,
        frozen = False,
        expect_failure = False,
        **kwargs):
    """A test running `sr verify` on `model`.

    Args:
      name: the test's name.
      model: a torch.jit.save archive (a file or a rule's output).
      inputs: files written by torch.save (a tuple or list of inputs each).
      input_specs: random input specs (see the README), e.g. "f32[8,64];i64[32]{0..999}";
        each is run with `seeds` seeds.
      options: runtime options, {"enable_fusion": False, ...}: the option set
        "as given"; the standard option sets are checked too.
      seeds: seeds per input spec.
      frozen: the model is already frozen (torch.jit.freeze).
      expect_failure: the test passes only if verify finds a problem (exit 1).
      **kwargs: passed to the sh_test (size, tags, ...).
    """
    if not inputs and not input_specs:
        fail("static_runtime_model_test %s: give inputs or input_specs" % name)
    args = ["--expect-failure"] if expect_failure else []
    args += ["$(rootpath %s)" % _SR, "verify", "$(rootpath %s)" % model]
    args += _input_flags(inputs, input_specs, seeds)
    _sr_target(native.sh_test, name, model, inputs, args, options, frozen, kwargs)

def static_runtime_model_benchmark(
        name,
        model,
        inputs = [],
        input_spec = None,
        options = {},
        iters = 500,
        against = "",
        frozen = False,
        **kwargs):
    """A runnable target timing `model` with `sr bench`, writing `<name>.json`.

    Args:
      name: the target's name, and the JSON file's.
      model: a torch.jit.save archive.
      inputs: one file written by torch.save (at most one).
      input_spec: or random inputs from this spec.
      options: runtime options, as for static_runtime_model_test.
      iters: timed calls per side.
      against: also time "pytorch-sr" (PyTorch's own Static Runtime) and/or
        "static:OPTION=VALUE,..." (see sr bench --help).
      frozen: the model is already frozen.
      **kwargs: passed to the sh_binary.
    """
    if len(inputs) > 1:
        fail("static_runtime_model_benchmark %s: one inputs file at most" % name)
    if (not inputs) == (input_spec == None):
        fail("static_runtime_model_benchmark %s: give inputs or input_spec" % name)
    args = [
        "--json-in-working-directory=%s.json" % name,
        "$(rootpath %s)" % _SR,
        "bench",
        "$(rootpath %s)" % model,
        "--iters=%d" % iters,
    ]
    if inputs:
        args.append("--inputs=$(rootpath %s)" % inputs[0])
    else:
        args.append("--input-spec=" + input_spec)
    if against:
        args.append("--against=" + against)
    _sr_target(native.sh_binary, name, model, inputs, args, options, frozen, kwargs)
