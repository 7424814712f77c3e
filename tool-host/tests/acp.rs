//! Todo lists as ACP plans: checked against ACP's published JSON schema, and carried from the
//! `agent-client-protocol` crate's agent side to its client side.

use std::path::PathBuf;
use std::time::Duration;

use agent_client_protocol::v1::ConnectionTo;
use agent_client_protocol::v1::schema::{
    NewSessionRequest, NewSessionResponse, PlanEntryPriority, PlanEntryStatus, SessionNotification,
    SessionUpdate,
};
use agent_client_protocol::{Agent, Client, Responder, V1};
use futures::StreamExt as _;
use futures::channel::mpsc;
use serde_json::{Value, json};
use tool_runtime::{Ctx, Exec, Session};
use tool_todo::acp::{PlanBridge, plan_notification};
use tool_todo::{Todo, TodoStatus, TodoWrite};

/// ACP's schema, from the npm package `@agentclientprotocol/sdk` that `.ci/run` installs.
fn acp_schema() -> Value {
    let path = std::env::var_os("ACP_SCHEMA")
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            PathBuf::from(env!("CARGO_MANIFEST_DIR")).join(
                "../target/acp-schema/node_modules/@agentclientprotocol/sdk/schema/v1/schema.json",
            )
        });
    let text = std::fs::read_to_string(&path).unwrap_or_else(|error| {
        panic!(
            "ACP's schema is missing at {} ({error}): npm install --no-save --prefix target/acp-schema @agentclientprotocol/sdk@2.4.0",
            path.display()
        )
    });
    serde_json::from_str(&text).unwrap()
}

/// A validator for the params of `session/update`: the schema's `SessionNotification`
/// definition, not its root, which accepts almost anything.
fn session_notification_validator() -> jsonschema::Validator {
    let schema = acp_schema();
    let defs = schema["$defs"].clone();
    assert!(defs.get("SessionNotification").is_some());
    jsonschema::draft202012::new(&json!({"$ref": "#/$defs/SessionNotification", "$defs": defs}))
        .unwrap()
}

fn sample() -> Vec<Todo> {
    vec![
        Todo::new("Read the spec", TodoStatus::Completed),
        Todo::new(
            "Write the bridge \u{1b}[2J \u{202e}",
            TodoStatus::InProgress,
        ),
        Todo::new("Ship", TodoStatus::Pending),
    ]
}

#[test]
fn plan_notifications_validate_against_acps_schema() {
    let validator = session_notification_validator();
    for todos in [
        sample(),
        vec![],
        vec![Todo::new("only", TodoStatus::Pending)],
    ] {
        let params = serde_json::to_value(plan_notification("session-1", &todos)).unwrap();
        if let Err(error) = validator.validate(&params) {
            panic!("{params} is not a SessionNotification: {error}");
        }
        assert_eq!(params["update"]["sessionUpdate"], "plan");
        let entries = params["update"]["entries"].as_array().unwrap();
        assert_eq!(entries.len(), todos.len());
        for (entry, todo) in entries.iter().zip(&todos) {
            assert_eq!(entry["content"], todo.content.as_str());
            assert_eq!(entry["priority"], "medium");
        }
    }
    // Something that is not one is refused, so the check can fail.
    assert!(!validator.is_valid(&json!({"sessionId": "s", "update": {"sessionUpdate": "plan"}})));
}

