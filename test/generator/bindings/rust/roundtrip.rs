//! Decodes every case of cases.json as its type and re-encodes it (see ../own.ts).
//! Usage: roundtrip <cases.json> <results.json>. Only the bindings and serde_json.
use serde_json::{json, Value};
use std::fs;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let cases: Vec<Value> = serde_json::from_str(&fs::read_to_string(&args[1]).expect("cases")).expect("cases JSON");
    let mut results = Vec::new();
    for case in &cases {
        let type_name = case["type"].as_str().expect("type");
        match mcp::round_trip(type_name, &case["data"]) {
            None => panic!("no type {}", type_name),
            Some(Ok(v)) => results.push(json!({ "ok": v })),
            Some(Err(e)) => results.push(json!({ "path": e.path, "message": e.message })),
        }
    }
    fs::write(&args[2], serde_json::to_string(&results).expect("encode")).expect("write results");
}
