//! Who says a message: the person or the model, in a prompt and in what a tool asks a model.

/// Who says a prompt's message.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Role {
    /// The person.
    User,
    /// The model.
    Assistant,
}
