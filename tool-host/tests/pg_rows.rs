//! The PostgreSQL store trusts no row: rows planted in the table as damage or an attacker would
//! leave them (a time before 1970, a gap in the seqs, seqs at the top of the range, an event
//! larger than a log line may be) are errors naming the session and the event, in every command
//! that reads them, never a panic or a loop; an import is one transaction that a kill undoes;
//! and no command prints a password of the store's URL. Each test works in a database of its
//! own on the server `TOOLHOST_TEST_PG` names (`.ci/run` starts a throwaway one).

use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use postgres::{Client, NoTls};
use tool_session_pg::PgStore;

use test_support::pg_url as server_url;

fn unique(name: &str) -> String {
    let nanos = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap()
        .as_nanos();
    format!("{name}_{}_{nanos:x}", std::process::id())
}

/// A database of the test's own, with the session schema, and a client on it.
struct Database {
    url: String,
    client: Client,
}

impl Database {
    fn new(name: &str) -> Database {
        let name = unique(name);
        let mut admin = Client::connect(&server_url(), NoTls).unwrap();
        admin
            .batch_execute(&format!("CREATE DATABASE {name}"))
            .unwrap();
        let server = server_url();
        let (base, _) = server.rsplit_once('/').unwrap();
        let url = format!("{base}/{name}");
        PgStore::connect(&url).unwrap();
        let client = Client::connect(&url, NoTls).unwrap();
        Database { url, client }
    }

    fn plant(&mut self, session: &str, seq: i64, data: &str, time_ns: i64) {
        self.client
            .execute(
                "INSERT INTO toolhost_events (session_id, seq, kind, data, time_ns) \
                 VALUES ($1, $2, 'note/add', $3, $4)",
                &[&session, &seq, &data, &time_ns],
            )
            .unwrap();
    }

    fn toolhost(&self, args: &[&str]) -> Output {
        run_bounded(
            Command::new(env!("CARGO_BIN_EXE_toolhost"))
                .args(args)
                .env("TOOLHOST_STORE", &self.url),
        )
    }
}

