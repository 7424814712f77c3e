//! Prompts: messages a host offers for a person to pick and fill in (MCP's `prompts/*`), with
//! their arguments and the completions of those arguments.

use std::collections::BTreeMap;
use std::fmt;
use std::sync::Arc;

use crate::error::{LoadError, ToolError};
use crate::output::{Audio, EmbeddedResource, Image};
pub use crate::role::Role;

/// What fills a prompt in: its arguments by name; its messages, or why there are none.
/// What a prompt's messages are, or why there are none.
type Filled = Result<Vec<PromptMessage>, ToolError>;

/// What fills a prompt in from its arguments alone.
type Plain = Arc<dyn Fn(&BTreeMap<String, String>) -> Filled + Send + Sync>;

/// What fills a prompt in from its arguments, asking as it does.
type Asking = Arc<
    dyn Fn(
            BTreeMap<String, String>,
            crate::ask::Ask,
        ) -> std::pin::Pin<Box<dyn Future<Output = Filled> + Send>>
        + Send
        + Sync,
>;

/// What fills a prompt in: from its arguments alone, or asking as it does.
#[derive(Clone)]
enum Getter {
    Plain(Plain),
    Asking(Asking),
}

/// What completes an argument: the value typed so far; the values it may become.
type Completer = Arc<dyn Fn(&str) -> Vec<String> + Send + Sync>;

/// What a prompt's message holds.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum PromptContent {
    /// Text.
    Text(String),
    /// An image.
    Image(Image),
    /// Audio.
    Audio(Audio),
    /// A resource embedded in the message.
    Resource(EmbeddedResource),
}

impl From<&str> for PromptContent {
    fn from(text: &str) -> Self {
        PromptContent::Text(text.to_owned())
    }
}

impl From<String> for PromptContent {
    fn from(text: String) -> Self {
        PromptContent::Text(text)
    }
}

impl From<Image> for PromptContent {
    fn from(image: Image) -> Self {
        PromptContent::Image(image)
    }
}

impl From<Audio> for PromptContent {
    fn from(audio: Audio) -> Self {
        PromptContent::Audio(audio)
    }
}

impl From<EmbeddedResource> for PromptContent {
    fn from(resource: EmbeddedResource) -> Self {
        PromptContent::Resource(resource)
    }
}

/// One message of a filled-in prompt.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct PromptMessage {
    /// Who says it.
    pub role: Role,
    /// What it holds.
    pub content: PromptContent,
}

impl PromptMessage {
    /// A message of the person's.
    pub fn user(content: impl Into<PromptContent>) -> Self {
        PromptMessage {
            role: Role::User,
            content: content.into(),
        }
    }

    /// A message of the model's.
    pub fn assistant(content: impl Into<PromptContent>) -> Self {
        PromptMessage {
            role: Role::Assistant,
            content: content.into(),
        }
    }
}

/// An argument a prompt is filled in with.
#[derive(Clone)]
pub struct PromptArgument {
    name: String,
    description: Option<String>,
    required: bool,
    complete: Option<Completer>,
}

impl PromptArgument {
    /// The argument's name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// What it is.
    pub fn description(&self) -> Option<&str> {
        self.description.as_deref()
    }

    /// Whether the prompt cannot be filled in without it.
    pub fn required(&self) -> bool {
        self.required
    }
}

impl fmt::Debug for PromptArgument {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("PromptArgument")
            .field("name", &self.name)
            .field("required", &self.required)
            .finish_non_exhaustive()
    }
}

