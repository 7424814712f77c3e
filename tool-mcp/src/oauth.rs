//! How a toolset authorizes itself to an HTTP server that asks for an OAuth token (`401` with
//! MCP's `WWW-Authenticate` challenge): the grant an [`OAuth`] names, on rmcp's OAuth client
//! (the authorization server found from the challenge's protected-resource metadata, the
//! server's URL as the token's `resource`, refresh and scope step-up).
//!
//! - [`OAuth::new`], [`OAuth::loopback`]: a person authorizes in their browser (the
//!   authorization code grant with PKCE; the client registered dynamically, by its metadata
//!   document, or beforehand).
//! - [`OAuth::client_secret`], [`OAuth::client_key`]: the client authorizes itself, with no
//!   person (client credentials): by its secret (HTTP Basic, or in the body where the server
//!   takes only that), or by a JWT it signs with its private key (`private_key_jwt`).
//! - [`OAuth::workload`]: a workload presents the identity token its platform issued it (the
//!   JWT bearer grant of RFC 7523: workload identity federation), read afresh for each token.
//! - [`OAuth::enterprise`]: the person's ID token from their enterprise's identity provider is
//!   exchanged there for an identity assertion grant (ID-JAG), which the server's authorization
//!   server redeems for the token (enterprise-managed authorization).
//!
//! Each grant runs again when the server stops taking the token it gave.
//!
//! ```no_run
//! use tool_mcp::toolsets::{McpServer, OAuth};
//!
//! let secret = std::env::var("REPORTS_CLIENT_SECRET")?;
//! let server = McpServer::http("https://reports.example.com/mcp")
//!     .oauth(OAuth::client_secret("nightly-report", secret))?;
//! let token_file = "/var/run/secrets/tokens/mcp";
//! let workload = McpServer::http("https://files.example.com/mcp").oauth(OAuth::workload(
//!     "builder",
//!     move || std::fs::read_to_string(token_file).map_err(|error| error.to_string()),
//! ))?;
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use std::fmt;
use std::future::Future;
use std::sync::Arc;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use rmcp::transport::auth::AuthorizationMetadata;
use rmcp::transport::{
    AuthError, AuthorizationManager, CredentialStore, InMemoryCredentialStore, StoredCredentials,
};
use serde_json::Value;

use crate::dpop::{self, Dpop};

/// How a toolset authorizes itself to an HTTP server that asks for an OAuth token: the grant,
/// and how the client is known to the authorization server. See the [module](self).
#[derive(Clone)]
pub struct OAuth {
    grant: Grant,
    client_name: String,
    metadata_url: Option<String>,
    registered: Option<(String, Option<String>)>,
}

#[derive(Clone)]
enum Grant {
    /// A person authorizes in their browser: the authorization code grant.
    Person {
        redirect_uri: String,
        authorize: Authorize,
    },
    /// The client itself: the client credentials grant.
    Client {
        client_id: String,
        credential: Credential,
    },
    /// A workload's identity token: the JWT bearer grant.
    Workload {
        client_id: String,
        assertion: Source,
    },
    /// The person's enterprise ID token, exchanged for an ID-JAG.
    Enterprise {
        idp: IdentityProvider,
        id_token: Source,
    },
}

/// How a client authorizes itself.
#[derive(Clone)]
enum Credential {
    Secret(String),
    Key {
        key: jsonwebtoken::EncodingKey,
        algorithm: jsonwebtoken::Algorithm,
    },
}

/// The person's step: given the authorization URL, the URL their browser was sent back to.
type Authorize = Arc<
    dyn Fn(String) -> std::pin::Pin<Box<dyn Future<Output = Result<String, String>> + Send>>
        + Send
        + Sync,
>;

/// Where a token presented to the authorization server comes from, read each time it is.
type Source = Arc<dyn Fn() -> Result<String, String> + Send + Sync>;

/// An [`OAuth`] that cannot be made as given.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum OAuthError {
    /// The client's private key ([`OAuth::client_key`]) is not one of the algorithm's keys.
    #[error("the client's private key cannot sign {algorithm}: {reason}")]
    Key {
        /// The algorithm asked for, as given.
        algorithm: String,
        /// Why not.
        reason: String,
    },
}

/// The enterprise's identity provider, where [`OAuth::enterprise`] exchanges the person's ID
/// token: its issuer and token endpoint (from its approved metadata) and the client registered
/// with it.
#[derive(Clone)]
pub struct IdentityProvider {
    issuer: String,
    token_endpoint: String,
    client_id: String,
    secret: Option<String>,
}

