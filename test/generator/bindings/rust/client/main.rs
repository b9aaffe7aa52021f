//! A small MCP client over stdio, written with the bindings and serde_json only (built with
//! the feature `handshake` or `stateless`). Usage: client <server command...>. By the
//! revision's lifecycle:
//! - handshake: initialize, notifications/initialized, tools/list, tools/call echo;
//! - stateless: server/discover, tools/list and tools/call echo, each request with its own _meta.
//!
//! Every message sent is built from the binding's structs, every reply decoded as a
//! JSONRPCMessage, then its result through the method map (CLIENT_REQUESTS); prints one JSON
//! summary line.
use mcp::JSONRPCMessage;
use serde_json::{json, Map, Value};
use std::any::Any;
use std::io::{BufRead, BufReader, Write};
use std::process::{ChildStdin, ChildStdout, Command, Stdio};

#[cfg(feature = "handshake")]
mod handshake;
#[cfg(feature = "stateless")]
mod stateless;

pub struct Client {
    stdin: ChildStdin,
    stdout: BufReader<ChildStdout>,
    next_id: i64,
}

fn fail(message: String) -> ! {
    eprintln!("{}", message);
    std::process::exit(1)
}

/// The JSON object of a value (a request's params).
pub fn object<T: serde::Serialize>(v: &T) -> std::collections::BTreeMap<String, Value> {
    match serde_json::to_value(v).expect("encode") {
        Value::Object(o) => o.into_iter().collect(),
        other => fail(format!("params are not an object: {}", other)),
    }
}

impl Client {
    pub fn send<T: serde::Serialize>(&mut self, message: &T) {
        let line = serde_json::to_string(message).expect("encode");
        writeln!(self.stdin, "{}", line).and_then(|_| self.stdin.flush()).unwrap_or_else(|e| fail(format!("send: {}", e)));
    }

    /// Sends a request and returns its result, decoded as the method map says.
    pub fn request<T: serde::Serialize>(&mut self, method: &str, params: &T) -> Box<dyn Any> {
        self.next_id += 1;
        let id = Value::from(self.next_id);
        let info = mcp::find_request(mcp::CLIENT_REQUESTS, method).unwrap_or_else(|| fail(format!("no client request {}", method)));
        let message = mcp::JSONRPCRequest { id: id.clone(), method: method.to_string(), params: Some(object(params)), extra: Default::default() };
        if let Err(e) = mcp::round_trip(info.request_type, &serde_json::to_value(&message).expect("encode")).expect("request type") {
            fail(format!("{}: the request is not valid for its own type: {}", method, e));
        }
        self.send(&message);
        loop {
            let mut line = String::new();
            if self.stdout.read_line(&mut line).unwrap_or(0) == 0 {
                fail(format!("server closed the pipe before answering {}", method));
            }
            let reply: JSONRPCMessage = mcp::decode_str(&line).unwrap_or_else(|e| fail(format!("{}: reply: {}", method, e)));
            match reply {
                JSONRPCMessage::JSONRPCResultResponse(r) => {
                    if r.id != id {
                        continue;
                    }
                    let raw = serde_json::to_value(&r.result).expect("encode");
                    return (info.decode_result)(&raw).unwrap_or_else(|e| fail(format!("{}: result: {}", method, e))).value;
                }
                JSONRPCMessage::JSONRPCErrorResponse(r) => fail(format!("{}: error {}: {}", method, r.error.code, r.error.message)),
                JSONRPCMessage::JSONRPCRequest(_) | JSONRPCMessage::JSONRPCNotification(_) => continue,
            }
        }
    }
}

/// The result as its type, or a failure naming what it was.
pub fn downcast<T: 'static>(method: &str, result: Box<dyn Any>) -> T {
    match result.downcast::<T>() {
        Ok(x) => *x,
        Err(_) => fail(format!("{}: unexpected result type", method)),
    }
}

pub fn summarize_tools(summary: &mut Map<String, Value>, tools: &mcp::ListToolsResult) {
    let names: Vec<&str> = tools.tools.iter().map(|t| t.name.as_str()).collect();
    summary.insert("tools".into(), json!({ "type": "ListToolsResult", "names": names }));
}

pub fn summarize_call(summary: &mut Map<String, Value>, called: &mcp::CallToolResult) {
    let block_types: Vec<&str> = called
        .content
        .iter()
        .map(|b| match b {
            mcp::ContentBlock::TextContent(_) => "TextContent",
            mcp::ContentBlock::ImageContent(_) => "ImageContent",
            mcp::ContentBlock::AudioContent(_) => "AudioContent",
            mcp::ContentBlock::ResourceLink(_) => "ResourceLink",
            mcp::ContentBlock::EmbeddedResource(_) => "EmbeddedResource",
        })
        .collect();
    summary.insert("call".into(), json!({ "type": "CallToolResult", "content": called.content, "blockTypes": block_types }));
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let mut child = Command::new(&args[0])
        .args(&args[1..])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| fail(format!("start: {}", e)));
    let mut client = Client { stdin: child.stdin.take().expect("stdin"), stdout: BufReader::new(child.stdout.take().expect("stdout")), next_id: 0 };
    let info = mcp::Implementation { name: "rust-bindings-client".into(), version: "1.0.0".into(), ..Default::default() };
    let mut summary = Map::new();
    #[cfg(feature = "handshake")]
    handshake::run(&mut client, info, &mut summary);
    #[cfg(feature = "stateless")]
    stateless::run(&mut client, info, &mut summary);
    drop(client);
    let status = child.wait().unwrap_or_else(|e| fail(format!("server: {}", e)));
    if !status.success() {
        fail(format!("server exited {}", status));
    }
    println!("{}", Value::Object(summary));
}
