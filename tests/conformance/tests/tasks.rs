//! Tasks across replicas (`tasks.py`): two `conformance-host mcp --http` replicas on one
//! PostgreSQL store, a task begun on one answered for, updated and cancelled on the other, and
//! another caller's task out of reach.

mod host;

use std::ffi::OsStr;
use std::os::unix::fs::PermissionsExt;
use std::path::Path;

#[test]
fn a_task_begun_on_one_replica_is_answered_updated_and_cancelled_on_another() {
    let dir = host::Scratch::new("tasks");
    let tokens = dir.0.join("tokens");
    std::fs::write(&tokens, "alice-token alice\nbob-token bob\n").unwrap();
    std::fs::set_permissions(&tokens, std::fs::Permissions::from_mode(0o600)).unwrap();
    let store = test_support::pg_url();
    let args: [&OsStr; 4] = [
        "--store".as_ref(),
        store.as_ref(),
        "--auth-tokens".as_ref(),
        tokens.as_os_str(),
    ];
    let a = host::serve(&dir.0, &args);
    let b = host::serve(&dir.0, &args);
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/tasks.py");
    test_support::python_passes(
        &script,
        [("REPLICA_A", a.url.as_str()), ("REPLICA_B", b.url.as_str())],
        "tasks: all checks passed",
    );
    drop((a, b));
}
