//! Compile tests and cross-crate integration tests for the `#[tool]` framework.