impl IdentityProvider {
    /// The provider `issuer`, whose token endpoint is `token_endpoint`, knowing this client as
    /// `client_id` (a public client until [`IdentityProvider::secret`]).
    pub fn new(
        issuer: impl Into<String>,
        token_endpoint: impl Into<String>,
        client_id: impl Into<String>,
    ) -> Self {
        IdentityProvider {
            issuer: issuer.into(),
            token_endpoint: token_endpoint.into(),
            client_id: client_id.into(),
            secret: None,
        }
    }

    /// The client's secret there (sent by HTTP Basic).
    #[must_use]
    pub fn secret(mut self, secret: impl Into<String>) -> Self {
        self.secret = Some(secret.into());
        self
    }
}

impl OAuth {
    /// Authorizes with `redirect_uri` as the place the browser comes back to, `authorize`
    /// being the person's step: it is given the authorization URL to open, and answers the URL
    /// the authorization server redirected the browser to (the redirect URI with its `code`
    /// and `state`), or why there is none. The client registers itself dynamically unless
    /// told otherwise ([`OAuth::metadata_url`], [`OAuth::registered`]).
    pub fn new<F, Fut>(redirect_uri: impl Into<String>, authorize: F) -> Self
    where
        F: Fn(String) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<String, String>> + Send + 'static,
    {
        OAuth::with(Grant::Person {
            redirect_uri: redirect_uri.into(),
            authorize: Arc::new(move |url| Box::pin(authorize(url))),
        })
    }

    fn with(grant: Grant) -> Self {
        OAuth {
            grant,
            client_name: "toolhost".to_owned(),
            metadata_url: None,
            registered: None,
        }
    }

    /// Authorizes in the person's browser: a listener on a free loopback port
    /// (`http://127.0.0.1:PORT/callback`) is the redirect URI; `tell` shows the person the
    /// authorization URL to open (a host prints it), and the browser's return to the listener,
    /// within [`AUTHORIZE_TIMEOUT`], ends the step. The browser is answered with a page that
    /// says it may be closed.
    pub fn loopback(tell: impl Fn(&str) + Send + Sync + 'static) -> std::io::Result<Self> {
        let listener = std::net::TcpListener::bind("127.0.0.1:0")?;
        let port = listener.local_addr()?.port();
        let listener = Arc::new(listener);
        let tell = Arc::new(tell);
        Ok(OAuth::new(
            format!("http://127.0.0.1:{port}/callback"),
            move |url: String| {
                let listener = Arc::clone(&listener);
                let tell = Arc::clone(&tell);
                async move {
                    tell(&url);
                    let waited = tokio::task::spawn_blocking(move || returned(&listener, port));
                    match tokio::time::timeout(AUTHORIZE_TIMEOUT, waited).await {
                        Ok(Ok(returned)) => returned,
                        Ok(Err(error)) => Err(error.to_string()),
                        Err(_) => Err(format!(
                            "the browser did not come back within {} s",
                            AUTHORIZE_TIMEOUT.as_secs()
                        )),
                    }
                }
            },
        ))
    }

    /// The client `client_id` authorizes itself with its `secret` (the client credentials
    /// grant): sent by HTTP Basic, or in the request's body where the authorization server
    /// takes only that. No person is asked.
    pub fn client_secret(client_id: impl Into<String>, secret: impl Into<String>) -> Self {
        OAuth::with(Grant::Client {
            client_id: client_id.into(),
            credential: Credential::Secret(secret.into()),
        })
    }

    /// The client `client_id` authorizes itself with a JWT it signs with its private key
    /// (`pem`, PKCS#8 or the algorithm's own PEM form) by `algorithm` (`ES256`, `RS256`,
    /// `PS256`, `EdDSA`, …): the client credentials grant with `private_key_jwt`, the
    /// assertion made afresh for each token, addressed to the authorization server's issuer.
    /// No person is asked.
    pub fn client_key(
        client_id: impl Into<String>,
        pem: &[u8],
        algorithm: &str,
    ) -> Result<Self, OAuthError> {
        use jsonwebtoken::{Algorithm, EncodingKey};
        let refused = |reason: String| OAuthError::Key {
            algorithm: algorithm.to_owned(),
            reason,
        };
        let parsed: Algorithm = algorithm
            .parse()
            .map_err(|_| refused("no such algorithm".to_owned()))?;
        let key = match parsed {
            Algorithm::ES256 | Algorithm::ES384 => EncodingKey::from_ec_pem(pem),
            Algorithm::RS256
            | Algorithm::RS384
            | Algorithm::RS512
            | Algorithm::PS256
            | Algorithm::PS384
            | Algorithm::PS512 => EncodingKey::from_rsa_pem(pem),
            Algorithm::EdDSA => EncodingKey::from_ed_pem(pem),
            _ => {
                return Err(refused(
                    "it signs with a shared secret, not a private key".into(),
                ));
            }
        }
        .map_err(|error| refused(error.to_string()))?;
        // A key that cannot sign says so now, not at the first token.
        jsonwebtoken::encode(&jsonwebtoken::Header::new(parsed), &Value::Null, &key)
            .map_err(|error| refused(error.to_string()))?;
        Ok(OAuth::with(Grant::Client {
            client_id: client_id.into(),
            credential: Credential::Key {
                key,
                algorithm: parsed,
            },
        }))
    }

