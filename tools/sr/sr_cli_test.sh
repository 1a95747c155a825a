#!/bin/bash
# Error paths of the sr command line: one line on stderr, a non-zero exit, no
# stack dump; and a small successful run with a JSON report.
set -u
SR="${TEST_SRCDIR}/${TEST_WORKSPACE}/tools/sr/sr"
INPUTS="${TEST_SRCDIR}/${TEST_WORKSPACE}/tools/sr/testdata/inputs.pt"
failures=0

# expect_error CODE SUBSTRING ARGS...
expect_error() {
  local code="$1" text="$2"
  shift 2
  local err
  err="$("$SR" "$@" 2>&1 >/dev/null)"
  local status=$?
  if [[ $status -ne $code || "$err" != *"$text"* || $(printf '%s\n' "$err" | wc -l) -ne 1 ]]; then
    echo "FAIL: sr $* -> exit $status, stderr: $err (wanted exit $code and '$text')"
    failures=$((failures + 1))
  fi
}

expect_error 2 "no command given"
expect_error 2 "unknown command 'bnech'" bnech
expect_error 2 "unknown flag --itres" bench --itres=3
expect_error 2 "--iters needs an integer" bench --iters=x
expect_error 1 "cannot open" bench /nonexistent/model.pt --input-spec=f32[2]
echo "not an archive" > "${TEST_TMPDIR}/bad.pt"
expect_error 1 "bad.pt" bench "${TEST_TMPDIR}/bad.pt" --input-spec=f32[2]
expect_error 2 "needs --inputs" bench "${TEST_TMPDIR}/bad.pt"
expect_error 1 "unknown dtype 'x32'" bench --input-spec='x32[2]'
expect_error 1 "argument" bench --input-spec='f32[2]' --iters=2
expect_error 1 "cannot open inputs file" bench --inputs=/nonexistent.pt --iters=2
expect_error 2 "not both" bench --inputs="$INPUTS" --input-spec='f32[2]'
expect_error 2 "manage_output_tensors=true needs optimize_memory=true" bench --manage-output-tensors --optimize-memory=false

expect_error 2 "explain takes at most one model file" explain a.pt b.pt

# --quantized-engine: an engine this LibTorch lacks is an error listing the
# ones it has; one it has runs.
expect_error 2 "this LibTorch has the engines" bench --iters=1 --warmup=0 --quantized-engine=fbgemm2
if ! "$SR" bench --iters=1 --warmup=0 --quantized-engine=QNNPACK >/dev/null 2>&1; then
  echo "FAIL: sr bench --quantized-engine=QNNPACK does not run"
  failures=$((failures + 1))
fi

# --blas-core: sr runs again on that OpenBLAS core and says so; a core
# OpenBLAS does not take is an error naming the one it runs.
expect_error 2 "instead of Nonesuch" bench --iters=1 --warmup=0 --blas-core=Nonesuch
if ! "$SR" bench --iters=2 --warmup=0 --blas-core=Prescott 2>/dev/null |
    grep -q "matrix kernels: OpenBLAS core Prescott"; then
  echo "FAIL: sr bench --blas-core=Prescott does not report the Prescott core"
  failures=$((failures + 1))
fi
# bench --against runs the others on the best core unless one is chosen.
best=$("$SR" bench --iters=2 --warmup=0 --blas-core=best 2>/dev/null | grep "matrix kernels:")
if ! "$SR" bench --iters=2 --warmup=0 --against=pytorch-sr 2>/dev/null | grep -qF "$best"; then
  echo "FAIL: sr bench --against does not run on the best OpenBLAS core ($best)"
  failures=$((failures + 1))
fi
if ! OPENBLAS_CORETYPE=Prescott "$SR" bench --iters=2 --warmup=0 --against=pytorch-sr 2>/dev/null |
    grep -q "matrix kernels: OpenBLAS core Prescott"; then
  echo "FAIL: sr bench --against overrides OPENBLAS_CORETYPE"
  failures=$((failures + 1))
fi
if ! "$SR" explain --dot="${TEST_TMPDIR}/g.dot" | grep -q "out_variant"; then
  echo "FAIL: sr explain on the default model"
  failures=$((failures + 1))
fi
grep -q "digraph prepared" "${TEST_TMPDIR}/g.dot" || {
  echo "FAIL: no DOT graph written"; failures=$((failures + 1)); }

