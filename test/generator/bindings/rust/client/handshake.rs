//! A handshake revision: initialize, notifications/initialized, tools/list, tools/call.
use crate::{downcast, summarize_call, summarize_tools, Client};
use serde_json::{json, Map, Value};

pub fn run(c: &mut Client, info: mcp::Implementation, summary: &mut Map<String, Value>) {
    let params = mcp::InitializeRequestParams { protocol_version: mcp::PROTOCOL_VERSION.into(), client_info: Box::new(info), ..Default::default() };
    let init: mcp::InitializeResult = downcast("initialize", c.request("initialize", &params));
    summary.insert("initialize".into(), json!({ "type": "InitializeResult", "protocolVersion": init.protocol_version, "server": init.server_info.name }));
    c.send(&mcp::JSONRPCNotification { method: "notifications/initialized".into(), ..Default::default() });

    let tools: mcp::ListToolsResult = downcast("tools/list", c.request("tools/list", &mcp::PaginatedRequestParams::default()));
    summarize_tools(summary, &tools);

    let mut arguments = std::collections::BTreeMap::new();
    arguments.insert("text".to_string(), Value::from("hello from rust"));
    let call = mcp::CallToolRequestParams { name: "echo".into(), arguments: Some(arguments), ..Default::default() };
    let called: mcp::CallToolResult = downcast("tools/call", c.request("tools/call", &call));
    summarize_call(summary, &called);
}