/// A prompt: a name, the arguments it takes, and what fills it in.
///
/// ```
/// use tool_runtime::{Prompt, PromptMessage, Prompts};
///
/// let review = Prompt::new("review", |args| {
///     Ok(vec![PromptMessage::user(format!("Review {} for bugs.", args["file"]))])
/// })
/// .description("Reviews a file")
/// .argument("file", "The file to review", true)
/// .completing("file", |typed| {
///     ["main.rs", "lib.rs"].iter().filter(|f| f.starts_with(typed)).map(|f| f.to_string()).collect()
/// });
/// let mut prompts = Prompts::default();
/// prompts.add(review).unwrap();
/// let args = [("file".to_owned(), "main.rs".to_owned())].into();
/// let messages = prompts.get("review", &args).unwrap();
/// assert_eq!(messages, [PromptMessage::user("Review main.rs for bugs.")]);
/// assert_eq!(prompts.complete("review", "file", "l"), ["lib.rs"]);
/// ```
#[derive(Clone)]
pub struct Prompt {
    name: String,
    title: Option<String>,
    description: Option<String>,
    arguments: Vec<PromptArgument>,
    get: Getter,
}

impl Prompt {
    /// A prompt named `name` that `get` fills in from its arguments.
    pub fn new<F>(name: impl Into<String>, get: F) -> Self
    where
        F: Fn(&BTreeMap<String, String>) -> Result<Vec<PromptMessage>, ToolError>
            + Send
            + Sync
            + 'static,
    {
        Prompt {
            name: name.into(),
            title: None,
            description: None,
            arguments: Vec::new(),
            get: Getter::Plain(Arc::new(get)),
        }
    }

    /// Whether the prompt asks as it is filled in ([`Prompt::asking`]).
    pub fn asks(&self) -> bool {
        matches!(self.get, Getter::Asking(_))
    }

    /// A prompt named `name` that `get` fills in from its arguments, asking as it does (the
    /// person, the client's model: [`Ask`](crate::Ask)), as a tool asks. Over MCP the questions
    /// go to the client: as requests in the `initialize` era, in rounds in the stateless one,
    /// where `get` runs again from the start with each round's answers.
    pub fn asking<F, Fut>(name: impl Into<String>, get: F) -> Self
    where
        F: Fn(BTreeMap<String, String>, crate::ask::Ask) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<Vec<PromptMessage>, ToolError>> + Send + 'static,
    {
        Prompt {
            name: name.into(),
            title: None,
            description: None,
            arguments: Vec::new(),
            get: Getter::Asking(Arc::new(move |args, ask| Box::pin(get(args, ask)))),
        }
    }

    /// The same prompt with a title for people.
    #[must_use]
    pub fn title(mut self, title: impl Into<String>) -> Self {
        self.title = Some(title.into());
        self
    }

    /// The same prompt with a description.
    #[must_use]
    pub fn description(mut self, description: impl Into<String>) -> Self {
        self.description = Some(description.into());
        self
    }

    /// The same prompt taking one more argument.
    #[must_use]
    pub fn argument(
        mut self,
        name: impl Into<String>,
        description: impl Into<String>,
        required: bool,
    ) -> Self {
        self.arguments.push(PromptArgument {
            name: name.into(),
            description: Some(description.into()),
            required,
            complete: None,
        });
        self
    }

    /// The same prompt, with the values its argument `name` may take completed by `complete`
    /// from what was typed so far. An argument the prompt does not take is left as it is.
    #[must_use]
    pub fn completing<F>(mut self, name: &str, complete: F) -> Self
    where
        F: Fn(&str) -> Vec<String> + Send + Sync + 'static,
    {
        if let Some(argument) = self.arguments.iter_mut().find(|a| a.name == name) {
            argument.complete = Some(Arc::new(complete));
        }
        self
    }

    /// Its name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Its title for people.
    pub fn title_text(&self) -> Option<&str> {
        self.title.as_deref()
    }

    /// What it does.
    pub fn description_text(&self) -> Option<&str> {
        self.description.as_deref()
    }

    /// The arguments it takes, in order.
    pub fn arguments(&self) -> &[PromptArgument] {
        &self.arguments
    }
}

impl fmt::Debug for Prompt {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Prompt")
            .field("name", &self.name)
            .field("arguments", &self.arguments)
            .finish_non_exhaustive()
    }
}