#[test]
fn replay_format_acp_prints_a_valid_notification() {
    let dir = std::env::temp_dir().join(format!("acp-replay-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("zed-session.jsonl");
    let path = file.to_str().unwrap();
    let run = |args: &[&str]| {
        std::process::Command::new(env!("CARGO_BIN_EXE_toolhost"))
            .args(args)
            .output()
            .unwrap()
    };
    run(&[
        "call",
        "todo_write",
        r#"{"todos": [{"content": "a", "status": "completed"}, {"content": "b", "status": "in_progress"}]}"#,
        "--session",
        path,
    ]);
    let output = run(&["replay", path, "--format", "acp"]);
    assert!(output.status.success());
    let message: Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(message["jsonrpc"], "2.0");
    assert_eq!(message["method"], "session/update");
    assert!(session_notification_validator().is_valid(&message["params"]));
    assert_eq!(message["params"]["sessionId"], "zed-session");
    assert_eq!(
        message["params"]["update"]["entries"],
        json!([
            {"content": "a", "priority": "medium", "status": "completed"},
            {"content": "b", "priority": "medium", "status": "in_progress"}
        ])
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[tokio::test(flavor = "current_thread")]
async fn the_crates_client_receives_the_plans_its_agent_side_sends() {
    let mut ctx = Ctx::new();
    ctx.plugin::<TodoWrite>().unwrap();
    let ctx = std::sync::Arc::new(ctx);
    let session = Session::in_memory();
    let exec = Exec::for_agent(tool_runtime::Agent::new("a", session.clone()));
    // The list the session already holds when the client loads it.
    let first = r#"{"todos": [{"content": "Read the spec", "status": "completed"}, {"content": "Bridge", "status": "in_progress"}]}"#;
    assert!(!ctx.tools.call("todo_write", &exec, first).wait().is_error);

    let agent = Agent.v1().on_receive_request(
        {
            let session = session.clone();
            let ctx = ctx.clone();
            async move |_request: NewSessionRequest, responder: Responder<NewSessionResponse, V1>, connection: ConnectionTo<Client>| {
                let mut bridge = PlanBridge::new("acp-session", &session);
                responder.respond(NewSessionResponse::new("acp-session"))?;
                // On load: the current plan, once.
                if let Some(current) = bridge.current().map_err(agent_client_protocol::Error::into_internal_error)? {
                    connection.send_notification(current)?;
                }
                // Then a new list from the model, and only its notification.
                let exec = Exec::for_agent(tool_runtime::Agent::new("a", session.clone()));
                let second = r#"{"todos": [{"content": "Read the spec", "status": "completed"}, {"content": "Bridge", "status": "completed"}, {"content": "Ship", "status": "in_progress"}]}"#;
                assert!(!ctx.tools.call("todo_write", &exec, second).wait().is_error);
                for notification in bridge.pending().map_err(agent_client_protocol::Error::into_internal_error)? {
                    connection.send_notification(notification)?;
                }
                Ok(())
            }
        },
        agent_client_protocol::on_receive_request!(),
    );

    let (tx, mut received) = mpsc::unbounded::<SessionNotification>();
    let client = Client
        .v1()
        .on_receive_notification(
            async move |notification: SessionNotification, _connection: ConnectionTo<Agent>| {
                tx.unbounded_send(notification)
                    .map_err(agent_client_protocol::Error::into_internal_error)
            },
            agent_client_protocol::on_receive_notification!(),
        )
        .connect_with(agent, async move |connection| {
            let response = connection
                .send_request(NewSessionRequest::new("/work"))
                .block_task()
                .await?;
            assert_eq!(response.session_id.to_string(), "acp-session");
            let mut plans = Vec::new();
            while plans.len() < 2 {
                let notification = received.next().await.expect("two notifications");
                assert_eq!(notification.session_id.to_string(), "acp-session");
                match notification.update {
                    SessionUpdate::Plan(plan) => plans.push(plan),
                    other => panic!("{other:?}"),
                }
            }
            let summary: Vec<Vec<(String, PlanEntryStatus, PlanEntryPriority)>> = plans
                .iter()
                .map(|plan| {
                    plan.entries
                        .iter()
                        .map(|e| (e.content.clone(), e.status.clone(), e.priority.clone()))
                        .collect()
                })
                .collect();
            assert_eq!(
                summary,
                [
                    vec![
                        (
                            "Read the spec".to_owned(),
                            PlanEntryStatus::Completed,
                            PlanEntryPriority::Medium
                        ),
                        (
                            "Bridge".to_owned(),
                            PlanEntryStatus::InProgress,
                            PlanEntryPriority::Medium
                        ),
                    ],
                    vec![
                        (
                            "Read the spec".to_owned(),
                            PlanEntryStatus::Completed,
                            PlanEntryPriority::Medium
                        ),
                        (
                            "Bridge".to_owned(),
                            PlanEntryStatus::Completed,
                            PlanEntryPriority::Medium
                        ),
                        (
                            "Ship".to_owned(),
                            PlanEntryStatus::InProgress,
                            PlanEntryPriority::Medium
                        ),
                    ],
                ]
            );
            Ok(())
        });
    tokio::time::timeout(Duration::from_secs(20), client)
        .await
        .expect("timed out")
        .expect("connection failed");
}

/// A call waiting for a person's decision, asked of an editor: the request validates against
/// ACP's schema, goes over a real connection to the crate's client side, and each answer maps
/// to a decision.
#[tokio::test(flavor = "current_thread")]
async fn a_pending_call_is_asked_of_the_editor_with_request_permission() {
    use agent_client_protocol::v1::schema::{
        RequestPermissionOutcome, RequestPermissionRequest, RequestPermissionResponse,
        SelectedPermissionOutcome,
    };
    use tool_agent::approval::acp::{decision, permission_request};
    use tool_agent::approval::{Decision, PendingCall};
    use tool_runtime::{Annotations, Definition};

    let definition = Definition::new(
        "delete_file",
        "Deletes a file.",
        json!({"type": "object", "properties": {"path": {"type": "string"}}}),
    )
    .with_annotations(
        Annotations::new()
            .with_title("Delete a file")
            .with_destructive(true),
    );
    let call: PendingCall =
        serde_json::from_value(json!({"index": 0, "id": "toolu_9", "name": "delete_file",
            "args": "{\"path\": \"notes.txt\"}"}))
        .unwrap();
    let request = permission_request("acp-session", &call, Some(&definition));
    let params = serde_json::to_value(&request).unwrap();
    let schema = acp_schema();
    let validator = jsonschema::draft202012::new(
        &json!({"$ref": "#/$defs/RequestPermissionRequest", "$defs": schema["$defs"].clone()}),
    )
    .unwrap();
    if let Err(error) = validator.validate(&params) {
        panic!("{params} is not a RequestPermissionRequest: {error}");
    }
    assert_eq!(params["toolCall"]["title"], "Delete a file");
    assert_eq!(params["toolCall"]["kind"], "delete");
    assert_eq!(params["toolCall"]["rawInput"], json!({"path": "notes.txt"}));

    // The editor (the crate's client side) answers: approve, then deny, then cancel.
    let answers = std::sync::Arc::new(std::sync::Mutex::new(vec![
        RequestPermissionOutcome::Cancelled,
        RequestPermissionOutcome::Selected(SelectedPermissionOutcome::new("deny")),
        RequestPermissionOutcome::Selected(SelectedPermissionOutcome::new("approve")),
    ]));
    let (tx, mut decided) = mpsc::unbounded::<Decision>();
    let agent = Agent.v1().on_receive_request(
        async move |_request: NewSessionRequest,
                    responder: Responder<NewSessionResponse, V1>,
                    connection: ConnectionTo<Client>| {
            responder.respond(NewSessionResponse::new("acp-session"))?;
            let tx = tx.clone();
            let request = request.clone();
            let asker = connection.clone();
            connection.spawn(async move {
                for _ in 0..3 {
                    let response = asker.send_request(request.clone()).block_task().await?;
                    tx.unbounded_send(decision(&response))
                        .map_err(agent_client_protocol::Error::into_internal_error)?;
                }
                Ok(())
            })?;
            Ok(())
        },
        agent_client_protocol::on_receive_request!(),
    );
    let client = Client.v1().on_receive_request(
        {
            let answers = answers.clone();
            async move |request: RequestPermissionRequest,
                        responder: Responder<RequestPermissionResponse, V1>,
                        _connection: ConnectionTo<Agent>| {
                assert_eq!(request.tool_call.tool_call_id.to_string(), "toolu_9");
                let outcome = answers.lock().unwrap().pop().unwrap();
                responder.respond(RequestPermissionResponse::new(outcome))
            }
        },
        agent_client_protocol::on_receive_request!(),
    );
    client
        .connect_with(agent, async move |connection| {
            connection
                .send_request(NewSessionRequest::new("/work"))
                .block_task()
                .await?;
            let mut got = Vec::new();
            while got.len() < 3 {
                got.push(decided.next().await.expect("three decisions"));
            }
            assert_eq!(got[0], Decision::Approve);
            assert!(matches!(&got[1], Decision::Deny { reason } if reason.contains("declined")));
            assert!(matches!(&got[2], Decision::Deny { reason } if reason.contains("cancelled")));
            Ok(())
        })
        .await
        .unwrap();
}
