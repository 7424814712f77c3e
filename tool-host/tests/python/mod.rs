//! The tests' Python (`test_support`'s), and the test scripts of this crate that print the port
//! they serve on.

#![allow(dead_code)]

use std::path::Path;
use std::process::Child;

pub use test_support::python;

/// A Python script of this crate's tests (`script`, from this crate's directory) started with
/// `arg`, and the port it prints first as `PORT <n>` (see [`test_support::python_with_port`]).
pub fn python_with_port(script: &str, arg: &Path, missing: &str) -> (Child, u16) {
    test_support::python_with_port(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join(script),
        arg,
        missing,
    )
}