/// Why a prompt could not be filled in.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum PromptError {
    /// No prompt has the name.
    #[error("unknown prompt {}", crate::text::quote(.0))]
    Unknown(String),
    /// A required argument was not given.
    #[error("prompt {} needs the argument {}", crate::text::quote(.0), crate::text::quote(.1))]
    Missing(String, String),
    /// An argument the prompt does not take was given.
    #[error("prompt {} takes no argument {}", crate::text::quote(.0), crate::text::quote(.1))]
    Unexpected(String, String),
    /// What fills it in failed.
    #[error("prompt {}: {}", crate::text::quote(.0), .1)]
    Failed(String, ToolError),
}

/// The prompts a host offers.
#[derive(Clone, Debug, Default)]
pub struct Prompts {
    prompts: Vec<Prompt>,
}

impl Prompts {
    /// Adds `prompt`; a second prompt of one name is an error.
    pub fn add(&mut self, prompt: Prompt) -> Result<&mut Self, LoadError> {
        if self.prompts.iter().any(|known| known.name == prompt.name) {
            return Err(LoadError::DuplicatePrompt(prompt.name));
        }
        self.prompts.push(prompt);
        Ok(self)
    }

    /// The prompts, in the order they were added.
    pub fn list(&self) -> &[Prompt] {
        &self.prompts
    }

    /// Whether there is none.
    pub fn is_empty(&self) -> bool {
        self.prompts.is_empty()
    }

    /// The messages of prompt `name` filled in with `args`, each argument checked against
    /// those the prompt takes.
    pub fn get(
        &self,
        name: &str,
        args: &BTreeMap<String, String>,
    ) -> Result<Vec<PromptMessage>, PromptError> {
        let prompt = self.checked(name, args)?;
        match &prompt.get {
            Getter::Plain(get) => {
                get(args).map_err(|error| PromptError::Failed(name.to_owned(), error))
            }
            Getter::Asking(_) => Err(PromptError::Failed(
                name.to_owned(),
                ToolError::new("this prompt asks as it is filled in: get it with `get_asking`"),
            )),
        }
    }

    /// The messages of prompt `name` filled in with `args`, checked as [`Prompts::get`] checks
    /// them, a prompt that asks ([`Prompt::asking`]) asking through `ask`.
    pub async fn get_asking(
        &self,
        name: &str,
        args: &BTreeMap<String, String>,
        ask: crate::ask::Ask,
    ) -> Result<Vec<PromptMessage>, PromptError> {
        let prompt = self.checked(name, args)?;
        match &prompt.get {
            Getter::Plain(get) => get(args),
            Getter::Asking(get) => get(args.clone(), ask).await,
        }
        .map_err(|error| PromptError::Failed(name.to_owned(), error))
    }

    /// Prompt `name`, once `args` are checked against the arguments it takes.
    fn checked(&self, name: &str, args: &BTreeMap<String, String>) -> Result<&Prompt, PromptError> {
        let prompt = self
            .prompts
            .iter()
            .find(|prompt| prompt.name == name)
            .ok_or_else(|| PromptError::Unknown(name.to_owned()))?;
        if let Some(missing) = prompt
            .arguments
            .iter()
            .find(|argument| argument.required && !args.contains_key(&argument.name))
        {
            return Err(PromptError::Missing(name.to_owned(), missing.name.clone()));
        }
        if let Some(unexpected) = args
            .keys()
            .find(|given| !prompt.arguments.iter().any(|a| &a.name == *given))
        {
            return Err(PromptError::Unexpected(name.to_owned(), unexpected.clone()));
        }
        Ok(prompt)
    }

