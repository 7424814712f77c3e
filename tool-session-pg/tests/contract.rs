//! One session contract, run against every store: memory, JSON Lines files and PostgreSQL
//! (`TOOLHOST_TEST_PG`, which `.ci/run` starts; without it these tests fail).

use std::sync::Arc;
use std::time::{Duration, UNIX_EPOCH};

use serde_json::value::RawValue;
use test_support::unique;
use tool_runtime::session::{Durability, JsonlLog, MemoryLog, OpenMode};
use tool_runtime::{Agent, Ctx, Event, Exec, Session, SessionError, ToolCall};
use tool_session_pg::PgStore;
use tool_todo::TodoWrite;

fn pg() -> PgStore {
    let url = test_support::pg_url();
    PgStore::connect(&url).expect("the test PostgreSQL is reachable")
}

/// A store the contract runs against: opens (or reopens) session `id`.
#[derive(Clone, Copy, Debug)]
enum Store {
    Memory,
    Files,
    Postgres,
}

const STORES: [Store; 3] = [Store::Memory, Store::Files, Store::Postgres];

struct Opened {
    session: Session,
    /// Reopens the session for writing, as a new process would (`None`: memory is gone).
    reopen: Option<Box<dyn Fn() -> Result<Session, SessionError>>>,
    /// Opens the session for reading, following its writer.
    follow: Option<Box<dyn Fn() -> Result<Session, SessionError>>>,
}

fn open(store: Store, name: &str) -> Opened {
    match store {
        Store::Memory => Opened {
            session: Session::open(unique(name), MemoryLog::new()).unwrap(),
            reopen: None,
            follow: None,
        },
        Store::Files => {
            let dir = std::env::temp_dir().join(unique("contract"));
            std::fs::create_dir_all(&dir).unwrap();
            let path = dir.join(format!("{name}.jsonl"));
            let open = move |mode| {
                let path = path.clone();
                move || {
                    Session::open(
                        name_of(&path),
                        JsonlLog::open(&path, mode, Durability::Fsync)?,
                    )
                }
            };
            Opened {
                session: open(OpenMode::Write)().unwrap(),
                reopen: Some(Box::new(open(OpenMode::Write))),
                follow: Some(Box::new(open(OpenMode::Read))),
            }
        }
        Store::Postgres => {
            let store = pg();
            let id = unique(name);
            let open = move |mode| {
                let (store, id) = (store.clone(), id.clone());
                move || Session::open(id.clone(), store.open_log(&id, mode, Durability::Fsync)?)
            };
            Opened {
                session: open(OpenMode::Write)().unwrap(),
                reopen: Some(Box::new(open(OpenMode::Write))),
                follow: Some(Box::new(open(OpenMode::Read))),
            }
        }
    }
}

fn name_of(path: &std::path::Path) -> String {
    path.file_stem().unwrap().to_string_lossy().into_owned()
}

fn raw(text: &str) -> Box<RawValue> {
    RawValue::from_string(text.to_owned()).unwrap()
}

