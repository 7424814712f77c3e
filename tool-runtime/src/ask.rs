//! Asking from inside a tool ([`Ask`]): the person, through a form the client shows
//! (elicitation), the client's model (sampling), or the client's roots, for the host to carry (MCP's
//! `elicitation/create` and `sampling/createMessage`).

use std::fmt;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;

use serde_json::Value;

/// A form for the person to fill in: what to tell them, and the JSON Schema of what to answer
/// (an object of primitive properties: strings, numbers, integers, booleans, enumerations).
#[derive(Clone, Debug, PartialEq)]
pub struct Form {
    /// What the person reads.
    pub message: String,
    /// What they answer: a JSON Schema of `"type": "object"`.
    pub schema: Value,
}

impl Form {
    /// A form telling the person `message`, answered as `schema` describes.
    pub fn new(message: impl Into<String>, schema: Value) -> Self {
        Form {
            message: message.into(),
            schema,
        }
    }

    /// Why `answer` does not fit the form's schema, if it does not: `name: expected a string,
    /// got 5`.
    pub fn misfit(&self, answer: &Value) -> Option<String> {
        tool_schema::validate::first_violation(&self.schema, answer).map(|violation| {
            if violation.path.is_empty() {
                violation.message
            } else {
                format!("{}: {}", violation.path, violation.message)
            }
        })
    }
}

/// What the person did with a [`Form`].
#[derive(Clone, Debug, PartialEq)]
pub enum Answer {
    /// They filled it in and sent it: the object they answered.
    Accepted(Value),
    /// They said no.
    Declined,
    /// They closed it without choosing.
    Dismissed,
}

/// A request for the client's model to write a message.
#[derive(Clone, Debug, PartialEq)]
pub struct Sampling {
    /// The conversation so far, oldest first: who said it and what.
    pub messages: Vec<(crate::Role, String)>,
    /// The system prompt, if any.
    pub system: Option<String>,
    /// The most tokens the model may write.
    pub max_tokens: u32,
}

impl Sampling {
    /// One message from the user, `prompt`, answered in at most `max_tokens` tokens.
    pub fn new(prompt: impl Into<String>, max_tokens: u32) -> Self {
        Sampling {
            messages: vec![(crate::Role::User, prompt.into())],
            system: None,
            max_tokens,
        }
    }

    /// The same request with a system prompt.
    #[must_use]
    pub fn system(mut self, system: impl Into<String>) -> Self {
        self.system = Some(system.into());
        self
    }
}

/// What the client's model wrote.
#[derive(Clone, Debug, PartialEq)]
pub struct Sampled {
    /// Its text.
    pub text: String,
    /// The model that wrote it, as the client names it.
    pub model: String,
    /// Why it stopped (`endTurn`, `maxTokens`…), when the client says.
    pub stop_reason: Option<String>,
}

/// A directory or file the client lets the server work in (MCP's roots).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Root {
    /// Where it is: a `file://` URI.
    pub uri: String,
    /// What the client calls it, if anything.
    pub name: Option<String>,
}

/// A question a tool asks, as its host receives it.
#[derive(Clone, Debug, PartialEq)]
pub enum Question {
    /// A form for the person.
    Person(Form),
    /// A message for the client's model to write.
    Model(Sampling),
    /// The client's roots.
    Roots,
}

/// The reply to a [`Question`], of the same kind.
#[derive(Clone, Debug, PartialEq)]
pub enum Reply {
    /// What the person did with the form.
    Person(Answer),
    /// What the model wrote.
    Model(Sampled),
    /// The roots the client offers.
    Roots(Vec<Root>),
}

/// Why a question got no reply.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum AskError {
    /// Nobody can be asked this way: the host carries no questions, or the client offers no
    /// form (elicitation) or no model (sampling).
    #[error("this client cannot {0}")]
    Unsupported(&'static str),
    /// The client was asked and answered with an error, or not at all.
    #[error("the client could not answer: {0}")]
    Failed(String),
}

impl From<AskError> for crate::ToolError {
    fn from(error: AskError) -> Self {
        crate::ToolError::new(error.to_string())
    }
}

/// A reply on its way.
pub type Replying<'a> = Pin<Box<dyn Future<Output = Result<Reply, AskError>> + Send + 'a>>;

/// Who carries a tool's questions to the person or the client's model (see
/// [`Exec::with_ask`](crate::Exec::with_ask)): an MCP server, through its client.
pub trait Asker: Send + Sync {
    /// Asks `question`, named `key` within the call.
    fn ask<'a>(&'a self, key: &'a str, question: Question) -> Replying<'a>;
}

