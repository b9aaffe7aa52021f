//! Decodes every case of cases.json as its type (a case with a method: as that client request's
//! result, through the method map, re-encoded as the type it decoded as) and re-encodes it (see
//! ../own.ts).
//! Usage: roundtrip <cases.json> <results.json>. Only the bindings and serde_json.
use serde_json::{json, Value};
use std::fs;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let cases: Vec<Value> = serde_json::from_str(&fs::read_to_string(&args[1]).expect("cases")).expect("cases JSON");
    let mut results = Vec::new();
    for case in &cases {
        if let Some(method) = case["method"].as_str() {
            let info = mcp::find_request(mcp::CLIENT_REQUESTS, method).expect("client request");
            match (info.decode_result)(&case["data"]) {
                Err(e) => results.push(json!({ "path": e.path, "message": e.message })),
                Ok(decoded) => match mcp::round_trip(decoded.type_name, &case["data"]).expect("result type") {
                    Ok(v) => results.push(json!({ "ok": v, "decoded": decoded.type_name })),
                    Err(e) => results.push(json!({ "path": e.path, "message": e.message })),
                },
            }
            continue;
        }
        let type_name = case["type"].as_str().expect("type");
        match mcp::round_trip(type_name, &case["data"]) {
            None => panic!("no type {}", type_name),
            Some(Ok(v)) => results.push(json!({ "ok": v })),
            Some(Err(e)) => results.push(json!({ "path": e.path, "message": e.message })),
        }
    }
    fs::write(&args[2], serde_json::to_string(&results).expect("encode")).expect("write results");
}