    /// The values argument `argument` of prompt `prompt` may take, completing `typed`; none
    /// when the prompt or argument is unknown or completes nothing.
    pub fn complete(&self, prompt: &str, argument: &str, typed: &str) -> Vec<String> {
        self.prompts
            .iter()
            .find(|known| known.name == prompt)
            .and_then(|known| known.arguments.iter().find(|a| a.name == argument))
            .and_then(|argument| argument.complete.as_ref())
            .map_or_else(Vec::new, |complete| complete(typed))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A person who answers every form with `{"topic": "rust"}`.
    struct Answers;

    impl crate::ask::Asker for Answers {
        fn ask<'a>(
            &'a self,
            _key: &'a str,
            _question: crate::ask::Question,
        ) -> crate::ask::Replying<'a> {
            Box::pin(async {
                Ok(crate::ask::Reply::Person(crate::ask::Answer::Accepted(
                    serde_json::json!({"topic": "rust"}),
                )))
            })
        }
    }

    #[tokio::test]
    async fn a_prompt_that_asks_is_filled_in_with_the_answer_and_checked_like_any() {
        let mut catalog = Prompts::default();
        let asking = Prompt::asking("brief", |args, ask| async move {
            let form = crate::ask::Form::new(
                "Which topic?",
                serde_json::json!({"type": "object", "properties": {"topic": {"type": "string"}}}),
            );
            let answer = ask.person("topic", form).await?;
            let crate::ask::Answer::Accepted(content) = answer else {
                return Err(ToolError::new("no topic"));
            };
            Ok(vec![PromptMessage::user(format!(
                "{} on {}",
                args["style"], content["topic"]
            ))])
        })
        .argument("style", "How", true);
        assert!(asking.asks());
        catalog.add(asking).unwrap();
        let args: BTreeMap<String, String> = [("style".to_owned(), "Notes".to_owned())].into();
        let ask = crate::ask::Ask::through(std::sync::Arc::new(Answers));
        let messages = catalog.get_asking("brief", &args, ask).await.unwrap();
        assert_eq!(messages, [PromptMessage::user("Notes on \"rust\"")]);
        // Its arguments are checked as any prompt's; without anyone to ask, it fails.
        let none = BTreeMap::new();
        assert!(matches!(
            catalog
                .get_asking("brief", &none, crate::ask::Ask::default())
                .await,
            Err(PromptError::Missing(..))
        ));
        assert!(matches!(
            catalog
                .get_asking("brief", &args, crate::ask::Ask::default())
                .await,
            Err(PromptError::Failed(..))
        ));
        // The synchronous getter says how to get it.
        let refused = catalog.get("brief", &args).unwrap_err().to_string();
        assert!(refused.contains("get_asking"), "{refused}");
        assert!(!prompts().list()[0].asks());
    }

    fn prompts() -> Prompts {
        let mut prompts = Prompts::default();
        prompts
            .add(
                Prompt::new("greet", |args| {
                    Ok(vec![PromptMessage::user(format!("Hello, {}", args["who"]))])
                })
                .argument("who", "Whom to greet", true)
                .argument("tone", "How", false),
            )
            .unwrap();
        prompts
    }

    #[test]
    fn arguments_are_checked_against_those_the_prompt_takes() {
        let prompts = prompts();
        let args = |pairs: &[(&str, &str)]| -> BTreeMap<String, String> {
            pairs
                .iter()
                .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
                .collect()
        };
        assert_eq!(
            prompts.get("greet", &args(&[("who", "Ada")])).unwrap(),
            [PromptMessage::user("Hello, Ada")]
        );
        assert_eq!(
            prompts
                .get("greet", &args(&[("tone", "warm")]))
                .unwrap_err(),
            PromptError::Missing("greet".into(), "who".into())
        );
        assert_eq!(
            prompts
                .get("greet", &args(&[("who", "Ada"), ("mood", "x")]))
                .unwrap_err()
                .to_string(),
            r#"prompt "greet" takes no argument "mood""#
        );
        assert_eq!(
            prompts.get("gret", &args(&[])).unwrap_err().to_string(),
            r#"unknown prompt "gret""#
        );
        let mut again = prompts.clone();
        assert_eq!(
            again
                .add(Prompt::new("greet", |_| Ok(Vec::new())))
                .unwrap_err(),
            LoadError::DuplicatePrompt("greet".into())
        );
        assert!(prompts.complete("greet", "who", "A").is_empty());
    }
}
