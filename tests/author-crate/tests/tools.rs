//! The author's data, timer, blocking and cancellable tools, called from a synchronous host
//! (`wait`) and from an async one (`.await` on tokio).

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use author_crate::{Nap, Outlook, Survey, Tally, WeatherTool};
use serde_json::json;
use tool_runtime::{Cancel, Ctx, Exec, Tool};

fn ctx() -> Ctx {
    let mut ctx = Ctx::new();
    ctx.plugin::<WeatherTool>()
        .unwrap()
        .plugin::<Outlook>()
        .unwrap()
        .plugin::<Nap>()
        .unwrap()
        .plugin::<Tally>()
        .unwrap()
        .plugin::<Survey>()
        .unwrap();
    ctx
}

#[test]
fn data_comes_back_as_its_json_text_and_its_value_from_a_synchronous_host() {
    let ctx = ctx();
    let out = ctx
        .tools
        .call("weather", &Exec::new(), r#"{"city": "Oslo"}"#)
        .wait();
    assert_eq!(out.text, r#"{"city":"Oslo","temp_c":21.5,"sky":"clear"}"#);
    assert_eq!(
        out.data(),
        Some(json!({"city": "Oslo", "temp_c": 21.5, "sky": "clear"}))
    );
    let definition = WeatherTool.definition();
    assert_eq!(definition.annotations().title(), Some("Weather"));
    assert_eq!(
        definition.output_schema().unwrap()["properties"]["sky"]["enum"],
        json!(["clear", "cloudy"])
    );
    let out = ctx
        .tools
        .call("weather", &Exec::new(), r#"{"city": ""}"#)
        .wait();
    assert_eq!(
        (out.text.as_str(), out.is_error),
        ("Error: name a city", true)
    );
    let out = ctx
        .tools
        .call("outlook", &Exec::new(), r#"{"days": 2}"#)
        .wait();
    assert_eq!(out.text, "[20.0,20.5]");
}

#[test]
fn a_synchronous_host_waits_for_a_timer_and_cancels_a_survey() {
    let ctx = ctx();
    let out = ctx.tools.call("nap", &Exec::new(), r#"{"ms": 5}"#).wait();
    assert_eq!(out.text, "slept 5 ms");

    let heard = Arc::new(Mutex::new(Vec::new()));
    let sink = Arc::clone(&heard);
    let cancel = Cancel::new();
    let exec = Exec::new()
        .with_cancel(cancel.clone())
        .with_progress(move |update| sink.lock().unwrap().push(update.done));
    let call = ctx
        .tools
        .call("survey", &exec, r#"{"sites": 1000, "ms": 10}"#);
    let watcher = {
        let heard = Arc::clone(&heard);
        std::thread::spawn(move || {
            // Cancelled once it has reported some progress.
            while heard.lock().unwrap().len() < 3 {
                std::thread::sleep(Duration::from_millis(5));
            }
            cancel.cancel();
        })
    };
    assert_eq!(call.wait().text, "Error: survey was cancelled");
    watcher.join().unwrap();
    let heard = heard.lock().unwrap();
    assert!(heard.len() >= 3 && heard.len() < 1000, "{}", heard.len());
    assert!(heard.windows(2).all(|pair| pair[0] < pair[1]), "{heard:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_async_host_runs_ten_blocking_calls_side_by_side() {
    let ctx = Arc::new(ctx());
    let started = Instant::now();
    let calls: Vec<_> = (0..10)
        .map(|_| {
            let ctx = Arc::clone(&ctx);
            tokio::spawn(async move {
                ctx.tools
                    .call("tally", &Exec::new(), r#"{"ms": 100}"#)
                    .await
                    .text
            })
        })
        .collect();
    for call in calls {
        assert_eq!(call.await.unwrap(), "blocked 100 ms");
    }
    // Ten 100 ms blocking calls on two workers: side by side on the blocking threads, not
    // one after another (which would take a second).
    assert!(
        started.elapsed() < Duration::from_millis(900),
        "{:?}",
        started.elapsed()
    );
    let out = ctx.tools.call("nap", &Exec::new(), r#"{"ms": 5}"#).await;
    assert_eq!(out.text, "slept 5 ms");
}
