//! Autograd bindings: grad_fn nodes, hooks, grad mode, `autograd.grad`, and custom
//! `autograd.Function` nodes whose backward is a Python callable.

use crate::errors::{to_py, IntoPy};
use crate::tensor::PyTensor;
use ferrotorch::autograd::{self, Edge, GradHook, Node};
use ferrotorch::{Error, Tensor};
use pyo3::prelude::*;
use pyo3::types::{PyList, PyTuple};
use std::sync::Arc;

#[pyclass(name = "Node", module = "ferrotorch.autograd", frozen)]
pub struct PyNode {
    pub node: Arc<Node>,
}

#[pymethods]
impl PyNode {
    fn name(&self) -> String {
        self.node.name().to_string()
    }
    /// Pairs `(node, input_nr)`: leaves appear as `AccumulateGrad`, as in PyTorch.
    #[getter]
    fn next_functions(&self, py: Python<'_>) -> PyResult<Py<PyTuple>> {
        let items: Vec<Py<PyAny>> = self
            .node
            .edges()
            .iter()
            .map(|e| -> PyResult<Py<PyAny>> {
                let n: Py<PyAny> = match e {
                    Some(Edge::Node(n)) => Py::new(py, PyNode { node: n.clone() })?.into_any(),
                    Some(Edge::Leaf(t)) => Py::new(
                        py,
                        PyAccumulateGrad {
                            variable: t.clone(),
                        },
                    )?
                    .into_any(),
                    None => py.None(),
                };
                Ok(
                    PyTuple::new(py, [n, 0i64.into_pyobject(py)?.into_any().unbind()])?
                        .into_any()
                        .unbind(),
                )
            })
            .collect::<PyResult<_>>()?;
        Ok(PyTuple::new(py, items)?.unbind())
    }
    fn __repr__(&self) -> String {
        format!(
            "<{} object at {:#x}>",
            self.node.name(),
            Arc::as_ptr(&self.node) as usize
        )
    }
    fn __eq__(&self, other: &Bound<'_, PyAny>) -> bool {
        other
            .cast::<PyNode>()
            .map(|o| Arc::ptr_eq(&o.get().node, &self.node))
            .unwrap_or(false)
    }
    fn __hash__(&self) -> usize {
        Arc::as_ptr(&self.node) as usize
    }
}

#[pyclass(name = "AccumulateGrad", module = "ferrotorch.autograd", frozen)]
pub struct PyAccumulateGrad {
    variable: Tensor,
}

#[pymethods]
impl PyAccumulateGrad {
    fn name(&self) -> &'static str {
        "torch::autograd::AccumulateGrad"
    }
    #[getter]
    fn variable(&self) -> PyTensor {
        PyTensor::new(self.variable.clone())
    }
    #[getter]
    fn next_functions(&self, py: Python<'_>) -> Py<PyTuple> {
        PyTuple::empty(py).unbind()
    }
    fn __repr__(&self) -> String {
        format!("<AccumulateGrad object at {:#x}>", self.variable.id())
    }
}

fn py_err_to_core(e: PyErr) -> Error {
    Python::attach(|py| {
        // Keep the Python exception so that it reaches the caller unchanged.
        let msg = e.to_string();
        crate::autograd::stash_error(py, e);
        Error::runtime(msg)
    })
}

static PENDING: std::sync::Mutex<Option<PyErr>> = std::sync::Mutex::new(None);

/// Remembers a Python exception raised inside backward so it can be re-raised as-is.
pub fn stash_error(_py: Python<'_>, e: PyErr) {
    *PENDING.lock().unwrap() = Some(e);
}

/// Converts a core error, preferring a stashed Python exception from a hook or Function.
pub fn take_error(e: Error) -> PyErr {
    PENDING.lock().unwrap().take().unwrap_or_else(|| to_py(e))
}

