//! The conversation, kept in the agent's session: every message appended as an event as it
//! happens, so a resumed session continues where it stopped, and compaction recorded the same
//! way.

use std::collections::{HashMap, HashSet};
use std::ops::Range;

use serde::{Deserialize, Serialize};
use serde_json::Value;
use tool_runtime::{Session, ToolOutput};
use tool_wire::{ModelTurn, Provider, WireCall};

use crate::error::AgentError;
use crate::request::user_message;

/// The kind of the events that hold the conversation's messages.
pub const MESSAGES_KIND: &str = "agent/messages";
/// The kind of the events that record a compaction: the seqs of the message events dropped.
pub const COMPACTION_KIND: &str = "agent/compaction";
/// The kind of the events that record one call's output as soon as it has it, before the
/// turn's results are recorded together: what a resumed session answers a call with when its
/// host stopped between the two.
pub const RESULT_KIND: &str = "agent/result";

/// What a call of a turn whose host stopped before recording its result is answered.
pub const INTERRUPTED: &str =
    "the host stopped before the call's result was recorded; it may have run, in part or whole";

/// Bytes of JSON per token, for the estimate compaction goes by: close for English text and
/// JSON with the providers' tokenizers, and the same for every provider.
pub const BYTES_PER_TOKEN: usize = 4;

/// Who a stored group of messages is from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum Role {
    /// A person's prompt.
    Prompt,
    /// The model's turn, as the provider sent it (its calls included).
    Model,
    /// The results of the model turn before it.
    Results,
    /// The todo list restated after a compaction (`tool_todo::restatement`).
    Restatement,
}

/// The data of a [`MESSAGES_KIND`] event.
#[derive(Serialize, Deserialize)]
struct Stored {
    provider: String,
    role: Role,
    messages: Vec<Value>,
}

/// The data of a [`RESULT_KIND`] event.
#[derive(Debug, Serialize, Deserialize)]
struct Outcome {
    /// The seq of the model turn's event.
    turn: u64,
    /// The call's place in the turn.
    index: usize,
    /// The call's id.
    id: String,
    text: String,
    is_error: bool,
}

/// The data of a [`COMPACTION_KIND`] event.
#[derive(Serialize, Deserialize)]
struct Compacted {
    dropped: Vec<u64>,
    tokens_before: usize,
    tokens_after: usize,
}

#[derive(Debug)]
struct Entry {
    seq: u64,
    role: Role,
    messages: Vec<Value>,
    bytes: usize,
}

/// What a compaction did.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct Compaction {
    /// Messages dropped.
    pub dropped_messages: usize,
    /// The estimated tokens of the conversation before.
    pub tokens_before: usize,
    /// … and after (the restatement included).
    pub tokens_after: usize,
    /// Whether the todo list was restated.
    pub restated: bool,
}

/// A conversation with one provider, kept in a session.
#[derive(Debug)]
pub struct Conversation {
    provider: Provider,
    session: Session,
    entries: Vec<Entry>,
    /// The outputs recorded for the calls of the last entry, a model turn, by index.
    outcomes: HashMap<usize, Outcome>,
}

impl Conversation {
    /// The conversation `session` holds (none yet for a new session), to go on with
    /// `provider`. A conversation held with another provider is refused: its messages are in
    /// that provider's shapes.
    pub fn open(session: Session, provider: Provider) -> Result<Self, AgentError> {
        let mut entries: Vec<Entry> = Vec::new();
        let mut outcomes = HashMap::new();
        let mut failure = None;
        session.for_each_from(1, &mut |event| {
            if failure.is_some() {
                return;
            }
            match event.kind.as_str() {
                MESSAGES_KIND => match event.data::<Stored>() {
                    Ok(stored) if stored.provider != provider.name() => {
                        failure = Some(AgentError::OtherProvider {
                            found: stored.provider,
                        });
                    }
                    Ok(stored) => {
                        outcomes.clear();
                        entries.push(Entry::new(event.seq, stored.role, stored.messages));
                    }
                    Err(error) => {
                        failure = Some(AgentError::Conversation(format!(
                            "event {}: {error}",
                            event.seq
                        )));
                    }
                },
                RESULT_KIND => match event.data::<Outcome>() {
                    // Only the outputs of a turn still without its results are of use.
                    Ok(outcome)
                        if entries.last().is_some_and(|last| {
                            last.seq == outcome.turn && last.role == Role::Model
                        }) =>
                    {
                        outcomes.insert(outcome.index, outcome);
                    }
                    Ok(_) => {}
                    Err(error) => {
                        failure = Some(AgentError::Conversation(format!(
                            "event {}: {error}",
                            event.seq
                        )));
                    }
                },
                COMPACTION_KIND => match event.data::<Compacted>() {
                    Ok(compacted) => {
                        let dropped: HashSet<u64> = compacted.dropped.into_iter().collect();
                        entries.retain(|entry: &Entry| !dropped.contains(&entry.seq));
                    }
                    Err(error) => {
                        failure = Some(AgentError::Conversation(format!(
                            "event {}: {error}",
                            event.seq
                        )));
                    }
                },
                _ => {}
            }
        })?;
        if let Some(failure) = failure {
            return Err(failure);
        }
        Ok(Conversation {
            provider,
            session,
            entries,
            outcomes,
        })
    }

