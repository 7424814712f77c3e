//! Who made a call: the caller a host vouches for.

use std::sync::Arc;

use serde_json::{Map, Value};

/// Who made a call, as the host checked it: over an HTTP endpoint that checks its callers, the
/// subject of the caller's access token and the issuer that vouched for it, the scopes it was
/// granted and the token's claims; over stdio, in the REPL or from a host that checks nobody,
/// the local user ([`Principal::local`]).
///
/// A context parameter: a tool that takes one sees who called, and may refuse by it with an
/// error the model reads.
///
/// ```
/// use tool_runtime::{Principal, ToolError, tool};
///
/// /// Deletes the shared plan.
/// #[tool]
/// fn clear_plan(principal: Principal) -> Result<String, ToolError> {
///     if !principal.has_scope("plans:admin") && !principal.is_local() {
///         return Err(ToolError::new(format!("{} may not clear the plan", principal.subject)));
///     }
///     Ok("cleared".into())
/// }
/// ```
#[derive(Clone, Debug, PartialEq)]
pub struct Principal {
    /// Who the caller is (`sub`); the user's name for the local user.
    pub subject: String,
    /// Who vouched for it (`iss`): the issuer of its token, `static` for a token of a host's
    /// tokens file, `local` for the local user.
    pub issuer: String,
    /// The scopes granted (`scope` or `scp`); none for the local user.
    pub scopes: Vec<String>,
    /// Every claim of the caller's token, read-only; none for the local user.
    pub claims: Arc<Map<String, Value>>,
}

/// The issuer of the local user.
pub const LOCAL_ISSUER: &str = "local";

impl Principal {
    /// The local user: the one who started the host (`$USER`, else `$LOGNAME`, else `local`).
    pub fn local() -> Principal {
        let subject = ["USER", "LOGNAME"]
            .into_iter()
            .find_map(|name| std::env::var(name).ok().filter(|value| !value.is_empty()))
            .unwrap_or_else(|| "local".to_owned());
        Principal {
            subject,
            issuer: LOCAL_ISSUER.to_owned(),
            scopes: Vec::new(),
            claims: Arc::new(Map::new()),
        }
    }

    /// Whether this is the local user, whom no token vouched for.
    pub fn is_local(&self) -> bool {
        self.issuer == LOCAL_ISSUER
    }

    /// Whether the caller was granted `scope`.
    pub fn has_scope(&self, scope: &str) -> bool {
        self.scopes.iter().any(|granted| granted == scope)
    }
}

/// The event that records who a session belongs to (`{"issuer": …, "subject": …}`: the token
/// that began it over an HTTP endpoint that checks its callers); `toolhost sessions list
/// --owner` and `replay --owner` read it.
pub const OWNER_EVENT: &str = "session/owner";

/// Who a session belongs to: the data of its [`OWNER_EVENT`].
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Owner {
    /// The issuer of the token that began the session.
    pub issuer: String,
    /// Its subject.
    pub subject: String,
}

impl Owner {
    /// The owner a principal is.
    pub fn of(principal: &Principal) -> Owner {
        Owner {
            issuer: principal.issuer.clone(),
            subject: principal.subject.clone(),
        }
    }

    /// Whether this is the owner `subject` names (of `issuer`, when one is given).
    pub fn is(&self, subject: &str, issuer: Option<&str>) -> bool {
        self.subject == subject && issuer.is_none_or(|issuer| self.issuer == issuer)
    }
}
