//! `toolhost`: the reference host for `#[tool]` plugins.
//!
//! - `toolhost schema [TOOL]` prints the normalized definitions as JSON.
//! - `toolhost call TOOL ARGS [--no-agent]` runs one call in a fresh agent session and prints the
//!   exact model-facing text.

use std::io::{self, Read, Write};
use std::process::ExitCode;

use clap::{Parser, Subcommand};
use tool_runtime::{Agent, Ctx, Exec, LoadError, Session};

/// The reference host for `#[tool]` plugins.
#[derive(Parser, Debug)]
#[command(name = "toolhost", version, about)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Print the tools' definitions (name, description, input schema) as JSON.
    Schema {
        /// Print only this tool's definition, as one object; without it, an array of all.
        tool: Option<String>,
    },
    /// Run one tool call in a fresh agent session and print the model-facing text.
    ///
    /// Exit status: 0 when the call succeeded, 1 when the tool answered with an error.
    Call {
        /// The tool's name.
        tool: String,
        /// The call's arguments as JSON, or `-` to read them from standard input.
        args: String,
        /// Make the call with no owning agent session.
        #[arg(long)]
        no_agent: bool,
    },
}

/// Loads the plugins this host serves.
fn load() -> Result<Ctx, LoadError> {
    let mut ctx = Ctx::new();
    ctx.plugin::<tool_todo::TodoWrite>()?;
    Ok(ctx)
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let ctx = match load() {
        Ok(ctx) => ctx,
        Err(error) => {
            eprintln!("toolhost: {error}");
            return ExitCode::FAILURE;
        }
    };
    match run(&ctx, cli.command) {
        Ok(code) => code,
        Err(error) => {
            eprintln!("toolhost: {error}");
            ExitCode::FAILURE
        }
    }
}

fn run(ctx: &Ctx, command: Command) -> io::Result<ExitCode> {
    let mut stdout = io::stdout().lock();
    match command {
        Command::Schema { tool: None } => {
            let all: Vec<_> = ctx.tools.definitions().map(|d| d.to_json()).collect();
            writeln!(stdout, "{}", pretty(&serde_json::Value::Array(all)))?;
        }
        Command::Schema { tool: Some(name) } => match ctx.tools.get(&name) {
            Some(tool) => writeln!(stdout, "{}", pretty(&tool.definition().to_json()))?,
            None => {
                let available: Vec<_> = ctx.tools.names().collect();
                eprintln!(
                    "toolhost: unknown tool `{name}`; available tools: {}",
                    available.join(", ")
                );
                return Ok(ExitCode::from(2));
            }
        },
        Command::Call {
            tool,
            args,
            no_agent,
        } => {
            let args = if args == "-" {
                let mut text = String::new();
                io::stdin().read_to_string(&mut text)?;
                text
            } else {
                args
            };
            let exec = if no_agent {
                Exec::new()
            } else {
                Exec::for_agent(Agent::new("toolhost", Session::in_memory()))
            };
            let output = ctx.tools.call(&tool, &exec, &args).wait();
            writeln!(stdout, "{}", output.text)?;
            return Ok(if output.is_error {
                ExitCode::FAILURE
            } else {
                ExitCode::SUCCESS
            });
        }
    }
    Ok(ExitCode::SUCCESS)
}

fn pretty(value: &serde_json::Value) -> String {
    serde_json::to_string_pretty(value).expect("a JSON value serializes")
}
