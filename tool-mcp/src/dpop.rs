//! DPoP (RFC 9449): a toolset's OAuth token bound to a key only the connection holds, each
//! request to the token endpoint and to the server carrying a fresh proof signed by it, so a
//! token that leaks is of no use without the key.
//!
//! A connection makes its key (ECDSA P-256, `ES256`) when it starts; the key is used where the
//! authorization server's metadata lists `ES256` among its `dpop_signing_alg_values_supported`,
//! and the token is presented with the `DPoP` scheme when the authorization server bound it
//! (`token_type` `DPoP`), as `Bearer` otherwise. A server that asks for a nonce
//! (`use_dpop_nonce`) is given the one it supplied (`DPoP-Nonce`), kept per origin.
//!
//! rmcp's HTTP client reports a `401` by its `WWW-Authenticate` alone, not the response's other
//! headers: when the server's challenge asks for a nonce, the nonce is read from its answer to
//! a `ping` sent with the same proof and token, and the request is sent once more with it.

use crate::lock::lock;
use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{SystemTime, UNIX_EPOCH};

use base64::Engine as _;
use base64::prelude::BASE64_URL_SAFE_NO_PAD;
use oauth2::http;
use ring::signature::{ECDSA_P256_SHA256_FIXED_SIGNING, EcdsaKeyPair, KeyPair as _};
use rmcp::model::ClientJsonRpcMessage;
use rmcp::transport::auth::AuthorizationMetadata;
use rmcp::transport::streamable_http_client::{
    StreamableHttpClient, StreamableHttpError, StreamableHttpPostResponse,
    StreamableHttpResponseLimits,
};
use serde_json::{Value, json};

/// A connection's DPoP key, whether its token is bound to it, and the nonces servers gave.
pub(crate) struct Dpop {
    key: EcdsaKeyPair,
    jwk: Value,
    rng: ring::rand::SystemRandom,
    bound: AtomicBool,
    nonces: Mutex<HashMap<String, String>>,
}

impl Dpop {
    /// A fresh key.
    pub(crate) fn new() -> Result<Self, String> {
        let rng = ring::rand::SystemRandom::new();
        let pkcs8 = EcdsaKeyPair::generate_pkcs8(&ECDSA_P256_SHA256_FIXED_SIGNING, &rng)
            .map_err(|_| "no DPoP key could be made".to_owned())?;
        let key = EcdsaKeyPair::from_pkcs8(&ECDSA_P256_SHA256_FIXED_SIGNING, pkcs8.as_ref(), &rng)
            .map_err(|_| "the DPoP key could not be read back".to_owned())?;
        // The public key as an uncompressed point: 0x04, then x and y of 32 bytes each.
        let point = key.public_key().as_ref();
        let jwk = json!({
            "kty": "EC",
            "crv": "P-256",
            "x": BASE64_URL_SAFE_NO_PAD.encode(&point[1..33]),
            "y": BASE64_URL_SAFE_NO_PAD.encode(&point[33..65]),
        });
        Ok(Dpop {
            key,
            jwk,
            rng,
            bound: AtomicBool::new(false),
            nonces: Mutex::new(HashMap::new()),
        })
    }

    /// Whether the token held is bound to this key (presented with the `DPoP` scheme).
    pub(crate) fn bound(&self) -> bool {
        self.bound.load(Ordering::Acquire)
    }

    /// Records whether the token now held is bound to this key.
    pub(crate) fn bind(&self, bound: bool) {
        self.bound.store(bound, Ordering::Release);
    }

    /// A proof for a `method` request to `url`, for `token` when it presents one (its `ath`),
    /// with the nonce `url`'s origin gave, if any.
    pub(crate) fn proof(
        &self,
        method: &str,
        url: &str,
        token: Option<&str>,
    ) -> Result<String, String> {
        let mut target = reqwest::Url::parse(url).map_err(|error| format!("`{url}`: {error}"))?;
        let origin = target.origin().ascii_serialization();
        target.set_query(None);
        target.set_fragment(None);
        let iat = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_or(0, |since| since.as_secs());
        let mut jti = [0u8; 16];
        getrandom::fill(&mut jti).map_err(|error| error.to_string())?;
        let mut claims = json!({
            "jti": BASE64_URL_SAFE_NO_PAD.encode(jti),
            "htm": method,
            "htu": target.as_str(),
            "iat": iat,
        });
        if let Some(token) = token {
            let digest = ring::digest::digest(&ring::digest::SHA256, token.as_bytes());
            claims["ath"] = BASE64_URL_SAFE_NO_PAD.encode(digest.as_ref()).into();
        }
        if let Some(nonce) = lock(&self.nonces).get(&origin) {
            claims["nonce"] = nonce.clone().into();
        }
        let header = json!({"typ": "dpop+jwt", "alg": "ES256", "jwk": self.jwk});
        let signed = format!(
            "{}.{}",
            BASE64_URL_SAFE_NO_PAD.encode(header.to_string()),
            BASE64_URL_SAFE_NO_PAD.encode(claims.to_string())
        );
        let signature = self
            .key
            .sign(&self.rng, signed.as_bytes())
            .map_err(|_| "the DPoP proof could not be signed".to_owned())?;
        Ok(format!(
            "{signed}.{}",
            BASE64_URL_SAFE_NO_PAD.encode(signature.as_ref())
        ))
    }

