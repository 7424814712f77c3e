//! The tests' Python: the virtual environment `.ci/run` makes (with the pinned SDKs), else the
//! first `python3` on PATH; and the test scripts that print the port they serve on.

#![allow(dead_code)]

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};

/// The virtual environment's `python3`, else `python3`.
pub fn python() -> PathBuf {
    let venv = Path::new(env!("CARGO_MANIFEST_DIR")).join("../target/venv/bin/python3");
    if venv.exists() {
        venv
    } else {
        "python3".into()
    }
}

/// A Python script of the tests (`script`, from this crate's directory) started with `arg` as
/// its argument, and the port it prints first as `PORT <n>`; `missing` says why it may not have
/// started. Its standard input is piped: it exits when that closes.
pub fn python_with_port(script: &str, arg: &Path, missing: &str) -> (Child, u16) {
    let mut child = Command::new(python())
        .arg(Path::new(env!("CARGO_MANIFEST_DIR")).join(script))
        .arg(arg)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("python3 runs");
    let mut line = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    let port = line
        .strip_prefix("PORT ")
        .and_then(|port| port.trim().parse().ok())
        .unwrap_or_else(|| panic!("{missing}: {line:?}"));
    (child, port)
}
