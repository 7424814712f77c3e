//! The host's commands, one module each, and what they share: opening sessions.

#[cfg(feature = "agent")]
mod agent;
mod call;
mod named;
mod open;
mod replay;
mod schema;
#[cfg(feature = "postgres")]
mod sessions;

use std::process::ExitCode;
use std::sync::Arc;

use tool_runtime::{Agent, Ctx};

use crate::HostError;
use crate::cli::Command;
use crate::store::Store;
pub(crate) use named::Named;
use open::open_or_create;

/// Runs one command with the loaded plugins.
pub(crate) fn run(
    host: Named,
    ctx: &Arc<Ctx>,
    store: &Store,
    command: Command,
) -> Result<ExitCode, HostError> {
    let name = host.name;
    match command {
        Command::Schema { tool, dialect } => schema::schema(name, ctx, tool.as_deref(), dialect),
        Command::Sizes => schema::sizes(ctx),
        Command::Call {
            tool,
            args,
            no_agent,
            session,
        } => call::call(name, ctx, store, &tool, args, no_agent, session.as_deref()),
        Command::Replay {
            file,
            format,
            events,
            follow,
            at,
            owner,
            issuer,
            usage,
        } => {
            let view = match (events, at, usage) {
                (_, _, true) => replay::View::Usage,
                (true, _, _) => replay::View::Events { follow },
                (false, at, false) => replay::View::List { format, at },
            };
            let owner = owner.map(|subject| replay::AsOwner { subject, issuer });
            replay::replay(name, store, &ctx.sessions, &file, view, owner.as_ref())
        }
        #[cfg(feature = "postgres")]
        Command::Sessions { action } => sessions::sessions(name, store, action),
        Command::Repl {
            session_dir,
            session,
        } => {
            let created = session.is_none();
            let (session, path) =
                open_or_create(name, store, &ctx.sessions, session_dir, session, "repl")?;
            let agent = Agent::new(session.id().to_owned(), session);
            let history = open::default_session_dir(name)
                .parent()
                .map(|state| state.join("repl-history"));
            crate::repl::run(name, ctx, &agent, &path, history.as_deref())?;
            open::discard_if_unused(store, created, agent.session(), &path, 0)?;
            Ok(ExitCode::SUCCESS)
        }
        #[cfg(feature = "agent")]
        Command::Agent(args) => agent::agent(host, ctx, store, args),
        #[cfg(feature = "agent")]
        Command::Approve {
            session,
            calls,
            all,
            deny,
            args,
        } => {
            // A session to decide in is one that exists: none is made here.
            if matches!(store, Store::Files) && !session.exists() {
                return Err(HostError::Input(format!(
                    "no session at {}",
                    tool_runtime::text::neutralize(&session.display().to_string())
                )));
            }
            let session = open::open_session(
                name,
                store,
                &ctx.sessions,
                &session,
                tool_runtime::session::OpenMode::Write,
            )?;
            agent::approve(name, &session, &calls, all, deny, args)
        }
        #[cfg(feature = "http")]
        Command::Mcp {
            http:
                crate::cli::HttpArgs {
                    http: Some(addr),
                    http_path,
                    allow_origin,
                    allow_host,
                    auth_issuer,
                    auth_jwks,
                    auth_audience,
                    auth_tokens,
                    auth_tokens_readable_by_others,
                    auth_resource,
                    auth_scope,
                    state_secret,
                    shutdown_grace,
                },
            session_dir,
            ..
        } => {
            let auth = crate::mcp::auth::AuthOptions {
                issuer: auth_issuer,
                audience: auth_audience,
                jwks: auth_jwks,
                tokens: auth_tokens,
                tokens_readable_by_others: auth_tokens_readable_by_others,
                resource: auth_resource,
                scopes: auth_scope,
            };
            let mut options = crate::mcp::http::HttpOptions::default()
                .path(&http_path)
                .grace(shutdown_grace)
                .auth(auth);
            for origin in &allow_origin {
                options = options.allow_origin(origin);
            }
            for host in &allow_host {
                options = options.allow_host(host);
            }
            let secret = state_secret
                .map(|path| {
                    std::fs::read(&path).map_err(|error| {
                        HostError::Input(format!(
                            "cannot read the state secret {}: {error}",
                            path.display()
                        ))
                    })
                })
                .transpose()?;
            serve_http(host, ctx, store, session_dir, addr, options, secret)
        }
        #[cfg(feature = "mcp")]
        Command::Mcp {
            session_dir,
            session,
            ..
        } => {
            let created = session.is_none();
            let (session, path) =
                open_or_create(name, store, &ctx.sessions, session_dir, session, "mcp")?;
            crate::note!("{name} mcp: session {}", path.display());
            let agent = Agent::new(session.id().to_owned(), session);
            let server = crate::mcp::McpServer::new(Arc::clone(ctx), agent.clone())?
                .with_name(name)
                .with_version(host.version);
            let runtime = tokio::runtime::Builder::new_multi_thread()
                .worker_threads(2)
                .enable_all()
                .build()?;
            let served = runtime.block_on(server.serve_stdio());
            // A blocking call cut at its deadline may still hold a thread: it gets a moment to
            // finish (its session appends are whole or torn at the tail, which the log
            // tolerates), and the process exits rather than wait on it forever.
            runtime.shutdown_timeout(ABANDONED_CALLS_GRACE);
            // A client that closed before `initialize` leaves no header-only session file.
            if matches!(served, Err(crate::mcp::McpError::NotStarted(_))) {
                open::discard_if_unused(store, created, agent.session(), &path, 0)?;
            }
            served?;
            Ok(ExitCode::SUCCESS)
        }
    }
}

