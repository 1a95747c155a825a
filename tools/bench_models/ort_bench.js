#!/usr/bin/env node
// Times one ONNX model on ONNX Runtime's CPU provider, for
// compare.sh --against=onnxruntime. A benchmark aid only: onnxruntime-node
// from npm bundles the CPU library (libonnxruntime.so); install it outside
// the repository with
//   npm install --ignore-scripts onnxruntime-node@1.30.0
// (its install script downloads from a host this machine cannot reach; the
// CPU library is already in the package) and point NODE_PATH at that
// node_modules.
//
//   node tools/bench_models/ort_bench.js MODEL.onnx [--iters N] [--warmup N]
//                                        [--threads N]
//
// Reads MODEL.onnx.json (tools/bench_models/export_onnx.py): the inputs in
// the graph's order and the eager PyTorch model's outputs. Checks ONNX
// Runtime's outputs against those first (max |ort - eager| is reported; an
// output of another shape or count is an error), then times --iters calls
// after --warmup untimed ones, one session, --threads intra-op threads
// (default 1), all graph optimizations, sequential execution. Prints one
// line of JSON: median_us, p90_us, iters, threads, max_abs_diff. The time
// includes onnxruntime-node's own cost of a call (N-API, output tensors),
// a few microseconds.
'use strict';
const fs = require('fs');
const path = require('path');

function usage(message) {
  process.stderr.write(`ort_bench: ${message}\n` +
      'usage: node ort_bench.js MODEL.onnx [--iters N] [--warmup N] [--threads N]\n');
  process.exit(2);
}

function parseArgs(argv) {
  const args = {model: null, iters: 200, warmup: 20, threads: 1};
  for (let i = 0; i < argv.length; ++i) {
    const arg = argv[i];
    const match = /^--(iters|warmup|threads)(?:=(.*))?$/.exec(arg);
    if (match) {
      const value = match[2] !== undefined ? match[2] : argv[++i];
      const number = Number(value);
      if (!Number.isInteger(number) || number < (match[1] === 'warmup' ? 0 : 1)) {
        usage(`--${match[1]} needs a whole number, not '${value}'`);
      }
      args[match[1]] = number;
    } else if (arg.startsWith('--')) {
      usage(`unknown flag ${arg}`);
    } else if (args.model === null) {
      args.model = arg;
    } else {
      usage(`one model only (got ${args.model} and ${arg})`);
    }
  }
  if (args.model === null) usage('no model given');
  return args;
}

const ARRAYS = {
  float32: Float32Array, float64: Float64Array, int64: BigInt64Array, int32: Int32Array,
  uint8: Uint8Array, bool: Uint8Array,
};

function readTensor(ort, directory, described) {
  const bytes = fs.readFileSync(path.join(directory, described.file));
  const Array = ARRAYS[described.dtype];
  if (!Array) throw new Error(`${described.file}: dtype ${described.dtype} is not read here`);
  const copy = new Uint8Array(bytes.length);
  copy.set(bytes);
  const data = new Array(copy.buffer, 0, bytes.length / Array.BYTES_PER_ELEMENT);
  return new ort.Tensor(described.dtype, described.dtype === 'bool' ? Uint8Array.from(data) : data,
                        described.shape);
}

function maxAbsDiff(got, expected, name) {
  if (got.dims.join(',') !== expected.dims.join(',')) {
    throw new Error(`output ${name}: shape [${got.dims}] from ONNX Runtime, ` +
                    `[${expected.dims}] from PyTorch`);
  }
  let max = 0;
  for (let i = 0; i < got.data.length; ++i) {
    const d = Math.abs(Number(got.data[i]) - Number(expected.data[i]));
    if (d > max || Number.isNaN(d)) max = d;
  }
  return max;
}

function percentile(sorted, p) {
  return sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))];
}

async function main() {
  const args = parseArgs(process.argv.slice(2));
  let ort;
  try {
    ort = require('onnxruntime-node');
  } catch (e) {
    process.stderr.write('ort_bench: onnxruntime-node not found: npm install --ignore-scripts ' +
                         'onnxruntime-node@1.30.0 somewhere and set NODE_PATH to its ' +
                         'node_modules\n');
    process.exit(1);
  }
  const manifest = JSON.parse(fs.readFileSync(args.model + '.json', 'utf8'));
  const directory = path.dirname(args.model);
  const session = await ort.InferenceSession.create(args.model, {
    intraOpNumThreads: args.threads,
    interOpNumThreads: 1,
    graphOptimizationLevel: 'all',
    executionMode: 'sequential',
  });
  if (session.inputNames.length !== manifest.inputs.length) {
    throw new Error(`the graph takes ${session.inputNames.length} inputs, ` +
                    `the manifest has ${manifest.inputs.length}`);
  }
  const feeds = {};
  session.inputNames.forEach((name, i) => {
    feeds[name] = readTensor(ort, directory, manifest.inputs[i]);
  });
  const first = await session.run(feeds);
  if (session.outputNames.length !== manifest.outputs.length) {
    throw new Error(`the graph gives ${session.outputNames.length} outputs, ` +
                    `PyTorch ${manifest.outputs.length}`);
  }
  let maxDiff = 0;
  session.outputNames.forEach((name, i) => {
    const expected = readTensor(ort, directory, manifest.outputs[i]);
    maxDiff = Math.max(maxDiff, maxAbsDiff(first[name], expected, name));
  });
  for (let i = 0; i < args.warmup; ++i) await session.run(feeds);
  const times = [];
  for (let i = 0; i < args.iters; ++i) {
    const start = process.hrtime.bigint();
    await session.run(feeds);
    times.push(Number(process.hrtime.bigint() - start) / 1000);
  }
  times.sort((a, b) => a - b);
  console.log(JSON.stringify({
    median_us: percentile(times, 0.5),
    p90_us: percentile(times, 0.9),
    iters: args.iters,
    threads: args.threads,
    max_abs_diff: maxDiff,
  }));
}

main().catch((e) => {
  process.stderr.write(`ort_bench: ${e.message}\n`);
  process.exit(1);
});
