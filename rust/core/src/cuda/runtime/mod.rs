//! The driver side of the backend: contexts, streams, events, device buffers, kernel loading.

pub mod api_impl;