/// Wraps a Python callable as a gradient hook.
pub fn py_hook(hook: Py<PyAny>) -> GradHook {
    Arc::new(move |g: &Tensor| {
        Python::attach(|py| -> ferrotorch::Result<Option<Tensor>> {
            let r = hook
                .call1(py, (PyTensor::new(g.clone()),))
                .map_err(py_err_to_core)?;
            if r.is_none(py) {
                return Ok(None);
            }
            let t = r
                .bind(py)
                .cast::<PyTensor>()
                .map_err(|_| Error::runtime("hook must return a Tensor or None"))?;
            Ok(Some(t.borrow().t.clone()))
        })
    })
}

/// A Python `hook(tensor)` run after a leaf's gradient was accumulated (its result is ignored).
pub fn py_post_accumulate_hook(hook: Py<PyAny>) -> ferrotorch::autograd::PostAccumulateHook {
    Arc::new(move |t: &Tensor| {
        Python::attach(|py| {
            hook.call1(py, (PyTensor::new(t.clone()),))
                .map(|_| ())
                .map_err(py_err_to_core)
        })
    })
}

/// A `RemovableHandle` from the Python side.
pub fn make_handle(py: Python<'_>, t: PyTensor, id: usize) -> PyResult<Py<PyAny>> {
    let m = py.import("ferrotorch.utils.hooks")?;
    Ok(m.getattr("_TensorHookHandle")?
        .call1((Py::new(py, t)?, id))?
        .unbind())
}

pub fn tensors_of(ob: &Bound<'_, PyAny>) -> PyResult<Vec<Tensor>> {
    if let Ok(t) = ob.cast::<PyTensor>() {
        return Ok(vec![t.borrow().t.clone()]);
    }
    let mut v = Vec::new();
    for item in ob.try_iter()? {
        v.push(item?.cast::<PyTensor>()?.borrow().t.clone());
    }
    Ok(v)
}

fn grads_of(outputs: &[Tensor], g: Option<&Bound<'_, PyAny>>) -> PyResult<Vec<Tensor>> {
    let given: Vec<Option<Tensor>> = match g {
        None => vec![None; outputs.len()],
        Some(g) if g.is_none() => vec![None; outputs.len()],
        Some(g) => {
            if let Ok(t) = g.cast::<PyTensor>() {
                vec![Some(t.borrow().t.clone())]
            } else {
                g.try_iter()?
                    .map(|x| -> PyResult<Option<Tensor>> {
                        let x = x?;
                        if x.is_none() {
                            Ok(None)
                        } else {
                            Ok(Some(x.cast::<PyTensor>()?.borrow().t.clone()))
                        }
                    })
                    .collect::<PyResult<_>>()?
            }
        }
    };
    if given.len() != outputs.len() {
        return Err(pyo3::exceptions::PyRuntimeError::new_err(format!(
            "grad_tensors should have the same length as tensors ({} vs {})",
            given.len(),
            outputs.len()
        )));
    }
    outputs
        .iter()
        .zip(given)
        .map(|(o, g)| match g {
            Some(g) => Ok(g),
            None if o.numel() == 1 => Ok(Tensor::ones_like_tensor(o).py()?),
            None => Err(pyo3::exceptions::PyRuntimeError::new_err(format!(
                "grad can be implicitly created only for scalar outputs (got shape {:?})",
                o.shape()
            ))),
        })
        .collect()
}

#[pyfunction]
#[pyo3(signature = (tensors, grad_tensors=None, retain_graph=None, create_graph=false, inputs=None))]
pub fn _backward(
    py: Python<'_>,
    tensors: &Bound<'_, PyAny>,
    grad_tensors: Option<&Bound<'_, PyAny>>,
    retain_graph: Option<bool>,
    create_graph: bool,
    inputs: Option<&Bound<'_, PyAny>>,
) -> PyResult<()> {
    let outs = tensors_of(tensors)?;
    let grads = grads_of(&outs, grad_tensors)?;
    let retain = retain_graph.unwrap_or(create_graph);
    let inputs = inputs.map(tensors_of).transpose()?;
    py.detach(|| match inputs {
        Some(ins) => autograd::backward_to(&outs, &grads, &ins, retain, create_graph),
        None => autograd::backward(&outs, &grads, retain, create_graph),
    })
    .map_err(take_error)
}

