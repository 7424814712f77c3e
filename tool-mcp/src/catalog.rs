//! The host's resources and prompts as MCP serves them: `resources/list`, `resources/templates/list`,
//! `resources/read`, `prompts/list`, `prompts/get` and `completion/complete`.

use std::collections::BTreeMap;

use base64::Engine as _;
use base64::prelude::BASE64_STANDARD;
use rmcp::ErrorData;
use rmcp::model::{
    CacheScope, CompleteRequestParams, CompleteResult, CompletionInfo, ContentBlock,
    GetPromptRequestParams, GetPromptResult, ListPromptsResult, ListResourceTemplatesResult,
    ListResourcesResult, PromptMessage, ReadResourceResult, Reference, ResourceContents, Role,
};
use tool_runtime::{Body, Ctx, EmbeddedResource, PromptContent, PromptError, ReadError};

/// How long a client may keep a listing: the host's resources, templates and prompts are fixed
/// while it runs, and the same for every caller.
const LISTING_TTL_MS: u64 = 300_000;

/// The resources, as `resources/list` lists them.
pub(crate) fn resources(ctx: &Ctx) -> ListResourcesResult {
    let listed = ctx
        .resources
        .list()
        .iter()
        .map(|resource| {
            let about = resource.about();
            let mut listed = rmcp::model::Resource::new(resource.uri(), resource.name());
            listed.title = about.title.clone();
            listed.description = about.description.clone();
            listed.mime_type = about.mime_type.clone();
            listed
        })
        .collect();
    ListResourcesResult::with_all_items(listed)
        .with_ttl_ms(LISTING_TTL_MS)
        .with_cache_scope(CacheScope::Public)
}

/// The templates, as `resources/templates/list` lists them.
pub(crate) fn templates(ctx: &Ctx) -> ListResourceTemplatesResult {
    let listed = ctx
        .resources
        .templates()
        .iter()
        .map(|template| {
            let about = template.about();
            let mut listed =
                rmcp::model::ResourceTemplate::new(template.template(), template.name());
            listed.title = about.title.clone();
            listed.description = about.description.clone();
            listed.mime_type = about.mime_type.clone();
            listed
        })
        .collect();
    ListResourceTemplatesResult::with_all_items(listed)
        .with_ttl_ms(LISTING_TTL_MS)
        .with_cache_scope(CacheScope::Public)
}

/// `resources/read` of `uri`: its contents; for a URI no resource is at, `-32602` with the URI
/// in `data` (SEP-2164); for a reader that failed, an internal error saying why. A read is not
/// to be cached: a resource may be computed on each read.
pub(crate) fn read(ctx: &Ctx, uri: &str) -> Result<ReadResourceResult, ErrorData> {
    match ctx.resources.read(uri) {
        Ok(contents) => {
            let mut result = ReadResourceResult::new(contents.iter().map(contents_of).collect());
            result.ttl_ms = Some(0);
            result.cache_scope = Some(CacheScope::Private);
            Ok(result)
        }
        Err(error @ ReadError::NotFound(_)) => Err(ErrorData::invalid_params(
            error.to_string(),
            Some(serde_json::json!({ "uri": uri })),
        )),
        Err(error) => Err(ErrorData::internal_error(error.to_string(), None)),
    }
}

/// The prompts, as `prompts/list` lists them.
pub(crate) fn prompts(ctx: &Ctx) -> ListPromptsResult {
    let listed = ctx
        .prompts
        .list()
        .iter()
        .map(|prompt| {
            let arguments: Vec<rmcp::model::PromptArgument> = prompt
                .arguments()
                .iter()
                .map(|argument| {
                    let mut listed = rmcp::model::PromptArgument::new(argument.name())
                        .with_required(argument.required());
                    listed.description = argument.description().map(str::to_owned);
                    listed
                })
                .collect();
            let mut listed = rmcp::model::Prompt::new(
                prompt.name(),
                prompt.description_text(),
                (!arguments.is_empty()).then_some(arguments),
            );
            listed.title = prompt.title_text().map(str::to_owned);
            listed
        })
        .collect();
    ListPromptsResult::with_all_items(listed)
        .with_ttl_ms(LISTING_TTL_MS)
        .with_cache_scope(CacheScope::Public)
}

