//! Proves the tagged unions exhaustively matchable: the `match`es below have one arm per
//! variant the schema has and no wildcard, so a binding with one more variant does not
//! compile (E0004). Then decodes one message of each variant and checks the arm taken.
use mcp::{ContentBlock, JSONRPCMessage, SamplingMessageContentBlock};

fn content_block(b: &ContentBlock) -> &'static str {
    match b {
        ContentBlock::TextContent(_) => "text",
        ContentBlock::ImageContent(_) => "image",
        ContentBlock::AudioContent(_) => "audio",
        ContentBlock::ResourceLink(_) => "resource_link",
        ContentBlock::EmbeddedResource(_) => "resource",
    }
}

fn sampling_block(b: &SamplingMessageContentBlock) -> &'static str {
    match b {
        SamplingMessageContentBlock::TextContent(_) => "text",
        SamplingMessageContentBlock::ImageContent(_) => "image",
        SamplingMessageContentBlock::AudioContent(_) => "audio",
        SamplingMessageContentBlock::ToolUseContent(_) => "tool_use",
        SamplingMessageContentBlock::ToolResultContent(_) => "tool_result",
    }
}

fn message(m: &JSONRPCMessage) -> &'static str {
    match m {
        JSONRPCMessage::JSONRPCRequest(_) => "request",
        JSONRPCMessage::JSONRPCNotification(_) => "notification",
        JSONRPCMessage::JSONRPCResultResponse(_) => "result",
        JSONRPCMessage::JSONRPCErrorResponse(_) => "error",
    }
}

fn check(label: &str, got: &str, want: &str) {
    if got != want {
        eprintln!("{}: got {}, want {}", label, got, want);
        std::process::exit(1);
    }
}

fn main() {
    let blocks = [
        ("text", r#"{"type":"text","text":"a"}"#),
        ("image", r#"{"type":"image","data":"AA==","mimeType":"image/png"}"#),
        ("audio", r#"{"type":"audio","data":"AA==","mimeType":"audio/wav"}"#),
        ("resource_link", r#"{"type":"resource_link","uri":"file:///a","name":"a"}"#),
        ("resource", r#"{"type":"resource","resource":{"uri":"file:///a","text":"a"}}"#),
    ];
    for (want, text) in blocks {
        let b: ContentBlock = mcp::decode_str(text).expect("ContentBlock");
        check("ContentBlock", content_block(&b), want);
        let b2: ContentBlock = serde_json::from_str(text).expect("ContentBlock through serde");
        check("ContentBlock (serde)", content_block(&b2), want);
    }
    let sampling = [
        ("tool_use", r#"{"type":"tool_use","id":"1","name":"t","input":{}}"#),
        ("tool_result", r#"{"type":"tool_result","toolUseId":"1","content":[]}"#),
        ("text", r#"{"type":"text","text":"a"}"#),
    ];
    for (want, text) in sampling {
        let b: SamplingMessageContentBlock = mcp::decode_str(text).expect("SamplingMessageContentBlock");
        check("SamplingMessageContentBlock", sampling_block(&b), want);
    }
    let messages = [
        ("request", r#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#),
        ("notification", r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#),
        ("result", r#"{"jsonrpc":"2.0","id":1,"result":{"resultType":"complete"}}"#),
        ("error", r#"{"jsonrpc":"2.0","id":1,"error":{"code":-32601,"message":"no"}}"#),
    ];
    for (want, text) in messages {
        let m: JSONRPCMessage = mcp::decode_str(text).expect("JSONRPCMessage");
        check("JSONRPCMessage", message(&m), want);
    }
    // the checked encoder refuses what the decoder would refuse, at its path
    let mut t: mcp::TextContent = mcp::decode_str(r#"{"type":"text","text":"a","annotations":{"priority":0.5}}"#).expect("TextContent");
    mcp::encode(&t).expect("a valid TextContent encodes");
    if let Some(a) = t.annotations.as_mut() {
        a.priority = Some(2.0);
    }
    match mcp::encode(&t) {
        Err(e) => check("encode", &format!("{}: {}", e.path, e.message), "annotations.priority: must be <= 1"),
        Ok(v) => check("encode", &v.to_string(), "refused"),
    }
    println!("ContentBlock: 5 variants; SamplingMessageContentBlock: 5 variants; JSONRPCMessage: 4 variants");
}
