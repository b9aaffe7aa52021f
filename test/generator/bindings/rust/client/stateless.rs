//! The stateless revision: server/discover, then tools/list and tools/call, each request
//! carrying its own _meta (protocol version, client info, client capabilities).
use crate::{downcast, summarize_call, summarize_tools, Client};
use serde_json::{json, Map, Value};

pub fn run(c: &mut Client, info: mcp::Implementation, summary: &mut Map<String, Value>) {
    let meta = || mcp::RequestMetaObject {
        io_modelcontextprotocol_protocol_version: mcp::PROTOCOL_VERSION.into(),
        io_modelcontextprotocol_client_info: Some(Box::new(info.clone())),
        ..Default::default()
    };
    let discovered: mcp::DiscoverResult = downcast("server/discover", c.request("server/discover", &mcp::RequestParams { meta: Box::new(meta()), ..Default::default() }));
    summary.insert(
        "discover".into(),
        json!({
            "type": "DiscoverResult",
            "versions": discovered.supported_versions,
            "resultType": discovered.result_type,
            "tools": discovered.capabilities.tools.is_some(),
        }),
    );

    let list = mcp::PaginatedRequestParams { meta: Box::new(meta()), ..Default::default() };
    let tools: mcp::ListToolsResult = downcast("tools/list", c.request("tools/list", &list));
    summarize_tools(summary, &tools);

    let mut arguments = std::collections::BTreeMap::new();
    arguments.insert("text".to_string(), Value::from("hello from rust"));
    let call = mcp::CallToolRequestParams { meta: Box::new(meta()), name: "echo".into(), arguments: Some(arguments), ..Default::default() };
    let called: mcp::CallToolResult = downcast("tools/call", c.request("tools/call", &call));
    summarize_call(summary, &called);
}