    /// The workload known to the authorization server as `client_id` presents the identity
    /// token its platform issued it (a JWT whose audience is the authorization server), which
    /// `assertion` reads each time a token is needed (from the file a platform keeps fresh,
    /// say): the JWT bearer grant (RFC 7523), for workload identity federation. A refused
    /// assertion is reported as the authorization server gives it, not tried again.
    pub fn workload(
        client_id: impl Into<String>,
        assertion: impl Fn() -> Result<String, String> + Send + Sync + 'static,
    ) -> Self {
        OAuth::with(Grant::Workload {
            client_id: client_id.into(),
            assertion: Arc::new(assertion),
        })
    }

    /// Enterprise-managed authorization: the person's ID token from their enterprise's
    /// identity provider `idp` (which `id_token` reads each time a token is needed) is
    /// exchanged there for an identity assertion grant for the server (RFC 8693, an ID-JAG),
    /// and the server's authorization server redeems it (the JWT bearer grant) for the
    /// server's token. The client must be [registered](OAuth::registered) at the server's
    /// authorization server. No browser opens.
    pub fn enterprise(
        idp: IdentityProvider,
        id_token: impl Fn() -> Result<String, String> + Send + Sync + 'static,
    ) -> Self {
        OAuth::with(Grant::Enterprise {
            idp,
            id_token: Arc::new(id_token),
        })
    }

    /// The name the client registers under (`toolhost` unless given).
    #[must_use]
    pub fn client_name(mut self, name: impl Into<String>) -> Self {
        self.client_name = name.into();
        self
    }

    /// The client is the one its metadata document at `url` describes (an HTTPS URL as its
    /// `client_id`: OAuth Client ID Metadata Documents), where the authorization server takes
    /// such; else it registers dynamically.
    #[must_use]
    pub fn metadata_url(mut self, url: impl Into<String>) -> Self {
        self.metadata_url = Some(url.into());
        self
    }

    /// The client is registered already, as `client_id` (with `secret`, for a confidential
    /// client): nothing is registered.
    #[must_use]
    pub fn registered(mut self, client_id: impl Into<String>, secret: Option<String>) -> Self {
        self.registered = Some((client_id.into(), secret));
        self
    }

    /// Whether a person takes part: a connection that authorizes so waits for them.
    pub(crate) fn asks_a_person(&self) -> bool {
        matches!(self.grant, Grant::Person { .. })
    }

    /// The person's step for the authorization URL `url`: what the browser came back with.
    pub(crate) async fn person(
        &self,
        url: String,
    ) -> Result<rmcp::transport::auth::AuthorizationCallback, String> {
        let Grant::Person { authorize, .. } = &self.grant else {
            return Err("no person authorizes this client".to_owned());
        };
        let redirected = authorize(url).await?;
        rmcp::transport::auth::AuthorizationCallback::from_redirect_url(&redirected)
            .map_err(|error| error.to_string())
    }

    /// The token of a server that answered `challenge` (its `WWW-Authenticate`), by the grant;
    /// bound to `dpop`'s key where the authorization server takes DPoP (and `dpop` told so).
    pub(crate) async fn authorize(
        &self,
        url: &str,
        challenge: &str,
        dpop: &Arc<Dpop>,
    ) -> Result<AuthorizationManager, String> {
        // rmcp's OAuth requests go through clients of its own, which keep discovered hosts to
        // the address classes the server's URL allows; they take the process's TLS provider,
        // ring (this crate's), made it where none is yet.
        let _ = rustls::crypto::ring::default_provider().install_default();
        match &self.grant {
            Grant::Person { redirect_uri, .. } => {
                self.by_person(redirect_uri, url, challenge, dpop).await
            }
            grant => self.by_grant(grant, url, challenge, dpop).await,
        }
    }

