//! `conformance-host`: the conformance suite's fixture tools behind the framework's host
//! command line (`conformance-host mcp --http 127.0.0.1:0`).

use std::process::ExitCode;

use conformance_host::*;

fn main() -> ExitCode {
    let dynamic = match json_schema_2020_12_tool() {
        Ok(tool) => tool,
        Err(error) => {
            eprintln!("conformance-host: {error}");
            return ExitCode::FAILURE;
        }
    };
    let (fixed, templates) = resources();
    let mut host = tool_host::Host::new("conformance-host")
        .about("The MCP conformance suite's fixture tools, served by the framework.")
        .plugin::<TestSimpleText>()
        .plugin::<TestImageContent>()
        .plugin::<TestAudioContent>()
        .plugin::<TestEmbeddedResource>()
        .plugin::<TestMultipleContentTypes>()
        .plugin::<TestToolWithProgress>()
        .plugin::<TestToolWithLogging>()
        .plugin::<TestErrorHandling>()
        .plugin::<PurgeCache>()
        .plugin::<TestElicitation>()
        .plugin::<TestElicitationSep1034Defaults>()
        .plugin::<TestElicitationSep1330Enums>()
        .plugin::<TestSampling>()
        .plugin::<TestInputRequiredResultElicitation>()
        .plugin::<TestInputRequiredResultSampling>()
        .plugin::<TestInputRequiredResultListRoots>()
        .plugin::<TestInputRequiredResultRequestState>()
        .plugin::<TestInputRequiredResultMultipleInputs>()
        .plugin::<TestInputRequiredResultMultiRound>()
        .plugin::<TestInputRequiredResultTamperedState>()
        .plugin::<TestInputRequiredResultCapabilities>()
        .plugin::<Greet>()
        .plugin::<SlowCompute>()
        .plugin::<FailingJob>()
        .plugin::<ProtocolErrorJob>()
        .plugin::<ConfirmDelete>()
        .plugin::<MultiInput>()
        .plugin::<TestToolWithTask>()
        .plugin::<TestCustomHeader>()
        .plugin::<TestMissingCapability>()
        .plugin::<TouchWatchedResource>()
        .plugin::<TestReconnection>()
        .resource_changes(tool_runtime::ResourceChanges::default())
        .tool(dynamic);
    for resource in fixed {
        host = host.resource(resource);
    }
    for template in templates {
        host = host.resource_template(template);
    }
    for prompt in prompts() {
        host = host.prompt(prompt);
    }
    host.main()
}