/// `mcp --http`: serves the endpoint until SIGTERM or Ctrl-C.
#[cfg(feature = "http")]
fn serve_http(
    host: Named,
    ctx: &Arc<Ctx>,
    store: &Store,
    session_dir: Option<std::path::PathBuf>,
    addr: std::net::SocketAddr,
    options: crate::mcp::http::HttpOptions,
    state_secret: Option<Vec<u8>>,
) -> Result<ExitCode, HostError> {
    use crate::mcp::http::HttpSessions;
    let name = host.name;
    let hub = ctx.sessions.clone();
    let (sessions, shown) = match store {
        Store::Files => {
            let dir = tool_runtime::session::SessionDir::new(
                session_dir.unwrap_or_else(|| open::default_session_dir(name)),
            )?;
            let shown = dir.path().display().to_string();
            (HttpSessions::files(hub, dir), shown)
        }
        #[cfg(feature = "postgres")]
        Store::Postgres(pg) => (
            HttpSessions::postgres(hub, pg.as_ref().clone()),
            pg.url().to_owned(),
        ),
    };
    let mut server = crate::mcp::McpServer::for_http(Arc::clone(ctx), sessions)?
        .with_name(name)
        .with_version(host.version);
    if let Some(secret) = state_secret {
        // A secret written by `echo` or an editor ends its line: the line is the secret.
        let secret = secret.strip_suffix(b"\n").unwrap_or(&secret);
        server = server
            .with_state_secret(secret)
            .map_err(|error| HostError::Input(format!("the state secret: {error}")))?;
    }
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()?;
    options.may_serve(addr)?;
    let served = runtime.block_on(async {
        let listener = tokio::net::TcpListener::bind(addr)
            .await
            .map_err(|error| HostError::Input(format!("cannot listen on {addr}: {error}")))?;
        let local = listener.local_addr()?;
        crate::note!(
            "{name} mcp: serving http://{local}{} (sessions: {shown})",
            options.endpoint()
        );
        server
            .serve_http(listener, options, stop_signal())
            .await
            .map_err(HostError::from)
    });
    runtime.shutdown_timeout(ABANDONED_CALLS_GRACE);
    served?;
    Ok(ExitCode::SUCCESS)
}

/// SIGTERM or Ctrl-C (SIGINT).
#[cfg(feature = "http")]
async fn stop_signal() {
    let terminate = async {
        match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(mut signal) => {
                signal.recv().await;
            }
            Err(_) => std::future::pending().await,
        }
    };
    tokio::select! {
        _ = tokio::signal::ctrl_c() => {}
        () = terminate => {}
    }
}

#[cfg(feature = "mcp")]
/// How long `mcp` waits at exit for blocking calls that were answered for (cut at their
/// deadline, or cancelled) and still run.
const ABANDONED_CALLS_GRACE: std::time::Duration = std::time::Duration::from_secs(5);