    /// Discovery, registration, the person's step, the exchange.
    async fn by_person(
        &self,
        redirect_uri: &str,
        url: &str,
        challenge: &str,
        dpop: &Arc<Dpop>,
    ) -> Result<AuthorizationManager, String> {
        use rmcp::transport::auth::{AuthorizationRequest, OAuthState};
        // The authorization server, found by rmcp's discovery (which keeps it to the address
        // classes the server's URL allows): where it takes DPoP, its token requests prove the
        // key.
        let found = AuthorizationManager::new(url)
            .await
            .map_err(text)?
            .resolve_metadata_from_challenge(Some(challenge))
            .await
            .map_err(text)?
            .metadata;
        let mut state = if dpop::supported(&found) {
            let http = rmcp::transport::auth::default_oauth_http_client().map_err(text)?;
            let proving = ProvingOAuth {
                inner: Box::new(http),
                dpop: Arc::clone(dpop),
            };
            let manager = AuthorizationManager::new_with_oauth_http_client(url, Arc::new(proving))
                .await
                .map_err(text)?;
            OAuthState::Unauthorized(manager)
        } else {
            OAuthState::new(url, None).await.map_err(text)?
        };
        let mut request = AuthorizationRequest::new(redirect_uri.to_owned())
            .with_client_name(self.client_name.clone())
            .with_challenge(challenge);
        if let Some(metadata) = &self.metadata_url {
            request = request.with_client_metadata_url(metadata.clone());
        }
        if let Some((id, secret)) = &self.registered {
            request = request.with_preregistered_client(id.clone());
            if let Some(secret) = secret {
                request = request.with_client_secret(secret.clone());
            }
        }
        state.start_authorization(request).await.map_err(text)?;
        let authorization = state.get_authorization_url().await.map_err(text)?;
        let callback = self.person(authorization).await?;
        state
            .handle_callback_with_issuer(
                &callback.code,
                &callback.csrf_token,
                callback.issuer.as_deref(),
            )
            .await
            .map_err(text)?;
        let manager = state
            .into_authorization_manager()
            .ok_or_else(|| "the authorization did not end with a token".to_owned())?;
        let bound = match manager.get_credentials().await {
            Ok((_, token)) => token.is_some_and(|token| {
                serde_json::to_value(&token).is_ok_and(|answer| binds(&answer))
            }),
            Err(_) => false,
        };
        dpop.bind(bound && dpop::supported(&found));
        Ok(manager)
    }

    /// Discovery, then the grant's token request(s), the token kept in the manager.
    async fn by_grant(
        &self,
        grant: &Grant,
        url: &str,
        challenge: &str,
        dpop: &Arc<Dpop>,
    ) -> Result<AuthorizationManager, String> {
        let mut manager = AuthorizationManager::new(url).await.map_err(text)?;
        let metadata = manager
            .resolve_metadata_from_challenge(Some(challenge))
            .await
            .map_err(text)?
            .metadata;
        manager.set_metadata(metadata.clone());
        let proving = dpop::supported(&metadata).then_some(dpop.as_ref());
        // The scopes the challenge asks for, else those the server lists; a grant with no
        // person has no refresh token to ask for.
        let mut scopes = manager.select_initial_scopes(&[]).await;
        scopes.retain(|scope| scope != "offline_access");
        let scope = scopes.join(" ");
        let mut form: Vec<(&str, String)> = vec![("resource", url.to_owned())];
        if !scope.is_empty() {
            form.push(("scope", scope.clone()));
        }
        let (client_id, token) = match grant {
            Grant::Person { .. } => unreachable!("a person's grant is by_person's"),
            Grant::Client {
                client_id,
                credential,
            } => {
                form.push(("grant_type", "client_credentials".to_owned()));
                let auth = match credential {
                    Credential::Secret(secret) if only_in_body(&metadata) => {
                        form.push(("client_id", client_id.clone()));
                        form.push(("client_secret", secret.clone()));
                        None
                    }
                    Credential::Secret(secret) => Some((client_id.as_str(), secret.as_str())),
                    Credential::Key { key, algorithm } => {
                        let audience = metadata
                            .issuer
                            .clone()
                            .unwrap_or_else(|| metadata.token_endpoint.clone());
                        let assertion = client_assertion(client_id, &audience, key, *algorithm)?;
                        form.push((
                            "client_assertion_type",
                            "urn:ietf:params:oauth:client-assertion-type:jwt-bearer".to_owned(),
                        ));
                        form.push(("client_assertion", assertion));
                        None
                    }
                };
                let token = token_request(&metadata.token_endpoint, &form, auth, proving).await?;
                (client_id.clone(), token)
            }
            Grant::Workload {
                client_id,
                assertion,
            } => {
                let assertion = assertion()
                    .map_err(|reason| format!("the workload's identity token: {reason}"))?;
                form.push((
                    "grant_type",
                    "urn:ietf:params:oauth:grant-type:jwt-bearer".to_owned(),
                ));
                form.push(("assertion", assertion.trim().to_owned()));
                form.push(("client_id", client_id.clone()));
                let token = token_request(&metadata.token_endpoint, &form, None, proving).await?;
                (client_id.clone(), token)
            }
            Grant::Enterprise { idp, id_token } => {
                let (client_id, secret) = self.registered.clone().ok_or(
                    "enterprise-managed authorization needs the client registered at the \
                     server's authorization server (OAuth::registered)",
                )?;
                let id_token =
                    id_token().map_err(|reason| format!("the person's ID token: {reason}"))?;
                let token =
                    enterprise(idp, &metadata, &client_id, secret, url, &scopes, &id_token).await?;
                (client_id, token)
            }
        };
        // The enterprise exchanges (rmcp's) prove no key.
        dpop.bind(proving.is_some() && binds(&token));
        let granted = token
            .get("scope")
            .and_then(Value::as_str)
            .map_or(scopes, |granted| {
                granted.split_whitespace().map(str::to_owned).collect()
            });
        let token = serde_json::from_value(token)
            .map_err(|error| format!("the authorization server's token: {error}"))?;
        let store = InMemoryCredentialStore::new();
        let received = now();
        store
            .save(StoredCredentials::new(
                client_id,
                Some(token),
                granted,
                Some(received),
            ))
            .await
            .map_err(text)?;
        manager.set_credential_store(store);
        Ok(manager)
    }
}

