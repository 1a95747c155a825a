"""End-to-end tests of `sr serve`: the server runs as its own process on
ephemeral loopback ports; independent clients talk to it (gRPC stubs
generated from server/open_inference.proto by Debian's protoc, HTTP through
Python's standard library) and every output is compared with the JIT's."""
import concurrent.futures
import json
import os
import re
import signal
import ssl
import struct
import subprocess
import sys
import tempfile
import threading
import time
import unittest
import urllib.error
import urllib.request

import grpc
import numpy as np
import torch

RUNFILES = os.path.join(os.environ["TEST_SRCDIR"], os.environ["TEST_WORKSPACE"])
sys.path.insert(0, os.path.join(RUNFILES, "server"))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import open_inference_pb2 as pb  # noqa: E402
import open_inference_pb2_grpc as pb_grpc  # noqa: E402
import serving_models  # noqa: E402

SR = os.path.join(RUNFILES, "tools", "sr", "sr")
NUMPY_OF = {"FP32": np.float32, "FP64": np.float64, "INT64": np.int64, "INT32": np.int32,
            "BOOL": np.bool_, "UINT8": np.uint8}


class Server:
    """`sr serve` on ports 0, started and stopped by a test."""

    def __init__(self, repository, *flags):
        self.process = subprocess.Popen(
            [SR, "serve", "--repository=" + repository, "--grpc=127.0.0.1:0",
             "--http=127.0.0.1:0", "--shutdown-seconds=20", *flags],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        self.lines = []
        for line in self.process.stdout:
            self.lines.append(line)
            found = re.match(r"(grpc|http): listening on ([\d.]+):(\d+)", line)
            if found:
                setattr(self, found.group(1) + "_port", int(found.group(3)))
            if line.startswith("ready:"):
                break
        if self.process.poll() is not None:
            raise RuntimeError("sr serve exited: " + "".join(self.lines) + self.process.stderr.read())
        self.stderr = []
        threading.Thread(target=lambda: self.stderr.extend(self.process.stderr), daemon=True).start()

    def stop(self):
        self.process.send_signal(signal.SIGTERM)
        rest = self.process.stdout.read()
        code = self.process.wait(timeout=120)
        return code, rest


def load_jit(repository, name):
    return torch.jit.load(os.path.join(repository, name, "model.pt")).eval()


def raw_request(model, tensors, **extra):
    request = pb.ModelInferRequest(model_name=model, **extra)
    for name, tensor in tensors.items():
        request.inputs.add(name=name, datatype=DATATYPE[tensor.dtype], shape=list(tensor.shape))
        request.raw_input_contents.append(tensor.contiguous().numpy().tobytes())
    return request


DATATYPE = {torch.float32: "FP32", torch.float64: "FP64", torch.int64: "INT64",
            torch.int32: "INT32", torch.bool: "BOOL", torch.uint8: "UINT8"}


def outputs_of(response):
    """The response's tensors by name."""
    result = {}
    for output, raw in zip(response.outputs, response.raw_output_contents):
        array = np.frombuffer(raw, dtype=NUMPY_OF[output.datatype]).reshape(list(output.shape))
        result[output.name] = torch.from_numpy(array.copy())
    return result


def http(port, path, body=None, headers=None, method=None, context=None, scheme="http"):
    """(status, headers, body bytes) of one HTTP request."""
    data = body if body is None or isinstance(body, bytes) else json.dumps(body).encode()
    request = urllib.request.Request(f"{scheme}://127.0.0.1:{port}{path}", data=data,
                                     headers=headers or {}, method=method)
    try:
        with urllib.request.urlopen(request, timeout=60, context=context) as response:
            return response.status, dict(response.headers), response.read()
    except urllib.error.HTTPError as error:
        return error.code, dict(error.headers), error.read()


class ServerTest(unittest.TestCase):

    @classmethod
    def setUpClass(cls):
        cls.directory = tempfile.mkdtemp()
        cls.repository = os.path.join(cls.directory, "models")
        serving_models.make_repository(cls.repository)
        cls.server = Server(cls.repository)
        cls.channel = grpc.insecure_channel(f"127.0.0.1:{cls.server.grpc_port}")
        cls.stub = pb_grpc.GRPCInferenceServiceStub(cls.channel)
        # How many steps of the slow model this machine runs in a second,
        # timed on the second call (the first one also prepares the run):
        # a fixed count that kept a runtime busy long enough on one CPU
        # finished within the tests' waits on a faster one.
        probe = 2000
        for _ in range(2):
            start = time.perf_counter()
            cls.stub.ModelInfer(cls.slow_request(probe), timeout=120)
            seconds = time.perf_counter() - start
        cls.slow_steps_per_second = probe / max(seconds, 1e-3)

    @staticmethod
    def slow_request(steps):
        x = torch.randn(64, 64) / 8
        return raw_request("slow", {"x": x, "steps": torch.tensor([steps])})

    def busy_request(self, seconds=2.0):
        """A request that keeps the slow model's runtime busy for about `seconds`."""
        return self.slow_request(max(1, int(self.slow_steps_per_second * seconds)))

    @classmethod
    def tearDownClass(cls):
        cls.channel.close()
        code, _ = cls.server.stop()
        assert code == 0, f"sr serve exited with {code}: {''.join(cls.server.stderr)}"

    def test_health_and_metadata(self):
        self.assertTrue(self.stub.ServerLive(pb.ServerLiveRequest()).live)
        self.assertTrue(self.stub.ServerReady(pb.ServerReadyRequest()).ready)
        self.assertTrue(self.stub.ModelReady(pb.ModelReadyRequest(name="mlp")).ready)
        self.assertFalse(self.stub.ModelReady(pb.ModelReadyRequest(name="broken")).ready)
        self.assertFalse(self.stub.ModelReady(pb.ModelReadyRequest(name="mlp", version="7")).ready)
        server = self.stub.ServerMetadata(pb.ServerMetadataRequest())
        self.assertEqual(server.name, "static_runtime")
        self.assertIn("model_repository", server.extensions)
        metadata = self.stub.ModelMetadata(pb.ModelMetadataRequest(name="mlp"))
        self.assertEqual([(i.name, i.datatype, list(i.shape)) for i in metadata.inputs],
                         [("x", "FP32", [-1, 16])])
        self.assertEqual([o.name for o in metadata.outputs], ["output"])
        ads = self.stub.ModelMetadata(pb.ModelMetadataRequest(name="ads"))
        self.assertEqual([i.name for i in ads.inputs], ["dense", "scale"])
        self.assertEqual(list(ads.inputs[1].shape), [1])
        status, _, body = http(self.server.http_port, "/v2/models/mlp")
        self.assertEqual(status, 200)
        self.assertEqual(json.loads(body)["inputs"][0]["shape"], [-1, 16])
        self.assertEqual(http(self.server.http_port, "/v2/health/live")[0], 200)
        self.assertEqual(http(self.server.http_port, "/v2/health/ready")[0], 200)
        self.assertEqual(http(self.server.http_port, "/v2/models/mlp/versions/1/ready")[0], 200)
        self.assertEqual(http(self.server.http_port, "/v2/models/broken/ready")[0], 503)

    def test_repository_reports_a_model_that_fails_to_load(self):
        index = {m.name: m for m in self.stub.RepositoryIndex(pb.RepositoryIndexRequest()).models}
        self.assertEqual(index["mlp"].state, "READY")
        self.assertEqual(index["broken"].state, "UNAVAILABLE")
        self.assertIn("broken", index["broken"].reason + "broken")
        self.assertNotEqual(index["broken"].reason, "")
        self.assertEqual(index["bad_config"].state, "UNAVAILABLE")
        self.assertIn("max_batch_sise", index["bad_config"].reason)
        with self.assertRaises(grpc.RpcError) as error:
            self.stub.ModelInfer(raw_request("broken", {"x": torch.ones(2)}))
        self.assertEqual(error.exception.code(), grpc.StatusCode.UNAVAILABLE)
        status, _, body = http(self.server.http_port, "/v2/repository/index", {"ready": True})
        self.assertEqual(status, 200)
        self.assertNotIn("broken", [m["name"] for m in json.loads(body)])

    def test_grpc_raw_and_typed_contents_equal_the_jit(self):
        jit = load_jit(self.repository, "mlp")
        x = torch.randn(3, 16)
        expected = jit(x)
        got = outputs_of(self.stub.ModelInfer(raw_request("mlp", {"x": x}, id="raw-1")))
        self.assertTrue(torch.equal(got["output"], expected))
        typed = pb.ModelInferRequest(model_name="mlp", id="typed-1")
        tensor = typed.inputs.add(name="x", datatype="FP32", shape=[3, 16])
        tensor.contents.fp32_contents.extend(x.flatten().tolist())
        response = self.stub.ModelInfer(typed)
        self.assertEqual(response.id, "typed-1")
        self.assertTrue(torch.equal(outputs_of(response)["output"], expected))

    def test_dict_int_inputs_and_nested_outputs(self):
        jit = load_jit(self.repository, "ads")
        dense = torch.randn(2, 3)
        user = torch.tensor([[1, 2, 3], [4, 5, 6]])
        item = torch.tensor([[7], [49]])
        expected_dense, expected_pooled = jit(dense, {"user": user, "item": item}, 3)
        request = raw_request("ads", {"dense": dense, "sparse.user": user, "sparse.item": item,
                                      "scale": torch.tensor([3])})
        got = outputs_of(self.stub.ModelInfer(request))
        self.assertEqual(sorted(got), ["output.0", "output.1.item", "output.1.user"])
        self.assertTrue(torch.equal(got["output.0"], expected_dense))
        self.assertTrue(torch.equal(got["output.1.user"], expected_pooled["user"]))
        self.assertTrue(torch.equal(got["output.1.item"], expected_pooled["item"]))
        only = raw_request("ads", {"dense": dense, "sparse.user": user, "scale": torch.tensor([3])})
        only.outputs.add(name="output.0")
        self.assertEqual([o.name for o in self.stub.ModelInfer(only).outputs], ["output.0"])

    def test_loadgen_names_a_saved_models_inputs_as_the_server_does(self):
        inputs = os.path.join(self.directory, "ads_inputs.pt")
        torch.save((torch.randn(2, 3), {"user": torch.tensor([[1, 2, 3], [4, 5, 6]]),
                                        "item": torch.tensor([[7], [49]])}, 3), inputs)

        def loadgen(*flags):
            return subprocess.run(
                [SR, "loadgen", os.path.join(self.repository, "ads", "model.pt"),
                 "--inputs=" + inputs, f"--grpc=127.0.0.1:{self.server.grpc_port}",
                 "--max-requests=5", "--seconds=60", *flags],
                capture_output=True, text=True, timeout=120)

        answered = loadgen()
        self.assertEqual(answered.returncode, 0, answered.stdout + answered.stderr)
        self.assertIn("5 answered", answered.stdout)
        self.assertNotIn("failed", answered.stdout)
        # Sent to a model that takes other inputs: each refusal is counted,
        # the first with the server's words.
        refused = loadgen("--model=mlp")
        self.assertEqual(refused.returncode, 1, refused.stdout + refused.stderr)
        self.assertRegex(refused.stdout, r"failed: INVALID_ARGUMENT 5 \(the first: request \S+: input ")

    def test_http_json_and_binary_equal_the_jit(self):
        jit = load_jit(self.repository, "mlp")
        x = torch.randn(2, 16)
        expected = jit(x)
        status, _, body = http(self.server.http_port, "/v2/models/mlp/infer", {
            "id": "json-1",
            "inputs": [{"name": "x", "datatype": "FP32", "shape": [2, 16],
                        "data": x.tolist()}]})
        self.assertEqual(status, 200, body)
        answer = json.loads(body)
        self.assertEqual(answer["id"], "json-1")
        output = answer["outputs"][0]
        self.assertEqual(output["shape"], [2, 4])
        self.assertTrue(torch.equal(torch.tensor(output["data"], dtype=torch.float32).reshape(2, 4),
                                    expected))
        # The binary tensor data extension, both ways.
        header = json.dumps({
            "inputs": [{"name": "x", "datatype": "FP32", "shape": [2, 16],
                        "parameters": {"binary_data_size": 2 * 16 * 4}}],
            "outputs": [{"name": "output", "parameters": {"binary_data": True}}]}).encode()
        status, headers, body = http(
            self.server.http_port, "/v2/models/mlp/versions/1/infer",
            header + x.numpy().tobytes(),
            {"Inference-Header-Content-Length": str(len(header)),
             "Content-Type": "application/octet-stream"})
        self.assertEqual(status, 200, body)
        length = int(headers["Inference-Header-Content-Length"])
        answer = json.loads(body[:length])
        self.assertEqual(answer["outputs"][0]["parameters"]["binary_data_size"], 2 * 4 * 4)
        got = torch.from_numpy(np.frombuffer(body[length:], dtype=np.float32).reshape(2, 4).copy())
        self.assertTrue(torch.equal(got, expected))

    def test_bad_requests_get_errors_that_name_the_input(self):
        cases = [
            (raw_request("nope", {"x": torch.ones(1, 16)}), grpc.StatusCode.NOT_FOUND, "nope"),
            (raw_request("mlp", {"x": torch.ones(1, 16, dtype=torch.float64)}),
             grpc.StatusCode.INVALID_ARGUMENT, "FP64"),
            (raw_request("mlp", {"x": torch.ones(1, 15)}), grpc.StatusCode.INVALID_ARGUMENT, "[-1,16]"),
            (raw_request("mlp", {"y": torch.ones(1, 16)}), grpc.StatusCode.INVALID_ARGUMENT, "'y'"),
            (raw_request("mlp", {}), grpc.StatusCode.INVALID_ARGUMENT, "missing input 'x'"),
        ]
        huge = pb.ModelInferRequest(model_name="mlp")
        huge.inputs.add(name="x", datatype="FP32", shape=[1 << 40, 1 << 40])
        huge.raw_input_contents.append(b"")
        cases.append((huge, grpc.StatusCode.INVALID_ARGUMENT, "limit"))
        short = raw_request("mlp", {"x": torch.ones(1, 16)})
        short.raw_input_contents[0] = short.raw_input_contents[0][:-3]
        cases.append((short, grpc.StatusCode.INVALID_ARGUMENT, "61 bytes"))
        unknown = raw_request("mlp", {"x": torch.ones(1, 16)})
        unknown.inputs[0].datatype = "FP8"
        cases.append((unknown, grpc.StatusCode.INVALID_ARGUMENT, "FP8"))
        negative = pb.ModelInferRequest(model_name="mlp")
        negative.inputs.add(name="x", datatype="FP32", shape=[-2, 16])
        negative.raw_input_contents.append(b"")
        cases.append((negative, grpc.StatusCode.INVALID_ARGUMENT, "negative"))
        too_many_rows = raw_request("mlp", {"x": torch.ones(17, 16)})
        cases.append((too_many_rows, grpc.StatusCode.INVALID_ARGUMENT, "max_batch_size"))
        for request, code, text in cases:
            with self.subTest(text=text):
                with self.assertRaises(grpc.RpcError) as error:
                    self.stub.ModelInfer(request)
                self.assertEqual(error.exception.code(), code)
                self.assertIn(text, error.exception.details())
                self.assertIn("request ", error.exception.details())
        for body, text in [(b"{not json", "not a JSON object"),
                           ({"inputs": [{"name": "x", "datatype": "FP32", "shape": [2, 16],
                                         "data": [1.0] * 31}]}, "31 elements"),
                           ({"inputs": [{"name": "x", "datatype": "FP32", "shape": [1, 16],
                                         "data": ["a"] * 16}]}, "numeric data holds string"),
                           ({"inputs": "x"}, "must be a list")]:
            with self.subTest(text=text):
                status, _, answer = http(self.server.http_port, "/v2/models/mlp/infer", body)
                self.assertEqual(status, 400)
                self.assertIn(text, json.loads(answer)["error"])
                self.assertRegex(json.loads(answer)["error"], r"^request sr-\d+: ")
        header = json.dumps({"inputs": [{"name": "x", "datatype": "FP32", "shape": [1, 16],
                                         "parameters": {"binary_data_size": 64}}]}).encode()
        status, _, answer = http(self.server.http_port, "/v2/models/mlp/infer", header + b"\0" * 10,
                                 {"Inference-Header-Content-Length": str(len(header))})
        self.assertEqual(status, 400)
        self.assertIn("binary_data_size", json.loads(answer)["error"])
        self.assertRegex(json.loads(answer)["error"], r"^request sr-\d+: ")
        self.assertEqual(http(self.server.http_port, "/v2/models/nope/infer", {"inputs": []})[0], 404)
        # The server is still fine.
        self.assertTrue(self.stub.ServerLive(pb.ServerLiveRequest()).live)

    def batched(self, model, inputs):
        with concurrent.futures.ThreadPoolExecutor(len(inputs)) as pool:
            futures = [pool.submit(self.stub.ModelInfer, raw_request(model, {"x": x}))
                       for x in inputs]
            return [outputs_of(future.result())["output"] for future in futures]

    def batch_runs(self, model):
        _, _, text = http(self.server.http_port, "/metrics")
        count = re.search(r'sr_batch_size_count\{model="%s"\} (\d+)' % model, text.decode())
        total = re.search(r'sr_batch_size_sum\{model="%s"\} (\d+)' % model, text.decode())
        return int(count.group(1)), int(total.group(1))

    def test_dynamic_batching_matches_unbatched_runs(self):
        jit = load_jit(self.repository, "pointwise")
        inputs = [torch.randn(1 + i % 3, 5) for i in range(12)]
        before = self.batch_runs("pointwise")
        got = self.batched("pointwise", inputs)
        runs, requests = (a - b for a, b in zip(self.batch_runs("pointwise"), before))
        self.assertEqual(requests, 12)
        self.assertLess(runs, 12, "no two requests ran as one batch")
        for x, y in zip(inputs, got):
            self.assertTrue(torch.equal(y, jit(x)))  # row-independent: exact
        mlp = load_jit(self.repository, "mlp")
        inputs = [torch.randn(2, 16) for _ in range(8)]
        for x, y in zip(inputs, self.batched("mlp", inputs)):
            torch.testing.assert_close(y, mlp(x), rtol=1e-5, atol=1e-6)  # products: tolerance

    def test_full_queue_refuses_at_once_and_deadlines_drop_requests(self):
        x = torch.randn(64, 64) / 8
        slow = self.busy_request()
        with concurrent.futures.ThreadPoolExecutor(6) as pool:
            futures = [pool.submit(self.stub.ModelInfer, slow, timeout=120) for _ in range(6)]
            codes = []
            for future in futures:
                try:
                    future.result()
                    codes.append(grpc.StatusCode.OK)
                except grpc.RpcError as error:
                    codes.append(error.code())
        self.assertIn(grpc.StatusCode.RESOURCE_EXHAUSTED, codes)
        self.assertIn(grpc.StatusCode.OK, codes)
        # A short deadline while the model is busy: dropped, not run.
        with concurrent.futures.ThreadPoolExecutor(2) as pool:
            busy = pool.submit(self.stub.ModelInfer, slow, timeout=120)
            time.sleep(0.2)
            quick = self.slow_request(1)
            with self.assertRaises(grpc.RpcError) as error:
                self.stub.ModelInfer(quick, timeout=0.3)
            self.assertEqual(error.exception.code(), grpc.StatusCode.DEADLINE_EXCEEDED)
            busy.result()
        status, _, text = http(self.server.http_port, "/metrics")
        self.assertRegex(text.decode(), r'sr_request_rejected_total\{model="slow"\} [1-9]')
        # Parameters' timeout (microseconds) as well, over HTTP.
        status, _, answer = http(self.server.http_port, "/v2/models/slow/infer", {
            "parameters": {"timeout": 1},
            "inputs": [{"name": "x", "datatype": "FP32", "shape": [64, 64], "data": x.tolist()},
                       {"name": "steps", "datatype": "INT64", "shape": [1], "data": [1]}]})
        self.assertEqual(status, 504, answer[:300])
        status, _, answer = http(self.server.http_port, "/v2/models/slow/infer", {
            "inputs": [{"name": "x", "datatype": "FP32", "shape": [64, 64], "data": x.tolist()},
                       {"name": "steps", "datatype": "INT64", "shape": [1], "data": [1]}]},
            {"Content-Type": "application/json", "Inference-Timeout-Us": "1"})
        self.assertEqual(status, 504, answer[:300])

    def test_a_client_that_cancels_a_queued_request_frees_its_place(self):
        slow = self.busy_request()
        expired = self.counter("sr_request_expired_total", "slow")
        busy = self.stub.ModelInfer.future(slow, timeout=120)
        time.sleep(0.2)
        queued = self.stub.ModelInfer.future(slow, timeout=120)
        time.sleep(0.2)
        self.assertTrue(queued.cancel())
        deadline = time.time() + 30
        while self.counter("sr_request_expired_total", "slow") == expired and time.time() < deadline:
            time.sleep(0.05)
        self.assertEqual(self.counter("sr_request_expired_total", "slow"), expired + 1)
        busy.result()  # the running one is unaffected

    def counter(self, name, model):
        _, _, text = http(self.server.http_port, "/metrics")
        return int(re.search(r'%s\{model="%s"\} (\d+)' % (name, model), text.decode()).group(1))

    def test_malformed_protobuf_is_refused_and_the_server_carries_on(self):
        garbage = self.channel.unary_unary("/inference.GRPCInferenceService/ModelInfer")
        for payload in [b"\xff\xff\xff", b"\x0a\x80\x80\x80\x80\x10", b"\x2a\x05\x1a\x03\xff"]:
            with self.subTest(payload=payload):
                with self.assertRaises(grpc.RpcError) as error:
                    garbage(payload, timeout=10)
                self.assertNotEqual(error.exception.code(), grpc.StatusCode.OK)
        self.assertTrue(self.stub.ServerLive(pb.ServerLiveRequest()).live)

    def test_unload_and_load(self):
        self.assertEqual(http(self.server.http_port, "/v2/repository/models/pointwise/unload",
                              b"{}")[0], 200)
        self.assertFalse(self.stub.ModelReady(pb.ModelReadyRequest(name="pointwise")).ready)
        self.stub.RepositoryModelLoad(pb.RepositoryModelLoadRequest(model_name="pointwise"))
        self.assertTrue(self.stub.ModelReady(pb.ModelReadyRequest(name="pointwise")).ready)
        with self.assertRaises(grpc.RpcError) as error:
            self.stub.RepositoryModelLoad(pb.RepositoryModelLoadRequest(model_name="../etc"))
        self.assertEqual(error.exception.code(), grpc.StatusCode.INVALID_ARGUMENT)


class RestartTest(unittest.TestCase):
    def test_restart_loads_packages_and_sigterm_under_load_exits_cleanly(self):
        repository = tempfile.mkdtemp()
        serving_models.save(repository, "mlp", serving_models.Mlp())
        first = Server(repository)
        self.assertEqual(first.stop()[0], 0)
        cache = os.path.join(repository, ".sr_cache")
        self.assertTrue(any(name.endswith(".srpkg") for name in os.listdir(cache)))
        second = Server(repository)
        channel = grpc.insecure_channel(f"127.0.0.1:{second.grpc_port}")
        stub = pb_grpc.GRPCInferenceServiceStub(channel)
        stop = threading.Event()
        codes = []

        def call():
            while not stop.is_set():
                try:
                    stub.ModelInfer(raw_request("mlp", {"x": torch.randn(4, 16)}), timeout=30)
                    codes.append(grpc.StatusCode.OK)
                except grpc.RpcError as error:
                    codes.append(error.code())
                    return

        threads = [threading.Thread(target=call) for _ in range(4)]
        for thread in threads:
            thread.start()
        time.sleep(1.0)
        code, _ = second.stop()
        stop.set()
        for thread in threads:
            thread.join()
        channel.close()
        self.assertEqual(code, 0, "".join(second.stderr))
        self.assertIn(grpc.StatusCode.OK, codes)
        self.assertTrue(set(codes) <= {grpc.StatusCode.OK, grpc.StatusCode.UNAVAILABLE,
                                       grpc.StatusCode.CANCELLED}, codes)


class SecurityTest(unittest.TestCase):
    def test_token_and_tls(self):
        directory = tempfile.mkdtemp()
        repository = os.path.join(directory, "models")
        serving_models.save(repository, "pointwise", serving_models.Pointwise())
        certificate = os.path.join(directory, "server.pem")
        key = os.path.join(directory, "server.key")
        subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1",
                        "-subj", "/CN=localhost", "-addext", "subjectAltName=IP:127.0.0.1",
                        "-keyout", key, "-out", certificate], check=True, capture_output=True)
        token_file = os.path.join(directory, "token")
        with open(token_file, "w") as file:
            file.write("s3cret\n")
        server = Server(repository, "--token-file=" + token_file, "--tls-cert=" + certificate,
                        "--tls-key=" + key)
        try:
            with open(certificate, "rb") as file:
                credentials = grpc.ssl_channel_credentials(root_certificates=file.read())
            channel = grpc.secure_channel(f"127.0.0.1:{server.grpc_port}", credentials)
            stub = pb_grpc.GRPCInferenceServiceStub(channel)
            self.assertTrue(stub.ServerLive(pb.ServerLiveRequest()).live)
            request = raw_request("pointwise", {"x": torch.ones(2)})
            with self.assertRaises(grpc.RpcError) as error:
                stub.ModelInfer(request)
            self.assertEqual(error.exception.code(), grpc.StatusCode.UNAUTHENTICATED)
            with self.assertRaises(grpc.RpcError) as error:
                stub.ModelInfer(request, metadata=[("authorization", "Bearer wrong")])
            self.assertEqual(error.exception.code(), grpc.StatusCode.UNAUTHENTICATED)
            got = stub.ModelInfer(request, metadata=[("authorization", "Bearer s3cret")])
            self.assertEqual(list(got.outputs[0].shape), [2])
            channel.close()
            context = ssl.create_default_context(cafile=certificate)
            port = server.http_port
            self.assertEqual(http(port, "/v2/health/ready", context=context, scheme="https")[0], 200)
            self.assertEqual(http(port, "/v2/models/pointwise", context=context,
                                  scheme="https")[0], 401)
            self.assertEqual(http(port, "/metrics", context=context, scheme="https",
                                  headers={"Authorization": "Bearer s3cret"})[0], 200)
        finally:
            self.assertEqual(server.stop()[0], 0)


if __name__ == "__main__":
    unittest.main()
