//! Who may call: `mcp --http` as an OAuth 2.1 resource server, as MCP's authorization
//! specification makes it.
//!
//! - **Protected-resource metadata** (RFC 9728) at `/.well-known/oauth-protected-resource` (and
//!   the same with the endpoint's path after it): the resource's URL, the authorization server
//!   that issues its tokens, the scopes it knows, and that a token goes in the `Authorization`
//!   header.
//! - **A request without a valid bearer token** gets `401` with
//!   `WWW-Authenticate: Bearer resource_metadata="…"` (and `error="invalid_token"` when a token
//!   was given but refused), so a client finds the authorization server from the answer alone.
//!   Nothing of it reaches a tool.
//! - **JWT access tokens** are checked with the `jsonwebtoken` crate: the signature against the
//!   issuer's JWKS (the key its `kid` names; an asymmetric algorithm only, the one the key is
//!   for), the issuer, the audience (this resource, RFC 8707, unless `--auth-audience` names
//!   another), expiry and not-before with 60 s of clock skew. The JWKS is fetched from
//!   `--auth-jwks`, or from the issuer's metadata (`jwks_uri`); kept 10 minutes, fetched again at
//!   most every 5 s for a `kid` it does not hold (a rotated key), at most 64 keys of a document
//!   of at most 1 MiB. A token over 16 KiB is refused unread. A token checked whole is kept
//!   (by its SHA-256, up to 4,096 of them) until it expires, so a client's every request does
//!   not verify its signature again.
//! - **Static tokens** for tests and small teams: `--auth-tokens FILE`, a line per token,
//!   `TOKEN SUBJECT [SCOPE…]` (`#` starts a comment). Tokens come from a file, never the command
//!   line, where any user of the machine could read them; they are kept as SHA-256 digests.
//!
//! No token, key or secret is written in an answer or on standard error: a refusal says why in
//! words of its own.

