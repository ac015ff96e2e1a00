//! The tensor: a view (layout + dtype) of a refcounted storage, plus its autograd state.

use crate::alloc_size::{checked_numel, nbytes_for};
use crate::autograd::{GradHook, Node, PostAccumulateHook};
use crate::layout::{contiguous_strides, Layout};
use crate::{DType, Device, Element, Error, Result, Scalar, Storage};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};

/// Autograd state of one tensor. `grad_fn` is `None` for leaves.
#[derive(Default)]
pub(crate) struct Meta {
    pub requires_grad: bool,
    pub grad: Option<Tensor>,
    pub grad_fn: Option<Arc<Node>>,
    pub retains_grad: bool,
    /// Hooks on a leaf's gradient (a non-leaf's hooks live on its grad_fn).
    pub hooks: Vec<(usize, GradHook)>,
    /// Hooks run on a leaf after backward wrote its `.grad`.
    pub post_accumulate_hooks: Vec<(usize, PostAccumulateHook)>,
    /// For views made by view ops: the tensor whose memory they show (the root, for views
    /// of views), so that in-place writes through the view update its history too.
    pub view_base: Option<Tensor>,
}

pub struct TensorImpl {
    pub(crate) storage: Storage,
    pub(crate) layout: Layout,
    pub(crate) dtype: DType,
    pub(crate) meta: Mutex<Meta>,
    /// `requires_grad || grad_fn.is_some()`, kept beside `meta` so that the per-op
    /// "does autograd need this?" check reads an atomic instead of taking the lock.
    needs_grad: AtomicBool,
}

/// A cheaply clonable handle; clones are the same tensor (same grad, same identity).
#[derive(Clone)]
pub struct Tensor(pub(crate) Arc<TensorImpl>);

impl std::fmt::Debug for Tensor {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "Tensor(shape={:?}, dtype={})",
            self.shape(),
            self.dtype().name()
        )
    }
}

impl Tensor {
    pub fn from_parts(storage: Storage, layout: Layout, dtype: DType) -> Tensor {
        Tensor(Arc::new(TensorImpl {
            storage,
            layout,
            dtype,
            meta: Mutex::new(Meta::default()),
            needs_grad: AtomicBool::new(false),
        }))
    }

    /// A zero-filled contiguous tensor; an impossible size is an error, never a panic.
    pub fn zeros(shape: &[usize], dtype: DType) -> Result<Tensor> {
        let storage = Storage::zeros(nbytes_for(shape, dtype.size())?)?;
        Ok(Tensor::from_parts(
            storage,
            Layout::contiguous(shape),
            dtype,
        ))
    }

    /// Zeros on `device` (a memset there): gradients and outputs of ops whose inputs may live
    /// on a GPU are allocated where those inputs are.
    pub fn zeros_on(shape: &[usize], dtype: DType, device: Device) -> Result<Tensor> {
        match crate::backend::on(device)? {
            crate::backend::Backend::Cpu => Tensor::zeros(shape, dtype),
            #[cfg(feature = "cuda")]
            crate::backend::Backend::Cuda(d) => crate::cuda::ops::zeros(&d, shape, dtype),
        }
    }

    /// A contiguous tensor with unspecified contents, for kernels that overwrite every element.
    pub(crate) fn uninit(shape: &[usize], dtype: DType) -> Result<Tensor> {
        let storage = Storage::uninit(nbytes_for(shape, dtype.size())?)?;
        Ok(Tensor::from_parts(
            storage,
            Layout::contiguous(shape),
            dtype,
        ))
    }

    /// A contiguous tensor that takes the values of `data`; fails if the sizes disagree.
    pub fn from_vec<T: Element>(data: Vec<T>, shape: &[usize]) -> Result<Tensor> {
        if checked_numel(shape) != Some(data.len()) {
            return Err(Error::runtime(format!(
                "from_vec: shape {:?} is invalid for input of size {}",
                shape,
                data.len()
            )));
        }
        Ok(Tensor::from_parts(
            Storage::from_vec(data)?,
            Layout::contiguous(shape),
            T::DTYPE,
        ))
    }

