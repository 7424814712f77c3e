//! Compile tests and cross-crate integration tests for the `#[tool]` framework.

/// The README's examples, compiled and run as doctests.
#[cfg(doctest)]
#[doc = include_str!("../../README.md")]
pub struct ReadmeDoctests;
