use tool_runtime::tool;

#[derive(serde::Deserialize)]
struct Point {
    x: i32,
}

/// Reads a point.
#[tool]
fn locate(
    /// Where.
    point: Point,
) -> String {
    point.x.to_string()
}

fn main() {}