    /// A 0-d tensor holding `v` converted to `dtype`.
    pub fn scalar(v: Scalar, dtype: DType) -> Tensor {
        // A one- or two-element allocation: it fails only when memory does. The value is
        // written in place (no temporary Vec): this is on the path of every `t + 2`.
        crate::with_dtype!(dtype, T => {
            let storage = Storage::uninit(std::mem::size_of::<T>()).unwrap();
            unsafe { (storage.ptr() as *mut T).write(v.to_elem::<T>()) };
            Tensor::from_parts(storage, Layout::contiguous(&[]), dtype)
        }, else Tensor::complex_scalar(v, dtype).unwrap())
    }

    /// A view made by a view op: like `alias`, remembering the root tensor it shows.
    pub(crate) fn view_alias(&self, layout: Layout) -> Tensor {
        let out = self.alias(layout);
        let root = self
            .meta()
            .view_base
            .clone()
            .unwrap_or_else(|| self.clone());
        out.meta().view_base = Some(root);
        out
    }

    /// The tensor this view shows, if it was made by a view op.
    pub fn view_base(&self) -> Option<Tensor> {
        self.meta().view_base.clone()
    }

    /// A new tensor on the same storage with another layout (no autograd link).
    pub fn alias(&self, layout: Layout) -> Tensor {
        Tensor::from_parts(self.0.storage.clone(), layout, self.0.dtype)
    }

    pub fn shape(&self) -> &[usize] {
        &self.0.layout.shape
    }
    pub fn strides(&self) -> &[usize] {
        &self.0.layout.strides
    }
    pub fn offset(&self) -> usize {
        self.0.layout.offset
    }
    pub fn layout(&self) -> &Layout {
        &self.0.layout
    }
    pub fn dtype(&self) -> DType {
        self.0.dtype
    }
    pub fn device(&self) -> Device {
        self.0.storage.device()
    }
    pub fn storage(&self) -> &Storage {
        &self.0.storage
    }
    pub fn ndim(&self) -> usize {
        self.0.layout.ndim()
    }
    pub fn numel(&self) -> usize {
        self.0.layout.numel()
    }
    pub fn is_contiguous(&self) -> bool {
        self.0.layout.is_contiguous()
    }
    pub fn same(&self, other: &Tensor) -> bool {
        Arc::ptr_eq(&self.0, &other.0)
    }
    /// Address of the first element.
    /// Address of the first element. The address leaves the crate, so the storage keeps
    /// these bytes alive even if `share_memory_` later moves them.
    pub fn data_ptr(&self) -> usize {
        self.0.storage.mark_exported();
        self.0.storage.ptr() as usize + self.offset() * self.dtype().size()
    }
    pub fn id(&self) -> usize {
        Arc::as_ptr(&self.0) as usize
    }
    /// The storage version counter (bumped by in-place writes).
    pub fn version(&self) -> u64 {
        self.0.storage.version()
    }

    /// The contiguous elements of this tensor, borrowing when already contiguous.
    pub fn contiguous_slice<T: Element>(&self) -> &[T] {
        debug_assert!(self.is_contiguous() && T::DTYPE == self.dtype());
        unsafe { self.0.storage.slice::<T>(self.offset(), self.numel()) }
    }

    /// Mutable access to a freshly allocated, unshared contiguous tensor.
    ///
    /// # Safety
    /// Nobody else may read or write the storage meanwhile.
    #[allow(clippy::mut_from_ref)]
    pub unsafe fn contiguous_slice_mut<T: Element>(&self) -> &mut [T] {
        debug_assert!(self.is_contiguous() && T::DTYPE == self.dtype());
        self.0.storage.slice_mut::<T>(self.offset(), self.numel())
    }

    /// All elements in row-major order, converted to `T`.
    ///
    /// # Panics
    /// When memory runs out: a convenience for tests and examples; see `try_to_vec`.
    pub fn to_vec<T: Element>(&self) -> Vec<T> {
        self.try_to_vec().expect("to_vec")
    }

    /// Row-major elements converted to `T`; running out of memory is an error.
    pub fn try_to_vec<T: Element>(&self) -> Result<Vec<T>> {
        if self.device() != Device::Cpu {
            // Device values come to the host first (this waits for the stream).
            return self.copy_to_device(Device::Cpu)?.try_to_vec();
        }
        let t = if self.dtype() == T::DTYPE {
            self.clone()
        } else {
            self.to_dtype(T::DTYPE)?
        };
        let data = t.contiguous_data::<T>()?;
        let mut v = crate::alloc_size::try_vec(data.len())?;
        v.extend_from_slice(&data);
        Ok(v)
    }