if ! "$SR" profile --iters=3 --trace="${TEST_TMPDIR}/trace.json" | grep -q "runtime overhead per node"; then
  echo "FAIL: sr profile on the default model"
  failures=$((failures + 1))
fi
grep -q '"traceEvents"' "${TEST_TMPDIR}/trace.json" || {
  echo "FAIL: no trace written"; failures=$((failures + 1)); }
expect_error 2 "needs --inputs" profile "${TEST_TMPDIR}/bad.pt"
expect_error 2 "plan needs --svg" plan
expect_error 1 "unknown --builtin=big" bench --builtin=big
# 65 elementwise, softmax and sum nodes; fused, each round's runs of
# elementwise ops are one node (5 rounds of 2 softmax/sum + 2 groups).
if ! "$SR" bench --builtin=op_dense --enable_fusion=false --iters=3 --warmup=1 |
    grep -q "65 out variant"; then
  echo "FAIL: sr bench --builtin=op_dense --enable_fusion=false"
  failures=$((failures + 1))
fi
if ! "$SR" bench --builtin=op_dense --iters=3 --warmup=1 | grep -q "nodes: 2[0-9] out variant"; then
  echo "FAIL: sr bench --builtin=op_dense (fused)"
  failures=$((failures + 1))
fi
expect_error 2 "unknown --against=jit" bench --against=jit
# PyTorch's own Static Runtime timed beside ours, with allocations per run.
against="$("$SR" bench --against=pytorch-sr --iters=5 --warmup=1 --json="${TEST_TMPDIR}/against.json" 2>/dev/null)"
if [[ "$against" != *"ratio (static / pytorch sr, median)"* || "$against" != *"allocations/run"* ]] ||
   ! grep -q '"ratio_to_pytorch_sr"' "${TEST_TMPDIR}/against.json"; then
  echo "FAIL: sr bench --against=pytorch-sr: $against"
  failures=$((failures + 1))
fi
# The static runtime with other options, beside it; a bad option is a
# command-line error.
other="$("$SR" bench --against=static:enable_fusion=false --iters=3 --warmup=1 --json="${TEST_TMPDIR}/other.json" 2>/dev/null)"
if [[ "$other" != *"ratio (static / static with enable_fusion=false, median)"* ]] ||
   ! grep -q '"ratio_to_other_static"' "${TEST_TMPDIR}/other.json"; then
  echo "FAIL: sr bench --against=static:enable_fusion=false: $other"
  failures=$((failures + 1))
fi
expect_error 2 "not 'fusion=false'" bench --against=static:fusion=false
expect_error 2 "not 'enable_fusion=no'" bench --against=static:enable_fusion=no
if ! "$SR" plan --svg="${TEST_TMPDIR}/plan.svg" | grep -q "managed tensors"; then
  echo "FAIL: sr plan on the default model"
  failures=$((failures + 1))
fi
grep -q "<svg" "${TEST_TMPDIR}/plan.svg" || { echo "FAIL: no SVG written"; failures=$((failures + 1)); }

# A model saved from Python with aten::to(dtype) (maybe_copy_to) inside an If:
# the sr binary once registered that operator under a not-yet-initialized
# symbol (static initialization order). Made by, in Python 3:
#   class M(torch.nn.Module):
#       def forward(self, x, mask: Optional[torch.Tensor]):
#           if mask is not None:
#               mask = mask.to(x.dtype)
#               return x + mask
#           return x * 2
#   torch.jit.freeze(torch.jit.script(M().eval())).save("to_dtype_in_if.pt")
#   torch.save((torch.randn(3), torch.tensor([True, False, True])), "to_dtype_in_if_inputs.pt")
TESTDATA="${TEST_SRCDIR}/${TEST_WORKSPACE}/tools/sr/testdata"
if ! "$SR" bench "${TESTDATA}/to_dtype_in_if.pt" --inputs="${TESTDATA}/to_dtype_in_if_inputs.pt" \
    --iters=3 --warmup=1 | grep -q "max |static - jit| = 0"; then
  echo "FAIL: sr bench of a model with aten::to inside an If"
  failures=$((failures + 1))