use std::collections::HashMap;
use std::path::Path;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use axum::extract::{Request, State};
use axum::http::{HeaderValue, StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use jsonwebtoken::jwk::{Jwk, JwkSet, KeyAlgorithm};
use jsonwebtoken::{Algorithm, DecodingKey, Validation};
use serde_json::{Map, Value, json};
use sha2::{Digest, Sha256};

use crate::error::McpError;
use crate::lock::lock;

/// The longest bearer token read.
pub const MAX_TOKEN_BYTES: usize = 16 * 1024;

/// How long a fetched JWKS is used before it is fetched again.
const JWKS_TTL: Duration = Duration::from_secs(600);

/// The least time between two fetches of the JWKS for a `kid` it does not hold.
const JWKS_REFETCH: Duration = Duration::from_secs(5);

/// The most keys kept of a JWKS, and the largest document read.
const MAX_KEYS: usize = 64;
const MAX_DOCUMENT_BYTES: u64 = 1 << 20;

/// Clock skew allowed for `exp` and `nbf`, in seconds.
const LEEWAY_SECONDS: u64 = 60;

/// The algorithms a token may be signed with: asymmetric ones only (an HMAC secret is never
/// configured, so a public key cannot be made one).
const ALGORITHMS: [Algorithm; 9] = [
    Algorithm::RS256,
    Algorithm::RS384,
    Algorithm::RS512,
    Algorithm::PS256,
    Algorithm::PS384,
    Algorithm::PS512,
    Algorithm::ES256,
    Algorithm::ES384,
    Algorithm::EdDSA,
];

/// How the endpoint checks its callers.
#[derive(Clone, Debug, Default)]
pub struct AuthOptions {
    /// The authorization server whose tokens are taken (`iss`), and whose metadata names its
    /// JWKS unless [`AuthOptions::jwks`] does.
    pub issuer: Option<String>,
    /// The audience a token must name (`aud`); the resource's URL when not given.
    pub audience: Option<String>,
    /// Where the issuer's keys are (a JWKS URL).
    pub jwks: Option<String>,
    /// A file of static tokens (`TOKEN SUBJECT [SCOPE…]` a line). On Unix it must be its
    /// owner's alone (no permission for group or others, as ssh has a private key), unless
    /// [`AuthOptions::tokens_readable_by_others`].
    pub tokens: Option<std::path::PathBuf>,
    /// Take the tokens file even where others than its owner may read it.
    pub tokens_readable_by_others: bool,
    /// The resource's public URL (what clients reach, behind a proxy); by default the address
    /// served and the endpoint's path.
    pub resource: Option<String>,
    /// The scopes the resource knows, as its metadata says (`scopes_supported`), beside those
    /// its tools ask for, which the server adds.
    pub scopes: Vec<String>,
}

impl AuthOptions {
    /// Whether any way of checking callers is configured.
    pub fn enabled(&self) -> bool {
        self.issuer.is_some() || self.tokens.is_some() || self.jwks.is_some()
    }
}

/// Who made a request: the subject of its token and the issuer that vouched for it, the
/// scopes it was granted and the token's claims; a tool sees it as a context parameter.
pub use tool_runtime::Principal;

/// The checks of one endpoint.
pub(crate) struct Auth {
    resource: String,
    metadata_path: String,
    /// The metadata's URL: the resource's origin and `metadata_path`.
    metadata_url: String,
    issuer: Option<String>,
    audience: String,
    scopes: Vec<String>,
    tokens: HashMap<[u8; 32], Principal>,
    jwks: Option<Jwks>,
    /// JWTs whose signature and claims were checked, by digest, with when each expires: a
    /// client sends one token many times, and its signature is verified once.
    verified: Mutex<HashMap<[u8; 32], (Principal, u64)>>,
}

/// The most verified tokens kept.
const VERIFIED_TOKENS: usize = 4096;

/// An issuer's keys, fetched on demand.
struct Jwks {
    url: String,
    cache: Mutex<KeyCache>,
}

#[derive(Default)]
struct KeyCache {
    keys: HashMap<String, (DecodingKey, Option<Algorithm>)>,
    unnamed: Vec<(DecodingKey, Option<Algorithm>)>,
    fetched: Option<Instant>,
}

/// Why a token was refused, in words safe to send back.
#[derive(Debug)]
pub(crate) struct Refusal(String);

impl Auth {
    /// The checks `options` ask for, at `resource` (the endpoint's URL). Reads the tokens file
    /// and, for an issuer without `--auth-jwks`, its metadata. Blocks.
    pub(crate) fn new(options: &AuthOptions, resource: String) -> Result<Auth, McpError> {
        let resource = options.resource.clone().unwrap_or(resource);
        let (origin, path) = split_origin(&resource);
        let metadata_path = if path == "/" || path.is_empty() {
            "/.well-known/oauth-protected-resource".to_owned()
        } else {
            format!("/.well-known/oauth-protected-resource{path}")
        };
        let metadata_url = format!("{origin}{metadata_path}");
        let tokens = match &options.tokens {
            Some(file) => read_tokens(file, options.tokens_readable_by_others)?,
            None => HashMap::new(),
        };
        let jwks_url = match (&options.jwks, &options.issuer) {
            (Some(url), _) => Some(url.clone()),
            (None, Some(issuer)) => Some(discover_jwks(issuer)?),
            (None, None) => None,
        };
        Ok(Auth {
            audience: options.audience.clone().unwrap_or_else(|| resource.clone()),
            resource,
            metadata_path,
            metadata_url,
            issuer: options.issuer.clone(),
            scopes: options.scopes.clone(),
            tokens,
            jwks: jwks_url.map(|url| Jwks {
                url,
                cache: Mutex::new(KeyCache::default()),
            }),
            verified: Mutex::new(HashMap::new()),
        })
    }

    /// Where the metadata is served: at the root, and with the endpoint's path after it.
    pub(crate) fn metadata_paths(&self) -> Vec<String> {
        let mut paths = vec!["/.well-known/oauth-protected-resource".to_owned()];
        if self.metadata_path != paths[0] {
            paths.push(self.metadata_path.clone());
        }
        paths
    }

    /// The resource's metadata (RFC 9728).
    pub(crate) fn metadata(&self) -> Value {
        let mut metadata = json!({
            "resource": self.resource,
            "bearer_methods_supported": ["header"],
        });
        if let Some(issuer) = &self.issuer {
            metadata["authorization_servers"] = json!([issuer]);
        }
        if !self.scopes.is_empty() {
            metadata["scopes_supported"] = json!(self.scopes);
        }
        metadata
    }

    /// The `WWW-Authenticate` challenge of a refusal.
    fn challenge(&self, refusal: Option<&Refusal>) -> String {
        let mut challenge = format!("Bearer resource_metadata=\"{}\"", self.metadata_url);
        if !self.scopes.is_empty() {
            challenge.push_str(&format!(", scope=\"{}\"", self.scopes.join(" ")));
        }
        if let Some(Refusal(reason)) = refusal {
            challenge.push_str(&format!(
                ", error=\"invalid_token\", error_description=\"{}\"",
                reason.replace(['"', '\\'], "'")
            ));
        }
        challenge
    }

    /// The challenge of a call refused for want of `scopes` (space-separated), so that a client
    /// can ask for them (step-up).
    pub(crate) fn insufficient_scope(&self, scopes: &str) -> String {
        format!(
            "Bearer error=\"insufficient_scope\", scope=\"{scopes}\", resource_metadata=\"{}\"",
            self.metadata_url
        )
    }

    /// The principal a bearer token speaks for. Blocks when the JWKS is to be fetched.
    pub(crate) fn check(&self, token: &str) -> Result<Principal, Refusal> {
        if token.len() > MAX_TOKEN_BYTES {
            return Err(Refusal(format!(
                "the token is more than {MAX_TOKEN_BYTES} bytes"
            )));
        }
        let digest = digest(token);
        if let Some(principal) = self.tokens.get(&digest) {
            return Ok(principal.clone());
        }
        let now = jsonwebtoken::get_current_timestamp();
        if let Some((principal, expires)) = lock(&self.verified).get(&digest)
            && now <= expires.saturating_add(LEEWAY_SECONDS)
        {
            return Ok(principal.clone());
        }
        let Some(jwks) = &self.jwks else {
            return Err(Refusal("the token is not one this server knows".into()));
        };
        let header = jsonwebtoken::decode_header(token)
            .map_err(|_| Refusal("the token is not a JWT this server reads".into()))?;
        if !ALGORITHMS.contains(&header.alg) {
            return Err(Refusal(format!(
                "the token's algorithm {:?} is not one this server accepts",
                header.alg
            )));
        }
        let (key, key_alg) = jwks.key(header.kid.as_deref())?;
        if key_alg.is_some_and(|alg| alg != header.alg) {
            return Err(Refusal(
                "the token's algorithm is not the one its key is for".into(),
            ));
        }
        let mut validation = Validation::new(header.alg);
        validation.leeway = LEEWAY_SECONDS;
        validation.validate_nbf = true;
        validation.set_audience(&[&self.audience]);
        let mut required = vec!["exp", "aud", "sub"];
        if let Some(issuer) = &self.issuer {
            validation.set_issuer(&[issuer]);
            required.push("iss");
        }
        validation.set_required_spec_claims(&required);
        let claims = jsonwebtoken::decode::<Map<String, Value>>(token, &key, &validation)
            .map_err(|error| Refusal(refusal_of(&error)))?
            .claims;
        let expires = claims.get("exp").and_then(Value::as_u64).unwrap_or(0);
        let principal = principal_of(claims);
        let mut verified = lock(&self.verified);
        if verified.len() >= VERIFIED_TOKENS {
            verified.retain(|_, (_, expires)| now <= expires.saturating_add(LEEWAY_SECONDS));
            if verified.len() >= VERIFIED_TOKENS {
                verified.clear();
            }
        }
        verified.insert(digest, (principal.clone(), expires));
        Ok(principal)
    }
}

impl Jwks {
    /// The key `kid` names (or, for a token without one, the only key), fetching the JWKS when
    /// it is old, or when it lacks `kid` and was not fetched in the last [`JWKS_REFETCH`].
    fn key(&self, kid: Option<&str>) -> Result<(DecodingKey, Option<Algorithm>), Refusal> {
        let mut cache = lock(&self.cache);
        let stale = cache.fetched.is_none_or(|at| at.elapsed() > JWKS_TTL);
        let missing = match kid {
            Some(kid) => !cache.keys.contains_key(kid),
            None => cache.unnamed.len() + cache.keys.len() != 1,
        };
        let may_refetch = cache.fetched.is_none_or(|at| at.elapsed() > JWKS_REFETCH);
        if stale || (missing && may_refetch) {
            match fetch_jwks(&self.url) {
                Ok(set) => *cache = KeyCache::of(&set),
                Err(error) => {
                    tool_runtime::text::note!("warning: the JWKS could not be fetched: {error}");
                    // An old set goes on serving until a fetch succeeds.
                    if cache.fetched.is_none() {
                        return Err(Refusal("the issuer's keys cannot be fetched".into()));
                    }
                }
            }
        }
        let found = match kid {
            Some(kid) => cache.keys.get(kid).cloned(),
            None => cache
                .unnamed
                .iter()
                .chain(cache.keys.values())
                .next()
                .filter(|_| cache.unnamed.len() + cache.keys.len() == 1)
                .cloned(),
        };
        found.ok_or_else(|| Refusal("the token's key is not one of the issuer's".into()))
    }
}

impl KeyCache {
    fn of(set: &JwkSet) -> KeyCache {
        let mut cache = KeyCache {
            fetched: Some(Instant::now()),
            ..KeyCache::default()
        };
        for jwk in set.keys.iter().take(MAX_KEYS) {
            let Some(key) = decoding_key(jwk) else {
                continue;
            };
            match &jwk.common.key_id {
                Some(kid) => {
                    cache.keys.insert(kid.clone(), key);
                }
                None => cache.unnamed.push(key),
            }
        }
        cache
    }
}

/// A JWK's verifying key and the algorithm it is for; `None` for a symmetric key (never taken)
/// or one that does not read.
fn decoding_key(jwk: &Jwk) -> Option<(DecodingKey, Option<Algorithm>)> {
    if matches!(
        jwk.algorithm,
        jsonwebtoken::jwk::AlgorithmParameters::OctetKey(_)
    ) {
        return None;
    }
    let alg = jwk.common.key_algorithm.and_then(|alg| match alg {
        KeyAlgorithm::RS256 => Some(Algorithm::RS256),
        KeyAlgorithm::RS384 => Some(Algorithm::RS384),
        KeyAlgorithm::RS512 => Some(Algorithm::RS512),
        KeyAlgorithm::PS256 => Some(Algorithm::PS256),
        KeyAlgorithm::PS384 => Some(Algorithm::PS384),
        KeyAlgorithm::PS512 => Some(Algorithm::PS512),
        KeyAlgorithm::ES256 => Some(Algorithm::ES256),
        KeyAlgorithm::ES384 => Some(Algorithm::ES384),
        KeyAlgorithm::EdDSA => Some(Algorithm::EdDSA),
        _ => None,
    });
    DecodingKey::from_jwk(jwk).ok().map(|key| (key, alg))
}

/// What a refused JWT is told, without the token.
fn refusal_of(error: &jsonwebtoken::errors::Error) -> String {
    use jsonwebtoken::errors::ErrorKind;
    match error.kind() {
        ErrorKind::ExpiredSignature => "the token has expired".into(),
        ErrorKind::ImmatureSignature => "the token is not valid yet".into(),
        ErrorKind::InvalidAudience => "the token is for another audience".into(),
        ErrorKind::InvalidIssuer => "the token is from another issuer".into(),
        ErrorKind::InvalidSignature => "the token's signature does not verify".into(),
        ErrorKind::MissingRequiredClaim(claim) => format!("the token has no `{claim}` claim"),
        ErrorKind::InvalidAlgorithm | ErrorKind::InvalidAlgorithmName => {
            "the token's algorithm is not the one its key is for".into()
        }
        _ => "the token does not read as a JWT this server accepts".into(),
    }
}

fn principal_of(claims: Map<String, Value>) -> Principal {
    let text = |name: &str| {
        claims
            .get(name)
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_owned()
    };
    let scopes = match (claims.get("scope"), claims.get("scp")) {
        (Some(Value::String(scope)), _) => scope.split_whitespace().map(str::to_owned).collect(),
        (_, Some(Value::Array(scopes))) => scopes
            .iter()
            .filter_map(Value::as_str)
            .map(str::to_owned)
            .collect(),
        (_, Some(Value::String(scp))) => scp.split_whitespace().map(str::to_owned).collect(),
        _ => Vec::new(),
    };
    Principal {
        subject: text("sub"),
        issuer: text("iss"),
        scopes,
        claims: Arc::new(claims),
    }
}

fn digest(token: &str) -> [u8; 32] {
    Sha256::digest(token.as_bytes()).into()
}

/// Refuses a tokens file (on Unix) that group or others have any permission on, unless
/// `shared`, as ssh refuses such a private key.
pub(crate) fn check_tokens_file(file: &Path, shared: bool) -> Result<(), McpError> {
    #[cfg(unix)]
    if !shared {
        use std::os::unix::fs::PermissionsExt as _;
        let named = || tool_runtime::text::neutralize(&file.display().to_string()).into_owned();
        let mode = std::fs::metadata(file)
            .map_err(|error| McpError::Input(format!("the tokens file {}: {error}", named())))?
            .permissions()
            .mode();
        if mode & 0o077 != 0 {
            return Err(McpError::Input(format!(
                "the tokens file {} is open to others than its owner (mode {:03o}): its tokens \
                 are secrets; make it the owner's alone (chmod 600)",
                named(),
                mode & 0o777
            )));
        }
    }
    #[cfg(not(unix))]
    let _ = (file, shared);
    Ok(())
}

/// The tokens of a tokens file ([`check_tokens_file`] first).
fn read_tokens(file: &Path, shared: bool) -> Result<HashMap<[u8; 32], Principal>, McpError> {
    let named = || tool_runtime::text::neutralize(&file.display().to_string()).into_owned();
    let text = std::fs::read_to_string(file)
        .map_err(|error| McpError::Input(format!("the tokens file {}: {error}", named())))?;
    check_tokens_file(file, shared)?;
    let mut tokens = HashMap::new();
    for (number, line) in text.lines().enumerate() {
        let line = line.split('#').next().unwrap_or_default().trim();
        if line.is_empty() {
            continue;
        }
        let mut words = line.split_whitespace();
        let (Some(token), Some(subject)) = (words.next(), words.next()) else {
            return Err(McpError::Input(format!(
                "the tokens file {}: line {}: give TOKEN SUBJECT [SCOPE…]",
                tool_runtime::text::neutralize(&file.display().to_string()),
                number + 1
            )));
        };
        let scopes: Vec<String> = words.map(str::to_owned).collect();
        let mut claims = Map::new();
        claims.insert("sub".into(), json!(subject));
        claims.insert("iss".into(), json!("static"));
        claims.insert("scope".into(), json!(scopes.join(" ")));
        tokens.insert(
            digest(token),
            Principal {
                subject: subject.to_owned(),
                issuer: "static".into(),
                scopes,
                claims: Arc::new(claims),
            },
        );
    }
    Ok(tokens)
}

/// The HTTP client of the JWKS and metadata fetches: no redirects followed, bounded waits.
fn client() -> ureq::Agent {
    ureq::Agent::config_builder()
        .max_redirects(0)
        .timeout_global(Some(Duration::from_secs(10)))
        .build()
        .into()
}

fn get_json(url: &str) -> Result<Value, String> {
    let mut response = client()
        .get(url)
        .call()
        .map_err(|error| error.to_string())?;
    response
        .body_mut()
        .with_config()
        .limit(MAX_DOCUMENT_BYTES)
        .read_json::<Value>()
        .map_err(|error| error.to_string())
}

fn fetch_jwks(url: &str) -> Result<JwkSet, String> {
    let document = get_json(url)?;
    // Keys that do not read are passed over, one by one, not the whole set.
    let keys = document
        .get("keys")
        .and_then(Value::as_array)
        .ok_or("the JWKS has no `keys`")?
        .iter()
        .filter_map(|key| serde_json::from_value::<Jwk>(key.clone()).ok())
        .collect();
    Ok(JwkSet { keys })
}

/// The `jwks_uri` of an issuer's metadata (RFC 8414, else OpenID Connect discovery).
fn discover_jwks(issuer: &str) -> Result<String, McpError> {
    let base = issuer.trim_end_matches('/');
    let mut tried = Vec::new();
    for url in [
        format!("{base}/.well-known/oauth-authorization-server"),
        format!("{base}/.well-known/openid-configuration"),
    ] {
        match get_json(&url) {
            Ok(metadata) => {
                if let Some(jwks) = metadata.get("jwks_uri").and_then(Value::as_str) {
                    return Ok(jwks.to_owned());
                }
                tried.push(format!("{url}: no jwks_uri"));
            }
            Err(error) => tried.push(format!("{url}: {error}")),
        }
    }
    Err(McpError::Input(format!(
        "the issuer's keys cannot be found (give --auth-jwks): {}",
        tried.join("; ")
    )))
}

/// A URL's origin (`scheme://authority`) and the path after it (empty when there is none).
fn split_origin(url: &str) -> (&str, &str) {
    let end = url
        .find("://")
        .and_then(|scheme| url[scheme + 3..].find('/').map(|slash| scheme + 3 + slash))
        .unwrap_or(url.len());
    url.split_at(end)
}

/// Lets through a request with a valid bearer token (its [`Principal`] in its extensions),
/// answers any other with `401` and the challenge.
pub(crate) async fn authorize(
    State(auth): State<Arc<Auth>>,
    mut request: Request,
    next: Next,
) -> Response {
    let token = request.headers().get(header::AUTHORIZATION).map(|value| {
        value
            .to_str()
            .ok()
            .and_then(|text| {
                let (scheme, token) = text.split_once(' ')?;
                scheme
                    .eq_ignore_ascii_case("bearer")
                    .then(|| token.trim().to_owned())
            })
            .ok_or_else(|| Refusal("the Authorization header is not a bearer token".into()))
    });
    let checked = match token {
        None => None,
        Some(Err(refusal)) => Some(Err(refusal)),
        Some(Ok(token)) => {
            let auth = Arc::clone(&auth);
            Some(
                tokio::task::spawn_blocking(move || auth.check(&token))
                    .await
                    .unwrap_or_else(|_| Err(Refusal("the token could not be checked".into()))),
            )
        }
    };
    match checked {
        Some(Ok(principal)) => {
            request.extensions_mut().insert(principal);
            next.run(request).await
        }
        Some(Err(refusal)) => unauthorized(&auth, Some(&refusal)),
        None => unauthorized(&auth, None),
    }
}

fn unauthorized(auth: &Auth, refusal: Option<&Refusal>) -> Response {
    let challenge = auth.challenge(refusal);
    let message = match refusal {
        Some(Refusal(reason)) => format!("unauthorized: {reason}"),
        None => "unauthorized: this endpoint takes a bearer token".to_owned(),
    };
    let body = json!({"jsonrpc": "2.0", "id": null, "error": {"code": -32001, "message": message}});
    let mut response = (StatusCode::UNAUTHORIZED, body.to_string()).into_response();
    let headers = response.headers_mut();
    headers.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("application/json"),
    );
    if let Ok(value) = HeaderValue::from_str(&challenge) {
        headers.insert(header::WWW_AUTHENTICATE, value);
    }
    response
}

/// The metadata document's answer.
pub(crate) async fn metadata(State(auth): State<Arc<Auth>>) -> Response {
    let mut response = (StatusCode::OK, auth.metadata().to_string()).into_response();
    response.headers_mut().insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("application/json"),
    );
    response
}
