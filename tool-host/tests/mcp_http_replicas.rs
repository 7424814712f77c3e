//! Two `toolhost mcp --http` replicas on one PostgreSQL behind a real load balancer (nginx from
//! Debian's packages, round robin, no stickiness): an `initialize`-era session whose requests
//! alternate between the replicas keeps one contiguous log; SIGKILL of a replica mid-session
//! loses no acknowledged call, the next requests land on the other and go on; a third process
//! replays the list. The official Python client with its defaults (no session header) goes
//! through the balancer too: each session the replicas begin for it holds its own list.

mod http;
mod python;

use std::collections::BTreeSet;
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use http::{HttpServer, tool_result};
use serde_json::Value;
use test_support::pg_url;

/// nginx in front of `upstreams`, round robin, on a free loopback port; killed when dropped.
struct Balancer {
    child: Child,
    addr: std::net::SocketAddr,
    dir: PathBuf,
}

impl Balancer {
    fn start(upstreams: &[std::net::SocketAddr]) -> Balancer {
        let nginx = ["/usr/sbin/nginx", "/usr/bin/nginx"]
            .into_iter()
            .find(|path| Path::new(path).exists())
            .expect("nginx is missing: `.ci/run` installs Debian's nginx-light");
        static STARTED: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
        let dir = std::env::temp_dir().join(format!(
            "toolhost-nginx-{}-{}",
            std::process::id(),
            STARTED.fetch_add(1, Ordering::SeqCst)
        ));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let port = TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        let servers: String = upstreams
            .iter()
            .map(|addr| format!("        server {addr} max_fails=1 fail_timeout=30s;\n"))
            .collect();
        let root = Command::new("id").arg("-u").output().unwrap().stdout == b"0\n";
        let config = format!(
            "{user}worker_processes 1;\n\
             daemon off;\n\
             pid {dir}/nginx.pid;\n\
             error_log {dir}/error.log;\n\
             events {{ worker_connections 256; }}\n\
             http {{\n\
                 log_format upstream '$upstream_addr $status';\n\
                 access_log {dir}/access.log upstream;\n\
                 client_body_temp_path {dir}/body;\n\
                 proxy_temp_path {dir}/proxy;\n\
                 fastcgi_temp_path {dir}/fastcgi;\n\
                 uwsgi_temp_path {dir}/uwsgi;\n\
                 scgi_temp_path {dir}/scgi;\n\
                 upstream replicas {{\n{servers}    }}\n\
                 server {{\n\
                     listen 127.0.0.1:{port};\n\
                     location / {{\n\
                         proxy_pass http://replicas;\n\
                         proxy_http_version 1.1;\n\
                         proxy_set_header Host $http_host;\n\
                         proxy_set_header Connection \"\";\n\
                         proxy_buffering off;\n\
                         proxy_next_upstream error timeout;\n\
                     }}\n\
                 }}\n\
             }}\n",
            user = if root { "user root;\n" } else { "" },
            dir = dir.display(),
        );
        std::fs::write(dir.join("nginx.conf"), &config).unwrap();
        let child = Command::new(nginx)
            .arg("-p")
            .arg(&dir)
            .arg("-c")
            .arg(dir.join("nginx.conf"))
            .arg("-e")
            .arg(dir.join("error.log"))
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let addr = std::net::SocketAddr::from(([127, 0, 0, 1], port));
        let started = Instant::now();
        while std::net::TcpStream::connect(addr).is_err() {
            assert!(
                started.elapsed() < Duration::from_secs(20),
                "nginx did not start: {}",
                std::fs::read_to_string(dir.join("error.log")).unwrap_or_default()
            );
            std::thread::sleep(Duration::from_millis(20));
        }
        Balancer { child, addr, dir }
    }

    /// The upstream of each request nginx passed on, and its status.
    fn served(&self) -> Vec<(String, u16)> {
        std::fs::read_to_string(self.dir.join("access.log"))
            .unwrap_or_default()
            .lines()
            .filter_map(|line| {
                let (upstreams, status) = line.rsplit_once(' ')?;
                // A request retried on the other replica names both: the one that answered is
                // the last.
                let last = upstreams.rsplit(", ").next()?.to_owned();
                Some((last, status.parse().ok()?))
            })
            .collect()
    }
}

impl Drop for Balancer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