fn text(error: AuthError) -> String {
    error.to_string()
}

/// Whether the authorization server takes a client's secret only in the request's body
/// (`client_secret_post`); HTTP Basic is the default.
fn only_in_body(metadata: &AuthorizationMetadata) -> bool {
    let Some(methods) = metadata
        .additional_fields
        .get("token_endpoint_auth_methods_supported")
        .and_then(Value::as_array)
    else {
        return false;
    };
    let takes = |method: &str| methods.iter().any(|m| m.as_str() == Some(method));
    takes("client_secret_post") && !takes("client_secret_basic")
}

/// A `private_key_jwt` client assertion (RFC 7523 §3): the client as issuer and subject, the
/// authorization server as audience, for five minutes, once.
fn client_assertion(
    client_id: &str,
    audience: &str,
    key: &jsonwebtoken::EncodingKey,
    algorithm: jsonwebtoken::Algorithm,
) -> Result<String, String> {
    let now = now();
    let claims = serde_json::json!({
        "iss": client_id,
        "sub": client_id,
        "aud": audience,
        "iat": now,
        "exp": now + 300,
        "jti": nonce()?,
    });
    jsonwebtoken::encode(&jsonwebtoken::Header::new(algorithm), &claims, key)
        .map_err(|error| format!("the client assertion could not be signed: {error}"))
}

/// Seconds since the Unix epoch.
fn now() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |since| since.as_secs())
}

/// 128 random bits, as hex: a JWT's `jti`.
fn nonce() -> Result<String, String> {
    let mut bytes = [0u8; 16];
    getrandom::fill(&mut bytes).map_err(|error| error.to_string())?;
    Ok(bytes.iter().map(|byte| format!("{byte:02x}")).collect())
}

/// The most of a token endpoint's answer read.
const TOKEN_ANSWER_LIMIT: usize = 64 * 1024;

/// Whether `endpoint` is one a credential may be sent to: HTTPS, or HTTP on a loopback address.
fn may_send_to(endpoint: &reqwest::Url) -> bool {
    let loopback = match endpoint.host() {
        Some(url::Host::Domain(host)) => host.eq_ignore_ascii_case("localhost"),
        Some(url::Host::Ipv4(ip)) => ip.is_loopback(),
        Some(url::Host::Ipv6(ip)) => ip.is_loopback(),
        None => false,
    };
    endpoint.scheme() == "https" || (endpoint.scheme() == "http" && loopback)
}

/// A token endpoint's answer, read whole (at most [`TOKEN_ANSWER_LIMIT`]).
struct Answered {
    status: reqwest::StatusCode,
    headers: reqwest::header::HeaderMap,
    body: Vec<u8>,
}