/// Runs `command` to its end, killed after 60 s (a command that loops is a failure, not a hang).
fn run_bounded(command: &mut Command) -> Output {
    let mut child = command
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let started = Instant::now();
    while child.try_wait().unwrap().is_none() {
        if started.elapsed() > Duration::from_secs(60) {
            child.kill().unwrap();
            panic!("{command:?} ran past 60 s");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    child.wait_with_output().unwrap()
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// A failure with exit status 3, whose one line of standard error contains `says`.
fn refused(output: &Output, says: &str) {
    let stderr = text(&output.stderr);
    assert_eq!(output.status.code(), Some(3), "{stderr}");
    assert!(stderr.contains(says), "{stderr}");
    assert!(!stderr.contains("panicked"), "{stderr}");
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
}

#[test]
fn a_time_before_1970_is_an_error_in_list_replay_and_export() {
    let mut db = Database::new("times");
    db.plant("early", 1, "1", 5);
    db.plant("early", 2, "2", -1_000_000_000);
    let says = "session early event 2: its time (-1000000000 ns from 1970) is before 1970";
    refused(&db.toolhost(&["sessions", "list"]), says);
    refused(&db.toolhost(&["replay", "early", "--events"]), says);
    refused(&db.toolhost(&["sessions", "export", "early"]), says);
}

#[test]
fn a_gap_in_the_seqs_is_an_error_in_every_command_that_opens_the_session() {
    let mut db = Database::new("gaps");
    for seq in [1, 2, 5] {
        db.plant("holed", seq, "1", 1);
    }
    let says = "session holed: its events are not seqs 1 to 5 without a gap: 3 events, the first 1";
    refused(&db.toolhost(&["replay", "holed", "--events"]), says);
    refused(&db.toolhost(&["sessions", "export", "holed"]), says);
    refused(&db.toolhost(&["replay", "holed"]), says);
    refused(&db.toolhost(&["replay", "holed", "--at", "3"]), says);
    // Nothing is written on top of it.
    refused(
        &db.toolhost(&[
            "call",
            "todo_write",
            r#"{"todos": []}"#,
            "--session",
            "holed",
        ]),
        says,
    );
    // A session whose first seq is not 1: refused, so an export always reads back.
    db.plant("late", i64::MAX - 1, "1", 1);
    refused(
        &db.toolhost(&["sessions", "export", "late"]),
        "session late: its events are not seqs 1 to 9223372036854775806 without a gap: 1 events, \
         the first 9223372036854775806",
    );
    // The list counts the rows there are.
    let list = db.toolhost(&["sessions", "list"]);
    assert!(
        text(&list.stdout).contains("holed\t3 events\t"),
        "{}",
        text(&list.stdout)
    );
}

#[test]
fn a_follower_stops_at_a_damaged_row_saying_why() {
    let mut db = Database::new("follow");
    db.plant("fol", 1, "1", 1);
    let mut follower = Command::new(env!("CARGO_BIN_EXE_toolhost"))
        .args(["replay", "fol", "--events", "--follow"])
        .env("TOOLHOST_STORE", &db.url)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut out = std::io::BufReader::new(follower.stdout.take().unwrap());
    let mut line = String::new();
    std::io::BufRead::read_line(&mut out, &mut line).unwrap();
    assert!(line.contains("\"seq\":1"), "{line}");
    db.plant("fol", 2, "{not json", 1);
    db.client
        .execute("SELECT pg_notify('toolhost_events', '2 fol')", &[])
        .unwrap();
    let started = Instant::now();
    let status = loop {
        if let Some(status) = follower.try_wait().unwrap() {
            break status;
        }
        if started.elapsed() > Duration::from_secs(20) {
            follower.kill().unwrap();
            panic!("the follower went on past a damaged row");
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    let mut stderr = String::new();
    std::io::Read::read_to_string(&mut follower.stderr.take().unwrap(), &mut stderr).unwrap();
    assert_eq!(status.code(), Some(3), "{stderr}");
    assert!(
        stderr.contains("session fol event 2: the data is not JSON"),
        "{stderr}"
    );
}

#[test]
fn seqs_at_the_top_of_the_range_end_the_export() {
    let mut db = Database::new("tops");
    db.plant("top", i64::MAX - 1, "1", 1);
    db.plant("top", i64::MAX, "2", 1);
    let export = db.toolhost(&["sessions", "export", "top"]);
    refused(
        &export,
        "session top event 9223372036854775807: the seq is out of range",
    );
    // Refused as the session opened: not even the header was written.
    assert_eq!(text(&export.stdout), "");
}

#[test]
fn an_event_over_the_bound_is_named_by_its_length_never_read() {
    let mut db = Database::new("huge");
    db.plant("big", 1, "1", 1);
    db.client
        .execute(
            "INSERT INTO toolhost_events (session_id, seq, kind, data, time_ns) \
             VALUES ('big', 2, 'note/add', '\"' || repeat('x', 100000000) || '\"', 1)",
            &[],
        )
        .unwrap();
    let says = "session big event 2: its data is 100000002 bytes, more than the 67108864 bytes an \
                event may have";
    refused(&db.toolhost(&["sessions", "export", "big"]), says);
    refused(&db.toolhost(&["replay", "big", "--events"]), says);
    // The latest of its kind, read when the session opens: the same error.
    refused(&db.toolhost(&["replay", "big"]), says);
}

#[test]
fn an_append_over_the_bound_is_refused_and_nothing_is_stored() {
    let db = Database::new("appends");
    let store = PgStore::connect(&db.url).unwrap();
    let session = store
        .open(
            &tool_runtime::SessionHub::new(),
            "over",
            tool_runtime::session::OpenMode::Create,
            tool_runtime::session::Durability::Fsync,
        )
        .unwrap();
    let error = session
        .append("note/add", &"x".repeat(64 << 20))
        .unwrap_err();
    assert_eq!(
        error.to_string(),
        "session store: session over: an event of 67108866 bytes is more than the 67108864 \
         bytes an event may have"
    );
    assert_eq!(session.append("note/add", &"fits").unwrap(), 1);
}

#[test]
fn a_killed_import_leaves_nothing() {
    let mut db = Database::new("imports");
    let file = std::env::temp_dir().join(format!("{}.jsonl", unique("imported")));
    let id = file.file_stem().unwrap().to_string_lossy().into_owned();
    // A log of 2,000 events, written by the file store.
    {
        let log = tool_runtime::session::JsonlLog::open(
            &file,
            tool_runtime::session::OpenMode::Create,
            tool_runtime::session::Durability::Flush,
        )
        .unwrap();
        let session = tool_runtime::Session::open(id.clone(), log).unwrap();
        for n in 0..2000 {
            session.append("note/add", &n).unwrap();
        }
    }
    // Another transaction holds seq 1500 of the session, uncommitted: the import's insert of it
    // waits, with every event before it inserted in the import's own transaction.
    let mut holder = Client::connect(&db.url, NoTls).unwrap();
    let mut holding = holder.transaction().unwrap();
    holding
        .execute(
            "INSERT INTO toolhost_events (session_id, seq, kind, data, time_ns) \
             VALUES ($1, 1500, 'note/add', '0', 1)",
            &[&id],
        )
        .unwrap();
    let mut import = Command::new(env!("CARGO_BIN_EXE_toolhost"))
        .args(["sessions", "import"])
        .arg(&file)
        .env("TOOLHOST_STORE", &db.url)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let started = Instant::now();
    loop {
        let waiting: i64 = db
            .client
            .query_one("SELECT count(*) FROM pg_locks WHERE NOT granted", &[])
            .unwrap()
            .get(0);
        if waiting > 0 {
            break;
        }
        assert!(
            started.elapsed() < Duration::from_secs(30),
            "the import never waited"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    import.kill().unwrap();
    import.wait().unwrap();
    holding.rollback().unwrap();
    // The server ends the killed import's backend, and with it its transaction.
    let started = Instant::now();
    while db
        .client
        .query_one(
            "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() \
             AND pid <> pg_backend_pid() AND state <> 'idle'",
            &[],
        )
        .unwrap()
        .get::<_, i64>(0)
        > 1
    {
        assert!(started.elapsed() < Duration::from_secs(30));
        std::thread::sleep(Duration::from_millis(20));
    }
    let rows: i64 = db
        .client
        .query_one(
            "SELECT count(*) FROM toolhost_events WHERE session_id = $1",
            &[&id],
        )
        .unwrap()
        .get(0);
    assert_eq!(rows, 0, "a killed import left rows behind");
    // And the same import, run whole, is all there.
    let whole = db.toolhost(&["sessions", "import", &file.display().to_string()]);
    assert_eq!(whole.status.code(), Some(0), "{}", text(&whole.stderr));
    let rows: i64 = db
        .client
        .query_one(
            "SELECT count(*) FROM toolhost_events WHERE session_id = $1",
            &[&id],
        )
        .unwrap()
        .get(0);
    assert_eq!(rows, 2000);
}

#[test]
fn an_import_prints_names_neutralized() {
    let db = Database::new("names");
    let dir = std::env::temp_dir().join(unique("names"));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("evil\u{1b}[2Jname.jsonl");
    {
        let log = tool_runtime::session::JsonlLog::open(
            &file,
            tool_runtime::session::OpenMode::Create,
            tool_runtime::session::Durability::Flush,
        )
        .unwrap();
        let session = tool_runtime::Session::open("evil", log).unwrap();
        session.append("note/add", &1).unwrap();
    }
    let output = db.toolhost(&["sessions", "import", &file.display().to_string()]);
    assert_eq!(output.status.code(), Some(0), "{}", text(&output.stderr));
    let stdout = text(&output.stdout);
    assert!(!stdout.contains('\u{1b}'), "{stdout:?}");
    assert!(stdout.contains("1 events"), "{stdout:?}");
    let list = db.toolhost(&["sessions", "list"]);
    assert!(!text(&list.stdout).contains('\u{1b}'));
}

#[test]
fn no_command_prints_the_store_password() {
    let server = server_url();
    let (base, _) = server.rsplit_once('@').unwrap();
    let (scheme, _) = base.split_once("://").unwrap();
    // A server that is not there: every way of giving the password.
    for url in [
        format!("{scheme}://postgres:hunter2@127.0.0.1:1/x"),
        format!("{scheme}://postgres@127.0.0.1:1/x?password=hunter2"),
        // A password with a `?` or `/` of its own; a query key percent-encoded.
        format!("{scheme}://postgres:hun?ter2hunter2@127.0.0.1:1/x"),
        format!("{scheme}://postgres:hunter2/x@127.0.0.1:1/x"),
        format!("{scheme}://postgres@127.0.0.1:1/x?%70assword=hunter2"),
        "host=127.0.0.1 port=1 user=postgres password=hunter2".to_owned(),
        "mysql://root:hunter2@db/x".to_owned(),
    ] {
        let output = run_bounded(
            Command::new(env!("CARGO_BIN_EXE_toolhost"))
                .args(["replay", "some-session"])
                .env("TOOLHOST_STORE", &url),
        );
        let stderr = text(&output.stderr);
        assert_ne!(output.status.code(), Some(0), "{url}: {stderr}");
        assert!(
            !stderr.contains("hunter2") && !stderr.contains("hun?ter"),
            "{url}: {stderr}"
        );
        assert!(!stderr.is_empty(), "{url}");
    }
}

#[test]
fn commands_that_keep_no_session_need_no_store() {
    let dead = "postgres://postgres@127.0.0.1:1/nothing";
    for (args, code) in [
        (&["schema"][..], 0),
        (&["sizes"][..], 0),
        (
            &["call", "todo_write", r#"{"todos": []}"#, "--no-agent"][..],
            1,
        ),
    ] {
        let output = run_bounded(
            Command::new(env!("CARGO_BIN_EXE_toolhost"))
                .args(args)
                .env("TOOLHOST_STORE", dead),
        );
        assert_eq!(
            output.status.code(),
            Some(code),
            "{args:?}: {}",
            text(&output.stderr)
        );
    }
    // A command that keeps one says the store cannot be reached.
    let output = run_bounded(
        Command::new(env!("CARGO_BIN_EXE_toolhost"))
            .args(["call", "todo_write", r#"{"todos": []}"#])
            .env("TOOLHOST_STORE", dead),
    );
    assert_eq!(output.status.code(), Some(3));
}