#[pyfunction]
#[pyo3(signature = (outputs, inputs, grad_outputs=None, retain_graph=None, create_graph=false, allow_unused=None, materialize_grads=false))]
#[allow(clippy::too_many_arguments)]
pub fn _grad(
    py: Python<'_>,
    outputs: &Bound<'_, PyAny>,
    inputs: &Bound<'_, PyAny>,
    grad_outputs: Option<&Bound<'_, PyAny>>,
    retain_graph: Option<bool>,
    create_graph: bool,
    allow_unused: Option<bool>,
    materialize_grads: bool,
) -> PyResult<Py<PyTuple>> {
    let outs = tensors_of(outputs)?;
    let ins = tensors_of(inputs)?;
    let grads = grads_of(&outs, grad_outputs)?;
    let allow = allow_unused.unwrap_or(materialize_grads);
    let r = py
        .detach(|| {
            autograd::grad(
                &outs,
                &grads,
                &ins,
                retain_graph.unwrap_or(create_graph),
                create_graph,
                allow,
            )
        })
        .map_err(take_error)?;
    let items: Vec<Py<PyAny>> = r
        .into_iter()
        .zip(&ins)
        .map(|(g, i)| -> PyResult<Py<PyAny>> {
            match g {
                Some(g) => Ok(Py::new(py, PyTensor::new(g))?.into_any()),
                None if materialize_grads => {
                    Ok(Py::new(py, PyTensor::new(i.zeros_like().py()?))?.into_any())
                }
                None => Ok(py.None()),
            }
        })
        .collect::<PyResult<_>>()?;
    Ok(PyTuple::new(py, items)?.unbind())
}

#[pyfunction]
pub fn is_grad_enabled() -> bool {
    autograd::is_grad_enabled()
}

#[pyfunction]
pub fn _set_grad_enabled(on: bool) {
    autograd::set_grad_enabled(on);
}

#[pyfunction]
pub fn is_inference_mode_enabled() -> bool {
    autograd::is_inference_mode()
}

/// Enters (or leaves) inference mode; returns the previous (grad, inference) state.
#[pyfunction]
pub fn _enter_inference_mode(on: bool) -> (bool, bool) {
    let prev = (autograd::is_grad_enabled(), autograd::is_inference_mode());
    std::mem::forget(autograd::InferenceModeGuard::new(on));
    prev
}

#[pyfunction]
pub fn _restore_inference_mode(prev: (bool, bool)) {
    // Set both flags back exactly as they were.
    std::mem::forget(autograd::InferenceModeGuard::new(prev.1));
    autograd::set_grad_enabled(prev.0);
}

