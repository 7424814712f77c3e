//! `conformance-host mcp --http`, started for a test with its sessions in a scratch directory.

use std::ffi::OsStr;
use std::path::{Path, PathBuf};
use std::process::Command;

use test_support::Serving;

/// A directory of the test's own, removed when dropped.
pub struct Scratch(pub PathBuf);

impl Scratch {
    /// A fresh directory named after `name` and this process.
    pub fn new(name: &str) -> Self {
        let dir = std::env::temp_dir().join(format!("conformance-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        Scratch(dir)
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// The fixture host on a free loopback port, its sessions in `dir/sessions`, with `args` besides.
pub fn serve(dir: &Path, args: &[&OsStr]) -> Serving {
    let mut command = Command::new(env!("CARGO_BIN_EXE_conformance-host"));
    command
        .args(["mcp", "--http", "127.0.0.1:0", "--session-dir"])
        .arg(dir.join("sessions"))
        .args(args);
    Serving::start(command)
}