    /// The provider the conversation is held with.
    pub fn provider(&self) -> Provider {
        self.provider
    }

    /// The messages to send, in order.
    pub fn messages(&self) -> impl Iterator<Item = &Value> + Clone {
        self.entries.iter().flat_map(|entry| &entry.messages)
    }

    /// The messages in order, each with who it is from.
    pub fn roles(&self) -> impl Iterator<Item = (Role, &Value)> {
        self.entries.iter().flat_map(|entry| {
            entry
                .messages
                .iter()
                .map(move |message| (entry.role, message))
        })
    }

    /// The conversation's size in tokens, estimated as its JSON bytes / [`BYTES_PER_TOKEN`].
    pub fn estimated_tokens(&self) -> usize {
        self.bytes().div_ceil(BYTES_PER_TOKEN)
    }

    fn bytes(&self) -> usize {
        self.entries.iter().map(|entry| entry.bytes).sum()
    }

    /// Appends `messages` from `role`, to the session first.
    pub fn push(&mut self, role: Role, messages: Vec<Value>) -> Result<(), AgentError> {
        if messages.is_empty() {
            return Ok(());
        }
        let stored = Stored {
            provider: self.provider.name().to_owned(),
            role,
            messages,
        };
        let seq = self.session.append(MESSAGES_KIND, &stored)?;
        self.entries.push(Entry::new(seq, role, stored.messages));
        self.outcomes.clear();
        Ok(())
    }

    /// The seq of the last model turn's event, when the conversation ends with one.
    pub fn last_model_seq(&self) -> Option<u64> {
        self.entries
            .last()
            .filter(|entry| entry.role == Role::Model)
            .map(|entry| entry.seq)
    }

    /// The indices of the last model turn's calls whose outputs were recorded
    /// ([`Conversation::record`]).
    pub fn recorded(&self) -> Vec<usize> {
        self.outcomes.keys().copied().collect()
    }

    /// Records the output of the last model turn's call at `index`, as soon as it has it: a
    /// session resumed before the turn's results are pushed answers the call with it
    /// ([`Conversation::unanswered`]). Called from any thread, in any order.
    pub fn record(
        &self,
        index: usize,
        call: &WireCall,
        output: &ToolOutput,
    ) -> Result<(), AgentError> {
        let Some(turn) = self
            .entries
            .last()
            .filter(|entry| entry.role == Role::Model)
        else {
            return Ok(());
        };
        self.session.append(
            RESULT_KIND,
            &Outcome {
                turn: turn.seq,
                index,
                id: call.id.clone(),
                text: output.text.clone(),
                is_error: output.is_error,
            },
        )?;
        Ok(())
    }

    /// Appends a person's prompt.
    pub fn push_prompt(&mut self, text: &str) -> Result<(), AgentError> {
        self.push(Role::Prompt, vec![user_message(self.provider, text)])
    }

    /// The model's last turn when its calls have no results yet (a host stopped between
    /// recording the turn and its results), read back from its messages, with an output for
    /// each call: the one [`Conversation::record`] recorded, else `Error: ` [`INTERRUPTED`].
    pub fn unanswered(&self) -> Result<Option<(ModelTurn, Vec<ToolOutput>)>, AgentError> {
        let Some(last) = self
            .entries
            .last()
            .filter(|entry| entry.role == Role::Model)
        else {
            return Ok(None);
        };
        let response = match self.provider {
            Provider::OpenAiResponses => serde_json::json!({ "output": last.messages }),
            Provider::Anthropic => serde_json::json!({
                "content": last.messages.first().and_then(|message| message.get("content"))
            }),
            Provider::Gemini => {
                serde_json::json!({ "candidates": [{ "content": last.messages.first() }] })
            }
            _ => serde_json::json!({ "choices": [{ "message": last.messages.first() }] }),
        };
        let turn = self
            .provider
            .read_response(&response.to_string())
            .map_err(|error| AgentError::Conversation(format!("event {}: {error}", last.seq)))?;
        if turn.calls.is_empty() {
            return Ok(None);
        }
        let outputs = turn
            .calls
            .iter()
            .enumerate()
            .map(|(index, call)| match self.outcomes.get(&index) {
                Some(outcome) if outcome.id == call.id => {
                    let mut output = ToolOutput::success(outcome.text.clone());
                    output.is_error = outcome.is_error;
                    output
                }
                _ => ToolOutput::error(INTERRUPTED),
            })
            .collect();
        Ok(Some((turn, outputs)))
    }

