//! What the workspace's tests share, written once: the PostgreSQL the tests use, the Python with
//! the pinned SDKs, a session log's events read as a test reads them, unique names, and the
//! `toolhost agent` command line with every provider's key set.
//!
//! It depends on nothing of the framework's, so any crate's tests can use it without a second
//! copy of the crate under test.

use std::ffi::OsStr;
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{SystemTime, UNIX_EPOCH};

use serde_json::Value;

/// The OpenAI key the tests' agent runs carry (distinct, so a test can check that none leaks).
pub const OPENAI_KEY: &str = "sk-test-openai-7f3a9c1e5b2d4680";
/// The Anthropic key the tests' agent runs carry.
pub const ANTHROPIC_KEY: &str = "sk-ant-test-2b8e6d4f0a1c3957";
/// The Gemini key the tests' agent runs carry.
pub const GEMINI_KEY: &str = "AIza-test-gemini-5c7e9a1b3d2f4068";

pub mod conformance;

/// The workspace's root directory.
pub fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("test-support is a folder of the workspace")
        .to_path_buf()
}

/// The URL of the PostgreSQL the tests use (`TOOLHOST_TEST_PG`).
///
/// # Panics
///
/// When it is not set: the tests fail rather than skip without their database.
pub fn pg_url() -> String {
    std::env::var("TOOLHOST_TEST_PG").expect(
        "TOOLHOST_TEST_PG names the PostgreSQL the tests use (`.ci/run` starts a throwaway one)",
    )
}

/// `name` made unique to this process and moment: a session id or a folder no other test run
/// uses.
pub fn unique(name: &str) -> String {
    let nanos = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap_or_default()
        .as_nanos();
    format!("{name}-{}-{nanos:x}", std::process::id())
}

/// The Python with the pinned SDKs: the virtual environment `.ci/run` makes, else the first
/// `python3` on `PATH`.
pub fn python() -> PathBuf {
    let venv = workspace().join("target/venv/bin/python3");
    if venv.exists() {
        venv
    } else {
        "python3".into()
    }
}

/// Runs the Python `script` (with the pinned SDKs, [`python`]) with `envs` set, and holds it to
/// its word: it exits 0 and prints `passed`.
///
/// # Panics
///
/// When it cannot start, fails, or does not print `passed`: with what it printed.
pub fn python_passes<K, V>(script: &Path, envs: impl IntoIterator<Item = (K, V)>, passed: &str)
where
    K: AsRef<OsStr>,
    V: AsRef<OsStr>,
{
    let output = Command::new(python())
        .arg(script)
        .envs(envs)
        .output()
        .expect("the tests' Python runs");
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{stdout}\n{stderr}");
    assert!(stdout.contains(passed), "{stdout}\n{stderr}");
}

/// The Python `script` started with `arg`, and the port it prints first as `PORT <n>`;
/// `missing` says why it may not have started. Its standard input is piped: it exits when that
/// closes.
///
/// # Panics
///
/// When it cannot start or prints no port.
pub fn python_with_port(script: &Path, arg: &Path, missing: &str) -> (Child, u16) {
    let mut child = Command::new(python())
        .arg(script)
        .arg(arg)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("python3 runs");
    let mut line = String::new();
    BufReader::new(child.stdout.take().expect("its output is piped"))
        .read_line(&mut line)
        .expect("its first line is read");
    let port = line
        .strip_prefix("PORT ")
        .and_then(|port| port.trim().parse().ok())
        .unwrap_or_else(|| panic!("{missing}: {line:?}"));
    (child, port)
}

/// A host's `mcp --http` endpoint, started by `command` (which names the address, such as
/// `127.0.0.1:0`), once its first line on standard error says where it serves: the child and
/// the endpoint's URL. Killed and waited for when dropped.
pub struct Serving {
    /// The host.
    pub child: Child,
    /// Where it serves, as it said (`http://127.0.0.1:PORT/mcp`).
    pub url: String,
}

impl Serving {
    /// Starts `command` and reads where it serves.
    ///
    /// # Panics
    ///
    /// When it cannot start or its first line names no address.
    pub fn start(mut command: Command) -> Serving {
        let mut child = command
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .expect("the host starts");
        let mut line = String::new();
        BufReader::new(child.stderr.take().expect("its errors are piped"))
            .read_line(&mut line)
            .expect("its first line is read");
        let url = line
            .split("serving ")
            .nth(1)
            .and_then(|rest| rest.split_whitespace().next())
            .unwrap_or_else(|| panic!("no address in {line:?}"))
            .to_owned();
        Serving { child, url }
    }
}

impl Drop for Serving {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The data of the events of `kind` in the session log at `session`, in order; lines that are
/// not JSON (a header is, a torn tail is not) are passed over.
///
/// # Panics
///
/// When the file cannot be read.
pub fn events_of(session: &Path, kind: &str) -> Vec<Value> {
    std::fs::read_to_string(session)
        .unwrap_or_else(|error| panic!("{}: {error}", session.display()))
        .lines()
        .filter_map(|line| serde_json::from_str::<Value>(line).ok())
        .filter(|event| event["kind"] == kind)
        .map(|event| event["data"].clone())
        .collect()
}

/// `BIN agent --provider PROVIDER --model test-model --base-url URL`, with each provider's
/// key set ([`OPENAI_KEY`] …), `NO_COLOR`, and standard input closed; its output piped.
pub fn agent_command(bin: impl AsRef<OsStr>, provider: &str, base_url: &str) -> Command {
    let mut command = Command::new(bin);
    command
        .args(["agent", "--provider", provider, "--model", "test-model"])
        .args(["--base-url", base_url])
        .env("OPENAI_API_KEY", OPENAI_KEY)
        .env("ANTHROPIC_API_KEY", ANTHROPIC_KEY)
        .env("GEMINI_API_KEY", GEMINI_KEY)
        .env("NO_COLOR", "1")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    command
}