/// Where a tool asks while it runs: a context parameter, like [`Logger`](crate::Logger). The
/// person answers a form ([`Ask::person`]), the client's model writes a message
/// ([`Ask::model`]); where the host carries no questions, or the client cannot answer that
/// kind, the question fails with [`AskError::Unsupported`] at once, which `?` turns into a
/// refusal the model reads.
///
/// Each question is named by a key unique within the call (`"user_name"`): a host that answers
/// by replaying the call (MCP's stateless era) matches replies to questions by it.
///
/// ```
/// use tool_runtime::{Ask, Answer, Ctx, Exec, Form, ToolError, tool};
///
/// /// Greets the person by the name they give.
/// #[tool]
/// async fn greet(ask: Ask) -> Result<String, ToolError> {
///     let form = Form::new(
///         "What is your name?",
///         serde_json::json!({"type": "object", "properties": {"name": {"type": "string"}}}),
///     );
///     match ask.person("user_name", form).await? {
///         Answer::Accepted(answer) => Ok(format!("Hello, {}!", answer["name"])),
///         Answer::Declined | Answer::Dismissed => Ok("No name given.".to_owned()),
///     }
/// }
///
/// let mut ctx = Ctx::new();
/// ctx.plugin::<Greet>().unwrap();
/// // A host that carries no questions: the tool is told, and says so.
/// let output = ctx.tools.call("greet", &Exec::new(), "{}").wait();
/// assert_eq!(output.text, "Error: this client cannot ask the person (it offers no form)");
/// ```
#[derive(Clone, Default)]
pub struct Ask(Option<Arc<dyn Asker>>);

impl Ask {
    /// The questions of a call, carried by `asker` if there is one.
    pub(crate) fn new(asker: Option<&Arc<dyn Asker>>) -> Self {
        Ask(asker.cloned())
    }

    /// Questions carried by `asker`, for a host that asks outside a tool's call (for a prompt
    /// that asks as it is filled in).
    pub fn through(asker: Arc<dyn Asker>) -> Self {
        Ask(Some(asker))
    }

    /// Whether anyone carries the questions (a client may still refuse a kind).
    pub fn can_ask(&self) -> bool {
        self.0.is_some()
    }

    /// Asks the person to fill in `form`. An answer that does not fit the form's schema is
    /// not the person's answer: it fails ([`AskError::Failed`]), and the tool never reads it.
    pub async fn person(&self, key: &str, form: Form) -> Result<Answer, AskError> {
        let asker = self.0.as_ref().ok_or(AskError::Unsupported(NO_FORM))?;
        let schema = form.clone();
        match asker.ask(key, Question::Person(form)).await? {
            Reply::Person(Answer::Accepted(content)) => match schema.misfit(&content) {
                Some(misfit) => Err(AskError::Failed(format!(
                    "the answer does not fit the form ({misfit})"
                ))),
                None => Ok(Answer::Accepted(content)),
            },
            Reply::Person(answer) => Ok(answer),
            _ => Err(AskError::Failed("a form got another kind of answer".into())),
        }
    }

    /// Asks the client's model to write a message.
    pub async fn model(&self, key: &str, sampling: Sampling) -> Result<Sampled, AskError> {
        let asker = self.0.as_ref().ok_or(AskError::Unsupported(NO_MODEL))?;
        match asker.ask(key, Question::Model(sampling)).await? {
            Reply::Model(sampled) => Ok(sampled),
            _ => Err(AskError::Failed(
                "a model got another kind of answer".into(),
            )),
        }
    }

    /// Asks the client which roots (directories, files) it lets the server work in.
    pub async fn roots(&self, key: &str) -> Result<Vec<Root>, AskError> {
        let asker = self.0.as_ref().ok_or(AskError::Unsupported(NO_ROOTS))?;
        match asker.ask(key, Question::Roots).await? {
            Reply::Roots(roots) => Ok(roots),
            _ => Err(AskError::Failed(
                "the roots got another kind of answer".into(),
            )),
        }
    }
}

/// What [`AskError::Unsupported`] says of a client that shows no forms.
pub const NO_FORM: &str = "ask the person (it offers no form)";
/// What [`AskError::Unsupported`] says of a client that lends no model.
pub const NO_MODEL: &str = "ask its model (it offers no sampling)";
/// What [`AskError::Unsupported`] says of a client that names no roots.
pub const NO_ROOTS: &str = "name its roots (it offers no roots)";

impl fmt::Debug for Ask {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_tuple("Ask").field(&self.0.is_some()).finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// A host whose person answers every form with `content`.
    struct Answers(Value);

    impl Asker for Answers {
        fn ask<'a>(&'a self, _key: &'a str, _question: Question) -> Replying<'a> {
            let content = self.0.clone();
            Box::pin(async move { Ok(Reply::Person(Answer::Accepted(content))) })
        }
    }

    fn name_form() -> Form {
        Form::new(
            "What is your name?",
            json!({"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]}),
        )
    }

    fn answered(content: Value) -> Result<Answer, AskError> {
        let ask = Ask(Some(Arc::new(Answers(content))));
        block_on(ask.person("user_name", name_form()))
    }

    fn block_on<F: Future>(future: F) -> F::Output {
        tokio::runtime::Builder::new_current_thread()
            .build()
            .unwrap()
            .block_on(future)
    }

    #[test]
    fn an_answer_that_fits_the_form_is_the_persons_answer() {
        assert_eq!(
            answered(json!({"name": "Ada"})),
            Ok(Answer::Accepted(json!({"name": "Ada"})))
        );
    }

    #[test]
    fn an_answer_that_does_not_fit_the_form_never_reaches_the_tool() {
        assert_eq!(
            answered(json!({"name": 5})),
            Err(AskError::Failed(
                "the answer does not fit the form (name: expected a string, got 5)".into()
            ))
        );
        assert_eq!(
            answered(json!({})),
            Err(AskError::Failed(
                r#"the answer does not fit the form (missing field "name")"#.into()
            ))
        );
    }
}
