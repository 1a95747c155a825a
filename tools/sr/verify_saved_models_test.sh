#!/usr/bin/env bash
# sr verify on real nn and torchvision models (testdata/save_nn_models.py saves
# them with Debian's python3-torch and python3-torchvision): an
# nn.TransformerEncoder, an nn.LSTM, a frozen torchvision mobilenet_v3_small
# and a small frozen torchvision DenseNet must pass every check under every
# option set, on one intra-op thread and on two.
set -uo pipefail
SR="${TEST_SRCDIR}/${TEST_WORKSPACE}/tools/sr/sr"
SAVE="${TEST_SRCDIR}/${TEST_WORKSPACE}/tools/sr/testdata/save_nn_models.py"
models="${TEST_TMPDIR}/models"
export HOME="${TEST_TMPDIR}"  # torch writes its caches there
/usr/bin/python3 "$SAVE" "$models" 2>/dev/null || { echo "FAIL: saving the models"; exit 1; }

failures=0
for model in transformer_encoder lstm mobilenet_v3_small_frozen densenet_frozen; do
  frozen=false
  [[ "$model" == *_frozen ]] && frozen=true
  for threads in 1 2; do
    report="${TEST_TMPDIR}/$model.$threads.txt"
    if ! "$SR" verify "$models/$model.pt" --inputs="$models/${model}_inputs.pt" --frozen="$frozen" \
        --intra-op-threads="$threads" > "$report" 2>&1; then
      echo "FAIL: sr verify $model --intra-op-threads=$threads:"
      cat "$report"
      failures=$((failures + 1))
    fi
    echo "$threads thread(s): $(grep "verify:" "$report")"
  done
done
exit $failures