    /// Compacts the conversation when it (with `fixed_tokens` more sent with every request,
    /// such as the tools' definitions) is estimated past `budget` tokens: whole groups of
    /// messages are dropped, oldest first, until it fits three quarters of the budget — a model
    /// turn always with its results, never the first prompt, the latest prompt or the latest
    /// group — and the todo list is restated after what is kept
    /// (`spec/todo_restatement.md`). The compaction and the restatement are appended to the
    /// session, so a resumed session sends what this one would.
    ///
    /// `None` when the conversation fits, or nothing can be dropped.
    pub fn compact(
        &mut self,
        budget: usize,
        fixed_tokens: usize,
    ) -> Result<Option<Compaction>, AgentError> {
        let tokens_before = self.estimated_tokens();
        if tokens_before + fixed_tokens <= budget {
            return Ok(None);
        }
        let target = (budget * 3 / 4)
            .saturating_sub(fixed_tokens)
            .saturating_mul(BYTES_PER_TOKEN);
        let sizes: Vec<(Role, usize)> = self
            .entries
            .iter()
            .map(|entry| (entry.role, entry.bytes))
            .collect();
        let drop = plan(&sizes, target);
        if drop.is_empty() {
            return Ok(None);
        }
        let dropped_messages = drop
            .iter()
            .map(|&index| self.entries[index].messages.len())
            .sum();
        let dropped: Vec<u64> = drop.iter().map(|&index| self.entries[index].seq).collect();
        let restatement = tool_todo::restatement(&self.session);
        let restatement_bytes = restatement.as_ref().map_or(0, |text| {
            message_bytes(&[user_message(self.provider, text)])
        });
        let kept_bytes = self.bytes()
            - drop
                .iter()
                .map(|&index| self.entries[index].bytes)
                .sum::<usize>();
        let tokens_after = (kept_bytes + restatement_bytes).div_ceil(BYTES_PER_TOKEN);
        self.session.append(
            COMPACTION_KIND,
            &Compacted {
                dropped: dropped.clone(),
                tokens_before,
                tokens_after,
            },
        )?;
        let dropped: HashSet<u64> = dropped.into_iter().collect();
        self.entries.retain(|entry| !dropped.contains(&entry.seq));
        let restated = restatement.is_some();
        if let Some(text) = restatement {
            self.push(Role::Restatement, vec![user_message(self.provider, &text)])?;
        }
        Ok(Some(Compaction {
            dropped_messages,
            tokens_before,
            tokens_after,
            restated,
        }))
    }
}

impl Entry {
    fn new(seq: u64, role: Role, messages: Vec<Value>) -> Self {
        Entry {
            seq,
            role,
            bytes: message_bytes(&messages),
            messages,
        }
    }
}

fn message_bytes(messages: &[Value]) -> usize {
    messages
        .iter()
        .map(|message| serde_json::to_string(message).map_or(0, |text| text.len() + 1))
        .sum()
}