/// Sends the token request `build` makes (afresh for each try) to `url`, with a DPoP proof when
/// `dpop` is given: an authorization server that asks for a nonce (`400`, `use_dpop_nonce`,
/// with `DPoP-Nonce`) is sent the request once more with it.
async fn post_token(
    build: impl Fn() -> reqwest::RequestBuilder,
    url: &str,
    dpop: Option<&Dpop>,
) -> Result<Answered, String> {
    let mut tries = 0;
    loop {
        tries += 1;
        let mut request = build();
        if let Some(dpop) = dpop {
            request = request.header("DPoP", dpop.proof("POST", url, None)?);
        }
        let mut answer = request
            .send()
            .await
            .map_err(|error| format!("the token endpoint could not be reached: {error}"))?;
        let status = answer.status();
        let headers = answer.headers().clone();
        let mut body = Vec::new();
        while let Some(chunk) = answer
            .chunk()
            .await
            .map_err(|error| format!("the token endpoint's answer: {error}"))?
        {
            body.extend_from_slice(&chunk);
            if body.len() > TOKEN_ANSWER_LIMIT {
                return Err("the token endpoint's answer is over 64 KiB".to_owned());
            }
        }
        let nonce = headers
            .get("DPoP-Nonce")
            .and_then(|value| value.to_str().ok());
        if let (Some(dpop), Some(nonce)) = (dpop, nonce) {
            dpop.learn(url, nonce);
            if tries == 1
                && status == reqwest::StatusCode::BAD_REQUEST
                && dpop::asks_for_nonce(&String::from_utf8_lossy(&body))
            {
                continue;
            }
        }
        return Ok(Answered {
            status,
            headers,
            body,
        });
    }
}

/// A token request to `endpoint` (see [`may_send_to`]), the client named by HTTP Basic when
/// `basic` is given, proving `dpop`'s key when given: the answer's token, or the authorization
/// server's refusal as it gives it.
async fn token_request(
    endpoint: &str,
    form: &[(&str, String)],
    basic: Option<(&str, &str)>,
    dpop: Option<&Dpop>,
) -> Result<Value, String> {
    let parsed = reqwest::Url::parse(endpoint)
        .map_err(|error| format!("the token endpoint `{endpoint}`: {error}"))?;
    if !may_send_to(&parsed) {
        return Err(format!(
            "the token endpoint `{endpoint}` is neither HTTPS nor on this machine: no \
             credential is sent there"
        ));
    }
    let client = http_client().map_err(|error| error.to_string())?;
    // RFC 6749 §2.3.1: the client's id and secret each form-encoded before Basic encodes them.
    let encode =
        |part: &str| -> String { url::form_urlencoded::byte_serialize(part.as_bytes()).collect() };
    let build = || {
        let request = client
            .post(parsed.clone())
            .timeout(Duration::from_secs(30))
            .header(reqwest::header::ACCEPT, "application/json")
            .form(form);
        match basic {
            Some((id, secret)) => request.basic_auth(encode(id), Some(encode(secret))),
            None => request,
        }
    };
    let Answered { status, body, .. } = post_token(build, endpoint, dpop).await?;
    let answer: Value = serde_json::from_slice(&body).unwrap_or(Value::Null);
    if !status.is_success() {
        let error = answer["error"].as_str().unwrap_or("no error code");
        let described: String = answer["error_description"]
            .as_str()
            .unwrap_or_default()
            .chars()
            .take(300)
            .collect();
        let text = tool_runtime::text::neutralize(&described);
        return Err(format!(
            "the authorization server refused the token ({status}): {error}{}",
            if text.is_empty() {
                String::new()
            } else {
                format!(": {text}")
            }
        ));
    }
    if !answer["access_token"].is_string() {
        return Err("the token endpoint answered no access token".to_owned());
    }
    Ok(answer)
}

/// rmcp's OAuth requests for a connection that proves a DPoP key: token requests (a form with
/// a `grant_type`: the code's exchange, a refresh) go with a proof, through [`post_token`];
/// everything else (metadata, registration) through rmcp's own client.
struct ProvingOAuth {
    inner: Box<dyn rmcp::transport::OAuthHttpClient>,
    dpop: Arc<Dpop>,
}

impl rmcp::transport::OAuthHttpClient for ProvingOAuth {
    fn execute(
        &self,
        request: rmcp::transport::OAuthHttpRequest,
    ) -> rmcp::transport::OAuthHttpClientFuture<'_> {
        let asked = &request.request;
        let token = asked.method() == oauth2::http::Method::POST
            && asked
                .headers()
                .get(oauth2::http::header::CONTENT_TYPE)
                .and_then(|value| value.to_str().ok())
                .is_some_and(|kind| kind.starts_with("application/x-www-form-urlencoded"))
            && asked.body().windows(11).any(|part| part == b"grant_type=");
        if !token {
            return self.inner.execute(request);
        }
        Box::pin(async move {
            let (parts, body) = request.request.into_parts();
            let url = parts.uri.to_string();
            let endpoint = reqwest::Url::parse(&url)?;
            if !may_send_to(&endpoint) {
                return Err(format!("no credential is sent to `{url}`").into());
            }
            let client = http_client()?;
            let build = || {
                client
                    .post(endpoint.clone())
                    .timeout(Duration::from_secs(30))
                    .headers(parts.headers.clone())
                    .body(body.clone())
            };
            let answered = post_token(build, &url, Some(&self.dpop)).await?;
            let mut response = oauth2::http::Response::builder().status(answered.status);
            for (name, value) in &answered.headers {
                response = response.header(name, value);
            }
            Ok(response.body(answered.body)?)
        })
    }
}

