# Type stub of the static_runtime package. //python:drop_in_test
# checks that StaticModule's keyword options here are exactly the runtime's
# (option_descriptions()).
import types
from typing import Any, Dict, IO, List, Optional, Sequence, Set, Tuple, Union

import torch

__version__: str

class ModelError(torch.jit.Error, RuntimeError): ...

ModelLike = Union[torch.jit.ScriptModule, torch._C.ScriptModule, torch.jit.ScriptFunction,
                  torch._C.Graph]

class IndividualMetrics(types.SimpleNamespace):
    setup_time: float
    memory_alloc_time: float
    memory_dealloc_time: float
    output_dealloc_time: float
    first_iter_time: float
    total_time: float
    ms_per_iter: float
    time_per_node: List[float]
    time_per_node_type: Dict[str, float]
    percent_per_node_type: Dict[str, float]
    instances_per_node_type: Dict[str, int]
    kernel_per_node_type: Dict[str, str]
    out_nodes: Set[str]
    out_nodes_count: int
    total_nodes_count: int
    fallback_nodes_count: int
    memory: Dict[str, Union[int, str]]

class StaticModule:
    def __init__(self, module_or_graph: ModelLike, *, frozen: bool = ...,
                 sample_inputs: Optional[Sequence[Any]] = ...,
                 warmup: Optional[Sequence[Sequence[Any]]] = ..., max_runtimes: int = ...,
                 shape_plans_per_kernel: Optional[int] = ...,
                 enable_fusion: bool = ..., enable_out_variant: bool = ...,
                 fuse_list_unpack: bool = ..., group_output_allocations: bool = ...,
                 hoist_dict_lookups: bool = ...,
                 unroll_constant_loops: bool = ...,
                 inference_mode: bool = ..., manage_output_tensors: bool = ...,
                 optimize_memory: bool = ..., parallel_forks: bool = ...,
                 poison_recycled_memory: bool = ...,
                 prepack_weights: bool = ..., release_freed_memory: bool = ...,
                 use_copy_variants: bool = ...,
                 use_maybe_copy_variants: bool = ..., use_variadic_ops: bool = ...) -> None: ...
    def __call__(self, *args: Any, **kwargs: Any) -> Any: ...
    def runAsync(self, args: Sequence[Any], kwargs: Optional[Dict[str, Any]] = ...) -> torch.futures.Future: ...
    def benchmark(self, args: Sequence[Any], kwargs: Optional[Dict[str, Any]] = ...,
                  warmup_runs: int = ..., main_runs: int = ...) -> IndividualMetrics: ...
    def benchmark_individual_ops(self, args: Sequence[Any], kwargs: Optional[Dict[str, Any]] = ...,
                                 warmup_runs: int = ..., main_runs: int = ...) -> IndividualMetrics: ...
    def explain(self) -> str: ...
    def memory_stats(self, *args: Any, **kwargs: Any) -> Dict[str, Union[int, str]]: ...
    def kernel_counts(self) -> Dict[str, int]: ...
    def save_package(self, path: str, source: str = ...) -> None: ...

class Pool(StaticModule):
    def __init__(self, module: Union[StaticModule, ModelLike], max_runtimes: int,
                 **options: bool) -> None: ...

def to_static_module(module_or_graph_or_function: ModelLike, **options: bool) -> StaticModule: ...
def patch_torch() -> None: ...
def unpatch_torch() -> None: ...
def option_defaults() -> Dict[str, bool]: ...
def option_descriptions() -> Dict[str, str]: ...
def standard_option_sets() -> Dict[str, Dict[str, bool]]: ...
def build_info() -> Dict[str, Any]: ...
def compare(module: torch.jit.ScriptModule, args: Tuple[Any, ...],
            kwargs: Optional[Dict[str, Any]] = ..., iters: int = ..., warmup: int = ...,
            file: Optional[IO[str]] = ...,
            options: Optional[Dict[str, bool]] = ...) -> Dict[str, float]: ...
