use schemars::JsonSchema;
use serde::Deserialize;
use tool_runtime::{Ctx, Exec, Tool, tool};

#[derive(Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
enum Unit {
    Celsius,
    Fahrenheit,
}

#[derive(Deserialize, JsonSchema)]
struct Reading {
    value: f64,
    unit: Unit,
}

#[derive(Deserialize, JsonSchema)]
struct Station {
    name: String,
    readings: Vec<Reading>,
}

/// Averages a station's readings.
#[tool(name = "average")]
fn average_readings(station: Station, unit: Option<Unit>) -> String {
    let to_c = |r: &Reading| match r.unit {
        Unit::Celsius => r.value,
        Unit::Fahrenheit => (r.value - 32.0) * 5.0 / 9.0,
    };
    let mean = station.readings.iter().map(to_c).sum::<f64>() / station.readings.len() as f64;
    let mean = match unit {
        Some(Unit::Fahrenheit) => mean * 9.0 / 5.0 + 32.0,
        _ => mean,
    };
    format!("{}: {mean:.1}", station.name)
}

fn main() {
    let schema = AverageReadings.definition().input_schema();
    assert_eq!(schema["required"], serde_json::json!(["station"]));
    let mut ctx = Ctx::new();
    ctx.plugin::<AverageReadings>().unwrap();
    let args = r#"{"station": {"name": "Oslo", "readings": [{"value": 10, "unit": "celsius"}, {"value": 68, "unit": "fahrenheit"}]}}"#;
    assert_eq!(ctx.tools.call("average", &Exec::new(), args).wait().text, "Oslo: 15.0");
}