/// Whether a token endpoint's answer binds the token to the DPoP key (`token_type` `DPoP`).
fn binds(answer: &Value) -> bool {
    answer["token_type"]
        .as_str()
        .is_some_and(|kind| kind.eq_ignore_ascii_case("dpop"))
}

/// The ID token exchanged at `idp` for an ID-JAG bound to the server at `resource`, redeemed at
/// the server's authorization server (`metadata`) by the client registered there: the token's
/// answer, as a token endpoint gives one.
async fn enterprise(
    idp: &IdentityProvider,
    metadata: &AuthorizationMetadata,
    client_id: &str,
    secret: Option<String>,
    resource: &str,
    scopes: &[String],
    id_token: &str,
) -> Result<Value, String> {
    use rmcp::transport::auth::enterprise::{
        EmaAuthorizationServer, EmaClientAuthentication, EmaExchangeRequest,
    };
    let secret_of = |secret: Option<String>, body: bool| match secret {
        Some(secret) if body => {
            EmaClientAuthentication::ClientSecretPost(oauth2::ClientSecret::new(secret))
        }
        Some(secret) => {
            EmaClientAuthentication::ClientSecretBasic(oauth2::ClientSecret::new(secret))
        }
        None => EmaClientAuthentication::None,
    };
    let issuer = metadata
        .issuer
        .clone()
        .ok_or("the server's authorization server names no issuer")?;
    let provider = EmaAuthorizationServer::new(&idp.issuer, &idp.token_endpoint, &idp.client_id)
        .with_client_authentication(secret_of(idp.secret.clone(), false));
    let server = EmaAuthorizationServer::new(issuer, &metadata.token_endpoint, client_id)
        .with_client_authentication(secret_of(secret, only_in_body(metadata)));
    let http = rmcp::transport::auth::default_oauth_http_client().map_err(text)?;
    let token = EmaExchangeRequest::new_with_id_token(provider, server, resource, id_token)
        .with_scopes(scopes.iter().cloned())
        .exchange(&http, &http)
        .await
        .map_err(|error| format!("enterprise-managed authorization: {error}"))?;
    let mut answer = serde_json::json!({
        "access_token": token.access_token.secret(),
        "token_type": "Bearer",
    });
    if let Some(lasts) = token.expires_in {
        answer["expires_in"] = lasts.as_secs().into();
    }
    if !token.scopes.is_empty() {
        let mut scopes: Vec<&str> = token.scopes.iter().map(String::as_str).collect();
        scopes.sort_unstable();
        answer["scope"] = scopes.join(" ").into();
    }
    Ok(answer)
}

/// How long the person has to authorize a toolset in their browser ([`OAuth::loopback`]).
pub const AUTHORIZE_TIMEOUT: Duration = Duration::from_secs(300);

/// The URL the browser came back to on `listener` (port `port`): the first request for
/// `/callback` with a query; any other request is answered 404 and passed over.
fn returned(listener: &std::net::TcpListener, port: u16) -> Result<String, String> {
    use std::io::{BufRead, BufReader, Write};
    listener
        .set_nonblocking(false)
        .map_err(|error| error.to_string())?;
    loop {
        let (stream, _) = listener.accept().map_err(|error| error.to_string())?;
        let _ = stream.set_read_timeout(Some(Duration::from_secs(10)));
        let mut reader = BufReader::new(&stream);
        let mut line = String::new();
        if reader.read_line(&mut line).is_err() {
            continue;
        }
        let target = line
            .split_whitespace()
            .nth(1)
            .unwrap_or_default()
            .to_owned();
        let mut writer = &stream;
        if target.starts_with("/callback?") {
            let _ = writer.write_all(
                b"HTTP/1.1 200 OK\r\nContent-Type: text/plain; charset=utf-8\r\nConnection: close\r\n\r\nAuthorized. You can close this window.\n",
            );
            return Ok(format!("http://127.0.0.1:{port}{target}"));
        }
        let _ = writer.write_all(b"HTTP/1.1 404 Not Found\r\nConnection: close\r\n\r\n");
    }
}

impl fmt::Debug for OAuth {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let grant = match &self.grant {
            Grant::Person { redirect_uri, .. } => format!("person (redirect {redirect_uri})"),
            Grant::Client { client_id, .. } => format!("client credentials of {client_id}"),
            Grant::Workload { client_id, .. } => format!("workload {client_id}"),
            Grant::Enterprise { idp, .. } => format!("enterprise-managed by {}", idp.issuer),
        };
        f.debug_struct("OAuth")
            .field("grant", &grant)
            .field("client_name", &self.client_name)
            .field("metadata_url", &self.metadata_url)
            .field("registered", &self.registered.as_ref().map(|(id, _)| id))
            .finish_non_exhaustive()
    }
}