#[test]
fn appends_replay_in_order_with_their_data_byte_for_byte() {
    for store in STORES {
        let opened = open(store, "replay");
        let session = &opened.session;
        // Key order and spacing kept: the text is stored, not a re-encoded value.
        let texts = [r#"{"b":1,"a":[2, 3]}"#, r#""Vérifier ✓ \u0000""#, "null"];
        for (index, text) in texts.iter().enumerate() {
            assert_eq!(
                session.append("note/add", &raw(text)).unwrap(),
                index as u64 + 1
            );
        }
        let check = |session: &Session| {
            let events = session.events_from(1).unwrap();
            let got: Vec<(u64, &str)> = events
                .iter()
                .map(|event| (event.seq, event.raw_data().unwrap().get()))
                .collect();
            let want: Vec<(u64, &str)> = texts
                .iter()
                .enumerate()
                .map(|(index, text)| (index as u64 + 1, *text))
                .collect();
            assert_eq!(got, want, "{store:?}");
            assert_eq!(session.events_from(3).unwrap().len(), 1, "{store:?}");
        };
        check(session);
        let Opened {
            session, reopen, ..
        } = opened;
        drop(session);
        if let Some(reopen) = reopen {
            let again = reopen().unwrap();
            check(&again);
            // Seqs continue after a reopen.
            assert_eq!(again.append("note/add", &1).unwrap(), 4, "{store:?}");
        }
    }
}

#[test]
fn the_latest_event_per_kind_survives_a_reopen_and_the_list_at_any_seq() {
    for store in STORES {
        let opened = open(store, "latest");
        let session = &opened.session;
        let mut ctx = Ctx::new();
        ctx.plugin::<TodoWrite>().unwrap();
        let exec = Exec::for_agent(Agent::new("a", session.clone()));
        for list in [
            r#"{"todos": [{"content": "a", "status": "pending"}]}"#,
            r#"{"todos": [{"content": "a", "status": "in_progress"}]}"#,
        ] {
            assert!(!ctx.tools.call("todo_write", &exec, list).wait().is_error);
            session.append("note/add", &"between").unwrap();
        }
        let verify = |session: &Session| {
            assert_eq!(session.next_seq(), 5, "{store:?}");
            assert_eq!(session.latest("note/add").unwrap().seq, 4);
            let status = |seq| {
                tool_todo::at(session, seq)
                    .unwrap()
                    .map(|todos| todos[0].status)
            };
            assert_eq!(status(0), None, "{store:?}");
            assert_eq!(status(1), Some(tool_todo::TodoStatus::Pending), "{store:?}");
            assert_eq!(status(2), Some(tool_todo::TodoStatus::Pending), "{store:?}");
            assert_eq!(
                status(3),
                Some(tool_todo::TodoStatus::InProgress),
                "{store:?}"
            );
            assert_eq!(
                status(99),
                Some(tool_todo::TodoStatus::InProgress),
                "{store:?}"
            );
        };
        verify(session);
        drop(exec);
        if let Some(reopen) = opened.reopen {
            drop(opened.session);
            verify(&reopen().unwrap());
        }
    }
}

#[test]
fn subscriptions_and_batches_keep_seq_order() {
    for store in STORES {
        let opened = open(store, "batch");
        let session = &opened.session;
        let mut live = session.subscribe();
        let mut ctx = Ctx::new();
        ctx.plugin::<TodoWrite>().unwrap();
        let calls: Vec<ToolCall> = (0..6)
            .map(|index| {
                ToolCall::new(
                    "todo_write",
                    format!(r#"{{"todos": [{{"content": "call {index}", "status": "pending"}}]}}"#),
                )
            })
            .collect();
        let outputs = ctx
            .tools
            .call_batch(&Exec::for_agent(Agent::new("a", session.clone())), &calls);
        assert!(outputs.iter().all(|output| !output.is_error));
        let mut seen = Vec::new();
        while let Some(event) = live.try_next().unwrap() {
            let todos = tool_todo::todos_of(&event).unwrap().unwrap();
            seen.push((event.seq, todos[0].content.clone()));
        }
        let want: Vec<(u64, String)> = (0..6).map(|i| (i + 1, format!("call {i}"))).collect();
        assert_eq!(seen, want, "{store:?}: events in call order");
    }
}

#[test]
fn a_second_writer_is_refused_and_a_follower_sees_every_append_once() {
    for store in [Store::Files, Store::Postgres] {
        let opened = open(store, "lease");
        let reopen = opened.reopen.as_ref().unwrap();
        let refused = reopen().expect_err("a second writer is refused");
        assert!(
            refused
                .to_string()
                .contains("is open for writing in another process"),
            "{store:?}: {refused}"
        );
        let follower = (opened.follow.as_ref().unwrap())().unwrap();
        let mut live = follower.subscribe_from(1);
        for index in 0..50 {
            opened.session.append("note/add", &index).unwrap();
        }
        let mut seen = Vec::new();
        let deadline = std::time::Instant::now() + Duration::from_secs(20);
        while seen.len() < 50 && std::time::Instant::now() < deadline {
            follower.refresh().unwrap();
            while let Some(event) = live.try_next().unwrap() {
                seen.push(event.seq);
            }
        }
        assert_eq!(seen, (1..=50).collect::<Vec<_>>(), "{store:?}");
        assert!(
            follower.append("note/add", &0).is_err(),
            "a follower writes nothing"
        );
        // The writer gone, the lease is free.
        drop(opened.session);
        drop(live);
        let taken = reopen().unwrap();
        assert_eq!(taken.next_seq(), 51, "{store:?}");
    }
}

#[test]
fn a_postgres_follower_is_told_of_appends_through_the_database() {
    let store = pg();
    let id = unique("notified");
    let writer = Session::open(
        id.clone(),
        store
            .open_log(&id, OpenMode::Write, Durability::Fsync)
            .unwrap(),
    )
    .unwrap();
    let hub = tool_runtime::SessionHub::new();
    let follower = store
        .open(&hub, &id, OpenMode::Read, Durability::Fsync)
        .unwrap();
    let mut everything = hub.subscribe();
    let _following = store.follow(vec![follower.clone()]).unwrap();
    for index in 0..100 {
        writer.append("note/add", &index).unwrap();
    }
    let mut seen = Vec::new();
    let deadline = std::time::Instant::now() + Duration::from_secs(20);
    while seen.len() < 100 && std::time::Instant::now() < deadline {
        match everything.try_next().unwrap() {
            Some(event) => seen.push((event.session.to_string(), event.event.seq)),
            None => std::thread::sleep(Duration::from_millis(10)),
        }
    }
    let want: Vec<(String, u64)> = (1..=100).map(|seq| (id.clone(), seq)).collect();
    assert_eq!(seen, want);
}

#[test]
fn postgres_keeps_an_events_time_to_the_nanosecond_and_refuses_a_stale_seq() {
    let store = pg();
    let id = unique("fence");
    let mut log = store
        .open_log(&id, OpenMode::Write, Durability::Flush)
        .unwrap();
    let time = UNIX_EPOCH + Duration::new(1_764_720_000, 123_456_789);
    let event = Arc::new(Event::new(1, "note/add", raw("1"), time));
    use tool_runtime::session::Log;
    log.append(&event).unwrap().wait().unwrap();
    let recovered = log.recover().unwrap();
    assert_eq!(recovered.next_seq, 2);
    assert_eq!(recovered.latest[0].time, time);
    // The fence: the same seq again (a writer that lost its lease) is refused.
    let error = log.append(&event).err().unwrap();
    assert!(matches!(error, SessionError::Leased { .. }), "{error}");
}

#[test]
fn a_postgres_row_that_is_not_an_event_is_an_error_naming_it_never_skipped() {
    let url = std::env::var("TOOLHOST_TEST_PG").unwrap();
    let store = pg();
    let id = unique("damaged");
    let writer = Session::open(
        id.clone(),
        store
            .open_log(&id, OpenMode::Write, Durability::Fsync)
            .unwrap(),
    )
    .unwrap();
    writer.append("note/add", &1).unwrap();
    drop(writer);
    // A row written by hand, around the store: its data is not JSON.
    let mut client = postgres::Client::connect(&url, postgres::NoTls).unwrap();
    client
        .execute(
            "INSERT INTO toolhost_events (session_id, seq, kind, data, time_ns) \
             VALUES ($1, 2, 'note/add', '{\"torn\": ', 0)",
            &[&id],
        )
        .unwrap();
    let error = store
        .open_log(&id, OpenMode::Read, Durability::Fsync)
        .and_then(|log| Session::open(id.clone(), log))
        .expect_err("a damaged session does not open");
    assert_eq!(
        error.to_string(),
        format!(
            "session store: session {id} event 2: the data is not JSON: EOF while parsing a value at line 1 column 9"
        )
    );
}

#[test]
fn a_lease_let_go_lets_another_writer_in_and_the_first_learns_it_is_stale() {
    let (first_store, second_store) = (pg(), pg());
    let id = unique("lease-let-go");
    let log = first_store
        .open_log(&id, OpenMode::Write, Durability::Fsync)
        .unwrap();
    let lease = log.lease().expect("a writer has a lease");
    let first = Session::open(id.clone(), log).unwrap();
    first.append("note/add", &1).unwrap();

    // Let go: this log refuses to append, and another writer may open the session.
    lease.release().unwrap();
    let refused = first.append("note/add", &2).unwrap_err();
    assert!(matches!(refused, SessionError::Leased { .. }), "{refused}");
    // Nobody wrote it: taken again, the first goes on.
    assert!(lease.retake(1).unwrap());
    lease.release().unwrap();
    {
        let second = Session::open(
            id.clone(),
            second_store
                .open_log(&id, OpenMode::Write, Durability::Fsync)
                .unwrap(),
        )
        .unwrap();
        // While the second holds it, the first cannot take it again.
        assert!(matches!(lease.retake(1), Err(SessionError::Leased { .. })));
        second.append("note/add", &3).unwrap();
    }
    // Written elsewhere meanwhile: taken again, the first is told its view is stale.
    assert!(!lease.retake(1).unwrap());
    drop(first);
    // Dropped, it let the lease go: the session opens again, whole.
    let reopened = Session::open(
        id.clone(),
        second_store
            .open_log(&id, OpenMode::Write, Durability::Fsync)
            .unwrap(),
    )
    .unwrap();
    assert_eq!(reopened.next_seq(), 3);
    // Taken again while held, it is not taken twice: let go once, it is free.
    let other = unique("lease-once");
    let log = first_store
        .open_log(&other, OpenMode::Write, Durability::Fsync)
        .unwrap();
    let lease = log.lease().unwrap();
    assert!(lease.retake(0).unwrap());
    lease.release().unwrap();
    second_store
        .open_log(&other, OpenMode::Write, Durability::Fsync)
        .expect("the lease was let go");
    drop(log);
}
