#!/usr/bin/env bash
# Compile time as tool authors feel it: a crate with 20 #[tool] functions, next to the same crate
# written with plain serde/schemars derives on hand-written argument structs. Reports the median
# of 3 clean builds of the crate itself (its dependencies built once beforehand) and of 3
# incremental rebuilds after touching one function.
#
#   bash benches/compile-time.sh
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
work="$root/target/compile-bench"
rm -rf "$work"
mkdir -p "$work"

write_crate() { # name kind
  local dir="$work/$1"
  mkdir -p "$dir/src"
  cat > "$dir/Cargo.toml" <<TOML
[package]
name = "$1"
version = "0.0.0"
edition = "2024"
publish = false

[workspace]

[dependencies]
tool-runtime = { path = "$root/tool-runtime" }
serde = { version = "1", features = ["derive"] }
schemars = "1"
serde_json = "1"
TOML
  {
    echo "#![allow(dead_code)]"
    echo "use schemars::JsonSchema;"
    echo "use serde::Deserialize;"
    for i in $(seq 1 20); do
      echo "#[derive(Deserialize, JsonSchema)] pub struct Item$i { pub name: String, pub count: Option<u32> }"
      if [ "$2" = tools ]; then
        cat <<RS
/// Tool number $i.
#[tool_runtime::tool]
pub fn tool_$i(
    /// The items.
    items: Vec<Item$i>,
    /// A limit.
    limit: Option<u16>,
) -> Result<String, tool_runtime::ToolError> {
    Ok(format!("{} {:?}", items.len(), limit))
}
RS
      else
        cat <<RS
/// Arguments of function number $i.
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Args$i {
    /// The items.
    pub items: Vec<Item$i>,
    /// A limit.
    pub limit: Option<u16>,
}
/// Function number $i.
pub fn tool_$i(args: &str) -> Result<String, String> {
    let args: Args$i = serde_json::from_str(args).map_err(|e| e.to_string())?;
    let _schema = schemars::schema_for!(Args$i);
    Ok(format!("{} {:?}", args.items.len(), args.limit))
}
RS
      fi
    done
  } > "$dir/src/lib.rs"
}

median() { sort -n | sed -n 2p; }

measure() { # name
  local dir="$work/$1" clean=() incremental=()
  (cd "$dir" && cargo build --quiet 2>/dev/null)
  for _ in 1 2 3; do
    (cd "$dir" && cargo clean --quiet -p "$1")
    local start=$(date +%s%N)
    (cd "$dir" && cargo build --quiet)
    clean+=($(( ($(date +%s%N) - start) / 1000000 )))
    sed -i "s/Tool number 7\\./Tool number 7 (touched $RANDOM)./; s/Function number 7\\./Function number 7 (touched $RANDOM)./" "$dir/src/lib.rs"
    start=$(date +%s%N)
    (cd "$dir" && cargo build --quiet)
    incremental+=($(( ($(date +%s%N) - start) / 1000000 )))
  done
  echo "$1 $(printf '%s\n' "${clean[@]}" | median) $(printf '%s\n' "${incremental[@]}" | median)"
}

write_crate tools tools
write_crate derives derives
read -r _ tools_clean tools_incr < <(measure tools)
read -r _ derives_clean derives_incr < <(measure derives)
printf '%-36s %8s %8s %6s\n' "compile time (median of 3)" "#[tool]" "derives" "ratio"
printf '%-36s %6s ms %6s ms %6.2f\n' "clean build of the crate" "$tools_clean" "$derives_clean" "$(echo "$tools_clean / $derives_clean" | bc -l)"
printf '%-36s %6s ms %6s ms %6.2f\n' "rebuild after touching one function" "$tools_incr" "$derives_incr" "$(echo "$tools_incr / $derives_incr" | bc -l)"