fi
# The same inputs as a dict of keyword arguments:
#   torch.save({"mask": torch.tensor([True, False, True]), "x": torch.randn(3)},
#              "to_dtype_in_if_kwargs.pt")
# and with a key that names no argument ("masks"): to_dtype_in_if_bad_kwargs.pt.
if ! "$SR" verify "${TESTDATA}/to_dtype_in_if.pt" --inputs="${TESTDATA}/to_dtype_in_if_kwargs.pt" \
    | grep -q "0 failed: PASSED"; then
  echo "FAIL: sr verify with a dict of keyword arguments"
  failures=$((failures + 1))
fi
expect_error 1 "unexpected keyword argument 'masks' (arguments: x, mask)" \
  bench "${TESTDATA}/to_dtype_in_if.pt" --inputs="${TESTDATA}/to_dtype_in_if_bad_kwargs.pt"

expect_error 2 "export needs --model-out=FILE and --inputs-out=FILE" export --model-out=x.pt
# export, then bench the exported files: the round trip gives the same model
# (bit for bit with ATen's kernels, i.e. without pre-packed weights).
if ! "$SR" export --model-out="${TEST_TMPDIR}/ads.pt" --inputs-out="${TEST_TMPDIR}/ads_inputs.pt" \
    || ! "$SR" bench "${TEST_TMPDIR}/ads.pt" --inputs="${TEST_TMPDIR}/ads_inputs.pt" --iters=3 \
         --warmup=1 --prepack-weights=false | grep -q "max |static - jit| = 0"; then
  echo "FAIL: sr export, then bench of the exported model"
  failures=$((failures + 1))
fi

# Each command takes only its own flags: another command's flag is an error
# naming it, and a command's --help lists its flags only.
expect_error 2 "--iters is a flag of bench, profile, not of gate (see sr gate --help)" gate --iters=5
expect_error 2 "--repository is a flag of serve, not of bench" bench --repository=models
expect_error 2 "unknown flag --nonesuch (see sr plan --help)" plan --nonesuch
if ! "$SR" bench --help | grep -q -- "--input-spec=VALUE" ||
    "$SR" bench --help | grep -q -- "--repository"; then
  echo "FAIL: sr bench --help does not list --input-spec, or lists serve's --repository"
  failures=$((failures + 1))
fi
if "$SR" gate --help | grep -q -- "--iters\|--input-spec\|--blas-core" ||
    ! "$SR" gate --help | grep -q -- "--max-regression=X"; then
  echo "FAIL: sr gate --help lists other commands' flags, or not its own"
  failures=$((failures + 1))
fi
if ! "$SR" --help | grep -q "sr COMMAND --help"; then
  echo "FAIL: sr --help does not point to the commands' own help"
  failures=$((failures + 1))
fi
if ! "$SR" bench --iters=3 --warmup=1 --json="${TEST_TMPDIR}/report.json" > "${TEST_TMPDIR}/out.txt"; then
  echo "FAIL: sr bench on the default model"
  failures=$((failures + 1))
fi
for key in '"ratio"' '"max_abs_diff"' '"static_runtime"' '"jit"' '"memory"' '"nodes"'; do
  if ! grep -q "$key" "${TEST_TMPDIR}/report.json"; then
    echo "FAIL: report.json has no $key"
    failures=$((failures + 1))
  fi
done
grep -q "ratio (static / jit, median)" "${TEST_TMPDIR}/out.txt" || {
  echo "FAIL: no ratio line"; failures=$((failures + 1)); }

# verify: a saved model passes under every option set (exit 0, JSON written);
# without inputs it is a usage error.
if ! "$SR" verify "${TESTDATA}/to_dtype_in_if.pt" --inputs="${TESTDATA}/to_dtype_in_if_inputs.pt" \
    --json="${TEST_TMPDIR}/verify.json" | grep -q "0 failed: PASSED" ||
    ! grep -q '"passed": true' "${TEST_TMPDIR}/verify.json"; then
  echo "FAIL: sr verify of a saved model"
  failures=$((failures + 1))
fi
expect_error 2 "verify needs --inputs" verify "${TESTDATA}/to_dtype_in_if.pt"

