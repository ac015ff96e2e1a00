"""ferrotorch: PyTorch's API on a Rust core.

>>> import ferrotorch as torch
>>> x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
>>> (x * x).sum().backward()
>>> x.grad
tensor([2., 4., 6.])
"""

from __future__ import annotations

from typing import Any

from . import _core
from ._broadcasting import broadcast_tensors
from ._core import (
    OutOfMemoryError,
    Tensor,
    arange,
    bfloat16,
    bool,
    device,
    double,
    dtype,
    empty,
    empty_like,
    eye,
    float,
    float16,
    float32,
    float64,
    full,
    full_like,
    get_default_dtype,
    half,
    int,
    int8,
    int16,
    int32,
    int64,
    is_grad_enabled,
    is_inference_mode_enabled,
    linspace,
    logspace,
    long,
    ones,
    ones_like,
    set_default_dtype,
    short,
    tensor,
    uint8,
    zeros,
    zeros_like,
)
from ._grad_mode import enable_grad, inference_mode, is_inference, no_grad, set_grad_enabled
from ._size import Size
from ._tensor_factories import (
    BoolTensor,
    ByteTensor,
    CharTensor,
    DoubleTensor,
    FloatTensor,
    HalfTensor,
    IntTensor,
    LongTensor,
    ShortTensor,
)
from ._tensor_str import set_printoptions
from ._tensor_str import tensor_repr as _tensor_repr
from ._threads import get_num_threads, set_num_threads
from ._type_info import finfo, iinfo
from .serialization import load, save

_core._set_size_class(Size)
from . import _tensor_protocols  # noqa: E402

_tensor_protocols.install()
from ._core import (  # noqa: E402  # noqa: E402
    Generator,
    bernoulli,
    broadcast_shapes,
    can_cast,
    get_rng_state,
    initial_seed,
    multinomial,
    normal,
    promote_types,
    rand,
    rand_like,
    randint,
    randint_like,
    randn,
    randn_like,
    randperm,
    result_type,
    set_rng_state,
)

default_generator = _core._default_generator()
from ._core import as_tensor, cat, from_dlpack, from_numpy, stack  # noqa: E402

asarray = as_tensor
from ._index_ops import (  # noqa: E402
    atleast_1d,
    atleast_2d,
    column_stack,
    einsum,
    hstack,
    masked_select,
    meshgrid,
    movedim,
    repeat_interleave,
    roll,
    take_along_dim,
    tile,
    tril,
    triu,
    vstack,
    where,
)
from ._index_ops import install as _install_index_ops  # noqa: E402
from ._index_ops import pad as _pad  # noqa: E402

_install_index_ops()
from . import return_types  # noqa: E402
from ._reductions import install as _install_reductions  # noqa: E402
from ._reductions import max, min, sort, std_mean, topk, var_mean  # noqa: E402

_install_reductions()
from . import (  # noqa: E402
    _comparison,
    _finite_differences,
    _index_copy,
    _matrix_ops,
    _pointwise_compositions,
    _tensor_factories,
    _unique,
)
from ._comparison import allclose, equal, isclose  # noqa: E402
from ._finite_differences import diff  # noqa: E402
from ._index_copy import index_copy  # noqa: E402
from ._matrix_ops import addmm, addmv, baddbmm, diag, diag_embed, trace  # noqa: E402
from ._pointwise_compositions import addcdiv, addcmul, logit, rsub  # noqa: E402
from ._reductions import median  # noqa: E402
from ._unique import bincount, unique, unique_consecutive  # noqa: E402

# The Python-written Tensor methods, attached under their function names.
for _module in (_comparison, _finite_differences, _index_copy, _matrix_ops, _pointwise_compositions, _tensor_factories, _unique):
    for _method in _module.METHODS:
        setattr(_core.Tensor, _method.__name__, _method)
# Families of torch.* functions and Tensor methods written in Python, each in its own module:
# its __all__ joins torch.*, its METHODS are attached to Tensor under their names.
from . import (  # noqa: E402
    _anomaly_flags,
    _async_calls,
    _autograd_resize,
    _buffers,
    _control_flow,
    _functional_aliases,
    _functional_rnn,
    _householder,
    _lowrank,
    _norm_variants,
    _permuted_layout,
    _pointwise_math,
    _process_settings,
    _segment_reduce,
    _shape_and_index_ops,
    _statistics,
    _storage,
    _symbolic_scalars,
)

for _module in (_functional_aliases, _pointwise_math, _shape_and_index_ops, _statistics, _storage, _buffers, _process_settings, _anomaly_flags, _householder, _lowrank, _segment_reduce, _norm_variants, _permuted_layout, _control_flow, _functional_rnn, _symbolic_scalars, _async_calls, _autograd_resize):
    for _name in _module.__all__:
        globals()[_name] = getattr(_module, _name)
    for _method in _module.METHODS:
        setattr(_core.Tensor, _method.__name__, _method)
from ._reductions import aminmax, cummax, cummin, nanmean, nansum, positive  # noqa: E402

sign = _core.Tensor.sign
from ._complex import (  # noqa: E402
    cdouble,
    cfloat,
    complex,
    complex64,
    complex128,
    imag,
    is_complex,
    polar,
    real,
    view_as_complex,
    view_as_real,
)

concat = concatenate = cat
moveaxis = movedim

from . import version  # noqa: E402
from .version import __version__  # noqa: E402