    /// Keeps the nonce `url`'s origin supplied, for the proofs sent there from now on.
    pub(crate) fn learn(&self, url: &str, nonce: &str) {
        if let Ok(parsed) = reqwest::Url::parse(url) {
            let origin = parsed.origin().ascii_serialization();
            lock(&self.nonces).insert(origin, nonce.to_owned());
        }
    }
}

/// Whether an authorization server's metadata takes DPoP proofs signed with `ES256`.
pub(crate) fn supported(metadata: &AuthorizationMetadata) -> bool {
    metadata
        .additional_fields
        .get("dpop_signing_alg_values_supported")
        .and_then(Value::as_array)
        .is_some_and(|algs| algs.iter().any(|alg| alg.as_str() == Some("ES256")))
}

/// Whether a server's answer asks for a DPoP nonce: its challenge or its error names
/// `use_dpop_nonce`.
pub(crate) fn asks_for_nonce(text: &str) -> bool {
    text.to_ascii_lowercase().contains("use_dpop_nonce")
}

/// The Streamable HTTP client of a connection that may hold a DPoP-bound token: such a token
/// goes out as `Authorization: DPoP …` with a fresh proof in `DPoP` on each request, anything
/// else as reqwest's client sends it.
#[derive(Clone)]
pub(crate) struct Proving {
    pub(crate) http: reqwest::Client,
    pub(crate) dpop: Arc<Dpop>,
}

/// One of a proving client's requests: how it is sent, given its token and headers.
enum Sent {
    Post {
        message: Box<ClientJsonRpcMessage>,
        session: Option<Arc<str>>,
        limits: Option<StreamableHttpResponseLimits>,
    },
    Get {
        session: Option<Arc<str>>,
        last_event_id: Option<String>,
        max_sse_event_size: Option<usize>,
    },
    Delete {
        session: Arc<str>,
    },
}

type Headers = HashMap<http::HeaderName, http::HeaderValue>;

/// A server's SSE stream, as rmcp's clients give one.
type SseStream = std::pin::Pin<
    Box<dyn futures_core::Stream<Item = Result<sse_stream::Sse, sse_stream::Error>> + Send>,
>;

impl Proving {
    /// `custom` with the token and its proof for a `method` request to `uri`, when the token
    /// is bound to the key; else `custom` as it is, the token going as reqwest sends it.
    fn headers(
        &self,
        method: &str,
        uri: &str,
        token: Option<&str>,
        mut custom: Headers,
    ) -> Result<Headers, String> {
        let Some(token) = token.filter(|_| self.dpop.bound()) else {
            return Ok(custom);
        };
        let proof = self.dpop.proof(method, uri, Some(token))?;
        let value =
            |text: String| http::HeaderValue::from_str(&text).map_err(|error| error.to_string());
        custom.insert(http::header::AUTHORIZATION, value(format!("DPoP {token}"))?);
        custom.insert(http::HeaderName::from_static("dpop"), value(proof)?);
        Ok(custom)
    }

    /// Sends `sent` with `token`; a server whose challenge asks for a DPoP nonce is asked for
    /// it (a `ping`) and sent the request once more.
    async fn run(
        &self,
        uri: Arc<str>,
        sent: Sent,
        token: Option<String>,
        custom: Headers,
    ) -> Result<Ran, StreamableHttpError<reqwest::Error>> {
        let method = match sent {
            Sent::Post { .. } => "POST",
            Sent::Get { .. } => "GET",
            Sent::Delete { .. } => "DELETE",
        };
        // A bound token goes in the headers, with its proof; any other as reqwest sends it.
        let bound = token.as_deref().filter(|_| self.dpop.bound());
        let plain = if bound.is_some() { None } else { token.clone() };
        let headers = self
            .headers(method, &uri, bound, custom.clone())
            .map_err(proof_failed)?;
        let first = self.once(&uri, &sent, plain, headers).await;
        let (Err(StreamableHttpError::AuthRequired(challenge)), Some(sent_token)) = (&first, bound)
        else {
            return first;
        };
        if !asks_for_nonce(&challenge.www_authenticate_header)
            || !self.nonce(&uri, sent_token).await
        {
            return first;
        }
        let headers = self
            .headers(method, &uri, bound, custom)
            .map_err(proof_failed)?;
        self.once(&uri, &sent, None, headers).await
    }