fn list(steps: u64) -> String {
    let todos: Vec<String> = (0..=steps)
        .map(|step| format!(r#"{{"content":"step {step}","status":"pending"}}"#))
        .collect();
    format!(r#"{{"todos":[{}]}}"#, todos.join(","))
}

fn replica(url: &str) -> HttpServer {
    HttpServer::start(&["--store", url])
}

#[test]
fn a_session_moves_between_replicas_and_survives_one_killed() {
    let url = pg_url();
    let first = replica(&url);
    let second = replica(&url);
    let balancer = Balancer::start(&[first.addr, second.addr]);
    let front = balancer.addr;

    let session = http::initialize(front);
    // Calls alternate between the replicas; each lands, in order, in the one log.
    for step in 0..10 {
        let reply = http::session_call(front, &session, step, &list(step));
        assert_eq!(reply.status, 200, "{reply:?}");
        let expected = format!(
            "Updated todo list: {} pending, 0 in progress, 0 completed",
            step + 1
        );
        assert_eq!(tool_result(&reply.message()), (expected, false));
    }
    let served: BTreeSet<String> = balancer
        .served()
        .into_iter()
        .map(|(upstream, _)| upstream)
        .collect();
    assert_eq!(
        served,
        BTreeSet::from([first.addr.to_string(), second.addr.to_string()]),
        "both replicas served the session"
    );

    // Calls keep coming while the first replica is killed: every one acknowledged is kept.
    let acknowledged = Arc::new(std::sync::Mutex::new(Vec::new()));
    let stop = Arc::new(AtomicBool::new(false));
    let caller = {
        let acknowledged = Arc::clone(&acknowledged);
        let stop = Arc::clone(&stop);
        let session = session.clone();
        std::thread::spawn(move || {
            let mut step = 10;
            while !stop.load(Ordering::SeqCst) {
                let reply = http::session_call(front, &session, step, &list(step));
                // Acknowledged: answered whole, without error. A replica killed mid-answer
                // leaves a 200 whose response never came.
                let answered = reply.try_message();
                if reply.status == 200
                    && answered
                        .is_some_and(|message| message["result"]["isError"] == Value::Bool(false))
                {
                    acknowledged.lock().unwrap().push(step);
                }
                step += 1;
            }
            step
        })
    };
    std::thread::sleep(Duration::from_millis(400));
    let mut first = first;
    http::signal(&first.child, "KILL");
    first.child.wait().unwrap();
    std::thread::sleep(Duration::from_millis(400));
    stop.store(true, Ordering::SeqCst);
    let next = caller.join().unwrap();

    // The survivor goes on with the session, the session's MCP state restored from the store.
    for step in next..next + 5 {
        let reply = http::session_call(front, &session, step, &list(step));
        assert_eq!(reply.status, 200, "{reply:?}");
        assert!(!tool_result(&reply.message()).1, "{reply:?}");
        acknowledged.lock().unwrap().push(step);
    }
    let acknowledged = acknowledged.lock().unwrap().clone();
    assert!(
        acknowledged.len() > 5,
        "calls went on while a replica was killed"
    );

    // A third process: the list, and the log whole and in order.
    let replay = Command::new(env!("CARGO_BIN_EXE_toolhost"))
        .args(["replay", &session, "--format", "json"])
        .env("TOOLHOST_STORE", &url)
        .output()
        .unwrap();
    assert!(replay.status.success(), "{replay:?}");
    let shown: Value = serde_json::from_slice(&replay.stdout).unwrap();
    let last = *acknowledged.last().unwrap();
    assert_eq!(shown.as_array().unwrap().len() as u64, last + 1, "{shown}");
    let events = Command::new(env!("CARGO_BIN_EXE_toolhost"))
        .args(["replay", &session, "--events"])
        .env("TOOLHOST_STORE", &url)
        .output()
        .unwrap();
    assert!(events.status.success(), "{events:?}");
    let events: Vec<Value> = String::from_utf8(events.stdout)
        .unwrap()
        .lines()
        .map(|line| serde_json::from_str(line).unwrap())
        .collect();
    let seqs: Vec<u64> = events.iter().map(|e| e["seq"].as_u64().unwrap()).collect();
    assert_eq!(seqs, (1..=seqs.len() as u64).collect::<Vec<_>>());
    assert_eq!(events[0]["kind"], "mcp/session");
    let written: Vec<u64> = events
        .iter()
        .filter(|event| event["kind"] == "todo/write")
        .map(|event| event["data"]["todos"].as_array().unwrap().len() as u64 - 1)
        .collect();
    // In the order sent, each acknowledged one among them (a call cut by the kill may or may
    // not have been written, never acknowledged without being written).
    assert!(
        written.windows(2).all(|pair| pair[0] < pair[1]),
        "{written:?}"
    );
    for step in (0..10).chain(acknowledged.iter().copied()) {
        assert!(
            written.contains(&step),
            "acknowledged step {step} is missing"
        );
    }
    let (status, stderr) = second.stop();
    assert!(status.success(), "{stderr}");
    assert!(!stderr.contains("panicked"), "{stderr}");
}

#[test]
fn the_python_sdk_default_client_through_the_balancer_keeps_each_list_apart() {
    let url = pg_url();
    let first = replica(&url);
    let second = replica(&url);
    let balancer = Balancer::start(&[first.addr, second.addr]);
    let expected = python::sessionless(&format!("http://{}/mcp", balancer.addr));
    assert_eq!(expected.len(), 3 + 16, "{expected:?}");
    let served: BTreeSet<String> = balancer
        .served()
        .into_iter()
        .map(|(upstream, _)| upstream)
        .collect();
    assert_eq!(
        served,
        BTreeSet::from([first.addr.to_string(), second.addr.to_string()]),
        "both replicas served the client"
    );
    // Each handle names a session of the store holding its caller's list and no other; the
    // one whose list was refused recorded nothing, and PostgreSQL keeps a session from its
    // first event.
    for (handle, list) in &expected {
        let replayed = python::replayed(handle, Some(&url));
        if list.is_null() {
            let error = replayed.unwrap_err();
            assert!(error.contains(&format!("no session {handle}")), "{error}");
        } else {
            assert_eq!(replayed, Ok(list.clone()), "{handle}");
        }
    }
    for replica in [first, second] {
        let (status, stderr) = replica.stop();
        assert!(status.success(), "{stderr}");
        assert!(!stderr.contains("panicked"), "{stderr}");
    }
}