class _Layout:
    def __init__(self, name: str) -> None:
        self.name = name

    def __repr__(self) -> str:
        return f"torch.{self.name}"


strided = _Layout("strided")
contiguous_format = "contiguous_format"
preserve_format = "preserve_format"

# Python-level methods of Tensor that are not hot paths.
Tensor.__repr__ = _tensor_repr  # type: ignore[method-assign]
Tensor.__str__ = _tensor_repr  # type: ignore[method-assign]
Tensor.get_device = Tensor._device_index  # type: ignore[attr-defined]


def _iter(self: Tensor) -> Any:
    if self.ndim == 0:
        raise TypeError("iteration over a 0-d tensor")
    return iter(self.unbind(0))


Tensor.__iter__ = _iter  # type: ignore[method-assign]

# Functions that are methods with the tensor first: `torch.exp(x)` is `Tensor.exp(x)`.
_METHOD_FUNCTIONS = """
add sub subtract mul multiply div divide true_divide floor_divide remainder pow float_power
maximum minimum atan2 arctan2 bitwise_and bitwise_or bitwise_xor bitwise_not bitwise_left_shift
bitwise_right_shift eq ne lt le gt ge less greater less_equal greater_equal not_equal
logical_and logical_or logical_xor logical_not neg negative abs absolute sign relu floor ceil
trunc fix frac exp exp2 expm1 log log2 log10 log1p sqrt rsqrt sin cos tan asin arcsin acos
arccos atan arctan sinh cosh tanh sigmoid erf erfinv reciprocal matmul mm bmm mv dot inner
outer ger sum mean prod amax amin argmax argmin all any cumsum cumprod reshape flatten ravel
unflatten permute transpose swapaxes swapdims t squeeze unsqueeze narrow select diagonal unbind
split chunk flip gather index_select scatter scatter_add index_add index_fill nonzero argwhere
masked_fill softmax log_softmax logsumexp var std norm argsort clamp clip clamp_min clamp_max lerp
isnan isinf isfinite isposinf isneginf nan_to_num round square fmod logaddexp count_nonzero numel is_floating_point clone detach
hypot copysign logcumsumexp lgamma digamma erfc i0 sinc mvlgamma
conj conj_physical resolve_conj resolve_neg is_conj is_neg angle sgn as_strided
""".split()

for _name in _METHOD_FUNCTIONS:
    if hasattr(Tensor, _name):
        globals()[_name] = getattr(Tensor, _name)
del _name
from ._core import (  # noqa: E402
    _sample_dirichlet,
    _standard_gamma,
    _standard_gamma_grad,
    binomial,
    igamma,
    igammac,
    poisson,
    polygamma,
)
from ._reductions import pow, remainder, xlogy  # noqa: E402  (accept a Python number first)


def is_tensor(obj: Any) -> bool:
    """True if ``obj`` is a ferrotorch tensor."""
    return isinstance(obj, Tensor)


def is_floating_point(input: Tensor) -> bool:
    """True if the tensor's dtype is a floating point type."""
    return input.dtype.is_floating_point


from . import (  # noqa: E402
    autograd,
    backends,
    cuda,
    distributed,
    fft,
    func,
    futures,
    linalg,
    multiprocessing,
    nn,
    optim,
    special,
    utils,
)
from .linalg._torch_functions import (  # noqa: E402
    chain_matmul,
    cholesky,
    cholesky_inverse,
    cholesky_solve,
    cross,
    det,
    eig,
    inverse,
    logdet,
    lstsq,
    lu,
    lu_solve,
    lu_unpack,
    matrix_exp,
    matrix_power,
    matrix_rank,
    pinverse,
    qr,
    slogdet,
    solve,
    svd,
    symeig,
    triangular_solve,
)
from .linalg._torch_functions import install as _install_linalg  # noqa: E402

_install_linalg()
from .linalg._torch_norm import frobenius_norm, norm, nuclear_norm  # noqa: E402
from .linalg._torch_norm import install as _install_norm  # noqa: E402

_install_norm()
from ._spectral import install as _install_spectral  # noqa: E402
from ._spectral import istft, stft  # noqa: E402
from .cuda import AcceleratorError  # noqa: E402
from .func import vmap  # noqa: E402

_install_spectral()


def manual_seed(seed: Any) -> Generator:
    """Seeds the default generator and every CUDA device's (queued until CUDA is initialized)."""
    g = _core.manual_seed(seed)
    cuda.manual_seed_all(seed)
    return g


def seed() -> int:
    """Seeds the default generator (and every CUDA device's) nondeterministically; returns the seed."""
    s = _core.seed()
    cuda.manual_seed_all(s)
    return s

# Mixed precision, compilation and run-time flags, profiling; and the activations PyTorch
# also has as torch.* functions.
from . import (  # noqa: E402
    _dynamo,
    amp,
    compiler,
    cpu,
    distributions,  # noqa: E402
    profiler,
)
from ._autocast_state import *  # noqa: E402,F403
from ._compile import compile  # noqa: E402
from ._core import _amp_foreach_non_finite_check_and_unscale_, _amp_update_scale_  # noqa: E402
from ._runtime_flags import *  # noqa: E402,F403
from .amp import autocast  # noqa: E402
from .nn._functional_activation import (  # noqa: E402
    celu,
    celu_,
    hardshrink,
    prelu,
    relu_,
    rrelu,
    rrelu_,
    selu,
    selu_,
    threshold,
    threshold_,
)

__all__ = [n for n in dir() if not n.startswith("_")]