/// `prompts/get`: the prompt's messages, its arguments each a string; a prompt that does not
/// exist, an argument missing, unknown or not a string is `-32602` saying which.
pub(crate) fn get(
    ctx: &Ctx,
    request: &GetPromptRequestParams,
) -> Result<GetPromptResult, ErrorData> {
    let args = arguments_of(request)?;
    answer(ctx, request, ctx.prompts.get(&request.name, &args))
}

/// `prompts/get` of a prompt that asks ([`tool_runtime::Prompt::asking`]), its questions
/// through `ask`.
pub(crate) async fn get_asking(
    ctx: &Ctx,
    request: &GetPromptRequestParams,
    ask: tool_runtime::Ask,
) -> Result<GetPromptResult, ErrorData> {
    let args = arguments_of(request)?;
    let got = ctx.prompts.get_asking(&request.name, &args, ask).await;
    answer(ctx, request, got)
}

/// A request's arguments, each a string.
fn arguments_of(request: &GetPromptRequestParams) -> Result<BTreeMap<String, String>, ErrorData> {
    let mut args = BTreeMap::new();
    for (name, value) in request.arguments.iter().flatten() {
        let Some(text) = value.as_str() else {
            return Err(ErrorData::invalid_params(
                format!(
                    "argument {} of prompt {} must be a string",
                    tool_runtime::text::quote(name),
                    tool_runtime::text::quote(&request.name)
                ),
                None,
            ));
        };
        args.insert(name.clone(), text.to_owned());
    }
    Ok(args)
}

/// The answer to `prompts/get` of `request` that `got` makes.
fn answer(
    ctx: &Ctx,
    request: &GetPromptRequestParams,
    got: Result<Vec<tool_runtime::PromptMessage>, PromptError>,
) -> Result<GetPromptResult, ErrorData> {
    match got {
        Ok(messages) => {
            let messages = messages
                .into_iter()
                .map(|message| {
                    let role = match message.role {
                        tool_runtime::Role::User => Role::User,
                        tool_runtime::Role::Assistant => Role::Assistant,
                    };
                    PromptMessage::new(role, block_of(message.content))
                })
                .collect();
            let mut result = GetPromptResult::new(messages);
            result.description = ctx
                .prompts
                .list()
                .iter()
                .find(|prompt| prompt.name() == request.name)
                .and_then(|prompt| prompt.description_text().map(str::to_owned));
            Ok(result)
        }
        Err(error @ PromptError::Failed(..)) => {
            Err(ErrorData::internal_error(error.to_string(), None))
        }
        Err(error) => Err(ErrorData::invalid_params(error.to_string(), None)),
    }
}

/// `completion/complete`: the values a prompt's argument may take (at most 100, the rest
/// counted); none for a resource template's variable.
pub(crate) fn complete(ctx: &Ctx, request: &CompleteRequestParams) -> CompleteResult {
    let values = match &request.r#ref {
        Reference::Prompt(prompt) => ctx.prompts.complete(
            &prompt.name,
            &request.argument.name,
            &request.argument.value,
        ),
        _ => Vec::new(),
    };
    let total = values.len();
    let shown: Vec<String> = values
        .into_iter()
        .take(CompletionInfo::MAX_VALUES)
        .collect();
    let more = total > shown.len();
    let completion =
        CompletionInfo::with_pagination(shown, u32::try_from(total).ok(), more).unwrap_or_default();
    CompleteResult::new(completion)
}

/// A resource's contents as MCP carries them.
pub(crate) fn contents_of(resource: &EmbeddedResource) -> ResourceContents {
    match resource.body() {
        Body::Text(text) => ResourceContents::TextResourceContents {
            uri: resource.uri().to_owned(),
            mime_type: Some(resource.mime_type().to_owned()),
            text: text.clone(),
            meta: None,
        },
        Body::Blob(data) => ResourceContents::BlobResourceContents {
            uri: resource.uri().to_owned(),
            mime_type: Some(resource.mime_type().to_owned()),
            blob: BASE64_STANDARD.encode(data),
            meta: None,
        },
    }
}

/// A prompt message's content as an MCP content block.
fn block_of(content: PromptContent) -> ContentBlock {
    match content {
        PromptContent::Text(text) => ContentBlock::text(text),
        PromptContent::Image(image) => {
            ContentBlock::image(BASE64_STANDARD.encode(image.data()), image.mime_type())
        }
        PromptContent::Audio(audio) => {
            ContentBlock::audio(BASE64_STANDARD.encode(audio.data()), audio.mime_type())
        }
        PromptContent::Resource(resource) => ContentBlock::resource(contents_of(&resource)),
    }
}
