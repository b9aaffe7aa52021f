package mcptest.REVISION_ID;

import com.fasterxml.jackson.databind.JsonMappingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import mcpbinding.Annotations;
import mcpbinding.CallToolResult;
import mcpbinding.ContentBlock;
import mcpbinding.DecodeException;
import mcpbinding.EncodeException;
import mcpbinding.ListToolsResult;
import mcpbinding.LoggingMessageNotificationParams;
import mcpbinding.McpJson;
import mcpbinding.TextContent;
import mcpbinding.Tool;

/**
 * Uses the bindings as an application would (see ../java.test.ts): an ObjectMapper reads a real
 * tools/list result (argument 1: its JSON-RPC line) into ListToolsResult and writes it back, and
 * refuses a broken one naming the path; toJson() refuses values the decoder would refuse and
 * keeps an explicit null. Prints one JSON object.
 */
public final class Features {
    public static void main(String[] args) throws Exception {
        ObjectNode out = McpJson.FACTORY.objectNode();
        ObjectMapper mapper = new ObjectMapper();
        JsonNode line = McpJson.parse(Files.readString(Path.of(args[0]), StandardCharsets.UTF_8));
        String resultText = McpJson.write(line.get("result"));

        ListToolsResult tools = mapper.readValue(resultText, ListToolsResult.class);
        ArrayNode names = out.putArray("mapperTools");
        for (Tool t : tools.getTools()) {
            names.add(t.getName());
        }
        out.put("mapperWritten", mapper.writeValueAsString(tools));

        ObjectNode broken = (ObjectNode) McpJson.parse(resultText);
        ((ObjectNode) broken.get("tools").get(0).get("inputSchema")).put("type", "array");
        try {
            mapper.readValue(McpJson.write(broken), ListToolsResult.class);
            out.put("mapperRefusal", "accepted");
        } catch (JsonMappingException e) {
            out.put("mapperRefusal", e.getCause() instanceof DecodeException ? e.getCause().getMessage() : e.toString());
        }

        ArrayNode refusals = out.putArray("encodeRefusals");
        List<Runnable> attempts = new ArrayList<>();
        attempts.add(() -> new CallToolResult().setContent(List.of(new TextContent())).toJson());
        attempts.add(() -> new CallToolResult()
                .setContent(List.of(new TextContent().setText("hi").setAnnotations(new Annotations().setPriority(2.0))))
                .toJson());
        attempts.add(() -> new LoggingMessageNotificationParams().setLevel("verbose")
                .setData(McpJson.FACTORY.textNode("x")).toJson());
        attempts.add(() -> new CallToolResult().setContent(Arrays.asList((ContentBlock) null)).toJson());
        for (Runnable attempt : attempts) {
            try {
                attempt.run();
                refusals.add("accepted");
            } catch (EncodeException e) {
                refusals.add((e.getPath().isEmpty() ? "(root)" : e.getPath()) + ": " + e.getReason());
            }
        }

        mcpbinding.Error withNull = new mcpbinding.Error().setCode(-32000L).setMessage("failed")
                .setData(McpJson.FACTORY.nullNode());
        out.put("explicitNull", McpJson.write(withNull.toJson()));
        System.out.println(McpJson.write(out));
    }
}