/// Attaches a custom node to the outputs of a Python `autograd.Function`.
/// `backward(*grads)` is called with one gradient (the output's) and returns a tuple with one
/// entry per input. Returns new tensors that alias the outputs and carry the node.
#[pyfunction]
pub fn _function_node(
    py: Python<'_>,
    name: String,
    inputs: &Bound<'_, PyList>,
    outputs: &Bound<'_, PyList>,
    backward: Py<PyAny>,
    non_differentiable: Vec<bool>,
) -> PyResult<Vec<Py<PyAny>>> {
    let ins: Vec<Option<Tensor>> = inputs
        .iter()
        .map(|i| i.cast::<PyTensor>().ok().map(|t| t.borrow().t.clone()))
        .collect();
    let outs: Vec<Tensor> = outputs
        .iter()
        .map(|o| Ok(o.cast::<PyTensor>()?.borrow().t.clone()))
        .collect::<PyResult<_>>()?;
    let any_grad = autograd::is_grad_enabled() && ins.iter().flatten().any(|t| t.requires_grad());
    let n_out = outs.len();
    let shapes: Vec<(Vec<usize>, ferrotorch::DType)> = outs
        .iter()
        .map(|o| (o.shape().to_vec(), o.dtype()))
        .collect();
    let mut result = Vec::new();
    // One node per differentiable output; each calls backward with zeros for the other outputs.
    let backward = Arc::new(backward);
    for (k, o) in outs.iter().enumerate() {
        let alias = o.detach();
        if any_grad
            && !non_differentiable.get(k).copied().unwrap_or(false)
            && o.dtype().is_differentiable()
        {
            let in_refs: Vec<Tensor> = ins
                .iter()
                .map(|t| match t {
                    Some(t) => Ok(t.clone()),
                    None => Tensor::zeros(&[], ferrotorch::DType::F32).py(),
                })
                .collect::<PyResult<_>>()?;
            let mask: Vec<bool> = ins.iter().map(|t| t.is_some()).collect();
            let in_dtypes: Vec<ferrotorch::DType> = in_refs.iter().map(|t| t.dtype()).collect();
            let bw = backward.clone();
            let shapes = shapes.clone();
            let in_ptrs: Vec<&Tensor> = in_refs.iter().collect();
            let alias = autograd::record_named(name.clone(), alias, &in_ptrs, move |g, _| {
                Python::attach(|py| -> ferrotorch::Result<Vec<Option<Tensor>>> {
                    let grads: Vec<Py<PyAny>> = (0..n_out)
                        .map(|j| {
                            let t = if j == k {
                                g.clone()
                            } else {
                                Tensor::zeros(&shapes[j].0, shapes[j].1).py()?
                            };
                            Py::new(py, PyTensor::new(t)).map(|p| p.into_any())
                        })
                        .collect::<PyResult<_>>()
                        .map_err(py_err_to_core)?;
                    let r = bw
                        .call1(py, PyTuple::new(py, grads).map_err(py_err_to_core)?)
                        .map_err(py_err_to_core)?;
                    let r = r.bind(py);
                    let items: Vec<Bound<'_, PyAny>> = if let Ok(t) = r.cast::<PyTuple>() {
                        t.iter().collect()
                    } else {
                        vec![r.clone()]
                    };
                    let mut out = Vec::new();
                    for (i, present) in mask.iter().enumerate() {
                        let item = items.get(i);
                        let gt = match item {
                            Some(x) if !x.is_none() && *present => Some(
                                x.cast::<PyTensor>()
                                    .map_err(|_| {
                                        Error::runtime("backward must return Tensors or None")
                                    })?
                                    .borrow()
                                    .t
                                    .clone(),
                            ),
                            _ => None,
                        };
                        // As PyTorch's engine does: a gradient comes back in its input's dtype
                        // (a forward that cast its inputs, e.g. under custom_fwd, returns others).
                        let gt = match gt {
                            Some(t) if t.dtype() != in_dtypes[i] && t.dtype().is_float() => {
                                Some(t.to_dtype(in_dtypes[i])?)
                            }
                            other => other,
                        };
                        out.push(gt);
                    }
                    if items.len() < mask.len() {
                        return Err(Error::runtime(format!("function {}Backward returned an incorrect number of gradients (expected {}, got {})", "", mask.len(), items.len())));
                    }
                    Ok(out)
                })
            });
            result.push(Py::new(py, PyTensor::new(alias))?.into_any());
        } else {
            result.push(Py::new(py, PyTensor::new(alias))?.into_any());
        }
    }
    Ok(result)
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<PyNode>()?;
    m.add_class::<PyAccumulateGrad>()?;
    m.add_function(wrap_pyfunction!(_backward, m)?)?;
    m.add_function(wrap_pyfunction!(_grad, m)?)?;
    m.add_function(wrap_pyfunction!(is_grad_enabled, m)?)?;
    m.add_function(wrap_pyfunction!(_set_grad_enabled, m)?)?;
    m.add_function(wrap_pyfunction!(is_inference_mode_enabled, m)?)?;
    m.add_function(wrap_pyfunction!(_enter_inference_mode, m)?)?;
    m.add_function(wrap_pyfunction!(_restore_inference_mode, m)?)?;
    m.add_function(wrap_pyfunction!(_function_node, m)?)?;
    Ok(())
}