# gate: a ratio 20% worse fails (exit 1) and is named; within the limit
# passes; malformed JSON and a missing file are errors (exit 2).
report() { printf '{"model": "%s", "ratio": %s}' "$1" "$2"; }
report ads 0.50 > "${TEST_TMPDIR}/old.json"
report ads 0.60 > "${TEST_TMPDIR}/new.json"
report ads 0.51 > "${TEST_TMPDIR}/same.json"
printf '{"model": ' > "${TEST_TMPDIR}/broken.json"
"$SR" gate --baseline="${TEST_TMPDIR}/old.json" --current="${TEST_TMPDIR}/new.json" \
  > "${TEST_TMPDIR}/gate.txt"
[ $? -eq 1 ] && grep -q "REGRESSION" "${TEST_TMPDIR}/gate.txt" || {
  echo "FAIL: sr gate on a regression"; failures=$((failures + 1)); }
"$SR" gate --baseline="${TEST_TMPDIR}/old.json" --current="${TEST_TMPDIR}/same.json" \
  --max-regression=5 > /dev/null || {
  echo "FAIL: sr gate within the limit"; failures=$((failures + 1)); }
expect_error 2 "not valid JSON" gate --baseline="${TEST_TMPDIR}/old.json" \
  --current="${TEST_TMPDIR}/broken.json"
expect_error 2 "cannot read" gate --baseline="${TEST_TMPDIR}/none.json" \
  --current="${TEST_TMPDIR}/new.json"
expect_error 2 "gate needs --baseline" gate --current="${TEST_TMPDIR}/new.json"

# Compiled packages: compile, then profile, explain, plan and bench take the
# package; load compares the ways of loading.
MODEL="${TEST_SRCDIR}/${TEST_WORKSPACE}/tools/sr/testdata/to_dtype_in_if.pt"
MODEL_INPUTS="${TEST_SRCDIR}/${TEST_WORKSPACE}/tools/sr/testdata/to_dtype_in_if_inputs.pt"
PACKAGE="${TEST_TMPDIR}/model.srpkg"
expect_error 2 "compile needs -o" compile "$MODEL"
expect_error 2 "compile takes one model file" compile
"$SR" compile "$MODEL" --inputs="$MODEL_INPUTS" -o "$PACKAGE" | grep -q "wrote" || {
  echo "FAIL: sr compile"; failures=$((failures + 1)); }
# Warm-up sets: each runs before the package is written; a bad one is named.
"$SR" compile "$MODEL" --input-spec='f32[3];bool[3]' \
  --warmup-shapes='f32[40];bool[40]|f32[7];bool[7]' \
  -o "${TEST_TMPDIR}/warmed.srpkg" | grep -q "for 3 input set(s)" || {
  echo "FAIL: sr compile --warmup-shapes"; failures=$((failures + 1)); }
expect_error 2 "--warmup-shapes 'q32[2]': " compile "$MODEL" --warmup-shapes='q32[2]' -o "${TEST_TMPDIR}/w.srpkg"
"$SR" explain "$PACKAGE" | grep -q "model: $PACKAGE" || {
  echo "FAIL: sr explain on a package"; failures=$((failures + 1)); }
"$SR" profile "$PACKAGE" --inputs="$MODEL_INPUTS" --iters=2 | grep -q "first run" || {
  echo "FAIL: sr profile on a package"; failures=$((failures + 1)); }
# (this model's tensors are all outputs or inputs: as from the .pt)
expect_error 1 "plans no memory" plan "$PACKAGE" --inputs="$MODEL_INPUTS" --svg="${TEST_TMPDIR}/p.svg"
"$SR" bench "$PACKAGE" --source="$MODEL" --inputs="$MODEL_INPUTS" --iters=2 \
  | grep -q "output check" || { echo "FAIL: sr bench on a package"; failures=$((failures + 1)); }
expect_error 2 "bench on a package needs --source" bench "$PACKAGE" --inputs="$MODEL_INPUTS"
expect_error 2 "export takes a model file" export "$PACKAGE" --model-out=a --inputs-out=b --input-spec=f32[2]
head -c 100 "$PACKAGE" > "${TEST_TMPDIR}/truncated.srpkg"
expect_error 1 "damaged package" profile "${TEST_TMPDIR}/truncated.srpkg" --inputs="$MODEL_INPUTS"
"$SR" load "$MODEL" --inputs="$MODEL_INPUTS" --rounds=1 | grep -q "through the cache" || {
  echo "FAIL: sr load"; failures=$((failures + 1)); }

exit $failures
