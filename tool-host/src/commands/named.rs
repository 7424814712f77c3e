//! The host as it introduces itself.

/// The host as it introduces itself: its name (in messages too) and version.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Named {
    pub(crate) name: &'static str,
    #[cfg_attr(
        not(feature = "mcp"),
        expect(dead_code, reason = "only MCP's serverInfo and clientInfo say it")
    )]
    pub(crate) version: &'static str,
}
