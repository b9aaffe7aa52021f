// Uses the bindings as an application would (see ../csharp.test.ts): JsonConvert reads a real
// tools/list result (argument 1: its JSON-RPC line) into ListToolsResult and writes it back, and
// refuses a broken one naming the path; ToJson() refuses values the decoder would refuse and
// keeps an explicit null. Prints one JSON object.
using System;
using System.Collections.Generic;
using System.IO;
using System.Text;
using Newtonsoft.Json;
using Newtonsoft.Json.Linq;
using mcpbinding;

public static class Features
{
    public static void Main(string[] args)
    {
        var output = new JObject();
        var line = McpJson.Parse(File.ReadAllText(args[0], Encoding.UTF8));
        var resultText = McpJson.Write(line["result"]);

        var tools = JsonConvert.DeserializeObject<ListToolsResult>(resultText);
        var names = new JArray();
        foreach (var t in tools.Tools)
            names.Add(t.Name);
        output["mapperTools"] = names;
        output["mapperWritten"] = JsonConvert.SerializeObject(tools);

        var broken = McpJson.Parse(resultText);
        broken["tools"][0]["inputSchema"]["type"] = "array";
        try
        {
            JsonConvert.DeserializeObject<ListToolsResult>(McpJson.Write(broken));
            output["mapperRefusal"] = "accepted";
        }
        catch (JsonSerializationException e)
        {
            output["mapperRefusal"] = e.InnerException is DecodeException ? e.InnerException.Message : e.ToString();
        }

        var refusals = new JArray();
        var attempts = new List<Action>
        {
            () => new CallToolResult { Content = new List<ContentBlock> { new TextContent() } }.ToJson(),
            () => new CallToolResult
            {
                Content = new List<ContentBlock> { new TextContent { Text = "hi", Annotations = new Annotations { Priority = 2.0 } } },
            }.ToJson(),
            () => new LoggingMessageNotificationParams { Level = "verbose", Data = "x" }.ToJson(),
            () => new CallToolResult { Content = new List<ContentBlock> { null } }.ToJson(),
        };
        foreach (var attempt in attempts)
        {
            try
            {
                attempt();
                refusals.Add("accepted");
            }
            catch (EncodeException e)
            {
                refusals.Add((e.Path.Length == 0 ? "(root)" : e.Path) + ": " + e.Reason);
            }
        }
        output["encodeRefusals"] = refusals;

        var withNull = new Error { Code = -32000, Message = "failed", Data = JValue.CreateNull() };
        output["explicitNull"] = McpJson.Write(withNull.ToJson());
        Console.WriteLine(McpJson.Write(output));
    }
}
