//! `sessions`: a database store's sessions listed, imported from JSON Lines, exported to it.

use std::io::{self, Write};
use std::ops::ControlFlow;
use std::path::Path;
use std::process::ExitCode;

use tool_runtime::session::{Durability, JSONL_HEADER, JsonlLog, Log, OpenMode};
use tool_runtime::text::neutralize;
use tool_session_pg::PgStore;

use crate::HostError;
use crate::cli::SessionsAction;
use crate::store::Store;

pub(super) fn sessions(
    name: &str,
    store: &Store,
    action: SessionsAction,
) -> Result<ExitCode, HostError> {
    let Store::Postgres(pg) = store else {
        return Err(HostError::Input(
            "`sessions` works on a database store: give --store postgres://… (or TOOLHOST_STORE)"
                .into(),
        ));
    };
    let mut stdout = io::stdout().lock();
    match action {
        SessionsAction::List { owner, issuer } => {
            // The owner each session recorded, when one is asked for.
            let owners = match &owner {
                Some(_) => Some(pg.latest_of_kind(crate::OWNER_EVENT)?),
                None => None,
            };
            let owned = |id: &str| {
                let (Some(owners), Some(subject)) = (&owners, &owner) else {
                    return true;
                };
                owners
                    .get(id)
                    .and_then(|data| serde_json::from_str::<crate::Owner>(data).ok())
                    .is_some_and(|recorded| recorded.is(subject, issuer.as_deref()))
            };
            for session in pg.sessions()?.into_iter().filter(|s| owned(&s.id)) {
                writeln!(
                    stdout,
                    "{}\t{} events\t{}",
                    neutralize(&session.id),
                    session.events,
                    humantime_rfc3339(session.last)
                )?;
            }
        }
        SessionsAction::Import { files } => {
            for file in files {
                let (id, events) = import(name, pg, &file)?;
                writeln!(
                    stdout,
                    "{}: {events} events → {}",
                    neutralize(&file.display().to_string()),
                    neutralize(&id)
                )?;
            }
        }
        SessionsAction::Export { id } => {
            let log = pg.open_log(&id, OpenMode::Read, Durability::default())?;
            if log.recover()?.next_seq == 1 {
                return Err(crate::store::missing(pg, &id).into());
            }
            stdout.write_all(JSONL_HEADER.as_bytes())?;
            let mut result = Ok(());
            log.for_each_from(1, &mut |event| {
                result = serde_json::to_writer(&mut stdout, &event)
                    .map_err(io::Error::from)
                    .and_then(|()| stdout.write_all(b"\n"));
                if result.is_ok() {
                    ControlFlow::Continue(())
                } else {
                    ControlFlow::Break(())
                }
            })?;
            result?;
        }
    }
    stdout.flush()?;
    Ok(ExitCode::SUCCESS)
}

/// Copies the log at `file` into the session its file is named for, in one transaction;
/// returns the id and the number of events.
fn import(name: &str, pg: &PgStore, file: &Path) -> Result<(String, u64), HostError> {
    let source = JsonlLog::open(file, OpenMode::Read, Durability::default())?;
    if let Some(torn) = source.torn_tail() {
        crate::note!("{name}: warning: {torn}");
    }
    let id = file
        .file_stem()
        .map(|stem| stem.to_string_lossy().into_owned())
        .ok_or_else(|| {
            HostError::Input(format!(
                "{} names no file",
                neutralize(&file.display().to_string())
            ))
        })?;
    let count = pg.import(&id, &source)?;
    Ok((id, count))
}

fn humantime_rfc3339(time: std::time::SystemTime) -> String {
    humantime::format_rfc3339_micros(time).to_string()
}