impl fmt::Debug for IdentityProvider {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("IdentityProvider")
            .field("issuer", &self.issuer)
            .field("token_endpoint", &self.token_endpoint)
            .field("client_id", &self.client_id)
            .finish_non_exhaustive()
    }
}

/// The HTTP client of a Streamable HTTP server and of a token endpoint: rustls on ring with
/// the webpki roots, no redirects (a token is never sent where the server points).
pub(crate) fn http_client() -> Result<reqwest::Client, reqwest::Error> {
    let roots = rustls::RootCertStore {
        roots: webpki_roots::TLS_SERVER_ROOTS.to_vec(),
    };
    let tls = rustls::ClientConfig::builder_with_provider(Arc::new(
        rustls::crypto::ring::default_provider(),
    ))
    .with_safe_default_protocol_versions()
    .expect("ring supports the default protocol versions")
    .with_root_certificates(roots)
    .with_no_client_auth();
    reqwest::Client::builder()
        .tls_backend_preconfigured(tls)
        .redirect(reqwest::redirect::Policy::none())
        .connect_timeout(Duration::from_secs(10))
        .build()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A request for `target` at `port`, as a browser sends it; the answer's status line.
    fn visit(port: u16, target: &str) -> String {
        use std::io::{Read, Write};
        let mut stream = std::net::TcpStream::connect(("127.0.0.1", port)).unwrap();
        write!(stream, "GET {target} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n").unwrap();
        let mut answer = String::new();
        stream.read_to_string(&mut answer).unwrap();
        answer.lines().next().unwrap_or_default().to_owned()
    }

    #[tokio::test(flavor = "multi_thread")]
    async fn the_loopback_step_tells_the_url_and_takes_the_browser_back_on_its_callback() {
        let told = Arc::new(std::sync::Mutex::new(Vec::new()));
        let heard = Arc::clone(&told);
        let oauth = OAuth::loopback(move |url| heard.lock().unwrap().push(url.to_owned())).unwrap();
        let Grant::Person {
            redirect_uri,
            authorize,
        } = oauth.grant
        else {
            panic!("the loopback step is a person's");
        };
        let port: u16 = redirect_uri
            .strip_prefix("http://127.0.0.1:")
            .and_then(|rest| rest.strip_suffix("/callback"))
            .unwrap()
            .parse()
            .unwrap();
        let step = tokio::spawn(authorize("https://as.example/authorize?x=1".into()));
        let browser = tokio::task::spawn_blocking(move || {
            // Anything but the callback is passed over.
            let other = visit(port, "/favicon.ico");
            let back = visit(port, "/callback?code=c0de&state=st4te");
            (other, back)
        });
        let (other, back) = browser.await.unwrap();
        assert_eq!(other, "HTTP/1.1 404 Not Found");
        assert_eq!(back, "HTTP/1.1 200 OK");
        assert_eq!(
            step.await.unwrap().unwrap(),
            format!("http://127.0.0.1:{port}/callback?code=c0de&state=st4te")
        );
        assert_eq!(*told.lock().unwrap(), ["https://as.example/authorize?x=1"]);
    }

    #[test]
    fn a_client_key_that_cannot_sign_is_refused_when_given() {
        let refused = |pem: &[u8], algorithm: &str| match OAuth::client_key("c", pem, algorithm) {
            Err(error) => error.to_string(),
            Ok(oauth) => panic!("taken: {oauth:?}"),
        };
        assert_eq!(
            refused(b"", "ES999"),
            "the client's private key cannot sign ES999: no such algorithm"
        );
        assert_eq!(
            refused(b"", "HS256"),
            "the client's private key cannot sign HS256: it signs with a shared secret, not a \
             private key"
        );
        assert!(
            refused(
                b"-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n",
                "ES256"
            )
            .starts_with("the client's private key cannot sign ES256: "),
        );
    }

    #[test]
    fn credentials_go_only_to_https_or_this_machine() {
        let may = |url: &str| may_send_to(&reqwest::Url::parse(url).unwrap());
        assert!(may("https://as.example/token"));
        assert!(may("http://127.0.0.1:8080/token"));
        assert!(may("http://localhost/token"));
        assert!(may("http://[::1]:9/token"));
        assert!(!may("http://as.example/token"));
        assert!(!may("http://10.0.0.1/token"));
        assert!(!may("ftp://as.example/token"));
    }
}
