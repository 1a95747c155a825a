#!/usr/bin/env python3
"""Writes the seeds of the server's request fuzzers:

  bazel build //server:open_inference_py_sources
  python3 fuzz/corpus/make_server_seeds.py   (from the repository root)

- http_request/*: a first line with the Inference-Header-Content-Length
  ("-": none) and an inference request's body: JSON tensors of every
  datatype, nested data, the binary extension, and malformed cases;
- grpc_request/*.pb: serialized ModelInferRequests with raw and typed
  contents of every datatype, and boundary shapes.
"""
import json
import os
import struct
import sys

sys.path.insert(0, "bazel-bin/server")
import open_inference_pb2 as pb  # noqa: E402

ROOT = "fuzz/corpus"


def write(kind, name, data):
    os.makedirs(os.path.join(ROOT, kind), exist_ok=True)
    with open(os.path.join(ROOT, kind, name), "wb") as file:
        file.write(data)


def http(name, body, header_length=None):
    head = b"-" if header_length is None else str(header_length).encode()
    write("http_request", name, head + b"\n" + body)


def json_body(inputs, **extra):
    return json.dumps({"inputs": inputs, **extra}).encode()


http("fp32_nested", json_body([{"name": "x", "datatype": "FP32", "shape": [2, 2],
                                "data": [[1.5, -2], [3, 4e-3]]}],
                              outputs=[{"name": "output"}], id="a"))
http("every_datatype", json_body(
    [{"name": "b", "datatype": "BOOL", "shape": [2], "data": [True, False]},
     {"name": "u8", "datatype": "UINT8", "shape": [1], "data": [255]},
     {"name": "i8", "datatype": "INT8", "shape": [1], "data": [-128]},
     {"name": "i16", "datatype": "INT16", "shape": [1], "data": [300]},
     {"name": "i32", "datatype": "INT32", "shape": [1], "data": [-7]},
     {"name": "i64", "datatype": "INT64", "shape": [1], "data": [9007199254740993]},
     {"name": "h", "datatype": "FP16", "shape": [1], "data": [0.5]},
     {"name": "bf", "datatype": "BF16", "shape": [1], "data": [0.5]},
     {"name": "d", "datatype": "FP64", "shape": [1], "data": [1e300]}],
    parameters={"timeout": 1000, "binary_data_output": True}))
header = json_body([{"name": "x", "datatype": "FP32", "shape": [2],
                     "parameters": {"binary_data_size": 8}},
                    {"name": "y", "datatype": "INT64", "shape": [1],
                     "parameters": {"binary_data_size": 8}}],
                   outputs=[{"name": "output", "parameters": {"binary_data": True}}])
http("binary", header + struct.pack("<ff", 1, 2) + struct.pack("<q", 3), len(header))
http("binary_truncated", header + b"\0" * 5, len(header))
http("header_length_past_end", header, len(header) + 100)
http("huge_shape", json_body([{"name": "x", "datatype": "FP32", "shape": [1 << 62, 4],
                               "data": []}]))
http("negative_shape", json_body([{"name": "x", "datatype": "FP32", "shape": [-1], "data": []}]))
http("wrong_count", json_body([{"name": "x", "datatype": "FP32", "shape": [3], "data": [1]}]))
http("not_json", b"{\"inputs\": [")

request = pb.ModelInferRequest(model_name="m", id="r")
request.inputs.add(name="x", datatype="FP32", shape=[2, 2]).contents.fp32_contents.extend(
    [1, 2, 3, 4])
request.inputs.add(name="i", datatype="INT8", shape=[2]).contents.int_contents.extend([-1, 200])
request.inputs.add(name="u", datatype="UINT8", shape=[1]).contents.uint_contents.append(7)
request.inputs.add(name="b", datatype="BOOL", shape=[1]).contents.bool_contents.append(True)
request.inputs.add(name="l", datatype="INT64", shape=[1]).contents.int64_contents.append(5)
request.inputs.add(name="d", datatype="FP64", shape=[1]).contents.fp64_contents.append(0.25)
request.outputs.add(name="output")
request.parameters["timeout"].int64_param = 5
write("grpc_request", "typed.pb", request.SerializeToString())
raw = pb.ModelInferRequest(model_name="m")
raw.inputs.add(name="x", datatype="FP32", shape=[2])
raw.inputs.add(name="h", datatype="FP16", shape=[1])
raw.inputs.add(name="b", datatype="BOOL", shape=[2])
raw.raw_input_contents.extend([struct.pack("<ff", 1, 2), b"\0\x3c", b"\x01\x02"])
write("grpc_request", "raw.pb", raw.SerializeToString())
huge = pb.ModelInferRequest(model_name="m")
huge.inputs.add(name="x", datatype="FP32", shape=[1 << 40, 1 << 40])
huge.raw_input_contents.append(b"")
write("grpc_request", "huge_shape.pb", huge.SerializeToString())
