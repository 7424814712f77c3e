//! A hostile provider cannot make `toolhost agent` hold much memory: huge headers, an endless
//! stream of events, one endless line. Each run's peak resident memory is measured: the child's
//! high-water mark (`VmHWM` in `/proc/<pid>/status`), read while it runs.

use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// A server on 127.0.0.1 that answers every request with `answer`, until the test ends.
fn serve(answer: fn(&mut TcpStream)) -> String {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let address = listener.local_addr().unwrap();
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(mut stream) = stream else { return };
            std::thread::spawn(move || {
                let mut request = [0u8; 65536];
                let _ = stream.set_read_timeout(Some(Duration::from_millis(500)));
                let _ = stream.read(&mut request);
                answer(&mut stream);
            });
        }
    });
    format!("http://{address}/v1")
}

fn huge_headers(stream: &mut TcpStream) {
    let _ = stream.write_all(b"HTTP/1.1 200 OK\r\ncontent-type: application/json\r\n");
    let junk = vec![b'a'; 1 << 20];
    // 256 MiB of one header, a MiB at a time, unless the client hangs up.
    let _ = stream.write_all(b"x-junk: ");
    for _ in 0..256 {
        if stream.write_all(&junk).is_err() {
            return;
        }
    }
    let _ = stream.write_all(b"\r\n\r\n{}");
}

fn endless_events(stream: &mut TcpStream) {
    let _ = stream.write_all(b"HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\n\r\n");
    // Text deltas of 60 kB each, well formed, forever: only the stream's bound stops them.
    let chunk = format!(
        r#"{{"id":"c","object":"chat.completion.chunk","created":1,"model":"m","choices":[{{"index":0,"delta":{{"content":"{}"}},"finish_reason":null}}]}}"#,
        "x".repeat(60_000)
    );
    let event = format!("data: {chunk}\n\n");
    for _ in 0..20_000 {
        if stream.write_all(event.as_bytes()).is_err() {
            return;
        }
    }
}

fn endless_line(stream: &mut TcpStream) {
    let _ = stream.write_all(b"HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\n\r\ndata: ");
    let piece = vec![b'x'; 1 << 20];
    for _ in 0..1024 {
        if stream.write_all(&piece).is_err() {
            return;
        }
    }
}

#[test]
fn a_hostile_provider_cannot_make_the_agent_hold_much_memory() {
    for (name, answer, stream) in [
        ("huge headers", huge_headers as fn(&mut TcpStream), false),
        ("endless events", endless_events, true),
        ("one endless line", endless_line, true),
    ] {
        let base = serve(answer);
        let dir = std::env::temp_dir().join(format!("agent-memory-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let mut command = Command::new(env!("CARGO_BIN_EXE_toolhost"));
        command
            .args([
                "agent",
                "--provider",
                "openai",
                "--model",
                "m",
                "--base-url",
                &base,
            ])
            .args([
                "--prompt",
                "Hi",
                "--max-retries",
                "0",
                "--request-timeout",
                "60s",
            ])
            .arg("--session-dir")
            .arg(&dir)
            .env("OPENAI_API_KEY", "sk-memory-test")
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped());
        if stream {
            command.arg("--stream");
        }
        let mut child = command.spawn().unwrap();
        let pid = child.id();
        let started = Instant::now();
        let mut peak_kib = 0u64;
        let status = loop {
            // The child's own high-water mark, while it runs.
            if let Ok(status) = std::fs::read_to_string(format!("/proc/{pid}/status"))
                && let Some(line) = status.lines().find(|line| line.starts_with("VmHWM:"))
                && let Some(kib) = line.split_whitespace().nth(1).and_then(|n| n.parse().ok())
            {
                peak_kib = peak_kib.max(kib);
            }
            if let Some(status) = child.try_wait().unwrap() {
                break status;
            }
            assert!(
                started.elapsed() < Duration::from_secs(90),
                "{name}: the agent ran past 90 s"
            );
            std::thread::sleep(Duration::from_millis(10));
        };
        let mut stderr = String::new();
        child
            .stderr
            .take()
            .unwrap()
            .read_to_string(&mut stderr)
            .unwrap();
        assert_eq!(status.code(), Some(1), "{name}: {stderr}");
        assert!(!stderr.contains("panicked"), "{name}: {stderr}");
        // The caps are 64 MiB a body and 16 MiB an event: well under 256 MiB in all.
        assert!(
            peak_kib < 256 * 1024,
            "{name}: a peak of {} MiB",
            peak_kib / 1024
        );
        assert!(peak_kib > 0, "{name}: no memory figure was read");
        eprintln!(
            "{name}: peak {} MiB; {}",
            peak_kib / 1024,
            stderr.lines().last().unwrap_or("")
        );
    }
}