/// The entries to drop (indices, ascending) so the rest is at most `target` bytes.
///
/// Entries group into units that are kept or dropped whole: a model turn with the results
/// after it, a prompt, a restatement. Kept always: the first unit when it is a prompt (the
/// task), the latest prompt's unit (what is being answered), the last unit. Restatements are
/// always dropped (a new one follows the compaction); then the oldest units, until the rest
/// fits.
fn plan(entries: &[(Role, usize)], target: usize) -> Vec<usize> {
    let mut units: Vec<Range<usize>> = Vec::new();
    for (index, (role, _)) in entries.iter().enumerate() {
        match (role, units.last_mut()) {
            (Role::Results, Some(unit)) if entries[unit.start].0 == Role::Model => {
                unit.end = index + 1;
            }
            _ => units.push(index..index + 1),
        }
    }
    let size = |unit: &Range<usize>| entries[unit.clone()].iter().map(|(_, b)| b).sum::<usize>();
    let first_prompt = units
        .first()
        .filter(|unit| entries[unit.start].0 == Role::Prompt)
        .map(|unit| unit.start);
    let latest_prompt = units
        .iter()
        .rev()
        .find(|unit| entries[unit.start].0 == Role::Prompt)
        .map(|unit| unit.start);
    let last = units.last().map(|unit| unit.start);
    let protected = |unit: &Range<usize>| {
        [first_prompt, latest_prompt, last].contains(&Some(unit.start))
            && entries[unit.start].0 != Role::Restatement
    };
    let mut total: usize = entries.iter().map(|(_, bytes)| bytes).sum();
    let mut drop = vec![false; units.len()];
    for (index, unit) in units.iter().enumerate() {
        if entries[unit.start].0 == Role::Restatement {
            drop[index] = true;
            total -= size(unit);
        }
    }
    for (index, unit) in units.iter().enumerate() {
        if total <= target {
            break;
        }
        if !drop[index] && !protected(unit) {
            drop[index] = true;
            total -= size(unit);
        }
    }
    units
        .iter()
        .zip(drop)
        .filter(|(_, drop)| *drop)
        .flat_map(|(unit, _)| unit.clone())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::Role::{Model, Prompt, Restatement, Results};
    use super::*;

    #[test]
    fn a_model_turn_goes_with_its_results_and_the_prompts_stay() {
        let entries = [
            (Prompt, 10),
            (Model, 100),
            (Results, 100),
            (Model, 100),
            (Results, 100),
            (Prompt, 10),
            (Model, 100),
            (Results, 100),
            (Model, 100),
            (Results, 100),
        ];
        // Enough to drop two units: the oldest two turns go, each with its results.
        assert_eq!(plan(&entries, 550), [1, 2, 3, 4]);
        // Everything droppable goes; the first prompt, the latest prompt and the last turn stay.
        assert_eq!(plan(&entries, 0), [1, 2, 3, 4, 6, 7]);
        // Nothing to drop when it fits.
        assert_eq!(plan(&entries, 10_000), Vec::<usize>::new());
    }

    #[test]
    fn a_resumed_turn_is_answered_with_what_was_recorded_and_the_rest_interrupted() {
        let session = Session::in_memory();
        let provider = Provider::OpenAiChat;
        let call = |id: &str| {
            serde_json::json!({"id": id, "type": "function",
                               "function": {"name": "clock", "arguments": "{}"}})
        };
        let model = |ids: &[&str]| {
            vec![serde_json::json!({"role": "assistant", "content": null,
                 "tool_calls": ids.iter().map(|id| call(id)).collect::<Vec<_>>()})]
        };
        let mut conversation = Conversation::open(session.clone(), provider).unwrap();
        conversation.push_prompt("Hi").unwrap();
        // An earlier turn's outcome, answered since, is not taken for the last turn's.
        conversation.push(Role::Model, model(&["a"])).unwrap();
        let (turn, _) = conversation.unanswered().unwrap().unwrap();
        conversation
            .record(0, &turn.calls[0], &ToolOutput::success("old"))
            .unwrap();
        conversation
            .push(
                Role::Results,
                provider.results(&turn, &[ToolOutput::success("old")]),
            )
            .unwrap();
        conversation
            .push(Role::Model, model(&["b", "c", "d"]))
            .unwrap();
        let (turn, _) = conversation.unanswered().unwrap().unwrap();
        conversation
            .record(2, &turn.calls[2], &ToolOutput::error("refused"))
            .unwrap();
        conversation
            .record(0, &turn.calls[0], &ToolOutput::success("12:00"))
            .unwrap();
        let reopened = Conversation::open(session, provider).unwrap();
        let (_, outputs) = reopened.unanswered().unwrap().unwrap();
        let outputs: Vec<_> = outputs
            .iter()
            .map(|output| (output.text.as_str(), output.is_error))
            .collect();
        let interrupted = format!("Error: {INTERRUPTED}");
        assert_eq!(
            outputs,
            [
                ("12:00", false),
                (interrupted.as_str(), true),
                ("Error: refused", true)
            ]
        );
    }

    #[test]
    fn restatements_are_always_replaced() {
        let entries = [
            (Prompt, 10),
            (Model, 50),
            (Results, 50),
            (Restatement, 30),
            (Model, 50),
            (Results, 50),
        ];
        assert_eq!(plan(&entries, 10_000), [3]);
        assert_eq!(plan(&entries, 100), [1, 2, 3]);
    }

    #[test]
    fn no_drop_ever_splits_a_call_from_its_result() {
        // Every shape of conversation up to 7 entries and every target: a dropped model turn
        // takes its results, and a kept one keeps them.
        let roles = [Prompt, Model, Results, Restatement];
        for len in 1..=7u32 {
            for shape in 0..4usize.pow(len) {
                let entries: Vec<(Role, usize)> = (0..len)
                    .map(|i| (roles[shape / 4usize.pow(i) % 4], 10 + i as usize))
                    .collect();
                for target in (0..=100).step_by(7) {
                    let drop = plan(&entries, target);
                    for (index, (role, _)) in entries.iter().enumerate() {
                        if *role == Results && index > 0 && entries[index - 1].0 == Model {
                            assert_eq!(
                                drop.contains(&index),
                                drop.contains(&(index - 1)),
                                "{entries:?} target {target}: {drop:?}"
                            );
                        }
                    }
                    if let Some(last) = entries.len().checked_sub(1)
                        && entries[last].0 != Restatement
                    {
                        assert!(!drop.contains(&last), "{entries:?}: {drop:?}");
                    }
                }
            }
        }
    }
}