    /// Asks the server at `uri` for its DPoP nonce: a `ping` with `token` and a proof, whose
    /// answer carries the nonce (`DPoP-Nonce`); whether it did.
    async fn nonce(&self, uri: &str, token: &str) -> bool {
        let Ok(proof) = self.dpop.proof("POST", uri, Some(token)) else {
            return false;
        };
        let ping = json!({"jsonrpc": "2.0", "id": "dpop-nonce", "method": "ping"});
        let answer = self
            .http
            .post(uri)
            .header(reqwest::header::AUTHORIZATION, format!("DPoP {token}"))
            .header("DPoP", proof)
            .header(
                reqwest::header::ACCEPT,
                "application/json, text/event-stream",
            )
            .header(reqwest::header::CONTENT_TYPE, "application/json")
            .body(ping.to_string())
            .timeout(std::time::Duration::from_secs(30))
            .send()
            .await;
        let Ok(answer) = answer else {
            return false;
        };
        match answer
            .headers()
            .get("DPoP-Nonce")
            .and_then(|value| value.to_str().ok())
        {
            Some(nonce) => {
                self.dpop.learn(uri, nonce);
                true
            }
            None => false,
        }
    }

    /// `sent`, once, through reqwest's client.
    async fn once(
        &self,
        uri: &Arc<str>,
        sent: &Sent,
        token: Option<String>,
        headers: Headers,
    ) -> Result<Ran, StreamableHttpError<reqwest::Error>> {
        let (http, uri) = (&self.http, Arc::clone(uri));
        match sent {
            Sent::Post {
                message,
                session,
                limits: Some(limits),
            } => http
                .post_message_with_response_limits(
                    uri,
                    (**message).clone(),
                    session.clone(),
                    token,
                    headers,
                    *limits,
                )
                .await
                .map(|posted| Ran::Posted(Box::new(posted))),
            Sent::Post {
                message,
                session,
                limits: None,
            } => http
                .post_message(uri, (**message).clone(), session.clone(), token, headers)
                .await
                .map(|posted| Ran::Posted(Box::new(posted))),
            Sent::Get {
                session,
                last_event_id,
                max_sse_event_size: Some(size),
            } => http
                .get_stream_with_max_sse_event_size(
                    uri,
                    session.clone(),
                    last_event_id.clone(),
                    token,
                    headers,
                    *size,
                )
                .await
                .map(Ran::Stream),
            Sent::Get {
                session,
                last_event_id,
                max_sse_event_size: None,
            } => http
                .get_stream(uri, session.clone(), last_event_id.clone(), token, headers)
                .await
                .map(Ran::Stream),
            Sent::Delete { session } => http
                .delete_session(uri, Arc::clone(session), token, headers)
                .await
                .map(|()| Ran::Deleted),
        }
    }
}

/// What a proving client's request came back with.
enum Ran {
    Posted(Box<StreamableHttpPostResponse>),
    Stream(SseStream),
    Deleted,
}

fn proof_failed(reason: String) -> StreamableHttpError<reqwest::Error> {
    StreamableHttpError::UnexpectedServerResponse(format!("DPoP: {reason}").into())
}

fn mismatch<T>() -> Result<T, StreamableHttpError<reqwest::Error>> {
    Err(StreamableHttpError::UnexpectedServerResponse(
        "DPoP: a request came back as another kind".into(),
    ))
}

impl StreamableHttpClient for Proving {
    type Error = reqwest::Error;

    async fn post_message(
        &self,
        uri: Arc<str>,
        message: ClientJsonRpcMessage,
        session_id: Option<Arc<str>>,
        auth_header: Option<String>,
        custom_headers: Headers,
    ) -> Result<StreamableHttpPostResponse, StreamableHttpError<Self::Error>> {
        let sent = Sent::Post {
            message: Box::new(message),
            session: session_id,
            limits: None,
        };
        match self.run(uri, sent, auth_header, custom_headers).await? {
            Ran::Posted(posted) => Ok(*posted),
            _ => mismatch(),
        }
    }