    /// Row-major elements; borrowed when contiguous, copied otherwise. `T` must be the dtype.
    pub fn contiguous_data<T: Element>(&self) -> Result<std::borrow::Cow<'_, [T]>> {
        assert_eq!(
            T::DTYPE,
            self.dtype(),
            "contiguous_data: element type mismatch"
        );
        if self.is_contiguous() {
            Ok(std::borrow::Cow::Borrowed(self.contiguous_slice::<T>()))
        } else {
            let c = self.contiguous_copy()?;
            let mut v = crate::alloc_size::try_vec(c.numel())?;
            v.extend_from_slice(c.contiguous_slice::<T>());
            Ok(std::borrow::Cow::Owned(v))
        }
    }

    /// The one value of a one-element tensor.
    pub fn item(&self) -> Result<Scalar> {
        if self.numel() != 1 {
            return Err(Error::runtime(format!(
                "a Tensor with {} elements cannot be converted to Scalar",
                self.numel()
            )));
        }
        if self.device() != Device::Cpu {
            // A device value comes to the host first (this waits for the stream).
            return self.copy_to_device(Device::Cpu)?.item();
        }
        if self.dtype().is_complex() {
            return Ok(self.complex_item());
        }
        let off = self.offset();
        Ok(crate::with_dtype!(self.dtype(), T => {
            let v = unsafe { self.0.storage.slice::<T>(off, 1)[0] };
            Scalar::from_elem(v)
        }))
    }

    pub(crate) fn meta(&self) -> MutexGuard<'_, Meta> {
        self.0.meta.lock().unwrap_or_else(|e| e.into_inner())
    }

    // ---- autograd state ----

    pub fn requires_grad(&self) -> bool {
        self.0.needs_grad.load(Ordering::Acquire)
    }

    /// Refreshes `needs_grad` from the autograd state just changed under the lock.
    fn sync_needs_grad(&self, m: &Meta) {
        let v = m.requires_grad || m.grad_fn.is_some();
        self.0.needs_grad.store(v, Ordering::Release);
    }

    /// `t.data = other`: a tensor showing `other`'s memory (any shape and dtype) that keeps
    /// this one's autograd identity (requires_grad, grad, history, hooks), as PyTorch does.
    pub fn with_data_of(&self, other: &Tensor) -> Tensor {
        let out = Tensor::from_parts(
            other.storage().clone(),
            other.layout().clone(),
            other.dtype(),
        );
        {
            let src = self.meta();
            let mut m = out.meta();
            m.requires_grad = src.requires_grad;
            m.grad = src.grad.clone();
            m.grad_fn = src.grad_fn.clone();
            m.retains_grad = src.retains_grad;
            m.hooks = src.hooks.clone();
            m.post_accumulate_hooks = src.post_accumulate_hooks.clone();
            out.sync_needs_grad(&m);
        }
        out
    }

    /// `requires_grad_`: only leaves may change it, and only float tensors may require grad.
    pub fn set_requires_grad(&self, flag: bool) -> Result<()> {
        if flag && !self.dtype().is_differentiable() {
            return Err(Error::runtime(format!(
                "only Tensors of floating point dtype can require gradients (got {})",
                self.dtype().name()
            )));
        }
        if flag && self.is_inference() && !crate::autograd::is_inference_mode() {
            return Err(Error::runtime(
                "Setting requires_grad=True on inference tensor outside InferenceMode is not allowed.",
            ));
        }
        let mut m = self.meta();
        if m.grad_fn.is_some() {
            if !flag {
                return Err(Error::runtime(
                    "you can only change requires_grad flags of leaf variables. If you want to use a \
                     computed variable in a subgraph that doesn't require differentiation use \
                     var_no_grad = var.detach().",
                ));
            }
            return Ok(());
        }
        m.requires_grad = flag;
        self.sync_needs_grad(&m);
        Ok(())
    }

    pub fn is_leaf(&self) -> bool {
        self.meta().grad_fn.is_none()
    }

    pub fn grad_fn(&self) -> Option<Arc<Node>> {
        self.meta().grad_fn.clone()
    }

    pub fn grad(&self) -> Option<Tensor> {
        self.meta().grad.clone()
    }

    pub fn set_grad(&self, g: Option<Tensor>) -> Result<()> {
        if let Some(g) = &g {
            if g.shape() != self.shape() {
                return Err(Error::runtime(format!(
                    "assigned grad has data of a different size: {:?} vs {:?}",
                    g.shape(),
                    self.shape()
                )));
            }
        }
        self.meta().grad = g;
        Ok(())
    }

    pub fn retains_grad(&self) -> bool {
        self.meta().retains_grad
    }

    /// Keeps `.grad` for a non-leaf tensor after backward.
    pub fn retain_grad(&self) -> Result<()> {
        let node = {
            let mut m = self.meta();
            if m.grad_fn.is_none() {
                if !m.requires_grad {
                    return Err(Error::runtime(
                        "can't retain_grad on Tensor that has requires_grad=False",
                    ));
                }
                return Ok(());
            }
            m.retains_grad = true;
            m.grad_fn.clone().unwrap()
        };
        node.set_retained(Arc::downgrade(&self.0));
        Ok(())
    }

    /// Registers a hook called with this tensor's gradient; it may return a replacement.
    pub fn register_hook(&self, hook: GradHook) -> Result<usize> {
        let id = crate::autograd::next_hook_id();
        let mut m = self.meta();
        if !(m.requires_grad || m.grad_fn.is_some()) {
            return Err(Error::runtime(
                "cannot register a hook on a tensor that doesn't require gradient",
            ));
        }
        match &m.grad_fn {
            Some(node) => node.add_pre_hook(id, hook),
            None => m.hooks.push((id, hook)),
        }
        Ok(id)
    }

    /// Registers a hook called with this leaf after backward accumulated its gradient.
    pub fn register_post_accumulate_grad_hook(&self, hook: PostAccumulateHook) -> Result<usize> {
        let mut m = self.meta();
        if m.grad_fn.is_some() {
            return Err(Error::runtime(
                "post accumulate grad hooks cannot be registered on non-leaf tensors",
            ));
        }
        if !m.requires_grad {
            return Err(Error::runtime(
                "cannot register a hook on a tensor that doesn't require gradient",
            ));
        }
        let id = crate::autograd::next_hook_id();
        m.post_accumulate_hooks.push((id, hook));
        Ok(id)
    }

    pub fn remove_hook(&self, id: usize) {
        let mut m = self.meta();
        m.hooks.retain(|(i, _)| *i != id);
        m.post_accumulate_hooks.retain(|(i, _)| *i != id);
        if let Some(node) = &m.grad_fn {
            node.remove_pre_hook(id);
        }
    }

    /// A new tensor sharing storage, cut from the graph.
    pub fn detach(&self) -> Tensor {
        self.alias(self.layout().clone())
    }

    /// `detach_`: makes this tensor a leaf that does not require grad.
    pub fn detach_in_place(&self) {
        let mut m = self.meta();
        m.grad_fn = None;
        m.requires_grad = false;
        self.sync_needs_grad(&m);
    }

    /// Replaces the history of this tensor after an in-place op.
    pub(crate) fn set_grad_fn(&self, node: Option<Arc<Node>>) {
        let mut m = self.meta();
        m.grad_fn = node;
        self.sync_needs_grad(&m);
    }

    /// Moves this tensor's storage into shared memory in place (all its views follow).
    #[cfg(unix)]
    pub fn share_memory_(&self) -> Result<()> {
        self.storage().share_memory_()
    }

    /// Whether this tensor's storage lives in shared memory.
    pub fn is_shared(&self) -> bool {
        self.storage().is_shared()
    }

    /// An inference tensor: its storage was allocated in inference mode (a view shares its
    /// base's answer, as in PyTorch).
    pub fn is_inference(&self) -> bool {
        self.storage().is_inference()
    }

    /// A zero-filled contiguous tensor allocated directly in shared memory.
    #[cfg(unix)]
    pub fn zeros_shared(shape: &[usize], dtype: DType) -> Result<Tensor> {
        let n: usize = shape.iter().product();
        let storage = Storage::shared(n * dtype.size())?;
        Ok(Tensor::from_parts(
            storage,
            Layout::contiguous(shape),
            dtype,
        ))
    }

    pub fn contiguous_strides_of(shape: &[usize]) -> Vec<usize> {
        contiguous_strides(shape)
    }
}
