//! What tools log ([`tool_runtime::Logger`]) as MCP's `notifications/message`, from the level
//! the client asked for with `logging/setLevel` up (every level until it asks).
//!
//! rmcp marks MCP's logging deprecated: SEP-2577 drops it after the `initialize` era, which
//! still has it and which this server serves.
#![allow(deprecated)]

use std::sync::Arc;
use std::sync::atomic::{AtomicU8, Ordering};

use rmcp::model::{
    LoggingLevel, LoggingMessageNotificationParam, ServerCapabilities, SetLevelRequestParams,
};
use rmcp::service::{Peer, RoleServer};
use tool_runtime::{Exec, LogLevel, LogMessage};

use crate::forward::Forwarder;

/// Says in the capabilities that the server logs.
pub(crate) fn enable(capabilities: &mut ServerCapabilities) {
    capabilities.logging = Some(Default::default());
}

/// Keeps the level `request` asks for in `least` (an index of [`LogLevel::ALL`]).
pub(crate) fn set(least: &AtomicU8, request: &SetLevelRequestParams) {
    let level = tool_level(request.level);
    let index = LogLevel::ALL
        .iter()
        .position(|known| *known == level)
        .unwrap_or_default();
    least.store(u8::try_from(index).unwrap_or_default(), Ordering::Relaxed);
}

/// Sends what the call of `exec` logs, from the level in `least` up, to `peer`, each message
/// named by its tool (`logger`).
pub(crate) fn forward(exec: &mut Exec, peer: Peer<RoleServer>, least: Arc<AtomicU8>) -> Forwarder {
    let (forwarder, send) = Forwarder::start(move |message: LogMessage| {
        let param = LoggingMessageNotificationParam::new(mcp_level(message.level), message.data)
            .with_logger(message.tool);
        let peer = peer.clone();
        async move { peer.notify_logging_message(param).await.is_ok() }
    });
    *exec = std::mem::take(exec).with_log(move |message| {
        let index = usize::from(least.load(Ordering::Relaxed)).min(LogLevel::ALL.len() - 1);
        if message.level >= LogLevel::ALL[index] {
            let _ = send.try_send(message);
        }
    });
    forwarder
}

/// A level of MCP's as this framework's.
fn tool_level(level: LoggingLevel) -> LogLevel {
    match level {
        LoggingLevel::Debug => LogLevel::Debug,
        LoggingLevel::Info => LogLevel::Info,
        LoggingLevel::Notice => LogLevel::Notice,
        LoggingLevel::Warning => LogLevel::Warning,
        LoggingLevel::Error => LogLevel::Error,
        LoggingLevel::Critical => LogLevel::Critical,
        LoggingLevel::Alert => LogLevel::Alert,
        LoggingLevel::Emergency => LogLevel::Emergency,
    }
}

/// A level of this framework's as MCP's.
fn mcp_level(level: LogLevel) -> LoggingLevel {
    match level {
        LogLevel::Debug => LoggingLevel::Debug,
        LogLevel::Info => LoggingLevel::Info,
        LogLevel::Notice => LoggingLevel::Notice,
        LogLevel::Warning => LoggingLevel::Warning,
        LogLevel::Error => LoggingLevel::Error,
        LogLevel::Critical => LoggingLevel::Critical,
        LogLevel::Alert => LoggingLevel::Alert,
        LogLevel::Emergency => LoggingLevel::Emergency,
    }
}