    async fn post_message_with_response_limits(
        &self,
        uri: Arc<str>,
        message: ClientJsonRpcMessage,
        session_id: Option<Arc<str>>,
        auth_header: Option<String>,
        custom_headers: Headers,
        limits: StreamableHttpResponseLimits,
    ) -> Result<StreamableHttpPostResponse, StreamableHttpError<Self::Error>> {
        let sent = Sent::Post {
            message: Box::new(message),
            session: session_id,
            limits: Some(limits),
        };
        match self.run(uri, sent, auth_header, custom_headers).await? {
            Ran::Posted(posted) => Ok(*posted),
            _ => mismatch(),
        }
    }

    async fn delete_session(
        &self,
        uri: Arc<str>,
        session_id: Arc<str>,
        auth_header: Option<String>,
        custom_headers: Headers,
    ) -> Result<(), StreamableHttpError<Self::Error>> {
        let sent = Sent::Delete {
            session: session_id,
        };
        match self.run(uri, sent, auth_header, custom_headers).await? {
            Ran::Deleted => Ok(()),
            _ => mismatch(),
        }
    }

    async fn get_stream(
        &self,
        uri: Arc<str>,
        session_id: Option<Arc<str>>,
        last_event_id: Option<String>,
        auth_header: Option<String>,
        custom_headers: Headers,
    ) -> Result<SseStream, StreamableHttpError<Self::Error>> {
        let sent = Sent::Get {
            session: session_id,
            last_event_id,
            max_sse_event_size: None,
        };
        match self.run(uri, sent, auth_header, custom_headers).await? {
            Ran::Stream(stream) => Ok(stream),
            _ => mismatch(),
        }
    }

    async fn get_stream_with_max_sse_event_size(
        &self,
        uri: Arc<str>,
        session_id: Option<Arc<str>>,
        last_event_id: Option<String>,
        auth_header: Option<String>,
        custom_headers: Headers,
        max_sse_event_size: usize,
    ) -> Result<SseStream, StreamableHttpError<Self::Error>> {
        let sent = Sent::Get {
            session: session_id,
            last_event_id,
            max_sse_event_size: Some(max_sse_event_size),
        };
        match self.run(uri, sent, auth_header, custom_headers).await? {
            Ran::Stream(stream) => Ok(stream),
            _ => mismatch(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn part(jwt: &str, at: usize) -> Value {
        let piece = jwt.split('.').nth(at).unwrap();
        serde_json::from_slice(&BASE64_URL_SAFE_NO_PAD.decode(piece).unwrap()).unwrap()
    }

    #[test]
    fn a_proof_names_the_request_and_the_token_and_verifies_with_the_key_it_carries() {
        let dpop = Dpop::new().unwrap();
        let proof = dpop
            .proof("POST", "https://mcp.example/mcp?x=1#f", Some("t0ken"))
            .unwrap();
        let header = part(&proof, 0);
        assert_eq!(header["typ"], "dpop+jwt");
        assert_eq!(header["alg"], "ES256");
        assert!(header["jwk"].get("d").is_none(), "no private part");
        let claims = part(&proof, 1);
        assert_eq!(claims["htm"], "POST");
        assert_eq!(claims["htu"], "https://mcp.example/mcp");
        let digest = ring::digest::digest(&ring::digest::SHA256, b"t0ken");
        assert_eq!(
            claims["ath"],
            BASE64_URL_SAFE_NO_PAD.encode(digest.as_ref())
        );
        assert!(claims.get("nonce").is_none());
        // Verified as a server does, with the public key in the header.
        let x = BASE64_URL_SAFE_NO_PAD
            .decode(header["jwk"]["x"].as_str().unwrap())
            .unwrap();
        let y = BASE64_URL_SAFE_NO_PAD
            .decode(header["jwk"]["y"].as_str().unwrap())
            .unwrap();
        let point = [&[4u8][..], &x, &y].concat();
        let (signed, signature) = proof.rsplit_once('.').unwrap();
        ring::signature::UnparsedPublicKey::new(&ring::signature::ECDSA_P256_SHA256_FIXED, point)
            .verify(
                signed.as_bytes(),
                &BASE64_URL_SAFE_NO_PAD.decode(signature).unwrap(),
            )
            .expect("the proof verifies");
        // Each proof is fresh; a nonce is sent where its origin gave it.
        dpop.learn("https://mcp.example/other", "n0nce");
        let again = dpop.proof("GET", "https://mcp.example/mcp", None).unwrap();
        assert_ne!(part(&again, 1)["jti"], claims["jti"]);
        assert_eq!(part(&again, 1)["nonce"], "n0nce");
        assert!(part(&again, 1).get("ath").is_none());
        let elsewhere = dpop
            .proof("POST", "https://as.example/token", None)
            .unwrap();
        assert!(part(&elsewhere, 1).get("nonce").is_none());
    }
}
